// The fast reader of meta.json files (core/formats/sidecar_scan.hpp) against the full JSON
// reader: on every meta file of the corpus it must read the file itself (no falling back) and
// give exactly what the full reader gives; on texts it cannot read exactly it must give up, so
// that the full reader reports them.
#include <QtTest>

#include <filesystem>
#include <optional>
#include <string>

#include "core/formats/sidecar.hpp"
#include "core/formats/sidecar_scan.hpp"
#include "core/ir/diagnostics.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_sidecar_scan {

using namespace fxl;
namespace fs = std::filesystem;

namespace {

// Where the two readers differ, what differs first ("" when they agree).
std::string difference(const SidecarMeta& a, const SidecarMeta& b)
{
    if (a.path != b.path) return "path";
    if (a.duplicateNames != b.duplicateNames) return "duplicate names";
    if (a.nodes.size() != b.nodes.size())
        return "node count " + std::to_string(a.nodes.size()) + " vs " + std::to_string(b.nodes.size());
    for (size_t i = 0; i < a.nodes.size(); ++i) {
        const SidecarNodeMeta& x = a.nodes[i];
        const SidecarNodeMeta& y = b.nodes[i];
        const std::string at = "node " + std::to_string(i) + " (" + y.name + "): ";
        if (x.name != y.name) return at + "name " + x.name;
        if (x.op != y.op) return at + "op " + x.op;
        if (x.target != y.target) return at + "target " + x.target;
        if (x.hasVal != y.hasVal) return at + "hasVal";
        if (x.val != y.val) return at + "tensor_meta " + formatAnnotation(x.val) + " vs " + formatAnnotation(y.val);
        if (x.modulePath != y.modulePath) return at + "module_path";
        if (x.phase != y.phase) return at + "phase";
        if (x.error != y.error) return at + "error '" + x.error + "' vs '" + y.error + "'";
        if (x.warning != y.warning) return at + "warning '" + x.warning + "' vs '" + y.warning + "'";
    }
    return {};
}

// The full reader's result, or nullopt where it refuses the text.
std::optional<SidecarMeta> fullRead(const std::string& text)
{
    try {
        return readSidecarMetaJson(text, "t.meta.json");
    } catch (const InputError&) {
        return std::nullopt;
    }
}

std::string node(const std::string& fields) { return R"({"nodes": [)" + fields + "]}"; }

}  // namespace

class TestSidecarScan : public QObject
{
    Q_OBJECT
private slots:
    void corpusFile_data();
    void corpusFile();
    void text_data();
    void text();
};

void TestSidecarScan::corpusFile_data()
{
    QTest::addColumn<std::string>("path");
    for (const char* dir : {"pytorch", "pytorch/large"})
        for (const fs::path& p : fxltest::corpusFiles(dir, {".meta.json"}))
            QTest::newRow(fxltest::corpusRowName(p).c_str()) << p.string();
}

void TestSidecarScan::corpusFile()
{
    QFETCH(std::string, path);
    FXL_REQUIRE_CORPUS(path);
    const std::string text = fxltest::readFile(path);
    const std::optional<SidecarMeta> fast = scanSidecarMeta(text, path);
    QVERIFY2(fast, "the fast reader gave up on a meta file of the corpus (it is there for these files)");
    QVERIFY(!fast->nodes.empty());
    const SidecarMeta full = readSidecarMetaJson(text, path);
    const std::string diff = difference(*fast, full);
    QVERIFY2(diff.empty(), diff.c_str());
    // readSidecarMeta, the entry point, gives the same
    QVERIFY(difference(readSidecarMeta(path), full).empty());
}

