// Source: the artifact tree and its lazily parsed graphs. openSource detects the input format
// from the content (and the path for directories) and builds a Source. Single-graph files
// become one artifact whose sidecar files are recorded.
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/analysis/graph_stats.hpp"
#include "core/formats/fx/fx_text_parser.hpp"
#include "core/formats/fx/graph_listing.hpp"
#include "core/formats/json_io.hpp"
#include "core/formats/pt2/pt2_source.hpp"
#include "core/formats/safetensors.hpp"
#include "core/formats/sidecar.hpp"
#include "core/formats/source.hpp"
#include "core/formats/torch_trace/tlparse_output.hpp"
#include "core/formats/torch_trace/torch_trace.hpp"
#include "core/formats/utf8.hpp"
#include "core/ir/diagnostics.hpp"
#include "core/ops/shape_prop.hpp"

namespace fs = std::filesystem;

namespace fxl {

const Artifact* Source::find(const std::string& id) const
{
    for (const auto& a : artifacts)
        if (a.id == id) return &a;
    return nullptr;
}

std::vector<const Artifact*> Source::graphs() const
{
    std::vector<const Artifact*> out;
    for (const auto& a : artifacts)
        if (a.isGraph) out.push_back(&a);
    return out;
}

std::shared_ptr<Graph> Source::graph(const std::string& artifactId)
{
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (auto it = cache_.find(artifactId); it != cache_.end()) return it->second;
    }
    const Artifact* a = find(artifactId);
    if (!a) throw InputError(path, 0, 0, "no artifact with id '" + artifactId + "'");
    if (!parseGraph) throw InputError(a->file, int(a->line), 0, "this source cannot parse graphs");
    // Parse outside the lock so that different graphs can be parsed in parallel; if two
    // threads race on one id, the first result wins and the other is dropped.
    DiagnosticList local;
    std::shared_ptr<Graph> g = parseGraph(*a, local);
    std::lock_guard<std::mutex> lock(mutex_);
    auto [it, inserted] = cache_.emplace(artifactId, std::move(g));
    if (inserted) diagnostics.items.insert(diagnostics.items.end(), local.items.begin(), local.items.end());
    return it->second;
}

std::string_view sourceFormatName(SourceFormat f)
{
    switch (f) {
    case SourceFormat::FxCode: return "fx-code";
    case SourceFormat::GraphListing: return "graph-listing";
    case SourceFormat::TorchTrace: return "torch-trace";
    case SourceFormat::TorchTraceDir: return "torch-trace-dir";
    case SourceFormat::TlparseOutput: return "tlparse-output";
    case SourceFormat::Json: return "fxlens-json";
    case SourceFormat::Pt2: return "pt2";
    }
    return "unknown";
}

namespace {

constexpr size_t kSniffBytes = 64 * 1024;

std::string readPrefix(const std::string& path, size_t n)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path, 0, 0, "cannot open file: " + std::string(std::strerror(errno)));
    std::string buf(n, '\0');
    in.read(buf.data(), static_cast<std::streamsize>(n));
    buf.resize(static_cast<size_t>(in.gcount()));
    return buf;
}

std::string readAll(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path, 0, 0, "cannot open file: " + std::string(std::strerror(errno)));
    std::ostringstream ss;
    ss << in.rdbuf();
    if (in.bad()) throw InputError(path, 0, 0, "read error");
    return ss.str();
}

// 1-based line and column (in bytes) of an offset.
std::pair<int, int> lineColumn(std::string_view text, size_t offset)
{
    int line = 1, col = 1;
    for (size_t i = 0; i < offset && i < text.size(); ++i) {
        if (text[i] == '\n') {
            ++line;
            col = 1;
        } else {
            ++col;
        }
    }
    return {line, col};
}

