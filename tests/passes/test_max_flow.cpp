// Max flow / min cut: small networks with known answers, infinite edges, the tie rule
// (source side = reachable in the residual graph = the min cut nearest the source), and
// random networks checked against brute force over every s-t cut.
#include <QtTest>

#include <cstdint>
#include <random>
#include <set>
#include <vector>

#include "passes/max_flow.hpp"
#include "test_registry.hpp"

namespace test_max_flow {

using namespace fxl;

namespace {

struct E
{
    int from, to;
    int64_t cap;  // -1: infinite
};

template<class Cap>
MaxFlow<Cap> build(int n, const std::vector<E>& edges)
{
    MaxFlow<Cap> f(n);
    for (const auto& e : edges) f.addEdge(e.from, e.to, e.cap < 0 ? MaxFlow<Cap>::kInfinite : static_cast<Cap>(e.cap));
    return f;
}

std::set<int> sourceSet(const std::vector<int>& v) { return std::set<int>(v.begin(), v.end()); }

// CLRS figure 26.1: max flow 23.
const std::vector<E> kClrs = {{0, 1, 16}, {0, 2, 13}, {1, 3, 12}, {2, 1, 4}, {2, 4, 14},
                              {3, 2, 9},  {3, 5, 20}, {4, 3, 7},  {4, 5, 4}};

}  // namespace

class TestMaxFlow : public QObject
{
    Q_OBJECT
private slots:
    void clrsInt()
    {
        auto f = build<int64_t>(6, kClrs);
        QCOMPARE(f.solve(0, 5), int64_t(23));
        // the residual-reachable side of this network's (unique) min cut
        QCOMPARE(sourceSet(f.sourceSide()), (std::set<int>{0, 1, 2, 4}));
        int64_t cut = 0;
        for (int e : f.cutEdges()) cut += f.capacity(e);
        QCOMPARE(cut, int64_t(23));
        // flow conservation at inner vertices, capacity respected
        std::vector<int64_t> net(6, 0);
        for (int e = 0; e < f.numEdges(); ++e) {
            QVERIFY(f.flow(e) >= 0 && f.flow(e) <= f.capacity(e));
            net[static_cast<size_t>(f.edgeFrom(e))] -= f.flow(e);
            net[static_cast<size_t>(f.edgeTo(e))] += f.flow(e);
        }
        for (int v = 1; v <= 4; ++v) QCOMPARE(net[static_cast<size_t>(v)], int64_t(0));
        QCOMPARE(net[5], int64_t(23));
    }

    void clrsDouble()
    {
        MaxFlow<double> f(6);
        for (const auto& e : kClrs) f.addEdge(e.from, e.to, static_cast<double>(e.cap) * 0.1);
        QVERIFY(std::abs(f.solve(0, 5) - 2.3) < 1e-9);
        QCOMPARE(sourceSet(f.sourceSide()), (std::set<int>{0, 1, 2, 4}));
    }

    void infiniteEdgesAreNeverCut()
    {
        // s -inf-> a -5-> b -inf-> t, and s -inf-> c -2-> t
        auto f = build<int64_t>(5, {{0, 1, -1}, {1, 2, 5}, {2, 4, -1}, {0, 3, -1}, {3, 4, 2}});
        QCOMPARE(f.solve(0, 4), int64_t(7));
        QCOMPARE(sourceSet(f.sourceSide()), (std::set<int>{0, 1, 3}));
        QCOMPARE(f.cutEdges(), (std::vector<int>{1, 4}));
        auto d = build<double>(5, {{0, 1, -1}, {1, 2, 5}, {2, 4, -1}, {0, 3, -1}, {3, 4, 2}});
        QCOMPARE(d.solve(0, 4), 7.0);
        QCOMPARE(d.cutEdges(), (std::vector<int>{1, 4}));
    }

    void infinitePathHasNoFiniteCut()
    {
        auto f = build<int64_t>(3, {{0, 1, -1}, {1, 2, -1}, {0, 2, 3}});
        QCOMPARE(f.solve(0, 2), MaxFlow<int64_t>::kInfinite);
        QVERIFY(f.cutEdges().empty());
        auto d = build<double>(3, {{0, 1, -1}, {1, 2, -1}});
        QVERIFY(std::isinf(d.solve(0, 2)));
    }

    void tieTakesTheCutNearestTheSource()
    {
        // s -inf-> a -3-> b -3-> c -inf-> t: cutting a->b or b->c costs the same; the rule
        // keeps only what is still reachable, so a->b is cut
        auto f = build<int64_t>(5, {{0, 1, -1}, {1, 2, 3}, {2, 3, 3}, {3, 4, -1}});
        QCOMPARE(f.solve(0, 4), int64_t(3));
        QCOMPARE(sourceSet(f.sourceSide()), (std::set<int>{0, 1}));
        QCOMPARE(f.cutEdges(), (std::vector<int>{1}));
        // the same with the edges added in reverse order
        auto g = build<int64_t>(5, {{3, 4, -1}, {2, 3, 3}, {1, 2, 3}, {0, 1, -1}});
        QCOMPARE(g.solve(0, 4), int64_t(3));
        QCOMPARE(g.cutEdges(), (std::vector<int>{2}));
        QCOMPARE(g.edgeFrom(2), 1);
    }

