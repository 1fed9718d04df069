// The restricted unpickler (core/formats/pickle/pickle_reader.hpp): the snapshots of
// tests/data/snapshots as Python's pickle writes them (protocols 2, 4, 5) and as PyTorch's C++
// pickler does, read to the same values; integers of every width; the memo kept as sharing;
// deep nesting and a list that holds itself read without recursion; every opcode that names or
// calls Python code refused by name, and broken pickles refused with the byte.
#include <QtTest>

#include <deque>
#include <string>

#include "core/formats/pickle/pickle_reader.hpp"
#include "core/ir/diagnostics.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_pickle_reader {

using namespace fxl;
using pickle::Document;
using pickle::Kind;

namespace {

// A document views the bytes it was parsed from (strings are not copied): each test's bytes are
// kept for the life of the test program.
Document parseBytes(const QByteArray& b)
{
    static std::deque<QByteArray> kept;
    kept.push_back(b);
    const QByteArray& k = kept.back();
    return Document::parse({reinterpret_cast<const uint8_t*>(k.constData()), static_cast<size_t>(k.size())},
                           "t.pickle");
}

QByteArray proto2(const QByteArray& body) { return QByteArray("\x80\x02", 2) + body + QByteArray("."); }

}  // namespace

class TestPickleReader : public QObject
{
    Q_OBJECT

private slots:
    // the same snapshot from every writer: the same values where it matters
    void snapshotFiles_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("protocol");
        QTest::newRow("python protocol 2") << "step.p2.pickle" << 2;
        QTest::newRow("python protocol 4") << "step.p4.pickle" << 4;
        QTest::newRow("python protocol 5") << "step.p5.pickle" << 5;
        QTest::newRow("C++ pickler") << "step.cpp.pickle" << 2;
    }
    void snapshotFiles()
    {
        QFETCH(QString, file);
        QFETCH(int, protocol);
        const Document d = Document::read(fxltest::testDataPath("snapshots/" + file.toStdString()).string());
        QCOMPARE(d.protocol(), protocol);
        const auto root = d.root();
        QCOMPARE(d.kind(root), Kind::Dict);
        const auto traces = d.get(root, "device_traces");
        QVERIFY(traces);
        QCOMPARE(d.children(*traces).size(), size_t(2));
        const auto t0 = d.children(d.children(*traces)[0]);
        QCOMPARE(t0.size(), size_t(9));
        QCOMPARE(d.str(*d.get(t0[1], "action")), std::string_view("alloc"));
        QCOMPARE(d.toUInt(*d.get(t0[1], "addr")), uint64_t(0x7F0000000000));
        QCOMPARE(d.toInt(*d.get(t0[2], "size")), int64_t(2 << 20));
        // 2^63 + 4096: a 9-byte LONG1, above int64
        const auto seg1 = d.children(*d.get(root, "segments"))[1];
        const auto high = *d.get(seg1, "address");
        QCOMPARE(d.kind(high), Kind::UInt);
        QCOMPARE(d.toUInt(high), (uint64_t{1} << 63) + 4096);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, d.toInt(high));
        // a tuple, a negative number, a bool
        QCOMPARE(d.kind(*d.get(seg1, "segment_pool_id")), Kind::Tuple);
        QCOMPARE(d.toInt(*d.get(*d.get(root, "allocator_settings"), "max_split_size")), int64_t(-1));
        QCOMPARE(d.toBool(*d.get(seg1, "is_expandable")), false);
        // Python's pickle writes a frame list used twice once (the memo): one node
        const auto e1 = t0[1], e3 = t0[3];
        const bool shared = *d.get(e1, "frames") == *d.get(e3, "frames");
        QCOMPARE(shared, !file.contains("cpp"));  // the C++ writer memoizes strings only
    }

    // integers: every opcode, every width, sign extension
    void integers_data()
    {
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<int>("kind");
        QTest::addColumn<QString>("value");
        auto row = [](const char* name, QByteArray b, Kind k, const char* v) {
            QTest::newRow(name) << b << int(k) << QString(v);
        };
        row("BININT1", QByteArray("K\xff", 2), Kind::Int, "255");
        row("BININT2", QByteArray("M\x01\x02", 3), Kind::Int, "513");
        row("BININT negative", QByteArray("J\xfe\xff\xff\xff", 5), Kind::Int, "-2");
        row("LONG1 empty is 0", QByteArray("\x8a\x00", 2), Kind::Int, "0");
        row("LONG1 -1 in one byte", QByteArray("\x8a\x01\xff", 3), Kind::Int, "-1");
        row("LONG1 2^40", QByteArray("\x8a\x06\x00\x00\x00\x00\x00\x01", 8), Kind::Int, "1099511627776");
        row("LONG1 int64 min", QByteArray("\x8a\x08\x00\x00\x00\x00\x00\x00\x00\x80", 10), Kind::Int,
            "-9223372036854775808");
        row("LONG1 2^63 in 9 bytes", QByteArray("\x8a\x09\x00\x00\x00\x00\x00\x00\x00\x80\x00", 11), Kind::UInt,
            "9223372036854775808");
        row("LONG1 2^64-1", QByteArray("\x8a\x09\xff\xff\xff\xff\xff\xff\xff\xff\x00", 11), Kind::UInt,
            "18446744073709551615");
        row("LONG1 -2 padded to 10 bytes", QByteArray("\x8a\x0a\xfe\xff\xff\xff\xff\xff\xff\xff\xff\xff", 12),
            Kind::Int, "-2");
        row("LONG1 2^64: wider", QByteArray("\x8a\x09\x00\x00\x00\x00\x00\x00\x00\x00\x01", 11), Kind::BigInt, "9");
        row("LONG4", QByteArray("\x8b\x02\x00\x00\x00\x34\x12", 7), Kind::Int, "4660");
    }
    void integers()
    {
        QFETCH(QByteArray, body);
        QFETCH(int, kind);
        QFETCH(QString, value);
        const Document d = parseBytes(proto2(body));
        QCOMPARE(int(d.kind(d.root())), kind);
        if (kind == int(Kind::Int)) QCOMPARE(QString::number(d.toInt(d.root())), value);
        if (kind == int(Kind::UInt)) QCOMPARE(QString::number(d.toUInt(d.root())), value);
        if (kind == int(Kind::BigInt)) QCOMPARE(QString::number(d.str(d.root()).size()), value);
    }

    void floatsStringsAndBytes()
    {
        // BINFLOAT is big-endian
        const Document f = parseBytes(proto2(QByteArray("G\x3f\xf8\x00\x00\x00\x00\x00\x00", 9)));
        QCOMPARE(f.toDouble(f.root()), 1.5);
        const Document s = parseBytes(proto2(QByteArray("\x8c\x03"
                                                        "abc",
                                                        5)));
        QCOMPARE(s.str(s.root()), std::string_view("abc"));
        const Document b = parseBytes(proto2(QByteArray("C\x02\x00\xff", 4)));
        QCOMPARE(b.kind(b.root()), Kind::Bytes);
        QCOMPARE(b.str(b.root()).size(), size_t(2));
        // lists in several APPENDS batches keep their order; a dict from DICT
        const Document l = parseBytes(proto2(QByteArray("](K\x01K\x02"
                                                        "e(K\x03"
                                                        "e",
                                                        11)));
        const auto items = l.children(l.root());
        QCOMPARE(items.size(), size_t(3));
        QCOMPARE(l.toInt(items[2]), int64_t(3));
        const Document dd = parseBytes(proto2(QByteArray("(\x8c\x01kK\x07"
                                                         "d",
                                                         7)));
        QCOMPARE(dd.toInt(*dd.get(dd.root(), "k")), int64_t(7));
        QVERIFY(!dd.get(dd.root(), "x"));
    }

    // 200000 nested lists and a list that holds itself: read and freed without recursion
    void deepAndCyclic()
    {
        QByteArray deep("\x80\x04", 2);
        for (int i = 0; i < 200000; ++i) deep += "]";
        for (int i = 0; i < 199999; ++i) deep += "a";
        deep += ".";
        const Document d = parseBytes(deep);
        QCOMPARE(d.nodeCount(), size_t(200000));
        const Document c = parseBytes(proto2(QByteArray("]q\x00h\x00"
                                                        "a",
                                                        6)));
        QCOMPARE(c.children(c.root()).size(), size_t(1));
        QCOMPARE(c.children(c.root())[0], c.root());
    }

    // refused: by name for the opcodes that run code, by byte for broken pickles
    void refusals_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("message");
        const QByteArray p2("\x80\x02", 2);
        QTest::newRow("GLOBAL os.system") << p2 + QByteArray("cos\nsystem\n(S'id'\ntR.")
                                          << "at byte 2: opcode GLOBAL refused: it names or calls Python code";
        QTest::newRow("STACK_GLOBAL") << QByteArray("\x80\x04\x8c\x02os\x8c\x06system\x93.", 16)
                                      << "at byte 14: opcode STACK_GLOBAL refused";
        QTest::newRow("REDUCE") << p2 + QByteArray(")\x29R.", 4) << "at byte 4: opcode REDUCE refused";
        QTest::newRow("BUILD") << p2 + QByteArray("}}b.") << "at byte 4: opcode BUILD refused";
        QTest::newRow("NEWOBJ") << p2 + QByteArray(")\x29\x81.", 4) << "at byte 4: opcode NEWOBJ refused";
        QTest::newRow("INST") << p2 + QByteArray("(ios\nsystem\n.") << "at byte 3: opcode INST refused";
        QTest::newRow("OBJ") << p2 + QByteArray("(o.") << "at byte 3: opcode OBJ refused";
        QTest::newRow("BINPERSID") << p2 + QByteArray("K\x01Q.") << "at byte 4: opcode BINPERSID refused";
        QTest::newRow("EXT1") << p2 + QByteArray("\x82\x01.") << "at byte 2: opcode EXT1 refused";
        QTest::newRow("NEXT_BUFFER") << QByteArray("\x80\x05\x97.", 4) << "at byte 2: opcode NEXT_BUFFER refused";
        QTest::newRow("protocol 6") << QByteArray("\x80\x06N.", 4) << "at byte 0: pickle protocol 6 is newer than 5";
        QTest::newRow("text protocol") << QByteArray("I42\n.") << "at byte 0: opcode 0x49 is not read";
        QTest::newRow("no STOP") << p2 + QByteArray("N") << "at byte 3: the pickle ends without STOP";
        QTest::newRow("cut string") << p2
                + QByteArray("X\x05\x00\x00\x00"
                             "ab",
                             7) << "at byte 7: the pickle ends inside an opcode's argument (5 bytes wanted, 2 left)";
        QTest::newRow("huge length") << p2 + QByteArray("\x8d\xff\xff\xff\xff\xff\xff\xff\x7f.", 10)
                                     << "at byte 2: a length of 9223372036854775807 bytes, more than the file holds";
        QTest::newRow("memo never stored")
            << p2 + QByteArray("h\x07.") << "at byte 2: a memo reference to 7, which was never stored";
        QTest::newRow("two values at STOP") << p2 + QByteArray("NN.") << "at byte 4: STOP with 2 values on the stack";
        QTest::newRow("empty stack") << p2 + QByteArray("a.")
                                     << "at byte 2: an opcode that needs a value on an empty stack";
        QTest::newRow("APPEND on a dict") << p2 + QByteArray("}Na.") << "at byte 4: APPEND on a dict of 0";
        QTest::newRow("SETITEMS odd") << p2
                + QByteArray("}(N"
                             "u.") << "at byte 5: SETITEMS with an odd number of items";
        QTest::newRow("APPENDS without MARK")
            << p2 + QByteArray("]e.") << "at byte 3: an opcode that needs a MARK, with none";
        QTest::newRow("MARK left open") << p2 + QByteArray("(N.") << "at byte 4: STOP with 1 values on the stack";
    }
    void refusals()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, message);
        try {
            (void)parseBytes(bytes);
            QFAIL("accepted");
        } catch (const InputError& e) {
            QVERIFY2(QString::fromStdString(e.diagnostic().message).startsWith(message),
                     qPrintable(QString::fromStdString(e.diagnostic().message)));
            QCOMPARE(QString::fromStdString(e.diagnostic().file), QStringLiteral("t.pickle"));
        }
    }

    // every prefix of a real snapshot: an error naming a byte, never a crash
    void everyTruncation()
    {
        const QByteArray all =
            QByteArray::fromStdString(fxltest::readFile(fxltest::testDataPath("snapshots/step.p4.pickle")));
        QVERIFY(all.size() > 1000);
        for (qsizetype n = 0; n < all.size(); ++n) {
            try {
                (void)parseBytes(all.left(n));
                QFAIL(qPrintable(QStringLiteral("a prefix of %1 bytes was accepted").arg(n)));
            } catch (const InputError& e) {
                QVERIFY(e.diagnostic().message.starts_with("at byte "));
            }
        }
    }

    void missingFile() { QVERIFY_THROWS_EXCEPTION(InputError, Document::read("/nonexistent/fxlens/x.pickle")); }
};

FXL_TEST_APPLESS_MAIN(TestPickleReader)
}  // namespace test_pickle_reader
#include "test_pickle_reader.moc"