// Offset of the first byte that breaks UTF-8 (or a NUL), npos when the text is clean.
// `prefixOnly`: the text may end in the middle of a sequence (a sniffed prefix).
size_t firstBadUtf8(std::string_view s, bool prefixOnly)
{
    const size_t bad = firstInvalidUtf8(s, NulByte::Invalid);
    if (bad == std::string_view::npos || !prefixOnly) return bad;
    // a lead byte whose sequence the cut-off text could still complete
    const auto c = static_cast<unsigned char>(s[bad]);
    const size_t len = (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
    if (len == 0 || bad + len <= s.size()) return bad;
    for (size_t k = bad + 1; k < s.size(); ++k)
        if ((static_cast<unsigned char>(s[k]) & 0xC0) != 0x80) return bad;
    return std::string_view::npos;
}

void requireText(std::string_view text, const std::string& file, bool prefixOnly, std::string_view expected)
{
    const size_t bad = firstBadUtf8(text, prefixOnly);
    if (bad == std::string_view::npos) return;
    auto [line, col] = lineColumn(text, bad);
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02X", static_cast<unsigned>(static_cast<unsigned char>(text[bad])));
    throw InputError(file, line, col,
                     std::string(text[bad] == '\0' ? "NUL byte" : "invalid UTF-8 byte ")
                         + (text[bad] == '\0' ? "" : hex) + ": expected " + std::string(expected) + " (UTF-8 text)");
}

bool looksLikeJson(std::string_view head)
{
    for (char c : head) {
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') continue;
        return c == '{' || c == '[';
    }
    return false;
}

// The sidecar files of a plain graph file: NAME.inputs.safetensors, NAME.meta.json, ...
void recordSidecars(Artifact& a, const std::string& path)
{
    const SidecarFiles sc = findSidecars(path);
    a.inputsPath = sc.inputs;
    a.constantsPath = sc.constants;
    a.metaPath = sc.meta;
    a.paramsPath = sc.params;
}

Graph parseSingleGraph(SourceFormat format, const std::string& path, DiagnosticList& diags)
{
    switch (format) {
    case SourceFormat::Json: {
        return readGraphJson(path);
    }
    case SourceFormat::GraphListing: {
        const std::string text = readAll(path);
        requireText(text, path, false, "a graph listing");
        return parseGraphListing(text, path, diags);
    }
    default: {
        const std::string text = readAll(path);
        requireText(text, path, false, "FX graph code");
        return parseFxText(text, path, 1, &diags);
    }
    }
}

// NAME.meta.json records the traced step (the joint graph). A partitioned graph of the same
// step (NAME.fw.mincut.code.py, ...) keeps the joint graph's node names for the values it
// copies, but a value the forward saves is a placeholder in the backward graph: there the
// file is used by name as recorded values, not attached node by node.
bool metaDescribesGraph(const std::string& graphFile)
{
    const std::string part = findSidecars(graphFile).part;
    return part.empty() || part == "joint";
}

// The traced step's recorded values by node name: a scratch graph that mirrors the meta
// file's node names and ops gets the file attached (its own parser does the reading).
std::unique_ptr<Graph> recordedGraph(const std::string& metaPath, DiagnosticList& diags)
{
    auto g = std::make_unique<Graph>();
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(readAll(metaPath));
    } catch (const nlohmann::json::exception&) {
        attachSidecarMeta(*g, metaPath, diags);  // reports the syntax error with its location
        return g;
    }
    if (!j.is_object() || !j.contains("nodes") || !j["nodes"].is_array()) {
        attachSidecarMeta(*g, metaPath, diags);  // reports what is missing
        return g;
    }
    for (const auto& n : j["nodes"]) {
        if (!n.is_object() || !n.contains("name") || !n["name"].is_string()) continue;
        const std::string name = n["name"].get<std::string>();
        if (name.empty() || g->findByName(name) != kNoNode) continue;
        Node node;
        node.name = name;
        node.target = name;
        node.op = NodeOp::CallFunction;
        if (n.contains("op") && n["op"].is_string())
            if (auto op = nodeOpFromName(n["op"].get<std::string>())) node.op = *op;
        g->addNode(std::move(node));
    }
    DiagnosticList scratch;  // mismatches are the file's own business, reported when the joint graph is read
    attachSidecarMeta(*g, metaPath, scratch);
    return g;
}

// Shapes for a graph printed without annotations (gm.code): the recorded meta.json first,
// then shape propagation from the real inputs' dtypes and shapes (and, for a partitioned
// graph, the recorded values of its placeholders) for whatever is still unknown.
// `meta`: the meta file, read already (by the caller, while the graph was parsed), when it
// describes this graph.
// The placeholders of a graph with a params.json beside it, described the way AOT graphs
// describe theirs: "PlainAOTInput(idx=0)" for the data inputs, "ParamAOTInput(target='w')"
// for the parameters. Matched like graph stats match them: by the joint input index in the
// name (arg3_1, primals_4), else by position. Graphs that describe their inputs already keep
// their descriptions.
void describeInputs(Graph& g, const Artifact& a, DiagnosticList& diags)
{
    if (a.paramsPath.empty()) return;
    const std::vector<NodeId> phs = g.placeholders();
    bool anyJointName = false;
    for (NodeId id : phs) {
        if (!g.node(id).meta.desc.empty()) return;
        if (jointInputIndex(g.node(id).name)) anyJointName = true;
    }
    ParamsInfo params;
    try {
        params = readParamsJson(a.paramsPath);
    } catch (const InputError& e) {
        diags.warn(a.paramsPath, e.diagnostic().line, e.diagnostic().column, e.diagnostic().message);
        return;
    }
    for (size_t k = 0; k < phs.size(); ++k) {
        Node& n = g.node(phs[k]);
        const std::optional<int> idx = anyJointName ? jointInputIndex(n.name) : std::optional<int>(static_cast<int>(k));
        if (!idx) continue;
        if (*idx < params.numDataInputs) {
            n.meta.desc = "PlainAOTInput(idx=" + std::to_string(*idx) + ")";
        } else if (*idx - params.numDataInputs < static_cast<int>(params.paramFqns.size())) {
            n.meta.desc =
                "ParamAOTInput(target='" + params.paramFqns[static_cast<size_t>(*idx - params.numDataInputs)] + "')";
        }
    }
}

