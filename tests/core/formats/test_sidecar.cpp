// Sidecar files of the corpus (corpus/pytorch/README.md): finding them beside every graph
// file, attaching every node of every meta.json, and cross-checking the attached metas
// against the real inputs and constants files.
#include <QtTest>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "core/formats/fx/fx_text_parser.hpp"
#include "core/formats/safetensors.hpp"
#include "core/formats/sidecar.hpp"
#include "core/ir/diagnostics.hpp"
#include "core/ir/graph.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_sidecar {

using namespace fxl;
namespace fs = std::filesystem;

namespace {

const fs::path kPytorch = fxltest::corpusPath("pytorch");

bool endsWith(const std::string& s, const std::string& suf)
{
    return s.size() >= suf.size() && s.compare(s.size() - suf.size(), suf.size(), suf) == 0;
}

// The files of corpus/pytorch and corpus/pytorch/large ending with one of `suffixes` (a
// directory itself when it is absent: its row skips or fails by the corpus rule).
std::vector<fs::path> pytorchFiles(const std::vector<std::string>& suffixes)
{
    std::vector<fs::path> out;
    for (const char* dir : {"pytorch", "pytorch/large"})
        for (const fs::path& f : fxltest::corpusFiles(dir, suffixes)) out.push_back(f);
    std::sort(out.begin(), out.end());
    return out;
}

nlohmann::json readJson(const fs::path& p) { return nlohmann::json::parse(fxltest::readFile(p)); }

// A graph with the nodes (name, op, target) of a meta.json, in its order: the FX parser is
// not needed to test the attachment itself.
Graph graphFromMeta(const nlohmann::json& meta)
{
    Graph g;
    for (const auto& jn : meta["nodes"]) {
        Node n;
        n.name = jn["name"].get<std::string>();
        n.op = *nodeOpFromName(jn["op"].get<std::string>());
        n.target = jn["target"].is_string() ? jn["target"].get<std::string>() : n.name;
        g.addNode(std::move(n));
    }
    return g;
}

std::vector<int64_t> ints(const std::vector<SymInt>& v)
{
    std::vector<int64_t> out;
    for (const auto& s : v) out.push_back(s.isConcrete() ? *s.maybeValue() : -999);
    return out;
}

std::string diagText(const DiagnosticList& d)
{
    std::string s;
    for (const auto& x : d.items) s += x.format() + "\n";
    return s;
}

fs::path tempDir(const char* tag)
{
    fs::path d = fs::temp_directory_path()
        / ("fxlens_sc_" + std::string(tag) + "_" + std::to_string(QCoreApplication::applicationPid()));
    fs::remove_all(d);
    fs::create_directories(d);
    return d;
}

void touch(const fs::path& p, const std::string& text = "") { std::ofstream(p) << text; }

}  // namespace

class TestSidecar : public QObject
{
    Q_OBJECT

private slots:
    void findSidecars_data();
    void findSidecars();
    void findSidecarsDottedNames();
    void attachMeta_data();
    void attachMeta();
    void attachToParsedJoint_data();
    void attachToParsedJoint();
    void attachMismatches();
    void attachTupleAndErrors();
    void params_data();
    void params();
};

void TestSidecar::findSidecars_data()
{
    QTest::addColumn<std::string>("graph");
    for (const auto& p : pytorchFiles({".code.py", ".graph.txt"}))
        QTest::newRow(fs::relative(p, kPytorch).string().c_str()) << p.string();
}

