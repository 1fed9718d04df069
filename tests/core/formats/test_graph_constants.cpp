// A graph's constants (core/formats/graph_constants) and how fxlens JSON carries them: which
// get_attr tensors a graph reads, picking them out of a file, embedding them in the JSON
// (version 2) and reading them back bit for bit; every way the embedded constants can be
// malformed is an error that names the JSON pointer and the text position; version 1 files
// (no constants) still read. The corpus rows embed the real constants of real graphs.
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/formats/fx/fx_text_parser.hpp"
#include "core/formats/graph_constants.hpp"
#include "core/formats/json_io.hpp"
#include "core/formats/safetensors.hpp"
#include "core/formats/sidecar.hpp"
#include "core/ir/diagnostics.hpp"
#include "core/util/base64.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_graph_constants {

using namespace fxl;
namespace fs = std::filesystem;

namespace {

// get_attr read twice (one tensor), a second tensor, and a plain placeholder.
const char* kGraphText = R"(class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[2]"):
        _tensor_constant0 = self._tensor_constant0
        add: "f32[2]" = torch.ops.aten.add.Tensor(x, _tensor_constant0);  x = _tensor_constant0 = None
        _tensor_constant0_1 = self._tensor_constant0
        mul: "f32[2]" = torch.ops.aten.mul.Tensor(add, _tensor_constant0_1);  add = _tensor_constant0_1 = None
        _tensor_constant1 = self._tensor_constant1
        sub: "f32[2]" = torch.ops.aten.sub.Tensor(mul, _tensor_constant1);  mul = _tensor_constant1 = None
        return (sub,)
)";

SafeTensor floatTensor(const std::string& name, std::vector<float> values)
{
    SafeTensor t;
    t.name = name;
    t.dtype = DType::F32;
    t.shape = {int64_t(values.size())};
    t.data.resize(values.size() * sizeof(float));
    std::memcpy(t.data.data(), values.data(), t.data.size());
    return t;
}

// _tensor_constant1 first, an unused tensor in the middle: selection follows the graph.
SafeTensorsFile constantsFile()
{
    SafeTensorsFile f;
    f.tensors.push_back(floatTensor("_tensor_constant1", {-0.0f, 1e-38f}));
    f.tensors.push_back(floatTensor("unused", {7.0f}));
    f.tensors.push_back(floatTensor("_tensor_constant0", {0.1f, std::numeric_limits<float>::quiet_NaN()}));
    return f;
}

Graph smallGraph() { return parseFxText(kGraphText, "small.py"); }

std::string readAll(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// The small graph with its constants embedded, as JSON text.
std::string embeddedDocument()
{
    Graph g = smallGraph();
    embedConstants(g, selectConstants(g, constantsFile()));
    return formatGraphJson(g);
}

std::string replaced(std::string text, const std::string& from, const std::string& to)
{
    const size_t at = text.find(from);
    if (at == std::string::npos) qFatal("test text not found: %s", from.c_str());
    return text.replace(at, from.size(), to);
}

}  // namespace

class TestGraphConstants : public QObject
{
    Q_OBJECT

private slots:
    void namesAndSelection()
    {
        const Graph g = smallGraph();
        QCOMPARE(constantTensorNames(g), (std::vector<std::string>{"_tensor_constant0", "_tensor_constant1"}));
        std::vector<std::string> missing;
        const SafeTensorsFile picked = selectConstants(g, constantsFile(), &missing);
        QVERIFY(missing.empty());
        QCOMPARE(picked.tensors.size(), size_t(2));
        QCOMPARE(picked.tensors[0].name, std::string("_tensor_constant0"));
        QCOMPARE(picked.tensors[1].name, std::string("_tensor_constant1"));
        QCOMPARE(picked.tensors[0].data, constantsFile().tensors[2].data);

        SafeTensorsFile partial;
        partial.tensors.push_back(floatTensor("_tensor_constant1", {1, 2}));
        missing.clear();
        QCOMPARE(selectConstants(g, partial, &missing).tensors.size(), size_t(1));
        QCOMPARE(missing, std::vector<std::string>{"_tensor_constant0"});
    }

    void sidecarPath_data()
    {
        QTest::addColumn<std::string>("graph");
        QTest::addColumn<std::string>("constants");
        QTest::newRow("step file") << std::string("out/04_dce.py") << std::string("out/04_dce.constants.safetensors");
        QTest::newRow("partition step") << std::string("out/05_partition.forward.py")
                                        << std::string("out/05_partition.forward.constants.safetensors");
        QTest::newRow("corpus code") << std::string("c/gpt2_tiny.joint.code.py")
                                     << std::string("c/gpt2_tiny.joint.constants.safetensors");
        QTest::newRow("corpus listing") << std::string("c/gpt2_tiny.joint.graph.txt")
                                        << std::string("c/gpt2_tiny.joint.constants.safetensors");
        QTest::newRow("json") << std::string("g.json") << std::string("g.constants.safetensors");
    }
    void sidecarPath()
    {
        QFETCH(std::string, graph);
        QFETCH(std::string, constants);
        QCOMPARE(constantsSidecarPath(graph), constants);
    }

