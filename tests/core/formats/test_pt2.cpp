// torch.export archives (core/formats/pt2/): every layout and schema generation of
// tests/data/pt2 (made by make_pt2.py following the schema) read to the same graph, signature,
// weights and meta; and every malformed archive refused with a message that names the entry,
// the JSON path or the version at fault.
#include <QtTest>

#include <string>

#include "core/formats/graph_constants.hpp"
#include "core/formats/pt2/exported_program.hpp"
#include "core/formats/pt2/pt2_source.hpp"
#include "core/formats/source.hpp"
#include "core/ir/diagnostics.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_pt2 {

using namespace fxl;

namespace {

std::string pt2(const char* name) { return fxltest::testDataPath(std::string("pt2/") + name).string(); }

size_t countOp(const Graph& g, NodeOp op)
{
    size_t n = 0;
    g.forEachNode([&](const Node& x) { n += x.op == op; });
    return n;
}

const Node& byName(const Graph& g, const char* name)
{
    const NodeId id = g.findByName(name);
    if (id == kNoNode) throw std::runtime_error(std::string("no node ") + name);
    return g.node(id);
}

SafeTensor weight(const Graph& g, const std::string& name)
{
    const std::optional<SafeTensorsFile> keep = embeddedConstants(g, "g");
    if (!keep) throw std::runtime_error("no embedded constants");
    const SafeTensor* t = keep->find(name);
    if (!t) throw std::runtime_error("no weight " + name);
    return *t;
}

}  // namespace