void TestSidecar::findSidecars()
{
    QFETCH(std::string, graph);
    FXL_REQUIRE_CORPUS(graph);
    SidecarFiles s = fxl::findSidecars(graph);
    fs::path p(graph);
    std::string file = p.filename().string();
    // the corpus case names have no dots
    std::string name = file.substr(0, file.find('.'));
    QCOMPARE(s.name, name);
    std::string stem = endsWith(file, ".code.py") ? file.substr(0, file.size() - 8) : file.substr(0, file.size() - 10);
    QCOMPARE(s.part, stem.substr(name.size() + 1));
    QVERIFY2(std::set<std::string>({"joint", "fw.mincut", "bw.mincut", "fw.default", "bw.default"}).count(s.part),
             s.part.c_str());
    // every case has meta and inputs; README: params.json for the module models
    QCOMPARE(fs::path(s.meta), p.parent_path() / (name + ".meta.json"));
    QCOMPARE(fs::path(s.inputs), p.parent_path() / (name + ".inputs.safetensors"));
    if (fs::exists(p.parent_path() / (name + ".params.json")))
        QCOMPARE(fs::path(s.params), p.parent_path() / (name + ".params.json"));
    else
        QVERIFY(s.params.empty());

    // The constants file is that graph's own: it exists exactly when the graph reads
    // _tensor_constant attributes, and holds each of them.
    std::string text = fxltest::readFile(p);
    std::set<std::string> used;
    for (size_t at = text.find("_tensor_constant"); at != std::string::npos;
         at = text.find("_tensor_constant", at + 1)) {
        size_t e = at + 16;
        while (e < text.size() && std::isdigit(static_cast<unsigned char>(text[e]))) ++e;
        if (e > at + 16) used.insert(text.substr(at, e - at));
    }
    if (used.empty()) {
        QVERIFY2(s.constants.empty(), s.constants.c_str());
        return;
    }
    QCOMPARE(fs::path(s.constants), p.parent_path() / (stem + ".constants.safetensors"));
    SafeTensorsFile c = readSafetensorsHeader(s.constants);
    std::set<std::string> have;
    for (const auto& t : c.tensors) have.insert(t.name);
    QVERIFY(have == used);
}

void TestSidecar::findSidecarsDottedNames()
{
    fs::path d = tempDir("dotted");
    touch(d / "my.model.fw.mincut.code.py");
    touch(d / "my.model.meta.json");
    touch(d / "my.meta.json");  // a shorter prefix must not win
    touch(d / "my.model.fw.mincut.constants.safetensors");
    touch(d / "my.model.joint.constants.safetensors");
    SidecarFiles s = fxl::findSidecars((d / "my.model.fw.mincut.code.py").string());
    QCOMPARE(s.name, std::string("my.model"));
    QCOMPARE(s.part, std::string("fw.mincut"));
    QCOMPARE(fs::path(s.meta), d / "my.model.meta.json");
    QCOMPARE(fs::path(s.constants), d / "my.model.fw.mincut.constants.safetensors");
    QVERIFY(s.inputs.empty() && s.params.empty());

    // nothing beside it
    touch(d / "lonely.joint.graph.txt");
    s = fxl::findSidecars((d / "lonely.joint.graph.txt").string());
    QVERIFY(s.meta.empty() && s.inputs.empty() && s.constants.empty() && s.params.empty());
    QCOMPARE(s.name, std::string("lonely.joint"));
    // a graph named NAME.code.py with no part
    touch(d / "solo.code.py");
    touch(d / "solo.inputs.safetensors");
    s = fxl::findSidecars((d / "solo.code.py").string());
    QCOMPARE(s.name, std::string("solo"));
    QCOMPARE(s.part, std::string());
    QCOMPARE(fs::path(s.inputs), d / "solo.inputs.safetensors");
    fs::remove_all(d);
}

void TestSidecar::attachMeta_data()
{
    QTest::addColumn<std::string>("meta");
    for (const auto& p : pytorchFiles({".meta.json"}))
        QTest::newRow(fs::relative(p, kPytorch).string().c_str()) << p.string();
}

