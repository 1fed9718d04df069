// core/ops/op_writes: what a call writes in place, the one answer of every pass and the
// executor. A row per operator of the audit (writes depending on its arguments although 1.13's
// schema does not say so: batch norm's running stats in training, instance_norm's with
// use_input_stats, rrelu_with_noise's noise in training), with the argument values that switch
// the write on and off; the schema's (a!) and in-place methods; and calls that write nothing.
// Each row is a graph as FX prints it, read by the FX text parser.
#include <QtTest>

#include <set>
#include <string>

#include "core/formats/fx/fx_text_parser.hpp"
#include "core/ops/op_writes.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_op_writes {

using namespace fxl;

class TestOpWrites : public QObject
{
    Q_OBJECT

private slots:
    void written_data()
    {
        QTest::addColumn<std::string>("call");  // the last node of forward(self, x, w, b, rm, rv)
        QTest::addColumn<std::string>("expected");  // "name=node, ..." written, "" for none
        auto row = [](const char* name, const char* call, const char* expected) {
            QTest::newRow(name) << std::string(call) << std::string(expected);
        };
        // the audit: written although the schema does not say so
        row("native_batch_norm training", "torch.ops.aten.native_batch_norm.default(x, w, b, rm, rv, True, 0.1, 1e-05)",
            "running_mean=rm, running_var=rv");
        row("native_batch_norm eval", "torch.ops.aten.native_batch_norm.default(x, w, b, rm, rv, False, 0.1, 1e-05)",
            "");
        row("native_batch_norm no stats",
            "torch.ops.aten.native_batch_norm.default(x, w, b, None, None, True, 0.1, 1e-05)", "");
        row("native_batch_norm keywords",
            "torch.ops.aten.native_batch_norm.default(x, w, b, running_mean = rm, running_var = rv, training = True, "
            "momentum = 0.1, eps = 1e-05)",
            "running_mean=rm, running_var=rv");
        row("native_batch_norm without overload", "torch.ops.aten.native_batch_norm(x, w, b, rm, rv, True, 0.1, 1e-05)",
            "running_mean=rm, running_var=rv");
        row("batch_norm training", "torch.ops.aten.batch_norm.default(x, w, b, rm, rv, True, 0.1, 1e-05, True)",
            "running_mean=rm, running_var=rv");
        row("batch_norm eval", "torch.ops.aten.batch_norm.default(x, w, b, rm, rv, False, 0.1, 1e-05, True)", "");
        row("_batch_norm_impl_index training",
            "torch.ops.aten._batch_norm_impl_index.default(x, w, b, rm, rv, True, 0.1, 1e-05, True)",
            "running_mean=rm, running_var=rv");
        row("cudnn_batch_norm training", "torch.ops.aten.cudnn_batch_norm.default(x, w, b, rm, rv, True, 0.1, 1e-05)",
            "running_mean=rm, running_var=rv");
        row("miopen_batch_norm training", "torch.ops.aten.miopen_batch_norm.default(x, w, b, rm, rv, True, 0.1, 1e-05)",
            "running_mean=rm, running_var=rv");
        row("instance_norm with input stats",
            "torch.ops.aten.instance_norm.default(x, w, b, rm, rv, True, 0.1, 1e-05, True)",
            "running_mean=rm, running_var=rv");
        row("instance_norm without", "torch.ops.aten.instance_norm.default(x, w, b, rm, rv, False, 0.1, 1e-05, True)",
            "");
        row("rrelu_with_noise training", "torch.ops.aten.rrelu_with_noise.default(x, rm, 0.125, 0.3333, True)",
            "noise=rm");
        row("rrelu_with_noise default (eval)", "torch.ops.aten.rrelu_with_noise.default(x, rm, 0.125, 0.3333)", "");
        // the schema's (a!) and in-place methods
        row("add_ (schema)", "torch.ops.aten.add_.Tensor(rm, x)", "self=rm");
        row("copy_ (schema)", "torch.ops.aten.copy_.default(rv, x)", "self=rv");
        row("_native_batch_norm_legit (schema)",
            "torch.ops.aten._native_batch_norm_legit.default(x, w, b, rm, rv, True, 0.1, 1e-05)",
            "running_mean=rm, running_var=rv");
        // nothing written
        row("functional batch norm",
            "torch.ops.aten._native_batch_norm_legit_functional.default(x, w, b, rm, rv, True, 0.1, 1e-05)", "");
        row("add", "torch.ops.aten.add.Tensor(x, rm)", "");
        row("native_batch_norm_backward",
            "torch.ops.aten.native_batch_norm_backward.default(x, x, w, rm, rv, rm, rv, True, 1e-05, [True, True, "
            "True])",
            "");
    }
    void written()
    {
        QFETCH(std::string, call);
        QFETCH(std::string, expected);
        const std::string code = "def forward(self, x, w, b, rm, rv):\n    out = " + call + "\n    return (out,)\n";
        const Graph g = parseFxText(code, "<test>");
        const NodeId out = g.findByName("out");
        QVERIFY(out != kNoNode);
        std::string got;
        for (const WrittenArgument& a : writtenArguments(g.node(out))) {
            if (!got.empty()) got += ", ";
            got += a.name + "=" + (a.node == kNoNode ? std::string("?") : g.node(a.node).name);
        }
        QCOMPARE(got, expected);
        QCOMPARE(writesInPlace(g.node(out)), !expected.empty());
    }