// `meta`, when given, is read for this graph alone: its metas are moved into the graph.
void enrichGraph(Graph& g, const Artifact& a, DiagnosticList& diags, SidecarMeta* meta)
{
    describeInputs(g, a, diags);
    const bool attach = meta != nullptr;
    if (attach) attachSidecarMeta(g, std::move(*meta), diags);
    bool missing = false;
    g.forEachNode([&](const Node& n) {
        if (n.op != NodeOp::Output && n.val.kind == ValueMeta::Kind::Unknown) missing = true;
    });
    if (!missing || (a.inputsPath.empty() && a.constantsPath.empty() && a.metaPath.empty())) return;

    ShapePropOptions opts;
    std::unique_ptr<Graph> recorded;
    if (!a.metaPath.empty() && !attach) {
        recorded = recordedGraph(a.metaPath, diags);
        opts.recorded = recorded.get();
    }
    const std::map<std::string, TensorMeta> inputs =
        a.inputsPath.empty() ? std::map<std::string, TensorMeta>{} : inputMetasFromSafetensors(a.inputsPath);
    for (NodeId id : g.placeholders()) {
        const Node& n = g.node(id);
        if (n.val.kind != ValueMeta::Kind::Unknown) continue;
        if (recorded) {  // a value the forward saved, by its joint-graph name
            const NodeId r = recorded->findByName(n.name);
            if (r != kNoNode && recorded->node(r).val.isTensor()) {
                opts.inputs[n.name] = recorded->node(r).val.tensor;
                continue;
            }
        }
        if (auto it = inputs.find(n.name); it != inputs.end()) {
            opts.inputs[n.name] = it->second;
        } else if (auto idx = jointInputIndex(n.name)) {
            // The inputs file is keyed by the traced step's names (arg3_1); a partitioned
            // graph calls the same input primals_4.
            if (auto jt = inputs.find("arg" + std::to_string(*idx) + "_1"); jt != inputs.end())
                opts.inputs[n.name] = jt->second;
        }
    }
    if (!a.constantsPath.empty()) opts.constants = inputMetasFromSafetensors(a.constantsPath);
    opts.overwrite = false;  // recorded metas win over computed ones
    const ShapePropResult r = propagateShapes(g, opts);
    for (const std::string& p : r.problems) diags.warn(a.file, 0, 0, "shape propagation: " + p);
}

std::unique_ptr<Source> openSingleGraph(const std::string& path, SourceFormat format)
{
    auto src = std::make_unique<Source>();
    src->path = path;
    src->format = format;
    Artifact a;
    a.id = "0";
    a.kind = "graph";
    a.file = path;
    a.line = 1;
    a.isGraph = true;
    recordSidecars(a, path);
    src->artifacts.push_back(std::move(a));
    src->readPayload = [](const Artifact& art) { return readAll(art.file); };
    src->parseGraph = [format](const Artifact& art, DiagnosticList& diags) {
        // the meta file (28 MB of JSON for a 100k-node graph) is read while the graph text is
        // parsed; its errors still come after the graph's own
        std::future<SidecarMeta> meta;
        if (!art.metaPath.empty() && metaDescribesGraph(art.file))
            meta = std::async(std::launch::async, [path = art.metaPath] { return readSidecarMeta(path); });
        auto g = std::make_shared<Graph>(parseSingleGraph(format, art.file, diags));
        if (meta.valid()) {
            SidecarMeta m = meta.get();
            enrichGraph(*g, art, diags, &m);
        } else {
            enrichGraph(*g, art, diags, nullptr);
        }
        return g;
    };
    return src;
}

