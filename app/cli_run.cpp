// fxlens run / fxlens check: execute graphs on the CPU reference backend
// (runtime/exec/executor.hpp) and compare outputs bit for bit (runtime/check/equivalence.hpp).
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
#include "core/formats/memory_snapshot.hpp"
#include "core/formats/safetensors.hpp"
#include "core/formats/source.hpp"
#include "core/ir/graph.hpp"
#include "core/util/content_hash.hpp"
#include "core/util/format.hpp"
#include "core/util/sha256.hpp"
#include "runtime/backends.hpp"
#include "runtime/base/backend.hpp"
#include "runtime/base/kernel.hpp"
#include "runtime/check/equivalence.hpp"
#include "runtime/check/graph_check.hpp"
#include "runtime/check/localize.hpp"
#include "runtime/cpu/cpu_backend.hpp"
#include "runtime/cpu/cpu_common.hpp"
#include "runtime/cpu/thread_choice.hpp"
#include "runtime/exec/executor.hpp"
#include "runtime/exec/snapshot_recorder.hpp"

namespace fxl::cli {

namespace {

constexpr const char* kRunConstantsHint =
    "give them with --constants FILE, or generate them from their meta with --seed N";

using nlohmann::json;

constexpr size_t kSlowestShown = 5;
constexpr size_t kNamesShown = 8;

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
    SymbolValues fallbacks;  // size symbols of generated inputs that took kSymbolFallback
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

// A size symbol of a generated input that nothing gives a value (no hint, no --symbols) takes
// kSymbolFallback instead of stopping the run (core/ir/symbol_hints.hpp); bound in `g` and
// recorded in m.fallbacks, which the run's output says.
void takeSymbolFallbacks(Graph& g, InputMatch& m)
{
    const std::set<std::string> generated(m.generated.begin(), m.generated.end());
    const SymbolValues hinted = symbolHints(g);
    for (const std::string& sym : unhintedInputSymbols(g, [&](const Node& n) { return generated.count(n.name) != 0; }))
        if (!hinted.count(sym)) m.fallbacks[sym] = kSymbolFallback;
    if (!m.fallbacks.empty()) bindSymbols(g, m.fallbacks);
}

std::string symbolsText(const SymbolValues& v)
{
    std::string s;
    for (const auto& [name, value] : v) s += (s.empty() ? "" : ",") + name + "=" + std::to_string(value);
    return s;
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
              {"checksum", checksum(t.data)},
              {"sha256", sha256Hex(t.data.data(), t.data.size())}};
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

// --NAME N with N in [lo, hi], or `absent` when not given.
int boundedIntOption(const Args& args, const std::string& name, int lo, int hi, int absent)
{
    if (!args.has(name)) return absent;
    const std::string text = args.value(name);
    int n = 0;
    const auto r = std::from_chars(text.data(), text.data() + text.size(), n);
    if (text.empty() || r.ec != std::errc() || r.ptr != text.data() + text.size() || n < lo || n > hi)
        throw UsageError("--" + name + " expects a number from " + std::to_string(lo) + " to " + std::to_string(hi)
                         + ", got '" + text + "'");
    return n;
}

// --threads N, or 0 when not given: then resolveThreads decides from the graph.
int threadsOption(const Args& args) { return boundedIntOption(args, "threads", 1, 256, 0); }

// The default thread count: 2 (the CPU backend's default) only when large kernels carry the
// graph's work, else 1 (runtime/cpu/thread_choice.hpp). `rule` says which and why.
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
            {"symbol_fallbacks", m.fallbacks},
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
    if (!m.fallbacks.empty())
        out << indent << "  size symbols without a value took the fallback " << kSymbolFallback << ": "
            << symbolsText(m.fallbacks) << " (give --symbols " << symbolsText(m.fallbacks) << " or other values)\n";
}

json slowestJson(const ExecResult& r)
{
    json a = json::array();
    for (const auto& t : r.slowest) a.push_back({{"node", t.node}, {"seconds", t.seconds}});
    return a;
}

// ---------------------------------------------------------------- run

int repeatOption(const Args& args) { return boundedIntOption(args, "repeat", 1, 100000, 1); }

// --repeat: the runs of one GraphRunner, each checked against the first.
struct Repeated
{
    int runs = 0;
    std::vector<double> seconds;  // per run (the first learns the views)
    int64_t viewsFromPlan = 0;  // in the last run
    std::string difference;  // the first difference from the first run ("" when none)
};

// The first run's result; the others' bytes, written states and peak compared with it.
ExecResult runRepeated(const Graph& g, const ExecOptions& opts, Backend& backend, int n, Repeated& rep)
{
    GraphRunner runner(g, backend);
    ExecResult first = runner.run(opts);
    rep.runs = 1;
    rep.seconds.push_back(first.seconds);
    const SafeTensorsFile firstBytes = outputValuesFile(first, backend, true);
    for (int k = 1; k < n; ++k) {
        const ExecResult r = runner.run(opts);
        ++rep.runs;
        rep.seconds.push_back(r.seconds);
        rep.viewsFromPlan = r.viewsFromPlan;
        const SafeTensorsFile bytes = outputValuesFile(r, backend, true);
        std::string diff;
        if (bytes.tensors.size() != firstBytes.tensors.size())
            diff = std::to_string(bytes.tensors.size()) + " outputs and states, the first run had "
                + std::to_string(firstBytes.tensors.size());
        for (size_t t = 0; diff.empty() && t < bytes.tensors.size(); ++t) {
            const SafeTensor &a = firstBytes.tensors[t], &b = bytes.tensors[t];
            if (a.name != b.name || a.dtype != b.dtype || a.shape != b.shape || a.data != b.data)
                diff = b.name + " differs from the first run's";
        }
        if (diff.empty() && r.peakBytes != first.peakBytes)
            diff = "peak live bytes " + std::to_string(r.peakBytes) + ", the first run's "
                + std::to_string(first.peakBytes);
        if (!diff.empty()) {
            rep.difference = "run " + std::to_string(k + 1) + ": " + diff;
            break;
        }
    }
    return first;
}

json repeatJson(const Repeated& rep)
{
    std::vector<double> later(rep.seconds.begin() + (rep.seconds.size() > 1 ? 1 : 0), rep.seconds.end());
    std::sort(later.begin(), later.end());
    return {{"runs", rep.runs},
            {"first_seconds", rep.seconds.empty() ? 0.0 : rep.seconds.front()},
            {"best_seconds", later.empty() ? 0.0 : later.front()},
            {"median_seconds", later.empty() ? 0.0 : later[later.size() / 2]},
            {"views_from_plan", rep.viewsFromPlan},
            {"identical", rep.difference.empty()},
            {"difference", rep.difference.empty() ? json(nullptr) : json(rep.difference)}};
}

}  // namespace

