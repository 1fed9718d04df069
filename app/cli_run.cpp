// fxlens run / fxlens check: execute graphs on the CPU reference backend
// (runtime/executor.hpp) and compare outputs bit for bit (runtime/equivalence.hpp).
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iomanip>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <set>
#include <sstream>

#include "app/cli_check_chunks.hpp"
#include "app/cli_common.hpp"
#include "app/cli_constants.hpp"
#include "app/cli_run.hpp"
#include "core/analysis/memory_timeline.hpp"
#include "core/formats/safetensors.hpp"
#include "core/formats/source.hpp"
#include "core/ir/graph.hpp"
#include "core/util/content_hash.hpp"
#include "core/util/format.hpp"
#include "runtime/backend.hpp"
#include "runtime/cpu/cpu_common.hpp"
#include "runtime/equivalence.hpp"
#include "runtime/executor.hpp"
#include "runtime/kernel.hpp"
#include "runtime/localize.hpp"
#include "runtime/thread_choice.hpp"

namespace fxl::cli {

namespace {

constexpr const char* kRunConstantsHint =
    "give them with --constants FILE, or generate them from their meta with --seed N";

using nlohmann::json;

constexpr size_t kSlowestShown = 5;
constexpr size_t kNamesShown = 8;

bool endsWith(const std::string& s, const std::string& suffix)
{
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string millis(double seconds)
{
    std::ostringstream s;
    s << std::fixed << std::setprecision(3) << seconds * 1000.0 << " ms";
    return s.str();
}

std::string number(double v)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

std::string nameList(const std::vector<std::string>& names)
{
    std::string s;
    for (size_t k = 0; k < names.size() && k < kNamesShown; ++k) s += (k ? ", " : "") + names[k];
    if (names.size() > kNamesShown) s += ", ... (" + std::to_string(names.size()) + " in all)";
    return s;
}

// A safetensors file picked for a run: given on the command line, or the graph file's
// corpus sidecar (NAME.inputs.safetensors, FILE.constants.safetensors).
struct TensorFile
{
    std::string path;  // "" = none
    bool fromSidecar = false;
    SafeTensorsFile file;
    bool present() const { return !path.empty(); }
};

TensorFile chooseFile(const std::string& given, const std::string& sidecar)
{
    TensorFile f;
    if (!given.empty())
        f.path = given;
    else if (!sidecar.empty()) {
        f.path = sidecar;
        f.fromSidecar = true;
    }
    if (f.present()) f.file = readSafetensors(f.path);  // InputError for a bad file
    return f;
}

// How the placeholders of a graph are fed: names found in the inputs file, names generated,
// and file entries no placeholder reads (a partition graph given the joint's inputs).
struct InputMatch
{
    size_t placeholders = 0;
    std::vector<std::string> generated, unused;
};

InputMatch matchInputs(const Graph& g, const SafeTensorsFile* inputs)
{
    InputMatch m;
    std::vector<const SafeTensor*> used;
    for (NodeId id : g.placeholders()) {
        const Node& n = g.node(id);
        ++m.placeholders;
        const SafeTensor* st = inputs ? inputs->find(n.name) : nullptr;
        if (!st && inputs && n.target != n.name) st = inputs->find(n.target);
        if (st)
            used.push_back(st);
        else if (n.val.kind != ValueMeta::Kind::SymInt)
            m.generated.push_back(n.name);
    }
    if (inputs)
        for (const auto& t : inputs->tensors)
            if (std::find(used.begin(), used.end(), &t) == used.end()) m.unused.push_back(t.name);
    return m;
}

// An inputs file that feeds none of the placeholders is a mistake (an outputs file given as
// inputs, or another graph's file), not a request to generate them all: an InputError when the
// user gave it. One found beside the graph (a sidecar of the same stem, such as a corpus case's
// inputs beside its forward graph, whose placeholders are named otherwise) is fxlens' guess:
// it is dropped with a warning and the inputs are generated, as without a file.
void fitInputs(TensorFile& f, InputMatch& m, const Graph& g, Io& io)
{
    if (!f.present() || f.file.tensors.empty()) return;
    const size_t fromFile = m.placeholders - m.generated.size();
    size_t symbolic = 0;
    for (NodeId id : g.placeholders()) symbolic += g.node(id).val.kind == ValueMeta::Kind::SymInt ? 1 : 0;
    if (fromFile > symbolic || m.generated.empty()) return;
    std::vector<std::string> fileNames;
    for (const auto& t : f.file.tensors) fileNames.push_back(t.name);
    const std::string what = "names none of the graph's " + std::to_string(m.generated.size())
        + " tensor placeholders (the file holds " + nameList(fileNames) + "; the graph reads " + nameList(m.generated)
        + ")";
    if (!f.fromSidecar) throw InputError(f.path, 0, 0, what + ": an outputs file or another graph's inputs?");
    io.err << Diagnostic{Severity::Warning, f.path, 0, 0,
                         what
                             + ": found beside the graph, not used; the inputs are generated (give a file with "
                               "--inputs FILE)"}
                  .format()
           << "\n";
    f = TensorFile{};
    m = matchInputs(g, nullptr);
}

// The output node's items by position: the node names ("" for None or a constant).
std::vector<std::string> outputNodeNames(const Graph& g)
{
    std::vector<std::string> names;
    const NodeId out = g.outputNode();
    if (out == kNoNode) return names;
    const Node& n = g.node(out);
    if (n.args.empty()) return names;
    const Arg& a = n.args[0];
    auto nameOf = [&](const Arg& x) { return x.kind == Arg::Kind::Node ? g.node(x.node).name : std::string(); };
    if (a.kind == Arg::Kind::List || a.kind == Arg::Kind::Tuple)
        for (const Arg& x : a.items) names.push_back(nameOf(x));
    else
        names.push_back(nameOf(a));
    return names;
}

// Outputs as a safetensors file the way tests/python/run_fx_graph.py writes PyTorch's:
// out_K per position, Python numbers as 0-dim tensors (int -> i64, float -> f32 as
// torch.tensor makes them, bool -> bool), None skipped (listed in metadata "skipped").
SafeTensorsFile outputsFile(const ExecResult& r, Backend& backend)
{
    SafeTensorsFile f = outputsToSafetensors(r, backend);
    f.metadata.erase("skipped");
    std::string skipped;
    std::vector<SafeTensor> ordered;
    for (size_t k = 0; k < r.outputs.size(); ++k) {
        const std::string name = "out_" + std::to_string(k);
        const Value& v = r.outputs[k];
        if (v.isTensor()) {
            for (auto& t : f.tensors)
                if (t.name == name) ordered.push_back(std::move(t));
            continue;
        }
        SafeTensor st;
        st.name = name;
        if (v.kind == Value::Kind::Int) {
            st.dtype = DType::I64;
            st.data.resize(8);
            std::memcpy(st.data.data(), &v.i, 8);  // little-endian host, as the file
        } else if (v.kind == Value::Kind::Float) {
            st.dtype = DType::F32;
            st.data.resize(4);
            cpu::storeFromDouble(st.data.data(), st.dtype, v.f);
        } else if (v.kind == Value::Kind::Bool) {
            st.dtype = DType::Bool;
            st.data.assign(1, v.b ? 1 : 0);
        } else {
            skipped += (skipped.empty() ? "" : ",") + name;
            continue;
        }
        ordered.push_back(std::move(st));
    }
    f.tensors = std::move(ordered);
    if (!skipped.empty()) f.metadata["skipped"] = skipped;
    return f;
}

// FNV-1a 64 of the raw little-endian bytes (core/util/content_hash.hpp, the hash the workspace
// keeps of its sources): equal checksums = (almost surely) equal bits.
std::string checksum(const std::vector<uint8_t>& bytes)
{
    ContentHash h;
    h.update(bytes.data(), bytes.size());
    return formatHash(h.value());
}

json tensorSummary(const SafeTensor& t, const std::string& node)
{
    json o = {{"name", t.name},
              {"node", node},
              {"dtype", std::string(dtypeAbbr(t.dtype))},
              {"shape", t.shape},
              {"checksum", checksum(t.data)}};
    const int isz = dtypeItemSize(t.dtype);
    const int64_t n = isz > 0 ? static_cast<int64_t>(t.data.size()) / isz : 0;
    double lo = std::numeric_limits<double>::infinity(), hi = -lo, sum = 0;
    int64_t nans = 0, infs = 0, counted = 0;
    for (int64_t k = 0; k < n; ++k) {
        const double v = cpu::loadAsDouble(t.data.data() + k * isz, t.dtype);
        if (std::isnan(v)) {
            ++nans;
            continue;
        }
        if (std::isinf(v)) ++infs;
        lo = std::min(lo, v);
        hi = std::max(hi, v);
        sum += v;  // in element order, in double
        ++counted;
    }
    o["numel"] = n;
    o["min"] = counted ? json(lo) : json(nullptr);
    o["max"] = counted ? json(hi) : json(nullptr);
    o["mean"] = counted ? json(sum / static_cast<double>(counted)) : json(nullptr);
    o["nan"] = nans;
    o["inf"] = infs;
    return o;
}

std::string summaryText(const json& o)
{
    std::string s = o["name"].get<std::string>();
    if (!o["node"].get<std::string>().empty()) s += " (" + o["node"].get<std::string>() + ")";
    std::string shape = o["dtype"].get<std::string>() + "[";
    bool first = true;
    for (const auto& d : o["shape"]) {
        shape += (first ? "" : ", ") + std::to_string(d.get<int64_t>());
        first = false;
    }
    s += "  " + shape + "]  checksum " + o["checksum"].get<std::string>();
    if (o["min"].is_null())
        s += "  (no numbers)";
    else
        s += "  min " + number(o["min"].get<double>()) + "  max " + number(o["max"].get<double>()) + "  mean "
            + number(o["mean"].get<double>());
    if (o["nan"].get<int64_t>()) s += "  " + std::to_string(o["nan"].get<int64_t>()) + " NaN";
    if (o["inf"].get<int64_t>()) s += "  " + std::to_string(o["inf"].get<int64_t>()) + " inf";
    return s;
}

// --threads N, or 0 when not given: then resolveThreads decides from the graph.
int threadsOption(const Args& args)
{
    if (!args.has("threads")) return 0;
    const std::string text = args.value("threads");
    int t = 0;
    const auto r = std::from_chars(text.data(), text.data() + text.size(), t);
    if (text.empty() || r.ec != std::errc() || r.ptr != text.data() + text.size() || t < 1 || t > 256)
        throw UsageError("--threads expects a number from 1 to 256, got '" + text + "'");
    return static_cast<int>(t);
}

// The default thread count: 2 (the CPU backend's default) only when large kernels carry the
// graph's work, else 1 (runtime/thread_choice.hpp). `rule` says which and why.
constexpr int kDefaultMaxThreads = 2;

int resolveThreads(int given, const Graph& g, std::string& rule)
{
    if (given > 0) {
        rule = "given";
        return given;
    }
    const ThreadChoice c = chooseThreads(g, kDefaultMaxThreads);
    rule = "auto: " + c.reason;
    return c.threads;
}

uint64_t seedOption(const Args& args) { return static_cast<uint64_t>(args.intValue("seed", 0)); }

// "ATOL,RTOL", decimal or exponent form, non-negative. One number alone is refused: whether it
// was meant as atol or rtol cannot be told (and one number for both was a surprise).
Tolerance parseTolerance(const std::string& text)
{
    auto parse = [&](std::string_view s) {
        double v = 0;
        const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
        if (s.empty() || r.ec != std::errc() || r.ptr != s.data() + s.size() || !(v >= 0) || !std::isfinite(v))
            throw UsageError("--tolerance expects ATOL,RTOL (non-negative numbers, e.g. 1e-6,1e-5), got '" + text
                             + "'");
        return v;
    };
    const auto comma = text.find(',');
    if (comma == std::string::npos) {
        (void)parse(text);
        throw UsageError("--tolerance expects ATOL,RTOL, got one number '" + text + "': write " + text
                         + ",0 for an absolute tolerance only, 0," + text + " for a relative one");
    }
    return {parse(std::string_view(text).substr(0, comma)), parse(std::string_view(text).substr(comma + 1))};
}

json inputsJson(const TensorFile& f, const InputMatch& m, uint64_t seed)
{
    return {{"file", f.present() ? json(f.path) : json(nullptr)},
            {"from_sidecar", f.fromSidecar},
            {"placeholders", m.placeholders},
            {"generated", m.generated},
            {"unused_file_entries", m.unused},
            {"seed", seed}};
}

void printInputs(const TensorFile& f, const InputMatch& m, uint64_t seed, const std::string& indent, std::ostream& out)
{
    const size_t fromFile = m.placeholders - m.generated.size();
    if (f.present()) {
        out << indent << "inputs: " << f.path << (f.fromSidecar ? " (the graph file's sidecar)" : "") << ": "
            << fromFile << " of " << m.placeholders << " placeholders\n";
        if (!m.generated.empty())
            out << indent << "  generated (not in the file; seed " << seed << "): " << nameList(m.generated) << "\n";
        if (!m.unused.empty()) out << indent << "  file entries no placeholder reads: " << nameList(m.unused) << "\n";
    } else {
        out << indent << "inputs: generated from the placeholders' meta (normal(0,1) floats, ints in [0, 16), seed "
            << seed << ")\n";
    }
}

json slowestJson(const ExecResult& r)
{
    json a = json::array();
    for (const auto& t : r.slowest) a.push_back({{"node", t.node}, {"seconds", t.seconds}});
    return a;
}

// ---------------------------------------------------------------- run

}  // namespace

int runExec(const Args& args, Io& io)
{
    const bool asJson = args.has("json");
    const int threadsGiven = threadsOption(args);
    const uint64_t seed = seedOption(args);
    const std::string outPath = args.value("out");
    if (args.has("out") && outPath.empty()) throw UsageError("--out needs a file name");
    if (args.has("force") && !args.has("out")) throw UsageError("--force only applies to --out");

    const LoadedGraph lg = loadGraph(args.positional.front(), args.value("graph"), io);
    const Artifact& art = *lg.source->find(lg.id);
    TensorFile inputs = chooseFile(args.value("inputs"), art.inputsPath);
    applySymbolsOption(args, {lg.graph.get()});
    // a node that cannot run refuses the graph before constants and inputs are made
    try {
        requireRunnable(*lg.graph);
    } catch (const KernelError& e) {
        io.err << "fxlens run: error: " << lg.source->path << ": " << e.what() << "\n";
        if (asJson)
            io.out << json{{"fxlens", "run"}, {"source", lg.source->path}, {"graph", lg.id}, {"error", e.what()}}.dump(
                1) << "\n";
        return kExitInputError;
    }
    const GraphConstants constants = resolveConstants(lg, args.value("constants"), args, kRunConstantsHint);
    // Refuse before spending the run's time.
    if (args.has("out") && !args.has("force")) {
        std::error_code ec;
        if (std::filesystem::exists(std::filesystem::symlink_status(outPath, ec)))
            throw InputError(outPath, 0, 0, "output file exists (use --force to replace it)");
    }

    const Graph& g = *lg.graph;
    std::string threadsRule;
    const int threads = resolveThreads(threadsGiven, g, threadsRule);
    InputMatch match = matchInputs(g, inputs.present() ? &inputs.file : nullptr);
    fitInputs(inputs, match, g, io);
    auto backend = makeCpuBackend(CpuBackendOptions{threads});
    ExecOptions opts;
    opts.backend = backend.get();
    opts.threads = threads;
    opts.inputs = inputs.present() ? &inputs.file : nullptr;
    opts.constants = constants.present() ? &constants.file : nullptr;
    opts.inputSeed = seed;
    opts.rngSeed = seed;

    json doc = {
        {"fxlens", "run"}, {"source", lg.source->path}, {"graph", lg.id}, {"nodes", g.size()}, {"threads", threads}};
    doc["threads_rule"] = threadsRule;
    doc["inputs"] = inputsJson(inputs, match, seed);
    doc["constants"] = constants.toJson();
    ExecResult res;
    try {
        res = executeGraph(g, opts);
    } catch (const KernelError& e) {
        io.err << "fxlens run: error: " << lg.source->path << ": " << e.what() << "\n";
        if (asJson) {
            doc["error"] = e.what();
            io.out << doc.dump(1) << "\n";
        }
        return kExitInputError;
    }
    const MemoryTimeline estimate = computeMemoryTimeline(g, MemoryOptions{});
    const SafeTensorsFile outs = outputsFile(res, *backend);
    const std::vector<std::string> nodeNames = outputNodeNames(g);

    doc["seconds"] = res.seconds;
    doc["peak_bytes"] = res.peakBytes;
    doc["peak_node"] = res.peakNode;
    doc["allocator_peak_bytes"] = backend->peakBytes();
    doc["estimate"] = {{"peak_bytes", estimate.peakBytes},
                       {"peak_node", estimate.peakNode()},
                       {"unknown_sizes", estimate.unknownSizes.size()},
                       {"boundary", estimate.boundaryStep >= 0 ? json(estimate.boundaryRule) : json(nullptr)},
                       {"saved_activations", estimate.savedActivations()},
                       {"saved_bytes", estimate.savedBytes},
                       {"saved_inputs", estimate.savedInputs()}};
    doc["outputs"] = json::array();
    for (const SafeTensor& t : outs.tensors) {
        const size_t k = static_cast<size_t>(std::stoul(t.name.substr(4)));
        doc["outputs"].push_back(tensorSummary(t, k < nodeNames.size() ? nodeNames[k] : std::string()));
    }
    // the safetensors metadata holds them comma-joined ("out_2,out_5"); JSON gets a list
    doc["skipped_outputs"] = json::array();
    if (outs.metadata.count("skipped")) {
        std::string_view rest = outs.metadata.at("skipped");
        while (!rest.empty()) {
            const size_t comma = std::min(rest.find(','), rest.size());
            doc["skipped_outputs"].push_back(std::string(rest.substr(0, comma)));
            rest.remove_prefix(std::min(comma + 1, rest.size()));
        }
    }
    doc["slowest"] = slowestJson(res);

    if (args.has("out")) {
        SafeTensorsFile w = outs;
        w.metadata["fxlens_source"] = lg.source->path;
        w.metadata["fxlens_graph"] = lg.id;
        const std::vector<uint8_t> bytes = serializeSafetensors(w, TensorOrder::AsGiven);
        writeFileAtomic(outPath, std::string(bytes.begin(), bytes.end()), args.has("force"));
        doc["out"] = outPath;
    }
    if (asJson) {
        io.out << doc.dump(1) << "\n";
        return kExitOk;
    }
    std::ostream& o = io.out;
    o << lg.source->path << " graph " << lg.id << ": " << g.size() << " nodes, " << threads
      << (threads == 1 ? " thread" : " threads") << (threadsRule == "given" ? "" : " (" + threadsRule + ")") << "\n";
    printInputs(inputs, match, seed, "", o);
    if (constants.present()) o << "constants: " << constants.describe() << "\n";
    o << "time: " << millis(res.seconds) << "\n";
    o << "peak live bytes: " << formatByteSize(res.peakBytes) << " (" << res.peakBytes << ") at " << res.peakNode
      << "; memory timeline estimate " << formatByteSize(estimate.peakBytes) << " (" << estimate.peakBytes << ") at "
      << estimate.peakNode() << "; allocator high-water mark " << formatByteSize(backend->peakBytes()) << "\n";
    if (estimate.boundaryStep >= 0) o << "saved for backward: " << savedSummary(estimate) << "\n";
    if (!estimate.unknownSizes.empty())
        o << "  (the estimate counts " << estimate.unknownSizes.size() << " tensors of unknown size as 0 bytes)\n";
    o << "outputs (" << res.outputs.size() << "):\n";
    for (const auto& s : doc["outputs"]) o << "  " << summaryText(s) << "\n";
    if (outs.metadata.count("skipped")) o << "  None outputs (not written): " << outs.metadata.at("skipped") << "\n";
    o << "slowest nodes:";
    for (size_t k = 0; k < res.slowest.size() && k < kSlowestShown; ++k)
        o << (k ? ", " : " ") << res.slowest[k].node << " " << millis(res.slowest[k].seconds);
    o << "\n";
    if (args.has("out")) o << "outputs written to " << outPath << "\n";
    return kExitOk;
}

// ---------------------------------------------------------------- check

namespace {

// check reads the constants of each side on its own.
constexpr const char* kCheckConstantsHint =
    "give them with --constants-a FILE for A, --constants-b FILE for B (check takes one per side), or generate "
    "them from their meta with --seed N";

struct RunSide
{
    LoadedGraph lg;
    GraphConstants constants;
    InputMatch match;
    std::unique_ptr<Backend> backend;
    ExecResult res;
    SafeTensorsFile outs;
    std::vector<std::string> nodeNames;
};

std::string label(const std::string& name, const std::vector<std::string>& nodeNames)
{
    if (name.rfind("out_", 0) != 0) return name;
    size_t k = 0;
    const auto r = std::from_chars(name.data() + 4, name.data() + name.size(), k);
    if (r.ec != std::errc() || r.ptr != name.data() + name.size() || k >= nodeNames.size() || nodeNames[k].empty())
        return name;
    return name + " (" + nodeNames[k] + ")";
}

// Which output of B each output of A is compared with (indices), by name when B's outputs
// are a reordering or a subset of A's (or A's of B's) identified by unique output node
// names; else by position.
struct OutputPairs
{
    std::vector<std::pair<size_t, size_t>> pairs;
    std::vector<size_t> onlyA, onlyB;
    bool byName = false;
};

OutputPairs pairOutputs(const std::vector<std::string>& a, const std::vector<std::string>& b)
{
    OutputPairs p;
    auto uniqueNamed = [](const std::vector<std::string>& v) {
        std::set<std::string> s;
        for (const auto& n : v)
            if (n.empty() || !s.insert(n).second) return false;
        return true;
    };
    auto indexIn = [](const std::vector<std::string>& v, const std::string& n) {
        return static_cast<size_t>(std::find(v.begin(), v.end(), n) - v.begin());
    };
    auto contains = [&](const std::vector<std::string>& big, const std::vector<std::string>& small) {
        for (const auto& n : small)
            if (indexIn(big, n) == big.size()) return false;
        return true;
    };
    const bool sameOrder = a == b;
    if (!sameOrder && uniqueNamed(a) && uniqueNamed(b) && (contains(a, b) || contains(b, a))) {
        p.byName = true;
        for (size_t i = 0; i < a.size(); ++i) {
            const size_t j = indexIn(b, a[i]);
            if (j < b.size())
                p.pairs.push_back({i, j});
            else
                p.onlyA.push_back(i);
        }
        for (size_t j = 0; j < b.size(); ++j)
            if (indexIn(a, b[j]) == a.size()) p.onlyB.push_back(j);
        return p;
    }
    const size_t n = std::min(a.size(), b.size());
    for (size_t i = 0; i < n; ++i) p.pairs.push_back({i, i});
    for (size_t i = n; i < a.size(); ++i) p.onlyA.push_back(i);
    for (size_t j = n; j < b.size(); ++j) p.onlyB.push_back(j);
    return p;
}

json sideJson(const RunSide& s, bool withInputs, const TensorFile& inputs, uint64_t seed)
{
    json d = {{"source", s.lg.source->path},   {"graph", s.lg.id},
              {"nodes", s.lg.graph->size()},   {"seconds", s.res.seconds},
              {"peak_bytes", s.res.peakBytes}, {"outputs", s.res.outputs.size()}};
    d["constants"] = s.constants.present() ? json(s.constants.path) : json(nullptr);
    if (withInputs)
        d["inputs"] = inputsJson(inputs, s.match, seed);
    else
        d["generated_inputs"] = s.match.generated;
    return d;
}

// A's outputs against B's, paired by pairOutputs; `byName` tells how they were paired.
EquivalenceReport compareSides(const RunSide& a, const RunSide& b, const std::optional<Tolerance>& tol, bool& byName)
{
    EquivalenceReport report;
    const OutputPairs p = pairOutputs(
        a.nodeNames.size() == a.res.outputs.size() ? a.nodeNames : std::vector<std::string>(a.res.outputs.size()),
        b.nodeNames.size() == b.res.outputs.size() ? b.nodeNames : std::vector<std::string>(b.res.outputs.size()));
    byName = p.byName;
    auto key = [](size_t k) { return "out_" + std::to_string(k); };
    for (const auto& [i, j] : p.pairs) {
        const SafeTensor* ta = a.outs.find(key(i));
        const SafeTensor* tb = b.outs.find(key(j));
        const std::string la = label(key(i), a.nodeNames), lb = label(key(j), b.nodeNames);
        if (p.byName && i != j) report.mapping.push_back({la, lb});
        if (ta && tb)
            report.outputs.push_back(compareTensors(la, *ta, *tb, tol));
        else if (ta)
            report.onlyInA.push_back(la + " (None in B)");
        else if (tb)
            report.onlyInB.push_back(lb + " (None in A)");
        // both None: nothing to compare
    }
    for (size_t i : p.onlyA) report.onlyInA.push_back(label(key(i), a.nodeNames));
    for (size_t j : p.onlyB) report.onlyInB.push_back(label(key(j), b.nodeNames));
    return report;
}

// Runs A, then B (when it is a graph) on the very same tensors: A's inputs as used (file +
// generated). Throws KernelError; `stage` says which side was running.
// With a Localizer, A's run keeps the values of the nodes B shares and B's compares them.
void runSides(RunSide& a, RunSide* b, const TensorFile& inputs, int threads, uint64_t seed, std::string& stage,
              Localizer* localizer = nullptr)
{
    stage = "A";
    ExecOptions opts;
    opts.threads = threads;
    opts.inputs = inputs.present() ? &inputs.file : nullptr;
    opts.inputSeed = seed;
    opts.rngSeed = seed;
    a.backend = makeCpuBackend(CpuBackendOptions{threads});
    opts.backend = a.backend.get();
    const SafeTensorsFile resolved = resolveInputs(*a.lg.graph, opts);
    opts.inputs = &resolved;
    opts.constants = a.constants.present() ? &a.constants.file : nullptr;
    if (localizer) opts.onValue = localizer->recordA(*a.backend);
    a.res = executeGraph(*a.lg.graph, opts);
    a.outs = outputsFile(a.res, *a.backend);
    a.nodeNames = outputNodeNames(*a.lg.graph);
    if (!b) return;
    stage = "B";
    b->match = matchInputs(*b->lg.graph, &resolved);
    b->backend = makeCpuBackend(CpuBackendOptions{threads});
    opts.backend = b->backend.get();
    opts.constants = b->constants.present() ? &b->constants.file : nullptr;
    if (localizer) opts.onValue = localizer->compareB(*b->backend);
    b->res = executeGraph(*b->lg.graph, opts);
    b->outs = outputsFile(b->res, *b->backend);
    b->nodeNames = outputNodeNames(*b->lg.graph);
}

// --- a partition checked against its joint: forward, then backward on the forward's saved
// values and the tangents, their outputs together against the joint's.

// "D/01_partition.forward.py" -> "D/01_partition.backward.py" (any extension); "" when the name
// has no ".forward." part.
std::string backwardSibling(const std::string& forwardPath)
{
    const size_t slash = forwardPath.find_last_of('/');
    const size_t at = forwardPath.rfind(".forward.");
    if (at == std::string::npos || (slash != std::string::npos && at < slash)) return {};
    return forwardPath.substr(0, at) + ".backward." + forwardPath.substr(at + 9);
}

std::string forwardSibling(const std::string& backwardPath)
{
    const size_t slash = backwardPath.find_last_of('/');
    const size_t at = backwardPath.rfind(".backward.");
    if (at == std::string::npos || (slash != std::string::npos && at < slash)) return {};
    return backwardPath.substr(0, at) + ".forward." + backwardPath.substr(at + 10);
}

bool fileExists(const std::string& path)
{
    std::error_code ec;
    return !path.empty() && std::filesystem::is_regular_file(path, ec);
}

struct PartitionSides
{
    RunSide forward, backward;
    size_t userOutputs = 0;  // forward outputs before the saved values
    std::string userOutputsRule;  // how userOutputs was found
    std::vector<std::string> saved;  // backward placeholders fed from the forward's outputs
    std::vector<std::string> tangentsFromA;  // fed from A's inputs (an AOT joint's tangents)
    std::vector<std::string> seeds;  // fed ones: the loss seed d(loss)/d(loss)
    bool forwardByPosition = false;  // forward placeholders named otherwise than A's: fed by position
};

// Where the forward's saved values start: its output descriptors, else the first output from
// which every output is a placeholder of the backward (saved values keep their names).
size_t userOutputCount(const Graph& fw, const Graph& bw, std::string& rule)
{
    if (const std::optional<size_t> k = savedOutputsStart(fw)) {
        rule = "output descriptors";
        return *k;
    }
    std::set<std::string> bwInputs;
    for (NodeId id : bw.placeholders()) bwInputs.insert(bw.node(id).name);
    const std::vector<std::string> names = outputNodeNames(fw);
    size_t k = names.size();
    while (k > 0 && bwInputs.count(names[k - 1])) --k;
    rule = "outputs named as backward inputs";
    return k;
}

// Ones shaped as the seed placeholder says, or, when it has no meta (PyTorch's own backward
// graphs), as the joint's user output it is the tangent of (tangents_K: A's output K-1).
SafeTensor onesLike(const Node& placeholder, const std::string& file, const SafeTensorsFile& aOutputs)
{
    if (!placeholder.val.isTensor() && placeholder.name.starts_with("tangents_")) {
        size_t k = 0;
        const std::string digits = placeholder.name.substr(9);
        const auto r = std::from_chars(digits.data(), digits.data() + digits.size(), k);
        if (r.ec == std::errc() && k >= 1)
            if (const SafeTensor* like = aOutputs.find("out_" + std::to_string(k - 1))) {
                SafeTensor t;
                t.name = placeholder.name;
                t.dtype = like->dtype;
                t.shape = like->shape;
                const size_t item = static_cast<size_t>(dtypeItemSize(t.dtype));
                t.data.resize(static_cast<size_t>(t.numel()) * item);
                for (int64_t i = 0; i < t.numel(); ++i)
                    cpu::storeFromDouble(t.data.data() + static_cast<size_t>(i) * item, t.dtype, 1.0);
                return t;
            }
    }
    if (!placeholder.val.isTensor())
        throw InputError(file, 0, 0,
                         "backward input '" + placeholder.name
                             + "' is a seed with no tensor meta: its shape is unknown");
    SafeTensor t;
    t.name = placeholder.name;
    t.dtype = placeholder.val.tensor.dtype;
    for (const auto& d : placeholder.val.tensor.sizes) {
        const std::optional<int64_t> v = d.maybeValue();
        if (!v)
            throw InputError(file, 0, 0,
                             "backward input '" + placeholder.name + "' has a symbolic size without a hint");
        t.shape.push_back(*v);
    }
    const int64_t n = t.numel();
    const size_t item = static_cast<size_t>(dtypeItemSize(t.dtype));
    t.data.resize(static_cast<size_t>(n) * item);
    for (int64_t i = 0; i < n; ++i) cpu::storeFromDouble(t.data.data() + static_cast<size_t>(i) * item, t.dtype, 1.0);
    return t;
}

// Runs one graph of a partition on `inputs` (by name) with its own backend and constants.
void runSide(RunSide& side, const SafeTensorsFile& inputs, int threads, ExecOptions opts)
{
    const Graph& g = *side.lg.graph;
    side.match = matchInputs(g, &inputs);
    side.backend = makeCpuBackend(CpuBackendOptions{threads});
    opts.backend = side.backend.get();
    opts.inputs = &inputs;
    opts.constants = side.constants.present() ? &side.constants.file : nullptr;
    side.res = executeGraph(g, opts);
    side.outs = outputsFile(side.res, *side.backend);
    side.nodeNames = outputNodeNames(g);
}

// Runs the forward on A's inputs (by name, or by position when none of the names match), then
// the backward on the forward's saved values (by name), A's tangents (by name) and ones for a
// loss seed. Throws KernelError; `stage` says which graph was running.
void runPartition(const SafeTensorsFile& aInputs, const SafeTensorsFile& aOutputs, const Graph& a, PartitionSides& p,
                  int threads, uint64_t seed, std::string& stage)
{
    ExecOptions opts;
    opts.threads = threads;
    opts.inputSeed = seed;
    opts.rngSeed = seed;

    // forward
    stage = "B (forward)";
    const Graph& fw = *p.forward.lg.graph;
    SafeTensorsFile fwInputs = aInputs;
    bool anyName = false;
    for (NodeId id : fw.placeholders()) anyName = anyName || aInputs.find(fw.node(id).name);
    if (!anyName) {
        // PyTorch's own partitions name the forward's inputs primals_1.. where the joint has
        // arg0_1..: A's non-tangent inputs in order
        std::vector<const SafeTensor*> primals;
        for (NodeId id : a.placeholders()) {
            const Node& n = a.node(id);
            if (n.name.find("tangent") != std::string::npos) continue;
            if (const SafeTensor* t = aInputs.find(n.name)) primals.push_back(t);
        }
        const std::vector<NodeId> fp = fw.placeholders();
        if (primals.size() == fp.size()) {
            fwInputs.tensors.clear();
            for (size_t k = 0; k < fp.size(); ++k) {
                SafeTensor t = *primals[k];
                t.name = fw.node(fp[k]).name;
                fwInputs.tensors.push_back(std::move(t));
            }
            p.forwardByPosition = true;
        }
    }
    runSide(p.forward, fwInputs, threads, opts);

    // backward
    stage = "B (backward)";
    const Graph& bw = *p.backward.lg.graph;
    SafeTensorsFile bwInputs;
    for (NodeId id : bw.placeholders()) {
        const Node& n = bw.node(id);
        size_t k = p.userOutputs;
        while (k < p.forward.nodeNames.size() && p.forward.nodeNames[k] != n.name) ++k;
        if (k < p.forward.nodeNames.size()) {
            if (const SafeTensor* t = p.forward.outs.find("out_" + std::to_string(k))) {
                SafeTensor c = *t;
                c.name = n.name;
                bwInputs.tensors.push_back(std::move(c));
                p.saved.push_back(n.name);
                continue;
            }
        }
        if (const SafeTensor* t = aInputs.find(n.name)) {
            bwInputs.tensors.push_back(*t);
            p.tangentsFromA.push_back(n.name);
            continue;
        }
        if (n.val.kind == ValueMeta::Kind::SymInt) continue;  // from its hint
        if (n.name.find("tangent") != std::string::npos || n.meta.desc.starts_with("TangentAOTInput")) {
            bwInputs.tensors.push_back(onesLike(n, p.backward.lg.source->path, aOutputs));
            p.seeds.push_back(n.name);
        }
        // anything else is generated from the seed and listed as generated
    }
    runSide(p.backward, bwInputs, threads, opts);
}

// A's outputs against the forward's user outputs followed by the backward's outputs, by position.
EquivalenceReport comparePartition(const RunSide& a, const PartitionSides& p, const std::optional<Tolerance>& tol)
{
    EquivalenceReport report;
    struct Item
    {
        const SafeTensor* t;
        std::string label;
    };
    std::vector<Item> b;
    for (size_t k = 0; k < p.userOutputs && k < p.forward.res.outputs.size(); ++k) {
        const std::string key = "out_" + std::to_string(k);
        b.push_back({p.forward.outs.find(key), "forward " + label(key, p.forward.nodeNames)});
    }
    for (size_t k = 0; k < p.backward.res.outputs.size(); ++k) {
        const std::string key = "out_" + std::to_string(k);
        b.push_back({p.backward.outs.find(key), "backward " + label(key, p.backward.nodeNames)});
    }
    const size_t n = a.res.outputs.size();
    for (size_t k = 0; k < std::max(n, b.size()); ++k) {
        const std::string key = "out_" + std::to_string(k);
        const SafeTensor* ta = k < n ? a.outs.find(key) : nullptr;
        const std::string la = label(key, a.nodeNames);
        if (k >= b.size()) {
            if (ta) report.onlyInA.push_back(la);
            continue;
        }
        if (k >= n) {
            if (b[k].t) report.onlyInB.push_back(b[k].label);
            continue;
        }
        if (ta && b[k].t) {
            report.outputs.push_back(compareTensors(la + " = " + b[k].label, *ta, *b[k].t, tol));
        } else if (ta) {
            report.onlyInA.push_back(la + " (None in B)");
        } else if (b[k].t) {
            report.onlyInB.push_back(b[k].label + " (None in A)");
        }
    }
    return report;
}

// The text form of check's result.
void printCheckText(const RunSide& a, const RunSide* b, const std::string& pathB, const TensorFile& inputs,
                    uint64_t seed, bool byName, const EquivalenceReport& report, const std::optional<Tolerance>& tol,
                    std::ostream& o)
{
    const bool bitwise = report.allBitwiseEqual();
    const bool within = tol && report.allWithinTolerance();
    o << "A: " << a.lg.source->path << " graph " << a.lg.id << " (" << millis(a.res.seconds) << ")\n";
    printInputs(inputs, a.match, seed, "  ", o);
    if (!b) {
        o << "B: " << pathB << " (expected outputs, compared by name)\n";
    } else {
        o << "B: " << b->lg.source->path << " graph " << b->lg.id << " (" << millis(b->res.seconds)
          << "), on A's inputs\n";
        if (!b->match.generated.empty())
            o << "  placeholders of B not among A's inputs, generated (seed " << seed
              << "): " << nameList(b->match.generated) << "\n";
        o << "outputs compared by " << (byName ? "output node name" : "position") << "\n";
    }
    o << reportToText(report);
    o << "result: "
      << (bitwise ? "bitwise equal"
              : within
              ? "within tolerance (atol " + number(tol->atol) + ", rtol " + number(tol->rtol) + "), not bitwise equal"
              : std::string(tol ? "outside the tolerance" : "not bitwise equal (no --tolerance given)"))
      << "\n";
}

}  // namespace

namespace {

int runPartitionCheck(const Args& args, Io& io, RunSide& a, PartitionSides& p, const TensorFile& inputs,
                      const std::optional<Tolerance>& tol, int threads, const std::string& threadsRule, uint64_t seed)
{
    const bool asJson = args.has("json");
    json doc = {{"fxlens", "check"}, {"threads", threads}, {"threads_rule", threadsRule}};
    doc["tolerance"] = tol ? json({{"atol", tol->atol}, {"rtol", tol->rtol}}) : json(nullptr);
    std::string stage;
    try {
        runSides(a, nullptr, inputs, threads, seed, stage);
        ExecOptions opts;
        opts.inputs = inputs.present() ? &inputs.file : nullptr;
        opts.inputSeed = seed;
        const SafeTensorsFile resolved = resolveInputs(*a.lg.graph, opts);
        runPartition(resolved, a.outs, *a.lg.graph, p, threads, seed, stage);
    } catch (const KernelError& e) {
        const std::string& path = stage == "A" ? a.lg.source->path
            : stage == "B (forward)"           ? p.forward.lg.source->path
                                               : p.backward.lg.source->path;
        io.err << "fxlens check: error: " << stage << ": " << path << ": " << e.what() << "\n";
        if (asJson) {
            doc["error"] = stage + ": " + e.what();
            io.out << doc.dump(1) << "\n";
        }
        return kExitInputError;
    }
    const EquivalenceReport report = comparePartition(a, p, tol);
    const bool bitwise = report.allBitwiseEqual();
    const bool within = tol && report.allWithinTolerance();
    const char* verdict = bitwise ? "bitwise_equal" : within ? "within_tolerance" : "different";
    const size_t savedCount = p.forward.res.outputs.size() - std::min(p.userOutputs, p.forward.res.outputs.size());
    if (asJson) {
        doc["a"] = sideJson(a, true, inputs, seed);
        doc["b"] = {{"partition", true},
                    {"forward", sideJson(p.forward, false, inputs, seed)},
                    {"backward", sideJson(p.backward, false, inputs, seed)},
                    {"user_outputs", p.userOutputs},
                    {"user_outputs_rule", p.userOutputsRule},
                    {"saved_outputs", savedCount},
                    {"saved_fed", p.saved.size()},
                    {"tangents_from_a", p.tangentsFromA},
                    {"seeds_as_ones", p.seeds},
                    {"forward_inputs_by_position", p.forwardByPosition}};
        doc["mapped_by"] = "partition";
        doc["report"] = reportToJson(report);
        doc["result"] = verdict;
        io.out << doc.dump(1) << "\n";
        return bitwise || within ? kExitOk : kExitInputError;
    }
    std::ostream& o = io.out;
    o << "A: " << a.lg.source->path << " graph " << a.lg.id << " (" << millis(a.res.seconds) << ")\n";
    printInputs(inputs, a.match, seed, "  ", o);
    o << "B: the partition " << p.forward.lg.source->path << " (" << millis(p.forward.res.seconds) << ") then "
      << p.backward.lg.source->path << " (" << millis(p.backward.res.seconds) << ")\n";
    o << "  forward on A's inputs" << (p.forwardByPosition ? " (by position: its inputs are named otherwise)" : "")
      << "; " << p.userOutputs << " user output(s) then " << savedCount << " saved (" << p.userOutputsRule << ")\n";
    o << "  backward on the forward's " << p.saved.size() << " saved value(s)";
    if (!p.tangentsFromA.empty()) o << ", A's " << nameList(p.tangentsFromA);
    if (!p.seeds.empty()) o << ", ones for the loss seed " << nameList(p.seeds);
    o << "\n";
    if (!p.forward.match.generated.empty())
        o << "  forward inputs not among A's, generated (seed " << seed << "): " << nameList(p.forward.match.generated)
          << "\n";
    if (!p.backward.match.generated.empty())
        o << "  backward inputs neither saved nor tangents, generated (seed " << seed
          << "): " << nameList(p.backward.match.generated) << "\n";
    o << "outputs compared by position: A's outputs against the forward's user outputs, then the backward's\n";
    o << reportToText(report);
    o << "result: "
      << (bitwise ? "bitwise equal"
              : within
              ? "within tolerance (atol " + number(tol->atol) + ", rtol " + number(tol->rtol) + "), not bitwise equal"
              : std::string(tol ? "outside the tolerance" : "not bitwise equal (no --tolerance given)"))
      << "\n";
    return bitwise || within ? kExitOk : kExitInputError;
}

}  // namespace

int checkThreads(const Args& args, const Graph& g, std::string& rule)
{
    return resolveThreads(threadsOption(args), g, rule);
}

int runCheck(const Args& args, Io& io)
{
    // --against: what B is compared with. original (the default): B's own run, bitwise or within
    // --tolerance; eager-chunking: B is the unchunked graph of A, run by the eager-chunking
    // reference with --chunks SPEC (app/cli_check_chunks.hpp).
    const std::string against = args.value("against", "original");
    if (against == "eager-chunking") return runCheckChunks(args, io);
    if (against != "original") throw UsageError("--against expects original or eager-chunking, got '" + against + "'");
    if (args.has("chunks")) throw UsageError("--chunks needs --against eager-chunking");
    const bool asJson = args.has("json");
    const int threadsGiven = threadsOption(args);
    const uint64_t seed = seedOption(args);
    std::optional<Tolerance> tol;
    if (args.has("tolerance")) tol = parseTolerance(args.value("tolerance"));
    const std::string pathA = args.positional.at(0), pathB = args.positional.at(1);
    if (endsWith(pathA, ".safetensors"))
        throw UsageError("A must be a graph (only B may be a .safetensors file of expected outputs)");
    const bool bIsFile = endsWith(pathB, ".safetensors");
    if (bIsFile && args.has("graph-b")) throw UsageError("--graph-b does not apply: B is a safetensors file");
    if (bIsFile && args.has("localize"))
        throw UsageError("--localize needs B to be a graph: B is a safetensors file of outputs, which has no "
                         "intermediate values to compare");

    RunSide a;
    a.lg = loadGraph(pathA, args.value("graph-a"), io, "--graph-a");
    const SymbolValues symbols = applySymbolsOption(args, {a.lg.graph.get()});
    std::string threadsRule;
    const int threads = resolveThreads(threadsGiven, *a.lg.graph, threadsRule);
    const Artifact& artA = *a.lg.source->find(a.lg.id);
    TensorFile inputs = chooseFile(args.value("inputs"), artA.inputsPath);
    a.constants = resolveConstants(a.lg, args.value("constants-a"), args, kCheckConstantsHint);
    a.match = matchInputs(*a.lg.graph, inputs.present() ? &inputs.file : nullptr);
    fitInputs(inputs, a.match, *a.lg.graph, io);
    std::optional<SafeTensorsFile> expected;
    RunSide b;
    std::optional<PartitionSides> part;
    if (bIsFile) {
        expected = readSafetensors(pathB);
    } else {
        b.lg = loadGraph(pathB, args.value("graph-b"), io, "--graph-b");
        bindSymbols(*b.lg.graph, symbols);
        b.constants = resolveConstants(b.lg, args.value("constants-b"), args, kCheckConstantsHint);
        // B is one graph of a partition (a forward whose outputs end with saved values, or a
        // NAME.backward.* beside its NAME.forward.*): check the pair against A
        std::string backwardPath = args.value("backward");
        bool bIsBackward = false;
        if (backwardPath.empty()) {
            const std::string sibling = backwardSibling(pathB);
            if (fileExists(sibling) && (savedOutputsStart(*b.lg.graph) || !args.has("graph-b"))) backwardPath = sibling;
            const std::string fwSibling = forwardSibling(pathB);
            if (backwardPath.empty() && fileExists(fwSibling)) {
                backwardPath = pathB;
                bIsBackward = true;
            }
        }
        if (!backwardPath.empty()) {
            part.emplace();
            if (bIsBackward) {
                part->backward = std::move(b);
                part->forward.lg = loadGraph(forwardSibling(pathB), "", io, "--graph-b");
                bindSymbols(*part->forward.lg.graph, symbols);
                part->forward.constants = resolveConstants(part->forward.lg, "", args, kCheckConstantsHint);
            } else {
                part->forward = std::move(b);
                part->backward.lg = loadGraph(backwardPath, "", io, "--backward");
                bindSymbols(*part->backward.lg.graph, symbols);
                part->backward.constants = resolveConstants(part->backward.lg, "", args, kCheckConstantsHint);
            }
            part->userOutputs =
                userOutputCount(*part->forward.lg.graph, *part->backward.lg.graph, part->userOutputsRule);
        }
    }
    if (args.has("backward") && !part) throw UsageError("--backward needs B to be a graph (the partition's forward)");
    const bool localize = args.has("localize");
    if (localize && part)
        throw UsageError("--localize compares two single graphs: B is a partition (" + part->forward.lg.source->path
                         + " with " + part->backward.lg.source->path
                         + "); give the partition's forward or backward graph with --graph-b alone, or the joint");
    if (part) return runPartitionCheck(args, io, a, *part, inputs, tol, threads, threadsRule, seed);

    json doc = {{"fxlens", "check"}, {"threads", threads}, {"threads_rule", threadsRule}};
    doc["tolerance"] = tol ? json({{"atol", tol->atol}, {"rtol", tol->rtol}}) : json(nullptr);
    std::string stage;
    std::optional<Localizer> localizer;
    if (localize) localizer.emplace(*a.lg.graph, *b.lg.graph);
    try {
        runSides(a, bIsFile ? nullptr : &b, inputs, threads, seed, stage, localizer ? &*localizer : nullptr);
    } catch (const KernelError& e) {
        const std::string& path = stage == "A" ? a.lg.source->path : b.lg.source->path;
        io.err << "fxlens check: error: " << stage << ": " << path << ": " << e.what() << "\n";
        if (asJson) {
            doc["error"] = stage + ": " + e.what();
            io.out << doc.dump(1) << "\n";
        }
        return kExitInputError;
    }

    EquivalenceReport report;
    bool byName = false;
    if (bIsFile) {
        report = compareOutputs(a.outs, *expected, tol);
        for (auto& d : report.outputs) d.name = label(d.name, a.nodeNames);
        for (auto& n : report.onlyInA) n = label(n, a.nodeNames);
    } else {
        report = compareSides(a, b, tol, byName);
    }
    const bool bitwise = report.allBitwiseEqual();
    const bool within = tol && report.allWithinTolerance();
    const char* verdict = bitwise ? "bitwise_equal" : within ? "within_tolerance" : "different";

    doc["a"] = sideJson(a, true, inputs, seed);
    if (bIsFile)
        doc["b"] = {{"expected", pathB}, {"outputs", expected->tensors.size()}};
    else
        doc["b"] = sideJson(b, false, inputs, seed);
    doc["mapped_by"] = bIsFile ? "name" : byName ? "output node name" : "position";
    doc["report"] = reportToJson(report);
    doc["result"] = verdict;
    std::optional<LocalizeReport> where;
    if (localizer) {
        where = localizer->finish();
        doc["localize"] = localizeToJson(*where);
    }
    const int rc = bitwise || within ? kExitOk : kExitInputError;
    if (asJson) {
        io.out << doc.dump(1) << "\n";
        return rc;
    }
    printCheckText(a, bIsFile ? nullptr : &b, pathB, inputs, seed, byName, report, tol, io.out);
    if (where) io.out << "localize:\n" << localizeToText(*where, 5, "  ");
    return rc;
}

}  // namespace fxl::cli