void TestSidecar::attachMeta()
{
    QFETCH(std::string, meta);
    FXL_REQUIRE_CORPUS(meta);
    nlohmann::json j = readJson(meta);
    Graph g = graphFromMeta(j);
    QCOMPARE(g.size(), j["nodes"].size());

    DiagnosticList diags;
    auto t0 = std::chrono::steady_clock::now();
    std::clock_t c0 = std::clock();
    attachSidecarMeta(g, meta, diags);
    double cpu = double(std::clock() - c0) / CLOCKS_PER_SEC;
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    qInfo("%zu nodes attached in %.3f s (%.3f s CPU)", g.size(), secs, cpu);
    QVERIFY2(diags.items.empty(), diagText(diags).c_str());

    // Every node: val, module path and phase as the JSON says.
    size_t tensors = 0, withModule = 0;
    for (const auto& jn : j["nodes"]) {
        const Node& n = g.node(g.findByName(jn["name"].get<std::string>()));
        const nlohmann::json tm = jn.contains("tensor_meta") ? jn["tensor_meta"] : nlohmann::json();
        if (tm.is_object()) {
            QVERIFY2(n.val.isTensor(), n.name.c_str());
            QCOMPARE(std::string(dtypeTorchName(n.val.tensor.dtype)), tm["dtype"].get<std::string>());
            QCOMPARE(ints(n.val.tensor.sizes), tm["shape"].get<std::vector<int64_t>>());
            QCOMPARE(ints(n.val.tensor.strides), tm["stride"].get<std::vector<int64_t>>());
            QCOMPARE(n.val.tensor.device, std::string("cpu"));
            ++tensors;
        } else {
            QVERIFY(tm.is_null());
            QVERIFY2(n.val.kind == ValueMeta::Kind::Unknown, n.name.c_str());
        }
        QCOMPARE(n.meta.modulePath, jn.value("module_path", std::string()));
        QCOMPARE(std::string(phaseName(n.meta.phase)), jn.value("phase", std::string()));
        if (jn.contains("module_path")) ++withModule;
    }
    QVERIFY(tensors > 0);

    // Read once, attach to several graphs: the same result, and the node list as written.
    SidecarMeta once = readSidecarMeta(meta);
    QCOMPARE(once.nodes.size(), j["nodes"].size());
    QVERIFY(once.duplicateNames.empty());
    for (size_t i = 0; i < once.nodes.size(); ++i) {
        QCOMPARE(once.nodes[i].name, j["nodes"][i]["name"].get<std::string>());
        QCOMPARE(once.nodes[i].op, j["nodes"][i]["op"].get<std::string>());
        QCOMPARE(once.nodes[i].target, j["nodes"][i]["target"].get<std::string>());
        QVERIFY(once.nodes[i].error.empty() && once.nodes[i].warning.empty());
    }
    Graph g2 = graphFromMeta(j);
    DiagnosticList d2;
    attachSidecarMeta(g2, once, d2);
    QVERIFY(d2.items.empty());
    std::string why;
    QVERIFY2(g2.structurallyEqual(g, &why), why.c_str());

    // Cross-check with the real files: placeholders against the inputs file (read from its
    // header), get_attr targets against the joint graph's constants.
    fs::path dir = fs::path(meta).parent_path();
    std::string name = fs::path(meta).filename().string();
    name = name.substr(0, name.size() - 10);
    auto inputs = inputMetasFromSafetensors((dir / (name + ".inputs.safetensors")).string());
    std::vector<NodeId> ph = g.placeholders();
    QCOMPARE(ph.size(), inputs.size());
    for (NodeId id : ph) {
        const Node& n = g.node(id);
        auto it = inputs.find(n.name);
        QVERIFY2(it != inputs.end(), n.name.c_str());
        QVERIFY(n.val.isTensor());
        QVERIFY(it->second.dtype == n.val.tensor.dtype);
        QCOMPARE(ints(it->second.sizes), ints(n.val.tensor.sizes));
        // the tracer's strides for inputs are contiguous, as safetensors data are
        QCOMPARE(ints(it->second.strides), ints(n.val.tensor.strides));
        QCOMPARE(it->second.device, std::string("cpu"));
    }
    fs::path consts = dir / (name + ".joint.constants.safetensors");
    size_t getAttrs = 0;
    std::optional<SafeTensorsFile> c;
    if (fs::exists(consts)) c = readSafetensorsHeader(consts.string());
    g.forEachNode([&](const Node& n) {
        if (n.op != NodeOp::GetAttr) return;
        ++getAttrs;
        QVERIFY2(c && c->find(n.target), n.target.c_str());
    });
    // params.json: data inputs + parameters = placeholders
    fs::path params = dir / (name + ".params.json");
    if (fs::exists(params)) {
        ParamsInfo pi = readParamsJson(params.string());
        QCOMPARE(size_t(pi.numDataInputs) + pi.paramFqns.size(), ph.size());
    }
    qInfo("%zu tensor metas, %zu module paths, %zu get_attr, %zu placeholders", tensors, withModule, getAttrs,
          ph.size());
    // speed is a benchmark matter (tests/bench); measured ~0.6 s CPU for the 28 MB file
    (void)cpu;
}

