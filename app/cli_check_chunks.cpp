#include "app/cli_check_chunks.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>

#include "app/cli_common.hpp"
#include "app/cli_constants.hpp"
#include "app/cli_run.hpp"
#include "core/analysis/chunk_spec.hpp"
#include "core/analysis/memory_timeline.hpp"
#include "core/formats/safetensors.hpp"
#include "core/formats/source.hpp"
#include "core/ir/diagnostics.hpp"
#include "runtime/eager_chunking.hpp"
#include "runtime/equivalence.hpp"
#include "runtime/executor.hpp"
#include "runtime/kernel.hpp"

namespace fxl::cli {

namespace {

using nlohmann::json;

constexpr const char* kConstantsHint = "give them with --constants-a FILE for CHUNKED, --constants-b FILE for ORIGINAL";

struct Side
{
    LoadedGraph lg;
    GraphConstants constants;
    std::unique_ptr<Backend> backend;
    ExecResult res;
    SafeTensorsFile outs;
    int64_t estimatedPeak = 0;
};

std::string ratioText(int64_t a, int64_t b)
{
    if (b == 0) return "n/a";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", static_cast<double>(a) / static_cast<double>(b));
    return buf;
}

std::string diffText(const TensorDiff& d)
{
    if (d.shapeMismatch) return "shape differs";
    if (d.dtypeMismatch) return "dtype differs";
    if (d.bitwiseEqual) return "bitwise";
    return std::to_string(d.differing) + "/" + std::to_string(d.numel) + " differ, max ulp " + std::to_string(d.maxUlp);
}

json diffJson(const TensorDiff& d)
{
    return {{"bitwise_equal", d.bitwiseEqual},
            {"shape_mismatch", d.shapeMismatch},
            {"dtype_mismatch", d.dtypeMismatch},
            {"differing", d.differing},
            {"numel", d.numel},
            {"max_ulp", d.maxUlp},
            {"max_abs", d.maxAbs}};
}

// The chunked graph's node producing output k, and its chunk meta's "formula" (docs: the chunk
// passes write it on a rebuilt live-out whose formula cannot equal eager chunking's bits).
std::pair<std::string, std::string> producerOf(const Graph& g, size_t k)
{
    const NodeId out = g.outputNode();
    if (out == kNoNode || g.node(out).args.empty()) return {};
    const Arg& a = g.node(out).args[0];
    const Arg* item = a.isSequence() ? (k < a.items.size() ? &a.items[k] : nullptr) : (k == 0 ? &a : nullptr);
    if (!item || !item->isNode()) return {};
    const Node& n = g.node(item->node);
    std::string formula;
    if (n.meta.chunk.is_object() && n.meta.chunk.contains("formula") && n.meta.chunk["formula"].is_string())
        formula = n.meta.chunk["formula"].get<std::string>();
    return {n.name, formula};
}

}  // namespace

int runCheckChunks(const Args& args, Io& io)
{
    const bool asJson = args.has("json");
    if (!args.has("chunks")) throw UsageError("--against eager-chunking needs --chunks SPEC (e.g. regions=blocks.*)");
    if (args.has("tolerance")) throw UsageError("--tolerance does not apply to --against eager-chunking (bitwise)");
    if (args.has("localize")) throw UsageError("--localize does not apply to --against eager-chunking");
    if (args.has("backward")) throw UsageError("--backward does not apply to --against eager-chunking");
    const std::string specText = args.value("chunks");
    ChunkSpec spec;
    try {
        spec = parseChunkSpec(specText);
    } catch (const InputError& e) {
        const Diagnostic& d = e.diagnostic();
        throw UsageError("--chunks '" + specText + "': column " + std::to_string(d.column) + ": " + d.message);
    }
    const uint64_t seed = static_cast<uint64_t>(args.intValue("seed", 0));
    const std::string pathC = args.positional.at(0), pathO = args.positional.at(1);

    Side c, o;
    c.lg = loadGraph(pathC, args.value("graph-a"), io, "--graph-a");
    o.lg = loadGraph(pathO, args.value("graph-b"), io, "--graph-b");
    std::string threadsRule;
    const int threads = checkThreads(args, *o.lg.graph, threadsRule);
    c.constants = chooseConstants(c.lg, args.value("constants-a"));
    requireConstants(c.constants, c.lg, kConstantsHint);
    o.constants = chooseConstants(o.lg, args.value("constants-b"));
    requireConstants(o.constants, o.lg, kConstantsHint);
    // inputs: --inputs, else the original's sidecar, else generated with --seed
    std::optional<SafeTensorsFile> given;
    std::string inputsFrom = "generated (seed " + std::to_string(seed) + ")";
    std::string inputsPath = args.value("inputs");
    if (inputsPath.empty()) {
        const std::string& side = o.lg.source->find(o.lg.id)->inputsPath;
        if (!side.empty() && std::filesystem::exists(side)) inputsPath = side;
    }
    if (!inputsPath.empty()) {
        given = readSafetensors(inputsPath);
        inputsFrom = inputsPath;
    }

    json doc = {{"fxlens", "check"},  {"against", "eager-chunking"}, {"chunks", spec.str()},
                {"threads", threads}, {"threads_rule", threadsRule}, {"inputs", inputsFrom}};
    std::string stage;
    std::unique_ptr<Backend> refBackend;  // declared first: the reference's outputs are released through it
    EagerChunkResult ref;
    SafeTensorsFile refOuts;
    try {
        ExecOptions opts;
        opts.threads = threads;
        opts.inputs = given ? &*given : nullptr;
        opts.inputSeed = seed;
        opts.rngSeed = seed;
        stage = "ORIGINAL";
        o.backend = makeCpuBackend(CpuBackendOptions{threads});
        opts.backend = o.backend.get();
        const SafeTensorsFile resolved = resolveInputs(*o.lg.graph, opts);
        opts.inputs = &resolved;
        opts.constants = o.constants.present() ? &o.constants.file : nullptr;
        o.res = executeGraph(*o.lg.graph, opts);
        o.outs = outputsToSafetensors(o.res, *o.backend);
        stage = "eager-chunking reference on ORIGINAL";
        refBackend = makeCpuBackend(CpuBackendOptions{threads});
        opts.backend = refBackend.get();
        ref = runEagerChunking(*o.lg.graph, spec, opts);
        refOuts = eagerOutputsToSafetensors(ref, *refBackend);
        stage = "CHUNKED";
        c.backend = makeCpuBackend(CpuBackendOptions{threads});
        opts.backend = c.backend.get();
        opts.constants = c.constants.present() ? &c.constants.file : nullptr;
        c.res = executeGraph(*c.lg.graph, opts);
        c.outs = outputsToSafetensors(c.res, *c.backend);
    } catch (const std::exception& e) {
        io.err << "fxlens check: error: " << stage << ": " << e.what() << "\n";
        if (asJson) {
            doc["error"] = stage + ": " + e.what();
            io.out << doc.dump(1) << "\n";
        }
        return kExitInputError;
    }
    c.estimatedPeak = computeMemoryTimeline(*c.lg.graph).peakBytes;
    o.estimatedPeak = computeMemoryTimeline(*o.lg.graph).peakBytes;

    // rows, paired by position
    const size_t n = std::min(c.res.outputs.size(), ref.outputs.size());
    int differFromRef = 0;
    json rows = json::array();
    std::string text;
    for (size_t k = 0; k < n; ++k) {
        const std::string name = "out_" + std::to_string(k);
        const SafeTensor* tc = c.outs.find(name);
        const SafeTensor* tr = refOuts.find(name);
        const SafeTensor* to = o.outs.find(name);
        const EagerOutputInfo& info = ref.outputInfo.at(k);
        const auto [node, formula] = producerOf(*c.lg.graph, k);
        json row = {{"name", name},
                    {"node", node},
                    {"reference_node", info.node},
                    {"combine", chunkCombineName(info.combine)},
                    {"how", info.how()}};
        std::string line = "  " + name + " (" + node + "): " + info.how();
        if (!tc || !tr || !to) {
            const bool same = !tc && !tr;
            if (!same) ++differFromRef;
            row["none"] = true;
            row["bitwise_equal_reference"] = same;
            line += same ? ": None on both sides" : ": None on one side only";
            rows.push_back(row);
            text += line + "\n";
            continue;
        }
        const TensorDiff vsRef = compareTensors(name, *tc, *tr);
        const TensorDiff vsOrig = compareTensors(name, *tc, *to);
        const TensorDiff refVsOrig = compareTensors(name, *tr, *to);
        if (!vsRef.bitwiseEqual) ++differFromRef;
        row["vs_reference"] = diffJson(vsRef);
        row["vs_unchunked"] = diffJson(vsOrig);
        line += "\n      vs eager chunking: " + diffText(vsRef) + "; vs unchunked: " + diffText(vsOrig);
        // a reduced output whose chunked sum is not the unchunked graph's single reduction: the two
        // differ by the order of that reduction (the max ULP between them)
        const bool reduced = info.combine == ChunkCombine::Sum || info.combine == ChunkCombine::WeightedSum;
        if (reduced && !refVsOrig.bitwiseEqual) {
            const std::string label = "reduction order, max ulp " + std::to_string(refVsOrig.maxUlp);
            row["label"] = "reduction order";
            row["label_max_ulp"] = refVsOrig.maxUlp;
            line += "  [" + label + "]";
        }
        row["reference_vs_unchunked"] = diffJson(refVsOrig);
        if (!vsRef.bitwiseEqual && !formula.empty()) {
            row["why"] = formula;
            line += "\n      why: " + formula;
        }
        rows.push_back(row);
        text += line + "\n";
    }
    const bool countsDiffer = c.res.outputs.size() != ref.outputs.size();
    if (countsDiffer) ++differFromRef;
    const bool ok = differFromRef == 0;

    json peaks = {{"chunked", {{"estimated", c.estimatedPeak}, {"measured", c.res.peakBytes}}},
                  {"original", {{"estimated", o.estimatedPeak}, {"measured", o.res.peakBytes}}}};
    if (o.estimatedPeak) peaks["ratio_estimated"] = static_cast<double>(c.estimatedPeak) / o.estimatedPeak;
    if (o.res.peakBytes) peaks["ratio_measured"] = static_cast<double>(c.res.peakBytes) / o.res.peakBytes;
    if (asJson) {
        doc["chunked"] = {{"source", c.lg.source->path},
                          {"graph", c.lg.id},
                          {"nodes", c.lg.graph->size()},
                          {"outputs", c.res.outputs.size()},
                          {"seconds", c.res.seconds}};
        doc["original"] = {{"source", o.lg.source->path},
                           {"graph", o.lg.id},
                           {"nodes", o.lg.graph->size()},
                           {"outputs", o.res.outputs.size()},
                           {"seconds", o.res.seconds}};
        doc["reference"] = eagerChunkingToJson(ref);
        doc["outputs"] = rows;
        doc["peaks"] = peaks;
        doc["differing_from_reference"] = differFromRef;
        doc["result"] = ok ? "bitwise_equal" : "different";
        io.out << doc.dump(1) << "\n";
        return ok ? kExitOk : kExitInputError;
    }
    std::ostream& out = io.out;
    out << "CHUNKED: " << c.lg.source->path << " graph " << c.lg.id << "\n";
    out << "ORIGINAL: " << o.lg.source->path << " graph " << o.lg.id << "\n";
    out << "inputs: " << inputsFrom << "\n";
    out << eagerChunkingToText(ref, false);
    out << "outputs compared by position (" << n << "):\n" << text;
    if (countsDiffer)
        out << "output counts differ: CHUNKED has " << c.res.outputs.size() << ", ORIGINAL " << ref.outputs.size()
            << "\n";
    out << "peak estimated: chunked " << c.estimatedPeak << " bytes, original " << o.estimatedPeak << " bytes, ratio "
        << ratioText(c.estimatedPeak, o.estimatedPeak) << "\n";
    out << "peak measured: chunked " << c.res.peakBytes << " bytes, original " << o.res.peakBytes << " bytes, ratio "
        << ratioText(c.res.peakBytes, o.res.peakBytes) << "\n";
    out << "result: "
        << (ok ? std::string("bitwise equal to eager chunking")
               : std::to_string(differFromRef) + " output(s) not bitwise equal to eager chunking")
        << "\n";
    return ok ? kExitOk : kExitInputError;
}

}  // namespace fxl::cli