    void primalVersusItsTranspose()
    {
        // the partitioner's shape: x_in -> x_out (w) -> t_in -> t_out (w) -> bw_in -> SINK,
        // SOURCE -> x_in infinite (x is a banned primal). Equal weights: x is saved.
        enum
        {
            S,
            XI,
            XO,
            TI,
            TO,
            BI,
            T
        };
        auto f =
            build<int64_t>(7, {{S, XI, -1}, {XI, XO, 140}, {XO, TI, -1}, {TI, TO, 140}, {TO, BI, -1}, {BI, T, -1}});
        QCOMPARE(f.solve(S, T), int64_t(140));
        QVERIFY(f.onSourceSide(XI));
        QVERIFY(!f.onSourceSide(XO));
        QCOMPARE(f.cutEdges(), (std::vector<int>{1}));
    }

    void unreachableSink()
    {
        auto f = build<int64_t>(4, {{0, 1, 5}, {2, 3, 5}});
        QCOMPARE(f.solve(0, 3), int64_t(0));
        QCOMPARE(sourceSet(f.sourceSide()), (std::set<int>{0, 1}));
        QVERIFY(f.cutEdges().empty());
    }

    void zeroAndNegativeCapacities()
    {
        auto f = build<int64_t>(3, {{0, 1, 0}, {1, 2, 4}});
        QCOMPARE(f.solve(0, 2), int64_t(0));
        QCOMPARE(sourceSet(f.sourceSide()), (std::set<int>{0}));
        MaxFlow<int64_t> g(2);
        g.addEdge(0, 1, -7);
        QCOMPARE(g.capacity(0), int64_t(0));
        QCOMPARE(g.solve(0, 1), int64_t(0));
    }

    void resolveIsRepeatable()
    {
        auto f = build<int64_t>(6, kClrs);
        QCOMPARE(f.solve(0, 5), int64_t(23));
        QCOMPARE(f.solve(0, 5), int64_t(23));
        f.addEdge(0, 5, 10);
        QCOMPARE(f.solve(0, 5), int64_t(33));
    }

    void deepChainDoesNotRecurse()
    {
        // 200k vertices in a line: a recursive DFS would overflow the stack
        const int n = 200000;
        MaxFlow<int64_t> f(n);
        for (int v = 0; v + 1 < n; ++v) f.addEdge(v, v + 1, v == n / 2 ? 7 : 1000 + v % 13);
        QCOMPARE(f.solve(0, n - 1), int64_t(7));
        QCOMPARE(f.cutEdges(), (std::vector<int>{n / 2}));
    }

    // Random small networks against brute force: the flow equals the cheapest s-t cut, and the
    // source side is the intersection of every cheapest cut's source side (the nearest one).
    void randomAgainstBruteForce_data()
    {
        QTest::addColumn<int>("seed");
        for (int s = 1; s <= 40; ++s) QTest::newRow(qPrintable(QString("seed %1").arg(s))) << s;
    }
    void randomAgainstBruteForce()
    {
        QFETCH(int, seed);
        std::mt19937 rng(static_cast<unsigned>(seed));
        const int n = 4 + static_cast<int>(rng() % 5);  // 4..8 vertices, s = 0, t = n-1
        std::vector<E> edges;
        const int m = n + static_cast<int>(rng() % static_cast<unsigned>(3 * n));
        for (int k = 0; k < m; ++k) {
            const int a = static_cast<int>(rng() % static_cast<unsigned>(n)),
                      b = static_cast<int>(rng() % static_cast<unsigned>(n));
            if (a == b) continue;
            const unsigned r = rng() % 10;
            edges.push_back({a, b, r == 0 ? -1 : static_cast<int64_t>(rng() % 4)});  // small caps: many ties
        }
        int64_t best = -1;
        unsigned inter = ~0u;
        for (unsigned mask = 0; mask < (1u << n); ++mask) {
            if (!(mask & 1u) || (mask & (1u << (n - 1)))) continue;
            int64_t c = 0;
            bool inf = false;
            for (const auto& e : edges)
                if ((mask >> e.from & 1u) && !(mask >> e.to & 1u)) {
                    if (e.cap < 0)
                        inf = true;
                    else
                        c += e.cap;
                }
            if (inf) continue;
            if (best < 0 || c < best) {
                best = c;
                inter = mask;
            } else if (c == best) {
                inter &= mask;
            }
        }
        auto f = build<int64_t>(n, edges);
        const int64_t flow = f.solve(0, n - 1);
        if (best < 0) {
            QCOMPARE(flow, MaxFlow<int64_t>::kInfinite);
            return;
        }
        QCOMPARE(flow, best);
        unsigned got = 0;
        for (int v : f.sourceSide()) got |= 1u << v;
        QCOMPARE(got, inter);
        int64_t cut = 0;
        for (int e : f.cutEdges()) cut += f.capacity(e);
        QCOMPARE(cut, best);
        // doubles agree
        auto d = build<double>(n, edges);
        QCOMPARE(d.solve(0, n - 1), static_cast<double>(best));
        unsigned gotD = 0;
        for (int v : d.sourceSide()) gotD |= 1u << v;
        QCOMPARE(gotD, inter);
    }
};

FXL_TEST_APPLESS_MAIN(TestMaxFlow)
}  // namespace test_max_flow
#include "test_max_flow.moc"