// The real graph files: the joint gm.code parsed by parseFxText, its sidecars found and its
// meta attached: every node of the meta file matches a graph node and gets its meta.
void TestSidecar::attachToParsedJoint_data()
{
    QTest::addColumn<std::string>("graph");
    for (const auto& p : pytorchFiles({".joint.code.py"}))
        QTest::newRow(fs::relative(p, kPytorch).string().c_str()) << p.string();
}

void TestSidecar::attachToParsedJoint()
{
    QFETCH(std::string, graph);
    FXL_REQUIRE_CORPUS(graph);
    Graph g;
    try {
        g = parseFxText(fxltest::readFile(graph), graph);
    } catch (const InputError& e) {
        QFAIL((std::string("parseFxText failed: ") + e.what()).c_str());
    }
    SidecarFiles s = fxl::findSidecars(graph);
    QVERIFY(!s.meta.empty());
    DiagnosticList diags;
    attachSidecarMeta(g, s.meta, diags);
    QVERIFY2(diags.items.empty(), diagText(diags).c_str());
    nlohmann::json j = readJson(s.meta);
    QCOMPARE(g.size(), j["nodes"].size());
    size_t expectTensors = 0, tensors = 0;
    for (const auto& jn : j["nodes"])
        if (jn.contains("tensor_meta") && jn["tensor_meta"].is_object()) ++expectTensors;
    g.forEachNode([&](const Node& n) {
        if (n.val.isTensor()) ++tensors;
    });
    QCOMPARE(tensors, expectTensors);
    // the parsed placeholders line up with the inputs file
    auto inputs = inputMetasFromSafetensors(s.inputs);
    for (NodeId id : g.placeholders()) {
        const Node& n = g.node(id);
        QVERIFY2(inputs.count(n.name), n.name.c_str());
        QVERIFY(n.val.isTensor() && n.val.tensor == inputs.at(n.name));
    }
}

void TestSidecar::attachMismatches()
{
    fs::path meta = kPytorch / "mlp_gelu.meta.json";
    FXL_REQUIRE_CORPUS(meta);
    nlohmann::json j = readJson(meta);
    Graph g = graphFromMeta(j);
    // one JSON node missing from the graph, one graph node missing from the JSON, one op changed
    std::string renamed = j["nodes"][3]["name"].get<std::string>();
    g.rename(g.findByName(renamed), "renamed_node");
    std::string changed = j["nodes"][5]["name"].get<std::string>();
    QCOMPARE(g.node(g.findByName(changed)).op, NodeOp::CallFunction);
    g.node(g.findByName(changed)).op = NodeOp::CallMethod;

    DiagnosticList diags;
    attachSidecarMeta(g, meta.string(), diags);
    int warnings = 0, errors = 0;
    std::string all = diagText(diags);
    for (const auto& d : diags.items) {
        if (d.severity == Severity::Warning) ++warnings;
        if (d.severity == Severity::Error) ++errors;
        QCOMPARE(d.file, meta.string());
    }
    QCOMPARE(warnings, 2);
    QCOMPARE(errors, 1);
    QVERIFY2(QString::fromStdString(all).contains(
                 QString::fromStdString("'" + renamed + "' of the meta file is not in the graph")),
             all.c_str());
    QVERIFY2(QString::fromStdString(all).contains("'renamed_node' has no entry"), all.c_str());
    QVERIFY2(QString::fromStdString(all).contains(QString::fromStdString(
                 "'" + changed + "' is a call_function in the meta file but a call_method in the graph")),
             all.c_str());
    // the mismatched node is left untouched, its neighbours are attached
    QVERIFY(g.node(g.findByName(changed)).val.kind == ValueMeta::Kind::Unknown);
    QVERIFY(g.node(g.findByName(j["nodes"][4]["name"].get<std::string>())).val.isTensor());

    // many missing nodes are summarised rather than listed one by one
    Graph empty;
    Node only;
    only.name = "not_there";
    only.op = NodeOp::Placeholder;
    empty.addNode(only);
    DiagnosticList d2;
    attachSidecarMeta(empty, meta.string(), d2);
    QCOMPARE(d2.items.size(), size_t(10 + 1 + 1));  // 10 listed, "... and N more", the graph node
    QVERIFY(QString::fromStdString(diagText(d2)).contains(QString("and %1 more").arg(j["nodes"].size() - 10)));
}

