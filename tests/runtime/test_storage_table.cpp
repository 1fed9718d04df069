// The executor's storage table (runtime/exec/storage_table.hpp) against std::unordered_map:
// random inserts, finds and erases, with keys spread like heap addresses and keys crowded
// into a few home slots (long probe chains, where a deletion that does not shift the chain
// back loses entries), through growth and clear.
#include <QtTest>

#include <random>
#include <unordered_map>

#include "runtime/exec/storage_table.hpp"
#include "test_registry.hpp"

namespace test_storage_table {

using namespace fxl;

namespace {

const Storage* key(uint64_t address) { return reinterpret_cast<const Storage*>(static_cast<uintptr_t>(address)); }

}  // namespace

class TestStorageTable : public QObject
{
    Q_OBJECT

private slots:
    void matchesAMap_data()
    {
        QTest::addColumn<int>("keys");  // distinct addresses drawn from
        QTest::addColumn<int>("spacing");  // bytes between them (16: crowded homes; 4096: spread)
        QTest::addColumn<int>("live");  // entries the random walk keeps about
        QTest::newRow("spread, small") << 3000 << 4096 << 200;
        QTest::newRow("spread, near growth") << 4000 << 4096 << 1000;
        QTest::newRow("heap-like 64-byte blocks") << 6000 << 64 << 1500;
        QTest::newRow("16-byte neighbours") << 5000 << 16 << 2000;
    }
    void matchesAMap()
    {
        QFETCH(int, keys);
        QFETCH(int, spacing);
        QFETCH(int, live);
        exec::StorageTable<int> table;
        std::unordered_map<const Storage*, int> ref;
        std::mt19937_64 rng(static_cast<uint64_t>(keys) * 31 + static_cast<uint64_t>(spacing));
        auto pick = [&] { return key(0x7f0000000000ull + static_cast<uint64_t>(rng() % keys) * spacing); };
        for (int step = 0; step < 60000; ++step) {
            const Storage* k = pick();
            const bool grow = ref.size() < static_cast<size_t>(live) || rng() % 2 == 0;
            if (grow) {
                auto [v, added] = table.insert(k, step);
                auto [it, fresh] = ref.try_emplace(k, step);
                QCOMPARE(added, fresh);
                QCOMPARE(*v, it->second);
            } else {
                table.erase(k);
                ref.erase(k);
            }
            if (step % 1009 == 0) {  // every key the map holds is found with its value, no other
                for (const auto& [rk, rv] : ref) {
                    const int* v = table.find(rk);
                    QVERIFY2(v, qPrintable(QStringLiteral("step %1: an entry is lost").arg(step)));
                    QCOMPARE(*v, rv);
                }
                QCOMPARE(table.empty(), ref.empty());
            }
            const int* v = table.find(k);
            QCOMPARE(v != nullptr, ref.count(k) == 1);
        }
        for (int j = 0; j < keys; ++j) {
            const Storage* k = key(0x7f0000000000ull + static_cast<uint64_t>(j) * spacing);
            QCOMPARE(table.find(k) != nullptr, ref.count(k) == 1);
        }
        table.clear();
        QVERIFY(table.empty());
        for (const auto& [rk, rv] : ref) QVERIFY(!table.find(rk));
    }
};

FXL_TEST_APPLESS_MAIN(TestStorageTable)
}  // namespace test_storage_table
#include "test_storage_table.moc"
