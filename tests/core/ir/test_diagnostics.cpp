// Folding repeated diagnostics (core/ir/diagnostics.hpp): the kind key that says two
// diagnostics are one problem at two places, and the folded list the CLI prints.
#include <QtTest>

#include <string>
#include <vector>

#include "core/ir/diagnostics.hpp"
#include "test_registry.hpp"

namespace test_diagnostics {

using namespace fxl;

namespace {

Diagnostic warning(std::string message, int line = 0)
{
    return Diagnostic{Severity::Warning, "g.py", line, 0, std::move(message)};
}

}  // namespace

class TestDiagnostics : public QObject
{
    Q_OBJECT

private slots:
    void kind_data()
    {
        QTest::addColumn<QString>("message");
        QTest::addColumn<QString>("kind");
        auto row = [](const char* name, const char* message, const char* kind) {
            QTest::newRow(name) << QString::fromUtf8(message) << QString::fromUtf8(kind);
        };
        row("quoted name", "node '_tensor_constant12': no value in the constants file",
            "warning: node '*': no value in the constants file");
        row("double quotes", "compile id \"[0/1]\" has no artifacts", "warning: compile id \"*\" has no artifacts");
        row("numbers", "3 of 120 node(s) carry no value meta", "warning: # of # node(s) carry no value meta");
        row("digits in a bare name", "e.g. %arg12_1", "warning: e.g. %arg#_#");
        row("two quoted names", "'add_1' uses 'mm' before it is defined", "warning: '*' uses '*' before it is defined");
        row("quote inside a word is an apostrophe", "can't read 'x'", "warning: can't read '*'");
        row("unclosed quote kept", "missing ' in 'abc", "warning: missing ' in 'abc");
        row("quoted text with spaces", "annotation 'f32[2, 3]' not understood",
            "warning: annotation '*' not understood");
        row("empty quotes", "name '' is empty", "warning: name '*' is empty");
        row("no names", "no 'return' line", "warning: no '*' line");
    }

    void kind()
    {
        QFETCH(QString, message);
        QFETCH(QString, kind);
        QCOMPARE(QString::fromStdString(diagnosticKind(warning(message.toStdString()))), kind);
    }

    void kindSeparatesSeverities()
    {
        Diagnostic w = warning("node 'a': bad");
        Diagnostic e = w;
        e.severity = Severity::Error;
        QVERIFY(diagnosticKind(w) != diagnosticKind(e));
        // file and line are places, not kinds
        Diagnostic elsewhere = w;
        elsewhere.file = "other.py";
        elsewhere.line = 40;
        QCOMPARE(diagnosticKind(elsewhere), diagnosticKind(w));
    }

    void fold_data()
    {
        QTest::addColumn<int>("repeated");  // diagnostics of kind A, interleaved with one of kind B
        QTest::addColumn<int>("shownPerKind");
        QTest::addColumn<int>("expectedLines");
        QTest::addColumn<int>("expectedMore");  // moreLikeThis on A's last shown line
        QTest::newRow("640 folded to 3") << 640 << 3 << 4 << 637;
        QTest::newRow("4 folded to 3") << 4 << 3 << 4 << 1;
        QTest::newRow("3 not folded") << 3 << 3 << 4 << 0;
        QTest::newRow("1 not folded") << 1 << 3 << 2 << 0;
        QTest::newRow("verbose: all") << 640 << 0 << 641 << 0;
    }

    void fold()
    {
        QFETCH(int, repeated);
        QFETCH(int, shownPerKind);
        QFETCH(int, expectedLines);
        QFETCH(int, expectedMore);
        std::vector<Diagnostic> items;
        for (int i = 0; i < repeated; ++i) {
            items.push_back(warning("node '_tensor_constant" + std::to_string(i) + "': no value", i + 1));
            if (i == 1 || (repeated < 2 && i == 0)) items.push_back(warning("the graph has no output"));
        }
        const std::vector<FoldedDiagnostic> folded = foldDiagnostics(items, size_t(shownPerKind));
        QCOMPARE(int(folded.size()), expectedLines);
        // the order is kept, and the count of the left-out ones sits on the last one shown
        int lastLine = 0, more = 0, outputLines = 0;
        for (const FoldedDiagnostic& f : folded) {
            QVERIFY(f.diagnostic);
            if (f.diagnostic->message == "the graph has no output") {
                ++outputLines;
                QCOMPARE(f.moreLikeThis, size_t(0));
                continue;
            }
            QVERIFY(f.diagnostic->line > lastLine);
            lastLine = f.diagnostic->line;
            if (f.moreLikeThis) {
                QCOMPARE(more, 0);
                more = int(f.moreLikeThis);
                QCOMPARE(f.diagnostic->line, shownPerKind);
            }
        }
        QCOMPARE(outputLines, 1);
        QCOMPARE(more, expectedMore);
    }
};

FXL_TEST_APPLESS_MAIN(TestDiagnostics)
}  // namespace test_diagnostics
#include "test_diagnostics.moc"