std::unique_ptr<Source> openDirectory(const std::string& path, const Progress& progress)
{
    std::error_code ec;
    if (isTlparseOutputDir(path)) {
        auto src = loadTorchTrace(path, progress);  // loads it as a tlparse output folder
        src->format = SourceFormat::TlparseOutput;
        return src;
    }
    bool anyTrace = false;
    for (fs::directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) {
        std::error_code fec;
        if (!it->is_regular_file(fec)) continue;  // per-rank logs may lack an extension
        std::string head;
        try {
            head = readPrefix(it->path().string(), 4096);
        } catch (const InputError&) {
            continue;  // an unreadable file among the logs is skipped, as tlparse does
        }
        if (looksLikeTorchTrace(head)) {
            anyTrace = true;
            break;
        }
    }
    if (ec) throw InputError(path, 0, 0, "cannot list directory: " + ec.message());
    if (!anyTrace)
        throw InputError(path, 0, 0,
                         "directory holds no TORCH_TRACE log (a file starting with a trace header line) "
                         "and no compile_directory.json (tlparse output)");
    auto src = loadTorchTrace(path, progress);
    src->format = SourceFormat::TorchTraceDir;
    return src;
}

// A line that starts (after indentation) with `def NAME` or `class NAME`.
bool looksLikeFxCode(std::string_view head)
{
    size_t at = 0;
    while (at < head.size()) {
        size_t end = head.find('\n', at);
        if (end == std::string_view::npos) end = head.size();
        std::string_view line = head.substr(at, end - at);
        while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
        for (std::string_view word : {std::string_view("def "), std::string_view("class ")})
            if (line.substr(0, word.size()) == word && line.size() > word.size()
                && (std::isalpha(static_cast<unsigned char>(line[word.size()])) || line[word.size()] == '_'))
                return true;
        at = end + 1;
    }
    return false;
}

// A single graph file: nothing to index, so one step of progress.
std::unique_ptr<Source> openSingleGraphFile(const std::string& path, SourceFormat format, const Progress& progress)
{
    ProgressMeter meter(progress, 1);
    const std::string name = fs::path(path).filename().string();
    meter.report(0, name);
    auto src = openSingleGraph(path, format);
    meter.finish(name);
    return src;
}

}  // namespace

std::unique_ptr<Source> openSource(const std::string& path, const Progress& progress)
{
    std::error_code ec;
    const fs::file_status st = fs::status(path, ec);
    if (ec || !fs::exists(st)) throw InputError(path, 0, 0, "no such file or directory");
    if (fs::is_directory(st)) return openDirectory(path, progress);
    if (!fs::is_regular_file(st)) throw InputError(path, 0, 0, "not a regular file or directory");

    const std::string head = readPrefix(path, kSniffBytes);
    if (head.empty())
        throw InputError(path, 0, 0,
                         "empty file: expected FX graph code, a graph listing, fxlens JSON or a TORCH_TRACE log");
    if (head.compare(0, 4, "PK\x03\x04") == 0 || head.compare(0, 4, "PK\x05\x06") == 0) return openPt2(path, progress);
    if (head.size() >= 2 && static_cast<unsigned char>(head[0]) == 0x80 && head[1] >= 2 && head[1] <= 5)
        throw InputError(path, 0, 0,
                         "a Python pickle, not a graph: a CUDA memory snapshot (torch.cuda.memory._dump_snapshot, "
                         "fxlens run --memory-snapshot) is read by fxlens mem; graphs are FX code, a graph listing, "
                         "fxlens JSON or a TORCH_TRACE log");
    if (looksLikeTorchTrace(head)) {
        auto src = loadTorchTrace(path, progress);
        src->format = SourceFormat::TorchTrace;
        return src;
    }
    if (looksLikeJson(head)) return openSingleGraphFile(path, SourceFormat::Json, progress);
    requireText(head, path, true, "FX graph code or a graph listing");
    if (looksLikeGraphListing(head)) return openSingleGraphFile(path, SourceFormat::GraphListing, progress);
    // FX code has a `def` (gm.code) or a `class` (print_readable) near its start: other text (a
    // README, notes) is refused here instead of being listed as a graph that cannot be read
    if (!looksLikeFxCode(head))
        throw InputError(path, 1, 1,
                         "expected 'class' or 'def' (FX graph code), 'graph():' (a graph listing), fxlens JSON or a "
                         "TORCH_TRACE log: this text is not a graph");
    return openSingleGraphFile(path, SourceFormat::FxCode, progress);
}

}  // namespace fxl