    // Embedded constants survive JSON text and the DOM writer, bit for bit (NaN, -0, denormal).
    void jsonRoundTrip()
    {
        Graph g = smallGraph();
        const SafeTensorsFile picked = selectConstants(g, constantsFile());
        embedConstants(g, picked);
        QVERIFY(g.embeddedConstants);
        const std::string text = formatGraphJson(g);
        QVERIFY(nlohmann::json::parse(text) == graphToJson(g));
        QVERIFY(text.find("\"version\": 2") != std::string::npos);
        const Graph back = parseGraphJson(text, "g.json");
        std::string why;
        QVERIFY2(back.structurallyEqual(g, &why), why.c_str());
        const auto read = embeddedConstants(back, "g.json");
        QVERIFY(read.has_value());
        QCOMPARE(read->tensors.size(), picked.tensors.size());
        for (size_t i = 0; i < picked.tensors.size(); ++i) {
            QCOMPARE(read->tensors[i].name, picked.tensors[i].name);
            QCOMPARE(read->tensors[i].shape, picked.tensors[i].shape);
            QCOMPARE(read->tensors[i].data, picked.tensors[i].data);
        }
        // structural equality sees a lost or changed constant
        Graph without = back;
        without.embeddedConstants.reset();
        QVERIFY(!without.structurallyEqual(g));
        // an empty selection embeds nothing and writes no "constants"
        embedConstants(without, SafeTensorsFile{});
        QVERIFY(!without.embeddedConstants);
        QVERIFY(formatGraphJson(without).find("\"constants\"") == std::string::npos);
    }

    // A version 1 file (no constants) reads as before.
    void versionOneReads()
    {
        const std::string v2 = formatGraphJson(smallGraph());
        const Graph g = parseGraphJson(replaced(v2, "\"version\": 2", "\"version\": 1"), "old.json");
        QVERIFY(!g.embeddedConstants);
        QCOMPARE(g.size(), smallGraph().size());
    }

    void badConstants_data()
    {
        QTest::addColumn<std::string>("text");
        QTest::addColumn<QString>("expected");
        const std::string good = embeddedDocument();
        const auto j = nlohmann::json::parse(good);
        const std::string data = j["constants"]["data"].get<std::string>();
        auto row = [](const char* name, const std::string& text, const char* expected) {
            QTest::newRow(name) << text << QString(expected);
        };
        row("constants in a version 1 file", replaced(good, "\"version\": 2", "\"version\": 1"),
            "/constants: unknown field \"constants\"");
        row("not an object", good.substr(0, good.find("\"constants\": ")) + "\"constants\": [1]}\n",
            "/constants: expected the embedded constants (a JSON object)");
        row("bad base64", replaced(good, data.substr(0, 8), data.substr(0, 4) + "*" + data.substr(5, 3)),
            "/constants/data: invalid base64 at character 4");
        row("truncated data", replaced(good, data, data.substr(0, data.size() - 8)),
            "/constants/data: not a valid safetensors file");
        row("wrong encoding", replaced(good, "\"base64\"", "\"hex\""), "/constants/encoding: expected \"base64\"");
        row("wrong format", replaced(good, "\"format\":\"safetensors\"", "\"format\":\"npz\""),
            "/constants/format: expected \"safetensors\"");
        row("name differs", replaced(good, "[\"_tensor_constant0\"", "[\"_tensor_constantX\""),
            "/constants/names/0: \"data\" holds \"_tensor_constant0\" here");
        row("a name too many", replaced(good, "\"_tensor_constant1\"]", "\"_tensor_constant1\",\"x\"]"),
            "/constants/names: 3 names for 2 tensors");
        row("unknown field", replaced(good, "\"encoding\":", "\"zip\":true,\"encoding\":"),
            "/constants/zip: unknown field");
        row("missing data", replaced(good, "\"data\":\"" + data + "\",", ""),
            "/constants: missing required field \"data\"");
    }
    void badConstants()
    {
        QFETCH(std::string, text);
        QFETCH(QString, expected);
        try {
            parseGraphJson(text, "bad.json");
            QFAIL("no error");
        } catch (const InputError& e) {
            const QString msg = QString::fromStdString(e.diagnostic().format());
            QVERIFY2(msg.contains(expected), qPrintable(msg));
            QVERIFY2(e.diagnostic().line > 0, qPrintable(msg));  // a position in the text
        }
    }

    // Real graphs with their real constants: embedded, written, read, bit for bit.
    void corpus_data()
    {
        QTest::addColumn<std::string>("graph");
        QTest::addColumn<std::string>("constants");
        const std::string suffix = ".constants.safetensors";
        for (const auto& p : fxltest::corpusFiles("pytorch", {suffix})) {
            const std::string name = p.filename().string();
            const std::string stem = name.size() > suffix.size() ? name.substr(0, name.size() - suffix.size()) : name;
            QTest::newRow(name.c_str()) << (p.parent_path() / (stem + ".code.py")).string() << p.string();
        }
    }
    void corpus()
    {
        QFETCH(std::string, graph);
        QFETCH(std::string, constants);
        FXL_REQUIRE_CORPUS(constants);
        FXL_REQUIRE_CORPUS(graph);
        Graph g = parseFxText(readAll(graph), graph);
        const SafeTensorsFile file = readSafetensors(constants);
        std::vector<std::string> missing;
        const SafeTensorsFile picked = selectConstants(g, file, &missing);
        QVERIFY2(missing.empty(), missing.empty() ? "" : ("not in the file: " + missing.front()).c_str());
        QVERIFY(!picked.tensors.empty());
        embedConstants(g, picked);
        const Graph back = parseGraphJson(formatGraphJson(g), "corpus.json");
        std::string why;
        QVERIFY2(back.structurallyEqual(g, &why), why.c_str());
        const auto read = embeddedConstants(back, "corpus.json");
        QVERIFY(read.has_value());
        for (const SafeTensor& t : picked.tensors) {
            const SafeTensor* r = read->find(t.name);
            QVERIFY2(r, t.name.c_str());
            QCOMPARE(r->data, t.data);
            QCOMPARE(r->shape, t.shape);
            QCOMPARE(int(r->dtype), int(t.dtype));
        }
    }
};

FXL_TEST_APPLESS_MAIN(TestGraphConstants)
}  // namespace test_graph_constants
#include "test_graph_constants.moc"