void TestSidecarScan::text_data()
{
    QTest::addColumn<std::string>("text");
    QTest::addColumn<bool>("fastReads");  // false: the fast reader must give up

    const std::string tm = R"("tensor_meta": {"dtype": "float32", "shape": [2, 3], "stride": [3, 1]})";
    QTest::newRow("plain") << node(R"({"name": "x", "op": "placeholder", "target": "x", )" + tm + "}") << true;
    QTest::newRow("keys in any order, unknown keys skipped") << node(
        R"({"extra": {"a": [1, 2.5, true, false, null, "s\n\"q\""]}, )" + tm
        + R"(, "op": "call_function", "module_path": "layers.0", "phase": "backward", "name": "mm", "target": "aten.mm.default"})")
                                                             << true;
    QTest::newRow("null tensor_meta, module_path and phase")
        << node(R"({"name": "o", "op": "output", "tensor_meta": null, "module_path": null, "phase": null})") << true;
    QTest::newRow("empty phase") << node(R"({"name": "o", "op": "output", "phase": ""})") << true;
    QTest::newRow("tuple with null") << node(
        R"({"name": "t", "op": "call_function", "tensor_meta": [null, {"dtype": "torch.int64", "shape": []}, []]})")
                                     << true;
    QTest::newRow("stride null") << node(
        R"({"name": "x", "op": "placeholder", "tensor_meta": {"dtype": "float32", "shape": [4], "stride": null}})")
                                 << true;
    QTest::newRow("negative stride, -0 in shape") << node(
        R"({"name": "x", "op": "placeholder", "tensor_meta": {"dtype": "float32", "shape": [-0, 2], "stride": [-1, -9223372036854775808]}})")
                                                  << true;
    QTest::newRow("target not a string") << node(R"({"name": "x", "op": "placeholder", "target": 3})") << true;
    QTest::newRow("duplicate name") << node(
        R"({"name": "x", "op": "placeholder"}, {"name": "x", "op": "output", "tensor_meta": {"dtype": "int8", "shape": [1]}})")
                                    << true;
    QTest::newRow("other top-level keys") << std::string(R"( {"source": "make_fx", "nodes": [], "n": -12.5} )") << true;
    QTest::newRow("empty node list") << std::string(R"({"source": "s", "nodes": []})") << true;

    // given up: the full reader decides (an error, a warning, or a value the fast one does not read)
    QTest::newRow("not JSON") << std::string("{\"nodes\": [") << false;
    QTest::newRow("trailing garbage") << node("") + " x" << false;
    QTest::newRow("trailing comma") << std::string(R"({"nodes": [{"name": "x", "op": "output"},]})") << false;
    QTest::newRow("no nodes") << std::string(R"({"source": "s"})") << false;
    QTest::newRow("nodes twice") << std::string(R"({"nodes": [], "nodes": []})") << false;
    QTest::newRow("nodes not a list") << std::string(R"({"nodes": {}})") << false;
    QTest::newRow("node not an object") << node("3") << false;
    QTest::newRow("no name") << node(R"({"op": "output"})") << false;
    QTest::newRow("name not a string") << node(R"({"name": 1, "op": "output"})") << false;
    QTest::newRow("unknown op") << node(R"({"name": "x", "op": "call_sideways"})") << false;
    QTest::newRow("name twice") << node(R"({"name": "x", "name": "y", "op": "output"})") << false;
    QTest::newRow("escaped name") << node(R"({"name": "\u0078", "op": "output"})") << false;
    QTest::newRow("escaped key") << node(R"({"n\u0061me": "x", "op": "output"})") << false;
    QTest::newRow("non-ASCII module path")
        << node("{\"name\": \"x\", \"op\": \"output\", \"module_path\": \"l\xc3\xa9\"}") << false;
    QTest::newRow("invalid UTF-8 in a skipped string")
        << node("{\"name\": \"x\", \"op\": \"output\", \"s\": \"\xff\"}") << false;
    QTest::newRow("unknown dtype") << node(
        R"({"name": "x", "op": "placeholder", "tensor_meta": {"dtype": "float7", "shape": []}})")
                                   << false;
    QTest::newRow("float in shape") << node(
        R"({"name": "x", "op": "placeholder", "tensor_meta": {"dtype": "float32", "shape": [2.0]}})")
                                    << false;
    QTest::newRow("negative shape") << node(
        R"({"name": "x", "op": "placeholder", "tensor_meta": {"dtype": "float32", "shape": [-1]}})")
                                    << false;
    QTest::newRow("stride count") << node(
        R"({"name": "x", "op": "placeholder", "tensor_meta": {"dtype": "float32", "shape": [2], "stride": []}})")
                                  << false;
    QTest::newRow("shape over int64") << node(
        R"({"name": "x", "op": "placeholder", "tensor_meta": {"dtype": "float32", "shape": [9223372036854775808]}})")
                                      << false;
    QTest::newRow("no shape") << node(R"({"name": "x", "op": "placeholder", "tensor_meta": {"dtype": "float32"}})")
                              << false;
    QTest::newRow("tensor_meta a string")
        << node(R"({"name": "x", "op": "placeholder", "tensor_meta": "f32"})") << false;
    QTest::newRow("unknown phase") << node(R"({"name": "x", "op": "output", "phase": "sideways"})") << false;
    QTest::newRow("module_path a number") << node(R"({"name": "x", "op": "output", "module_path": 1})") << false;
    QTest::newRow("huge number in a skipped field") << node(R"({"name": "x", "op": "output", "n": 1e400})") << false;
    QTest::newRow("leading zero") << node(R"({"name": "x", "op": "output", "n": 01})") << false;
    QTest::newRow("bad literal") << node(R"({"name": "x", "op": "output", "n": nul})") << false;
    QTest::newRow("byte order mark") << "\xef\xbb\xbf" + node(R"({"name": "x", "op": "output"})") << false;
    std::string deep = R"({"name": "x", "op": "placeholder", "tensor_meta": )";
    for (int i = 0; i < 40; ++i) deep += "[";
    for (int i = 0; i < 40; ++i) deep += "]";
    QTest::newRow("tensor_meta nested too deeply") << node(deep + "}") << false;
}

void TestSidecarScan::text()
{
    QFETCH(std::string, text);
    QFETCH(bool, fastReads);
    const std::optional<SidecarMeta> fast = scanSidecarMeta(text, "t.meta.json");
    const std::optional<SidecarMeta> full = fullRead(text);
    QCOMPARE(fast.has_value(), fastReads);
    if (fast) {
        QVERIFY2(full, "the fast reader read a text the full reader refuses");
        const std::string diff = difference(*fast, *full);
        QVERIFY2(diff.empty(), diff.c_str());
    }
}

FXL_TEST_GUILESS_MAIN(TestSidecarScan)
}  // namespace test_sidecar_scan
#include "test_sidecar_scan.moc"