class TestPt2 : public QObject
{
    Q_OBJECT

private slots:
    // The MLP's joint training step in four layouts / schema generations: one graph, the same
    // everywhere (parameters read as the archive's weights, the loss and the gradients described).
    void mlpJointEveryLayout_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("layout");
        QTest::addColumn<QString>("schema");
        QTest::addColumn<bool>("strictModulePaths");
        QTest::newRow("2.1 flat, schema 1") << "flat21_mlp.pt2"
                                            << "model"
                                            << "flat (PyTorch 2.1)"
                                            << "1.0" << true;
        QTest::newRow("2.2-2.7 flat, schema 5.0") << "flat25_mlp.pt2"
                                                  << "model"
                                                  << "flat (PyTorch 2.2 to 2.7)"
                                                  << "5.0" << true;
        QTest::newRow("2.8 rooted, schema 8.3") << "rooted28_mlp.pt2"
                                                << "model"
                                                << "rooted (PyTorch 2.8 and later)"
                                                << "8.3" << false;
        QTest::newRow("CRC not computed") << "crc_zero.pt2"
                                          << "model"
                                          << "flat (PyTorch 2.2 to 2.7)"
                                          << "5.0" << true;
    }
    void mlpJointEveryLayout()
    {
        QFETCH(QString, file);
        QFETCH(QString, model);
        QFETCH(QString, layout);
        QFETCH(QString, schema);
        auto src = openSource(pt2(file.toUtf8().constData()));
        QCOMPARE(src->format, SourceFormat::Pt2);
        QCOMPARE(QString::fromStdString(src->about["layout"].get<std::string>()), layout);
        const auto g = src->graph(model.toStdString());
        QVERIFY(g);
        QCOMPARE(countOp(*g, NodeOp::Placeholder), size_t(1));  // x; the parameters are the archive's weights
        QCOMPARE(countOp(*g, NodeOp::GetAttr), size_t(4));
        const Node& w1 = byName(*g, "w1_1");
        QCOMPARE(w1.op, NodeOp::GetAttr);
        QCOMPARE(w1.target, std::string("fc1.weight"));
        QCOMPARE(w1.val.tensor.sizes.size(), size_t(2));
        QCOMPARE(w1.val.tensor.sizes[0].valueOrHint(), int64_t(8));
        QCOMPARE(weight(*g, "fc1.weight").shape, (std::vector<int64_t>{8, 4}));
        QCOMPARE(weight(*g, "fc2.bias").data.size(), size_t(2 * 4));
        QCOMPARE(byName(*g, "x_1").meta.desc, std::string("PlainAOTInput(idx=0)"));
        QCOMPARE(g->outputDescs.size(), size_t(5));
        QCOMPARE(g->outputDescs[0], std::string("PlainAOTOutput(idx=0)"));
        QCOMPARE(g->outputDescs[2], std::string("GradAOTOutput(grad_of=ParamAOTInput(target='fc1.bias'))"));
        const Node& addmm = byName(*g, "addmm");
        QCOMPARE(addmm.target, std::string("aten.addmm.default"));
        QCOMPARE(addmm.args.size(), size_t(3));
        QCOMPARE(addmm.meta.modulePath, std::string("fc1"));
        QCOMPARE(addmm.meta.source.file, std::string("/home/user/mlp.py"));
        QCOMPARE(addmm.meta.source.line, 7);
        QCOMPARE(addmm.meta.source.code, std::string("x = self.fc1(x)"));
        // a keyword-only argument stays a keyword (ones_like's dtype, layout, device, ...)
        const Node& ones = byName(*g, "ones_like");
        QVERIFY(ones.kwarg("dtype"));
        QCOMPARE(ones.kwarg("dtype")->dtype, DType::F32);
        QCOMPARE(ones.kwarg("device")->s, std::string("cpu"));
        const auto& m = src->about["models"][0];
        QCOMPARE(QString::fromStdString(m["schema_version"].get<std::string>()), schema);
        QCOMPARE(m["inputs"].size(), size_t(5));
        QCOMPARE(m["outputs"][0]["kind"].get<std::string>(), std::string("loss_output"));
        QCOMPARE(m["outputs"][4]["target"].get<std::string>(), std::string("fc2.bias"));
        QCOMPARE(m["weights"]["tensors"].get<size_t>(), size_t(4));
        // the same weights from every layout
        auto ref = openSource(pt2("rooted28_mlp.pt2"));
        const auto rg = ref->graph("model");
        for (const char* n : {"fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"})
            QVERIFY2(weight(*g, n).data == weight(*rg, n).data, n);
        QString why;
        std::string w;
        QVERIFY2(g->structurallyEqual(*rg, &w) || file != "crc_zero.pt2", w.c_str());
    }

    // flat 2.7 (schema 7.3, one-key unions): a cond with two sub-graphs, a multi-output op,
    // a list output, symbolic sizes, range constraints, a buffer from the constants file
    void condSymbolsAndMultiOutputs()
    {
        auto src = openSource(pt2("flat27_cond.pt2"));
        const auto g = src->graph("model");
        QCOMPARE(g->subgraphs.size(), size_t(2));
        QVERIFY(g->subgraph("true_graph_0"));
        QCOMPARE(byName(*g, "true_graph_0").op, NodeOp::GetAttr);
        const Graph& t = *g->subgraph("true_graph_0");
        QCOMPARE(countOp(t, NodeOp::Placeholder), size_t(1));
        QCOMPARE(byName(t, "mul").target, std::string("aten.mul.Tensor"));
        // native_layer_norm's three results through getitem nodes named as the file names them
        NodeId ln = kNoNode;
        g->forEachNode([&](const Node& n) {
            if (n.target == "aten.native_layer_norm.default") ln = n.id;
        });
        QVERIFY(ln != kNoNode);
        QCOMPARE(g->node(ln).val.kind, ValueMeta::Kind::Tuple);
        QCOMPARE(g->node(ln).users.size(), size_t(3));
        int64_t index = 0;
        for (NodeId u : g->node(ln).users) {  // in the order the file lists the outputs
            QVERIFY(g->node(u).isGetitem());
            QCOMPARE(g->node(u).args[1].i, index++);
        }
        // the split's list output: two getitems
        NodeId split = kNoNode;
        g->forEachNode([&](const Node& n) {
            if (n.target == "aten.split.Tensor") split = n.id;
        });
        QVERIFY(split != kNoNode);
        QCOMPARE(g->node(split).users.size(), size_t(2));
        // the cond reads the pred, the two graphs and a list of operands
        const Node& cond = byName(*g, "cond");
        QCOMPARE(cond.target, std::string("higher_order.cond"));
        QCOMPARE(cond.args.size(), size_t(4));
        QCOMPARE(cond.args[1].node, g->findByName("true_graph_0"));
        // symbolic batch: s0 with its hint, and the range
        const TensorMeta& x = byName(*g, "x_1").val.tensor;
        QVERIFY(!x.sizes[0].isConcrete());
        QCOMPARE(x.sizes[0].str(), std::string("s0"));
        QCOMPARE(x.sizes[0].hint(), std::optional<int64_t>(6));
        QCOMPARE(x.sizes[1].valueOrHint(), int64_t(8));
        const auto& m = src->about["models"][0];
        QCOMPARE(m["range_constraints"]["s0"]["min"].get<std::string>(), std::string("2"));
        QCOMPARE(m["range_constraints"]["s0"]["max"].get<std::string>(), std::string("Infinity"));
        // the buffer comes from serialized_constants.pt
        QCOMPARE(byName(*g, "scale_1").op, NodeOp::GetAttr);
        QCOMPARE(byName(*g, "scale_1").target, std::string("scale"));
        QCOMPARE(weight(*g, "scale").shape, (std::vector<int64_t>{4}));
        QCOMPARE(m["inputs"][3]["kind"].get<std::string>(), std::string("buffer"));
    }

    // tied weights: two names for one storage, in pickled (2.8) and raw (2.9+) weights; a raw
    // weight that views its file at an offset
    void tiedWeights_data()
    {
        QTest::addColumn<QString>("file");
        QTest::newRow("2.8 pickled") << "rooted28_mlp.pt2";
        QTest::newRow("2.9 raw") << "rooted29_raw.pt2";
    }
    void tiedWeights()
    {
        QFETCH(QString, file);
        auto src = openSource(pt2(file.toUtf8().constData()));
        const auto g = src->graph("tied");
        QCOMPARE(byName(*g, "wemb_1").target, std::string("emb.weight"));
        QCOMPARE(weight(*g, "emb.weight").shape, (std::vector<int64_t>{10, 6}));
        QCOMPARE(weight(*g, "proj.bias").shape, (std::vector<int64_t>{6}));
        // the raw weight_2 file holds 3 floats of padding before the bias: the view skips them
        auto ref = openSource(pt2("rooted28_mlp.pt2"));
        QVERIFY(weight(*g, "proj.bias").data == weight(*ref->graph("tied"), "proj.bias").data);
        QVERIFY(weight(*g, "emb.weight").data == weight(*ref->graph("tied"), "emb.weight").data);
        QCOMPARE(src->about["models"].back()["weights"]["form"].get<std::string>(),
                 std::string(file.contains("raw") ? "raw" : "pickled"));
        QVERIFY(src->about["models"].back()["weights"]["tensors"].get<size_t>() >= 3);
    }

    void aotiPackageHoldsNoGraph()
    {
        auto src = openSource(pt2("aoti_package.pt2"));
        QVERIFY(src->graphs().empty());
        QCOMPARE(src->about["layout"].get<std::string>(), std::string("AOTInductor package"));
        QCOMPARE(src->about["aotinductor_files"].size(), size_t(3));
        QVERIFY(src->about["no_graph"].get<std::string>().find("holds no graph") != std::string::npos);
    }

    void malformed_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("message");
        QTest::newRow("truncated") << "bad_truncated.pt2"
                                   << "not a ZIP archive";
        QTest::newRow("wrong root") << "bad_root.pt2"
                                    << "no ROOT/archive_format under the first entry's folder 'notes'";
        QTest::newRow("archive format") << "bad_format.pt2"
                                        << "entry 'm/archive_format' reads 'pt3', not 'pt2'";
        QTest::newRow("CRC mismatch") << "bad_crc.pt2"
                                      << "entry 'serialized_state_dict.pt': CRC-32 0x";
        QTest::newRow("unknown union member")
            << "bad_union.pt2"
            << "at /graph_module/graph/nodes/3/inputs/0/arg/as_foo: unknown Argument member 'as_foo'";
        QTest::newRow("newer major") << "bad_newer_major.pt2"
                                     << "at /schema_version: schema version 9.0 is newer";
        QTest::newRow("code in the weights") << "bad_global.pt2"
                                             << "global posix.system refused";
    }
    void malformed()
    {
        QFETCH(QString, file);
        QFETCH(QString, message);
        try {
            (void)openSource(pt2(file.toUtf8().constData()));
            QFAIL("accepted");
        } catch (const InputError& e) {
            const QString text = QString::fromStdString(e.diagnostic().format());
            QVERIFY2(text.contains(message), qPrintable(text));
            QVERIFY2(text.contains(file), qPrintable(text));
            if (file == "bad_union.pt2") {  // the line and column of the member in the entry's text
                QVERIFY2(e.diagnostic().line > 1, qPrintable(text));
                QVERIFY2(text.contains("serialized_exported_program.json"), qPrintable(text));
            }
        }
    }

    void sympyRepr_data()
    {
        QTest::addColumn<QString>("repr");
        QTest::addColumn<QString>("text");
        QTest::newRow("symbol") << "Symbol('s0', integer=True, positive=True)"
                                << "s0";
        QTest::newRow("plain") << "s0 + 1"
                               << "s0 + 1";
        QTest::newRow("product") << "Mul(Integer(2), Symbol('s1', integer=True))"
                                 << "(2*s1)";
        QTest::newRow("sum") << "Add(Symbol('s0'), Integer(-1))"
                             << "(s0 + (-1))";
        QTest::newRow("floordiv") << "FloorDiv(Symbol('s0'), Integer(4))"
                                  << "FloorDiv(s0, 4)";
        QTest::newRow("power") << "Pow(Symbol('s0'), Integer(2))"
                               << "(s0*s0)";
    }
    void sympyRepr()
    {
        QFETCH(QString, repr);
        QFETCH(QString, text);
        QCOMPARE(QString::fromStdString(sympyReprToText(repr.toStdString())), text);
        (void)SymExpr::parse(sympyReprToText(repr.toStdString()));  // and fxlens reads it
    }
};

FXL_TEST_APPLESS_MAIN(TestPt2)
}  // namespace test_pt2
#include "test_pt2.moc"