int runExec(const Args& args, Io& io)
{
    const bool asJson = args.has("json");
    const int threadsGiven = threadsOption(args);
    const int repeat = repeatOption(args);
    const uint64_t seed = seedOption(args);
    const std::string outPath = args.value("out");
    if (args.has("out") && outPath.empty()) throw UsageError("--out needs a file name");
    const std::string snapshotPath = args.value("memory-snapshot");
    if (args.has("memory-snapshot") && snapshotPath.empty()) throw UsageError("--memory-snapshot needs a file name");
    if (args.has("memory-snapshot") && repeat > 1)
        throw UsageError("--memory-snapshot records one run: not with --repeat");
    if (args.has("force") && !args.has("out") && !args.has("memory-snapshot"))
        throw UsageError("--force only applies to --out and --memory-snapshot");
    const DeviceChoice device = deviceOption(args, "device", DeviceChoice{});
    if (args.has("fast") && !device.fast)
        throw UsageError("--fast is a mode of the CUDA backend (--device cuda:N or cuda-emu:N); the CPU is the "
                         "bitwise reference");

    const LoadedGraph lg = loadGraph(args.positional.front(), args.value("graph"), io);
    const Artifact& art = *lg.source->find(lg.id);
    TensorFile inputs = chooseFile(args.value("inputs"), art.inputsPath);
    applySymbolsOption(args, {lg.graph.get()});
    // a node that cannot run refuses the graph before constants and inputs are made
    try {
        requireRunnable(*lg.graph, device.kind);
    } catch (const KernelError& e) {
        io.err << "fxlens run: error: " << lg.source->path << ": " << e.what() << "\n";
        if (asJson)
            io.out << json{{"fxlens", "run"}, {"source", lg.source->path}, {"graph", lg.id}, {"error", e.what()}}.dump(
                1) << "\n";
        return kExitInputError;
    }
    const GraphConstants constants = resolveConstants(lg, args.value("constants"), args, kRunConstantsHint);
    // Refuse before spending the run's time.
    for (const std::string& path : {args.has("out") ? outPath : std::string(), snapshotPath}) {
        std::error_code ec;
        if (!path.empty() && !args.has("force") && std::filesystem::exists(std::filesystem::symlink_status(path, ec)))
            throw InputError(path, 0, 0, "output file exists (use --force to replace it)");
    }

    const Graph& g = *lg.graph;
    std::string threadsRule;
    const int threads = resolveThreads(threadsGiven, g, threadsRule);
    InputMatch match = matchInputs(g, inputs.present() ? &inputs.file : nullptr);
    fitInputs(inputs, match, g, io);
    takeSymbolFallbacks(*lg.graph, match);
    std::unique_ptr<Backend> backend;
    try {
        backend = deviceBackend(device, threads);
    } catch (const DeviceUnavailable& e) {
        io.err << "fxlens run: error: --device " << e.what() << "\n";
        if (asJson)
            io.out << json{{"fxlens", "run"}, {"source", lg.source->path}, {"graph", lg.id}, {"error", e.what()}}.dump(
                1) << "\n";
        return kExitInputError;
    }
    ExecOptions opts;
    opts.backend = backend.get();
    opts.threads = threads;
    opts.inputs = inputs.present() ? &inputs.file : nullptr;
    opts.constants = constants.present() ? &constants.file : nullptr;
    opts.inputSeed = seed;
    opts.rngSeed = seed;
    // the trace's device index: N of cuda:N / cuda-emu:N, 0 for the CPU
    const std::string bname = backend->name();
    const size_t colon = bname.find(':');
    std::optional<SnapshotRecorder> recorder;
    if (!snapshotPath.empty()) {
        recorder.emplace(lg.source->path, colon == std::string::npos ? 0 : std::stoll(bname.substr(colon + 1)));
        opts.onStorage = [&recorder](const ExecOptions::StorageEvent& e) { recorder->record(e); };
    }

    json doc = {
        {"fxlens", "run"}, {"source", lg.source->path}, {"graph", lg.id}, {"nodes", g.size()}, {"threads", threads}};
    doc["threads_rule"] = threadsRule;
    doc["device"] = backend->name();
    doc["emulated"] = backend->name().starts_with("cuda-emu");
    doc["fast"] = backend->fastMath();
    doc["comparable_bitwise"] = !backend->fastMath();
    doc["inputs"] = inputsJson(inputs, match, seed);
    doc["constants"] = constants.toJson();
    ExecResult res;
    Repeated repeated;
    try {
        res = repeat > 1 ? runRepeated(g, opts, *backend, repeat, repeated) : executeGraph(g, opts);
    } catch (const KernelError& e) {
        io.err << "fxlens run: error: " << lg.source->path << ": " << e.what() << "\n";
        if (asJson) {
            doc["error"] = e.what();
            io.out << doc.dump(1) << "\n";
        }
        return kExitInputError;
    }
    const MemoryTimeline estimate = computeMemoryTimeline(g, MemoryOptions{});
    const SafeTensorsFile outs = outputValuesFile(res, *backend, true);
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
    doc["written_states"] = json::array();
    for (const SafeTensor& t : outs.tensors) {
        if (t.name.rfind("out_", 0) != 0) continue;
        const size_t k = static_cast<size_t>(std::stoul(t.name.substr(4)));
        doc["outputs"].push_back(tensorSummary(t, k < nodeNames.size() ? nodeNames[k] : std::string()));
    }
    // inputs and constants the run wrote in place, with their values after it
    for (const WrittenInput& w : res.writtenInputs)
        if (const SafeTensor* t = outs.find(stateKey(w))) {
            json row = tensorSummary(*t, "");
            row["state"] = stateLabel(w);
            row["writes"] = w.writers.size();
            row["writers"] = w.writers;
            doc["written_states"].push_back(std::move(row));
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
    if (repeat > 1) doc["repeat"] = repeatJson(repeated);

    if (recorder) {
        writeFileAtomic(snapshotPath, serializeMemorySnapshot(recorder->finish()), args.has("force"));
        doc["memory_snapshot"] = snapshotPath;
    }
    if (args.has("out")) {
        SafeTensorsFile w = outs;
        w.metadata["fxlens_source"] = lg.source->path;
        w.metadata["fxlens_graph"] = lg.id;
        const std::vector<uint8_t> bytes = serializeSafetensors(w, TensorOrder::AsGiven);
        writeFileAtomic(outPath, std::string(bytes.begin(), bytes.end()), args.has("force"));
        doc["out"] = outPath;
    }
    if (!repeated.difference.empty())
        io.err << "fxlens run: error: " << lg.source->path << ": --repeat " << repeat << ": " << repeated.difference
               << "\n";
    const int exitCode = repeated.difference.empty() ? kExitOk : kExitInputError;
    if (asJson) {
        io.out << doc.dump(1) << "\n";
        return exitCode;
    }
    std::ostream& o = io.out;
    o << lg.source->path << " graph " << lg.id << ": " << g.size() << " nodes, " << threads
      << (threads == 1 ? " thread" : " threads") << (threadsRule == "given" ? "" : " (" + threadsRule + ")") << "\n";
    o << "device: " << deviceLabel(*backend) << "\n";
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
    if (!doc["written_states"].empty()) {
        o << "states written in place (" << doc["written_states"].size() << "), after the run:\n";
        for (const auto& s : doc["written_states"])
            o << "  " << s["state"].get<std::string>() << " (" << s["writes"].get<size_t>()
              << (s["writes"].get<size_t>() == 1 ? " write" : " writes") << ")  " << summaryText(s) << "\n";
    }
    o << "slowest nodes:";
    for (size_t k = 0; k < res.slowest.size() && k < kSlowestShown; ++k)
        o << (k ? ", " : " ") << res.slowest[k].node << " " << millis(res.slowest[k].seconds);
    o << "\n";
    if (args.has("out"))
        o << "outputs" << (res.writtenInputs.empty() ? "" : " and states (as state.NAME)") << " written to " << outPath
          << "\n";
    if (recorder)
        o << "memory snapshot (torch.cuda.memory._dump_snapshot's format; fxlens mem reads it) written to "
          << snapshotPath << "\n";
    if (repeat > 1) {
        const json& r = doc["repeat"];
        o << "repeat: " << r["runs"].get<int>() << " runs planned once: first " << millis(r["first_seconds"])
          << ", then best " << millis(r["best_seconds"]) << ", median " << millis(r["median_seconds"]) << " ("
          << r["views_from_plan"].get<int64_t>() << " views a run given from the plan); "
          << (repeated.difference.empty() ? "every run gave the first run's bytes" : repeated.difference) << "\n";
    }
    return exitCode;
}

// ---------------------------------------------------------------- check

namespace {

// check reads the constants of each side on its own.
constexpr const char* kCheckConstantsHint =
    "give them with --constants-a FILE for A, --constants-b FILE for B (check takes one per side), or generate "
    "them from their meta with --seed N";

// A graph of a check as loaded: the graph, its constants and how they were found.
struct LoadedSide
{
    LoadedGraph lg;
    GraphConstants constants;
    CheckGraph graph() const { return {lg.graph.get(), constants.present() ? &constants.file : nullptr}; }
};

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

json sideJson(const LoadedSide& s, const CheckRun& r)
{
    json d = {{"source", s.lg.source->path},      {"graph", s.lg.id},
              {"nodes", s.lg.graph->size()},      {"seconds", r.result.seconds},
              {"peak_bytes", r.result.peakBytes}, {"outputs", r.result.outputs.size()}};
    d["constants"] = s.constants.present() ? json(s.constants.path) : json(nullptr);
    d["device"] = r.backend ? json(r.backend->name()) : json(nullptr);
    d["generated_inputs"] = r.generated;
    d["written_states"] = json::array();
    for (const WrittenInput& w : r.result.writtenInputs)
        d["written_states"].push_back({{"state", stateLabel(w)}, {"writes", w.writers.size()}, {"writers", w.writers}});
    return d;
}

void printResult(const CheckOutcome& c, const std::optional<Tolerance>& tol, std::ostream& o)
{
    o << reportToText(c.report);
    o << "result: " << verdictText(c.verdict, tol) << "\n";
}

}  // namespace

int checkThreads(const Args& args, const Graph& g, std::string& rule)
{
    return resolveThreads(threadsOption(args), g, rule);
}

DeviceChoice deviceOption(const Args& args, const char* key, const DeviceChoice& fallback)
{
    if (!args.has(key)) return fallback;
    DeviceChoice d;
    d.name = args.value(key);
    std::string why;
    const bool cuda =
        d.name == "cuda" || d.name.starts_with("cuda:") || d.name == "cuda-emu" || d.name.starts_with("cuda-emu:");
    if (d.name != "cpu" && !cuda)
        throw UsageError(std::string("--") + key + " expects cpu, cuda:N or cuda-emu:N, got '" + d.name + "'");
    d.kind = cuda ? DeviceKind::Cuda : DeviceKind::Cpu;
    d.fast = cuda && args.has("fast");
    return d;
}

std::unique_ptr<Backend> deviceBackend(const DeviceChoice& d, int threads)
{
    std::string why;
    BackendOptions opts;
    opts.threads = threads;
    opts.fast = d.fast;
    auto b = makeBackend(d.name, opts, &why);
    if (!b) throw DeviceUnavailable(d.name + ": " + why);
    return b;
}

const char* const kFastModeLabel =
    "fast mode: matrix products on tensor cores (cuBLAS, TF32 for f32), not comparable bitwise";

// How a report names the device a graph ran on: the emulated one says what it is.
std::string deviceLabel(const Backend& b)
{
    const std::string n = b.name();
    if (b.fastMath()) {
        if (n.starts_with("cuda-emu"))
            return n + " (" + kFastModeLabel
                + "; emulated: a stand-in that rounds operands to TF32 and sums in blocks, run by the CPU)";
        return n + " (" + kFastModeLabel + ")";
    }
    if (n.starts_with("cuda-emu")) return n + " (the CUDA kernels' code run by the CPU: emulation, not a GPU)";
    if (n.starts_with("cuda:"))
        return n
            + " (the CUDA backend, checked once on one GPU and tested through emulation: compare with "
              "--device cpu)";
    return n;
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
    const DeviceChoice device = deviceOption(args, "device", DeviceChoice{});
    const DeviceChoice deviceA = deviceOption(args, "device-a", device);
    const DeviceChoice deviceB = deviceOption(args, "device-b", device);
    const int threadsGiven = threadsOption(args);
    const uint64_t seed = seedOption(args);
    std::optional<Tolerance> tol;
    if (args.has("tolerance")) tol = parseTolerance(args.value("tolerance"));
    const bool fast = deviceA.fast || deviceB.fast;
    if (args.has("fast") && !fast)
        throw UsageError("--fast is a mode of the CUDA backend: give --device, --device-a or --device-b cuda:N or "
                         "cuda-emu:N (the CPU is the bitwise reference)");
    if (fast && !tol)
        throw UsageError("--fast runs are not comparable bitwise: give --tolerance ATOL,RTOL (e.g. 1e-2,1e-2 for "
                         "TF32 products)");
    const std::string pathA = args.positional.at(0), pathB = args.positional.at(1);
    if (pathA.ends_with(".safetensors"))
        throw UsageError("A must be a graph (only B may be a .safetensors file of expected outputs)");
    const bool bIsFile = pathB.ends_with(".safetensors");
    if (bIsFile && args.has("graph-b")) throw UsageError("--graph-b does not apply: B is a safetensors file");
    if (bIsFile && args.has("localize"))
        throw UsageError("--localize needs B to be a graph: B is a safetensors file of outputs, which has no "
                         "intermediate values to compare");

    LoadedSide a;
    a.lg = loadGraph(pathA, args.value("graph-a"), io, "--graph-a");
    SymbolValues symbols = applySymbolsOption(args, {a.lg.graph.get()});
    std::string threadsRule;
    const int threads = resolveThreads(threadsGiven, *a.lg.graph, threadsRule);
    const Artifact& artA = *a.lg.source->find(a.lg.id);
    TensorFile inputs = chooseFile(args.value("inputs"), artA.inputsPath);
    a.constants = resolveConstants(a.lg, args.value("constants-a"), args, kCheckConstantsHint);
    InputMatch matchA = matchInputs(*a.lg.graph, inputs.present() ? &inputs.file : nullptr);
    fitInputs(inputs, matchA, *a.lg.graph, io);
    takeSymbolFallbacks(*a.lg.graph, matchA);
    for (const auto& [name, v] : matchA.fallbacks) symbols[name] = v;
    std::optional<SafeTensorsFile> expected;
    LoadedSide b, backward;
    bool partition = false;
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
            partition = true;
            LoadedSide other;
            other.lg = loadGraph(bIsBackward ? forwardSibling(pathB) : backwardPath, "", io,
                                 bIsBackward ? "--graph-b" : "--backward");
            bindSymbols(*other.lg.graph, symbols);
            other.constants = resolveConstants(other.lg, "", args, kCheckConstantsHint);
            if (bIsBackward) {
                backward = std::move(b);
                b = std::move(other);
            } else {
                backward = std::move(other);
            }
        }
    }
    if (args.has("backward") && !partition)
        throw UsageError("--backward needs B to be a graph (the partition's forward)");
    const bool localize = args.has("localize");
    if (localize && partition)
        throw UsageError("--localize compares two single graphs: B is a partition (" + b.lg.source->path + " with "
                         + backward.lg.source->path
                         + "); give the partition's forward or backward graph with --graph-b alone, or the joint");

    CheckOptions opts;
    opts.threads = threads;
    opts.inputs = inputs.present() ? &inputs.file : nullptr;
    opts.seed = seed;
    opts.tolerance = tol;
    opts.localize = localize;
    json doc = {{"fxlens", "check"}, {"threads", threads}, {"threads_rule", threadsRule}};
    // where each side runs: a device that cannot be used is said before any run
    try {
        (void)deviceBackend(deviceA, threads);
        if (deviceB.name != deviceA.name) (void)deviceBackend(deviceB, threads);
    } catch (const DeviceUnavailable& e) {
        io.err << "fxlens check: error: --device " << e.what() << "\n";
        if (asJson) {
            doc["error"] = std::string("--device ") + e.what();
            io.out << doc.dump(1) << "\n";
        }
        return kExitInputError;
    }
    opts.makeBackend = [deviceA, threads] { return deviceBackend(deviceA, threads); };
    opts.makeBackendB = [deviceB, threads] { return deviceBackend(deviceB, threads); };
    doc["tolerance"] = tol ? json({{"atol", tol->atol}, {"rtol", tol->rtol}}) : json(nullptr);
    doc["fast"] = {{"a", deviceA.fast}, {"b", deviceB.fast}};
    doc["comparable_bitwise"] = !fast;
    CheckOutcome c;
    try {
        if (bIsFile)
            c = checkAgainstValues(a.graph(), *expected, opts);
        else if (partition)
            c = checkPartition(a.graph(), b.graph(), backward.graph(), opts);
        else
            c = checkGraphs(a.graph(), b.graph(), opts);
    } catch (const CheckRunError& e) {
        const std::string& path = e.stage == "A" ? a.lg.source->path
            : e.stage == "B (backward)"          ? backward.lg.source->path
                                                 : b.lg.source->path;
        io.err << "fxlens check: error: " << e.stage << ": " << path << ": " << e.what() << "\n";
        if (asJson) {
            doc["error"] = e.stage + ": " + e.what();
            io.out << doc.dump(1) << "\n";
        }
        return kExitInputError;
    }
    // NaN payloads alone are not bitwise equal (exit 1), but within any tolerance given
    const bool passed = c.verdict == Verdict::BitwiseEqual || c.verdict == Verdict::WithinTolerance
        || (c.verdict == Verdict::NanPayloadsOnly && tol);
    const int rc = passed ? kExitOk : kExitInputError;
    const PartitionFeed& p = c.partition;
    const size_t savedCount =
        partition ? c.b.result.outputs.size() - std::min(p.userOutputs, c.b.result.outputs.size()) : 0;

    doc["a"] = sideJson(a, c.a);
    doc["a"]["inputs"] = inputsJson(inputs, matchA, seed);
    if (bIsFile)
        doc["b"] = {{"expected", pathB}, {"outputs", expected->tensors.size()}};
    else if (partition)
        doc["b"] = {{"partition", true},
                    {"forward", sideJson(b, c.b)},
                    {"backward", sideJson(backward, *c.backward)},
                    {"user_outputs", p.userOutputs},
                    {"user_outputs_rule", p.userOutputsRule},
                    {"saved_outputs", savedCount},
                    {"saved_fed", p.saved.size()},
                    {"tangents_from_a", p.tangentsFromA},
                    {"seeds_as_ones", p.seeds},
                    {"forward_inputs_by_position", p.forwardByPosition}};
    else
        doc["b"] = sideJson(b, c.b);
    doc["mapped_by"] = c.mappedBy;
    doc["report"] = reportToJson(c.report);
    doc["result"] = verdictKey(c.verdict);
    if (c.localize) doc["localize"] = localizeToJson(*c.localize);
    if (asJson) {
        io.out << doc.dump(1) << "\n";
        return rc;
    }

    std::ostream& o = io.out;
    o << "A: " << a.lg.source->path << " graph " << a.lg.id << " (" << millis(c.a.result.seconds) << ")\n";
    if (deviceA.kind != DeviceKind::Cpu || deviceB.kind != DeviceKind::Cpu)
        o << "devices: A on " << deviceLabel(*c.a.backend) << ", B on "
          << (c.b.backend ? deviceLabel(*c.b.backend) : std::string("-")) << "\n";
    printInputs(inputs, matchA, seed, "  ", o);
    if (bIsFile) {
        o << "B: " << pathB << " (expected outputs, compared by name)\n";
    } else if (partition) {
        o << "B: the partition " << b.lg.source->path << " (" << millis(c.b.result.seconds) << ") then "
          << backward.lg.source->path << " (" << millis(c.backward->result.seconds) << ")\n";
        o << "  forward on A's inputs" << (p.forwardByPosition ? " (by position: its inputs are named otherwise)" : "")
          << "; " << p.userOutputs << " user output(s) then " << savedCount << " saved (" << p.userOutputsRule << ")\n";
        o << "  backward on the forward's " << p.saved.size() << " saved value(s), handed over in memory";
        if (!p.tangentsFromA.empty()) o << ", A's " << nameList(p.tangentsFromA);
        if (!p.seeds.empty()) o << ", ones for the loss seed " << nameList(p.seeds);
        o << "\n";
        if (!c.b.generated.empty())
            o << "  forward inputs not among A's, generated (seed " << seed << "): " << nameList(c.b.generated) << "\n";
        if (!c.backward->generated.empty())
            o << "  backward inputs neither saved nor tangents, generated (seed " << seed
              << "): " << nameList(c.backward->generated) << "\n";
        o << "outputs compared by position: A's outputs against the forward's user outputs, then the backward's\n";
    } else {
        o << "B: " << b.lg.source->path << " graph " << b.lg.id << " (" << millis(c.b.result.seconds)
          << "), on A's inputs\n";
        if (!c.b.generated.empty())
            o << "  placeholders of B not among A's inputs, generated (seed " << seed
              << "): " << nameList(c.b.generated) << "\n";
        o << "outputs compared by " << c.mappedBy << "\n";
    }
    if (!c.report.states.empty())
        o << "states written in place compared after the runs: " << c.report.states.size() << "\n";
    if (fast)
        o << (deviceA.fast && deviceB.fast ? "A and B"
                  : deviceA.fast           ? "A"
                                           : "B")
          << " in " << kFastModeLabel << ": judged within the tolerance\n";
    printResult(c, tol, o);
    if (c.localize) o << "localize:\n" << localizeToText(*c.localize, 5, "  ");
    return rc;
}

}  // namespace fxl::cli