void TestSidecar::attachTupleAndErrors()
{
    fs::path d = tempDir("tuple");
    fs::path meta = d / "t.meta.json";
    touch(meta, R"({"nodes": [
      {"name": "x", "op": "placeholder", "target": "x",
       "tensor_meta": {"dtype": "float32", "shape": [4, 3], "stride": [1, 4]}, "phase": "forward", "module_path": ""},
      {"name": "topk", "op": "call_function", "target": "aten.topk.default",
       "tensor_meta": [{"dtype": "float32", "shape": [4, 2], "stride": [2, 1]},
                       {"dtype": "int64", "shape": [4, 2], "stride": [2, 1]}, null],
       "phase": "backward", "module_path": "moe.gate"},
      {"name": "bad", "op": "call_function", "target": "aten.foo",
       "tensor_meta": {"dtype": "float99", "shape": [1]}},
      {"name": "odd", "op": "call_function", "target": "aten.bar", "phase": "sideways",
       "tensor_meta": {"dtype": "torch.bfloat16", "shape": [2, 0]}},
      {"name": "x", "op": "placeholder", "target": "x",
       "tensor_meta": {"dtype": "int64", "shape": [1], "stride": [1]}}
    ]})");
    Graph g;
    for (auto [name, op] : {std::pair{"x", NodeOp::Placeholder},
                            {"topk", NodeOp::CallFunction},
                            {"bad", NodeOp::CallFunction},
                            {"odd", NodeOp::CallFunction}}) {
        Node n;
        n.name = name;
        n.op = op;
        g.addNode(n);
    }
    DiagnosticList diags;
    attachSidecarMeta(g, meta.string(), diags);
    const Node& x = g.node(g.findByName("x"));
    QVERIFY(x.val.isTensor());
    QCOMPARE(ints(x.val.tensor.strides), (std::vector<int64_t>{1, 4}));
    QCOMPARE(x.meta.phase, Phase::Forward);
    const Node& t = g.node(g.findByName("topk"));
    QCOMPARE(t.val.kind, ValueMeta::Kind::Tuple);
    QCOMPARE(t.val.elems.size(), size_t(3));
    QVERIFY(t.val.elems[1].isTensor() && t.val.elems[1].tensor.dtype == DType::I64);
    QCOMPARE(t.val.elems[2].kind, ValueMeta::Kind::Unknown);
    QCOMPARE(t.meta.modulePath, std::string("moe.gate"));
    QCOMPARE(t.meta.phase, Phase::Backward);
    QCOMPARE(g.node(g.findByName("bad")).val.kind, ValueMeta::Kind::Unknown);
    const Node& odd = g.node(g.findByName("odd"));
    QVERIFY(odd.val.isTensor() && odd.val.tensor.dtype == DType::BF16);
    QVERIFY(odd.val.tensor.strides.empty());  // no stride recorded: unknown
    QCOMPARE(odd.meta.phase, Phase::Unknown);
    std::string all = diagText(diags);
    QVERIFY2(diags.hasErrors() && QString::fromStdString(all).contains("unknown dtype 'float99'"), all.c_str());
    QVERIFY2(QString::fromStdString(all).contains("unknown phase \"sideways\""), all.c_str());
    QVERIFY2(QString::fromStdString(all).contains("node 'x' appears twice"), all.c_str());
    QCOMPARE(diags.items.size(), size_t(3));
    QVERIFY(x.val.tensor.dtype == DType::F32);  // the first entry wins

    // Not JSON: InputError at the line and column of the problem.
    touch(meta, "{\"nodes\": [\n  {\"name\": \"x\",, }\n]}");
    try {
        attachSidecarMeta(g, meta.string(), diags);
        QFAIL("no InputError");
    } catch (const InputError& e) {
        QCOMPARE(e.diagnostic().line, 2);
        QCOMPARE(e.diagnostic().column, 16);
        QVERIFY(QString::fromStdString(e.diagnostic().message).contains("not valid JSON"));
    }
    touch(meta, R"({"nodes": [{"op": "placeholder"}]})");
    QVERIFY_THROWS_EXCEPTION(InputError, attachSidecarMeta(g, meta.string(), diags));
    touch(meta, R"([1, 2])");
    QVERIFY_THROWS_EXCEPTION(InputError, attachSidecarMeta(g, meta.string(), diags));
    QVERIFY_THROWS_EXCEPTION(InputError, attachSidecarMeta(g, (d / "missing.meta.json").string(), diags));

    // params.json problems
    fs::path params = d / "t.params.json";
    touch(params, R"({"data_inputs": -1, "parameter_fqns": []})");
    QVERIFY_THROWS_EXCEPTION(InputError, readParamsJson(params.string()));
    touch(params, R"({"data_inputs": 1, "parameter_fqns": [3]})");
    QVERIFY_THROWS_EXCEPTION(InputError, readParamsJson(params.string()));
    fs::remove_all(d);
}

