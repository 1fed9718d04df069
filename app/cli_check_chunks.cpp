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
#include "runtime/base/kernel.hpp"
#include "runtime/check/chunk_check.hpp"
#include "runtime/check/eager_chunking.hpp"
#include "runtime/check/equivalence.hpp"
#include "runtime/exec/executor.hpp"

namespace fxl::cli {

namespace {

using nlohmann::json;

constexpr const char* kConstantsHint = "give them with --constants-a FILE for CHUNKED, --constants-b FILE for ORIGINAL";

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

int failRun(Io& io, json& doc, bool asJson, const std::string& stage, const std::string& what)
{
    io.err << "fxlens check: error: " << stage << ": " << what << "\n";
    if (asJson) {
        doc["error"] = stage + ": " + what;
        io.out << doc.dump(1) << "\n";
    }
    return kExitInputError;
}

json proofJson(const OrderProof& p)
{
    return {{"proven", p.proven}, {"diff_f32", p.diff32}, {"diff_f64", p.diff64}, {"bound", kOrderProofBound}};
}

}  // namespace

int runCheckChunks(const Args& args, Io& io)
{
    const bool asJson = args.has("json");
    if (!args.has("chunks")) throw UsageError("--against eager-chunking needs --chunks SPEC (e.g. regions=blocks.*)");
    if (args.has("tolerance")) throw UsageError("--tolerance does not apply to --against eager-chunking (bitwise)");
    if (args.has("fast")) throw UsageError("--fast does not apply to --against eager-chunking (bitwise)");
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
    if (args.has("device-a") || args.has("device-b"))
        throw UsageError("--device-a / --device-b do not apply to --against eager-chunking: give --device");
    const DeviceChoice device = deviceOption(args, "device", DeviceChoice{});

    LoadedGraph lc = loadGraph(pathC, args.value("graph-a"), io, "--graph-a");
    LoadedGraph lo = loadGraph(pathO, args.value("graph-b"), io, "--graph-b");
    std::string threadsRule;
    const int threads = checkThreads(args, *lo.graph, threadsRule);
    const GraphConstants constantsC = chooseConstants(lc, args.value("constants-a"));
    requireConstants(constantsC, lc, kConstantsHint);
    const GraphConstants constantsO = chooseConstants(lo, args.value("constants-b"));
    requireConstants(constantsO, lo, kConstantsHint);
    // inputs: --inputs, else the original's sidecar, else generated with --seed
    std::optional<SafeTensorsFile> given;
    std::string inputsFrom = "generated (seed " + std::to_string(seed) + ")";
    std::string inputsPath = args.value("inputs");
    if (inputsPath.empty()) {
        const std::string& side = lo.source->find(lo.id)->inputsPath;
        if (!side.empty() && std::filesystem::exists(side)) inputsPath = side;
    }
    if (!inputsPath.empty()) {
        given = readSafetensors(inputsPath);
        inputsFrom = inputsPath;
    }

    json doc = {{"fxlens", "check"},  {"against", "eager-chunking"}, {"chunks", spec.str()},
                {"threads", threads}, {"threads_rule", threadsRule}, {"inputs", inputsFrom}};
    doc["device"] = device.name;
    ChunkCheckOutcome r;
    try {
        CheckOptions opts;
        opts.threads = threads;
        opts.inputs = given ? &*given : nullptr;
        opts.seed = seed;
        // every run (the chunked graph, the reference, the unchunked original) on --device
        (void)deviceBackend(device, threads);
        opts.makeBackend = [device, threads] { return deviceBackend(device, threads); };
        r = checkAgainstEagerChunking({lc.graph.get(), constantsC.present() ? &constantsC.file : nullptr},
                                      {lo.graph.get(), constantsO.present() ? &constantsO.file : nullptr}, spec, opts);
    } catch (const DeviceUnavailable& e) {
        return failRun(io, doc, asJson, "--device", e.what());
    } catch (const CheckRunError& e) {
        return failRun(io, doc, asJson, e.stage, e.what());
    } catch (const std::invalid_argument& e) {
        return failRun(io, doc, asJson, "eager-chunking reference on ORIGINAL", e.what());
    } catch (const std::exception& e) {
        return failRun(io, doc, asJson, "check", e.what());
    }
    const int64_t peakC = computeMemoryTimeline(*lc.graph).peakBytes;
    const int64_t peakO = computeMemoryTimeline(*lo.graph).peakBytes;

    json rows = json::array();
    std::string text;
    for (const ChunkCheckRow& row : r.rows) {
        json j = {{"name", row.name},
                  {"node", row.node},
                  {"reference_node", row.how.node},
                  {"combine", chunkCombineName(row.how.combine)},
                  {"how", row.how.how()}};
        std::string line = "  " + row.name + " (" + row.node + "): " + row.how.how();
        if (row.noneBoth || row.noneOne) {
            j["none"] = true;
            j["bitwise_equal_reference"] = row.noneBoth;
            line += row.noneBoth ? ": None on both sides" : ": None on one side only";
        } else {
            j["vs_reference"] = diffJson(*row.vsReference);
            j["vs_unchunked"] = diffJson(*row.vsUnchunked);
            j["reference_vs_unchunked"] = diffJson(*row.referenceVsUnchunked);
            line += "\n      vs eager chunking: " + diffText(*row.vsReference)
                + "; vs unchunked: " + diffText(*row.vsUnchunked);
            if (row.explanation != ChunkExplanation::None) {
                // the reference and the unchunked run differ: explained only when proven in float64
                const std::string label = chunkExplanationText(row.explanation);
                j["label"] = label;
                j["label_max_ulp"] = row.referenceVsUnchunked->maxUlp;
                if (row.proof) j["proof"] = proofJson(*row.proof);
                line += "  [" + label + ", max ulp " + std::to_string(row.referenceVsUnchunked->maxUlp) + "]";
                if (row.proof) line += "\n      reference vs unchunked in float64: " + row.proof->text();
            }
            if (!row.vsReference->bitwiseEqual && !row.formula.empty()) {
                j["why"] = row.formula;
                line += "\n      why: " + row.formula;
            }
        }
        rows.push_back(j);
        text += line + "\n";
    }
    if (r.departure) {
        const ChunkDeparture& d = *r.departure;
        doc["departure"] = {
            {"node", d.node}, {"region", d.region}, {"combine", d.combine}, {"proof", proofJson(d.proof)}};
        text += "values differ from the unchunked graph first at '" + d.node + "' (live-out of " + d.region
            + ", combined by " + d.combine + "): " + d.proof.text() + "\n";
    }
    if (r.proofRan)
        text += "proof of every label: both graphs re-run in float64; " + std::string(kOrderProofBound) + "\n";
    const bool ok = r.verdict == Verdict::BitwiseEqual;
    const ExecResult& rc = r.chunked.result;
    const ExecResult& ro = r.original.result;

    json peaks = {{"chunked", {{"estimated", peakC}, {"measured", rc.peakBytes}}},
                  {"original", {{"estimated", peakO}, {"measured", ro.peakBytes}}}};
    if (peakO) peaks["ratio_estimated"] = static_cast<double>(peakC) / peakO;
    if (ro.peakBytes) peaks["ratio_measured"] = static_cast<double>(rc.peakBytes) / ro.peakBytes;
    if (asJson) {
        doc["chunked"] = {{"source", lc.source->path},
                          {"graph", lc.id},
                          {"nodes", lc.graph->size()},
                          {"outputs", rc.outputs.size()},
                          {"seconds", rc.seconds}};
        doc["original"] = {{"source", lo.source->path},
                           {"graph", lo.id},
                           {"nodes", lo.graph->size()},
                           {"outputs", ro.outputs.size()},
                           {"seconds", ro.seconds}};
        doc["reference"] = eagerChunkingToJson(r.reference);
        doc["outputs"] = rows;
        doc["peaks"] = peaks;
        doc["differing_from_reference"] = r.differing;
        doc["result"] = ok ? "bitwise_equal" : "different";
        io.out << doc.dump(1) << "\n";
        return ok ? kExitOk : kExitInputError;
    }
    std::ostream& out = io.out;
    out << "CHUNKED: " << lc.source->path << " graph " << lc.id << "\n";
    out << "ORIGINAL: " << lo.source->path << " graph " << lo.id << "\n";
    out << "inputs: " << inputsFrom << "\n";
    if (device.kind != DeviceKind::Cpu) out << "device: " << deviceLabel(*r.chunked.backend) << " (every run)\n";
    out << eagerChunkingToText(r.reference, false);
    out << "outputs compared by position (" << r.rows.size() << "):\n" << text;
    if (r.countsDiffer)
        out << "output counts differ: CHUNKED has " << rc.outputs.size() << ", ORIGINAL " << r.reference.outputs.size()
            << "\n";
    out << "peak estimated: chunked " << peakC << " bytes, original " << peakO << " bytes, ratio "
        << ratioText(peakC, peakO) << "\n";
    out << "peak measured: chunked " << rc.peakBytes << " bytes, original " << ro.peakBytes << " bytes, ratio "
        << ratioText(rc.peakBytes, ro.peakBytes) << "\n";
    out << "result: "
        << (ok ? std::string("bitwise equal to eager chunking")
               : std::to_string(r.differing) + " output(s) not bitwise equal to eager chunking")
        << "\n";
    return ok ? kExitOk : kExitInputError;
}

}  // namespace fxl::cli