    // An in-place method writes self; a method without '_' and dunders write nothing.
    void methods()
    {
        const Graph g = parseFxText("def forward(self, x, y):\n    a = x.add_(y)\n    b = x.add(y)\n"
                                    "    c = x.__iadd__(y)\n    return (a, b, c)\n",
                                    "<test>");
        const auto a = writtenArguments(g.node(g.findByName("a")));
        QCOMPARE(a.size(), size_t(1));
        QCOMPARE(a[0].name, std::string("self"));
        QCOMPARE(g.node(a[0].node).name, std::string("x"));
        QVERIFY(!writesInPlace(g.node(g.findByName("b"))));
        QVERIFY(!writesInPlace(g.node(g.findByName("c"))));
    }

    // A node that reads (a view of) a value a later node writes in place must run before that
    // write: clone(h - n) before mul_(h - n, z) as an LSTM cell traces, directly and through a
    // view; the writer itself, the reads after the write and an unrelated node are not marked.
    // The in-place variants fxlens makes of pointwise ops (sigmoid_) write too.
    void readsBeforeLaterWrite_data()
    {
        QTest::addColumn<QString>("code");
        QTest::addColumn<QStringList>("marked");
        const QString head = QStringLiteral("def forward(self, h, n, z):\n    sub = torch.ops.aten.sub.Tensor(h, n)\n");
        QTest::newRow("clone before mul_") << head
                + QStringLiteral("    clone = torch.ops.aten.clone.default(sub)\n"
                                 "    mul_ = torch.ops.aten.mul_.Tensor(sub, z)\n"
                                 "    after = torch.ops.aten.clone.default(sub)\n"
                                 "    other = torch.ops.aten.mul.Tensor(h, z)\n"
                                 "    return (clone, mul_, after, other)\n")
                                           << QStringList{QStringLiteral("clone")};
        QTest::newRow("through a view") << head
                + QStringLiteral("    t = torch.ops.aten.t.default(sub)\n"
                                 "    c = torch.ops.aten.clone.default(t)\n"
                                 "    s = torch.ops.aten.sigmoid_.default(sub)\n"
                                 "    return (c, s)\n")
                                        << QStringList{QStringLiteral("t"), QStringLiteral("c")};
        QTest::newRow("a view written") << head
                + QStringLiteral("    c = torch.ops.aten.clone.default(sub)\n"
                                 "    v = torch.ops.aten.view.default(sub, [-1])\n"
                                 "    a = torch.ops.aten.add_.Tensor(v, 1)\n"
                                 "    return (c, a)\n")
                                        << QStringList{QStringLiteral("c"), QStringLiteral("v")};
        QTest::newRow("no write") << head
                + QStringLiteral("    c = torch.ops.aten.clone.default(sub)\n    return (c,)\n")
                                  << QStringList{};
    }

    void readsBeforeLaterWrite()
    {
        QFETCH(QString, code);
        QFETCH(QStringList, marked);
        const Graph g = parseFxText(code.toStdString(), "<test>");
        const std::vector<char> early = fxl::readsBeforeLaterWrite(g);
        QStringList got;
        for (NodeId id : g.order())
            if (static_cast<size_t>(id) < early.size() && early[static_cast<size_t>(id)])
                got << QString::fromStdString(g.node(id).name);
        QCOMPARE(got, marked);
    }

    // Every operator of the audit has a row above that writes.
    void everyAuditedOperatorHasARow()
    {
        const std::string self = fxltest::readFile(std::filesystem::path(__FILE__));
        for (std::string_view target : argumentDependentWriters()) {
            const std::string call = "torch.ops." + std::string(target) + "(";
            QVERIFY2(self.find(call) != std::string::npos, std::string(target).c_str());
        }
    }
};

FXL_TEST_GUILESS_MAIN(TestOpWrites)
}  // namespace test_op_writes
#include "test_op_writes.moc"