void TestSidecar::params_data()
{
    QTest::addColumn<std::string>("params");
    for (const auto& p : pytorchFiles({".params.json"}))
        QTest::newRow(fs::relative(p, kPytorch).string().c_str()) << p.string();
}

void TestSidecar::params()
{
    QFETCH(std::string, params);
    FXL_REQUIRE_CORPUS(params);
    ParamsInfo pi = readParamsJson(params);
    nlohmann::json j = readJson(params);
    QCOMPARE(pi.numDataInputs, j["data_inputs"].get<int>());
    QCOMPARE(pi.paramFqns, j["parameter_fqns"].get<std::vector<std::string>>());
    QVERIFY(pi.numDataInputs >= 1);
    QVERIFY(std::set<std::string>(pi.paramFqns.begin(), pi.paramFqns.end()).size() == pi.paramFqns.size());
    // Parameters follow the data inputs in the inputs file: arg<k>_1 for k >= data_inputs.
    std::string base = params.substr(0, params.size() - std::string(".params.json").size());
    auto inputs = inputMetasFromSafetensors(base + ".inputs.safetensors");
    QCOMPARE(inputs.size(), size_t(pi.numDataInputs) + pi.paramFqns.size());
    for (size_t k = 0; k < inputs.size(); ++k) QVERIFY(inputs.count("arg" + std::to_string(k) + "_1"));
    // a weight matrix parameter is 2-d: the first "*.weight" FQN of a Linear/Embedding
    for (size_t k = 0; k < pi.paramFqns.size(); ++k) {
        if (endsWith(pi.paramFqns[k], "bias")) {
            const auto& m = inputs.at("arg" + std::to_string(pi.numDataInputs + int(k)) + "_1");
            QCOMPARE(m.sizes.size(), size_t(1));
        }
    }
}

FXL_TEST_APPLESS_MAIN(TestSidecar)
}  // namespace test_sidecar
#include "test_sidecar.moc"
