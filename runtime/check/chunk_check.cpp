#include "runtime/check/chunk_check.hpp"

#include <map>
#include <set>
#include <stdexcept>

#include "core/util/progress.hpp"
#include "runtime/base/kernel.hpp"
#include "runtime/exec/executor_inputs.hpp"

namespace fxl {

const char* chunkExplanationText(ChunkExplanation e)
{
    switch (e) {
    case ChunkExplanation::None: return "";
    case ChunkExplanation::ReductionOrder: return "reduction order";
    case ChunkExplanation::ValuesDiffer: return "values differ";
    }
    return "";
}

namespace {

// The chunked graph's node returned at position k, and its chunk meta's "formula" (the chunk
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

// The unchunked run of ORIGINAL, keeping the values of the nodes `keep` names as they are computed.
struct UnchunkedRun
{
    CheckRun run;
    std::map<std::string, SafeTensor> kept;
};

void runUnchunked(UnchunkedRun& u, const CheckGraph& g, const CheckOptions& o, const SafeTensorsFile& inputs,
                  const std::set<std::string>& keep, const std::string& stage)
{
    u.run.backend = newCheckBackend(o);
    ExecOptions e = checkExecOptions(o, *u.run.backend, g);
    e.inputs = &inputs;
    Backend& b = *u.run.backend;
    if (!keep.empty())
        e.onValue = [&u, &keep, &b](const Node& n, const Value& v) {
            if (keep.count(n.name) && v.isTensor()) u.kept[n.name] = valueToSafeTensor(n.name, v, b);
        };
    runCheckGraph(u.run, *g.graph, e, stage);
}

EagerChunkResult runReference(const CheckGraph& g, const ChunkSpec& spec, const CheckOptions& o,
                              const SafeTensorsFile& inputs, Backend& backend, const std::string& stage)
{
    ExecOptions e = checkExecOptions(o, backend, g);
    e.inputs = &inputs;
    try {
        EagerChunkResult r = runEagerChunking(*g.graph, spec, e, true);
        if (o.cancel && o.cancel->load()) throw CancelledError();
        return r;
    } catch (const KernelError& err) {
        throw CheckRunError(stage, err.what());
    }
}

std::set<std::string> liveOutNames(const EagerChunkResult& r)
{
    std::set<std::string> s;
    for (const auto& v : r.liveOutValues)
        if (!v.value.data.empty() || !v.value.shape.empty()) s.insert(v.node);
    return s;
}

}  // namespace

ChunkCheckOutcome checkAgainstEagerChunking(const CheckGraph& chunked, const CheckGraph& original,
                                            const ChunkSpec& spec, const CheckOptions& opts)
{
    ChunkCheckOutcome out;
    // the inputs: ORIGINAL's, resolved once (the file's, the rest generated)
    {
        auto backend = newCheckBackend(opts);
        ExecOptions e = checkExecOptions(opts, *backend, original);
        e.inputs = opts.inputs;
        try {
            out.inputs = resolveInputs(*original.graph, e, &out.generatedInputs);
        } catch (const KernelError& err) {
            throw CheckRunError("ORIGINAL", err.what());
        }
    }
    const std::string refStage = "eager-chunking reference on ORIGINAL";
    out.referenceBackend = newCheckBackend(opts);
    out.reference = runReference(original, spec, opts, out.inputs, *out.referenceBackend, refStage);
    const std::set<std::string> boundary = liveOutNames(out.reference);
    UnchunkedRun unchunked;
    runUnchunked(unchunked, original, opts, out.inputs, boundary, "ORIGINAL");
    out.original = std::move(unchunked.run);
    out.chunked.backend = newCheckBackend(opts);
    {
        ExecOptions e = checkExecOptions(opts, *out.chunked.backend, chunked);
        e.inputs = &out.inputs;
        runCheckGraph(out.chunked, *chunked.graph, e, "CHUNKED");
    }
    const SafeTensorsFile refOuts = eagerOutputsToSafetensors(out.reference, *out.referenceBackend);

    // rows, paired by position
    const size_t n = std::min(out.chunked.result.outputs.size(), out.reference.outputs.size());
    bool anyUnexplained = false;
    for (size_t k = 0; k < n; ++k) {
        ChunkCheckRow row;
        row.name = "out_" + std::to_string(k);
        row.how = out.reference.outputInfo.at(k);
        std::tie(row.node, row.formula) = producerOf(*chunked.graph, k);
        const SafeTensor* tc = out.chunked.outputs.find(row.name);
        const SafeTensor* tr = refOuts.find(row.name);
        const SafeTensor* to = out.original.outputs.find(row.name);
        if (!tc || !tr || !to) {
            row.noneBoth = !tc && !tr;
            row.noneOne = !row.noneBoth;
        } else {
            row.vsReference = compareTensors(row.name, *tc, *tr);
            row.vsUnchunked = compareTensors(row.name, *tc, *to);
            row.referenceVsUnchunked = compareTensors(row.name, *tr, *to);
            anyUnexplained = anyUnexplained || !row.referenceVsUnchunked->bitwiseEqual;
        }
        if (!row.equal()) ++out.differing;
        out.rows.push_back(std::move(row));
    }
    out.countsDiffer = out.chunked.result.outputs.size() != out.reference.outputs.size();
    if (out.countsDiffer) ++out.differing;

    // the float64 proof of every difference between the reference and the unchunked run
    if (anyUnexplained) {
        out.proofRan = true;
        const std::string stage = "float64 proof";
        const Graph wide = widenToFloat64(*original.graph);
        const SafeTensorsFile wideInputs = widenToFloat64(out.inputs);
        std::optional<SafeTensorsFile> wideConstants;
        if (original.constants) wideConstants = widenToFloat64(*original.constants);
        const CheckGraph wideOriginal{&wide, wideConstants ? &*wideConstants : nullptr};
        auto backend64 = newCheckBackend(opts);
        const EagerChunkResult ref64 = runReference(wideOriginal, spec, opts, wideInputs, *backend64, stage);
        const SafeTensorsFile ref64Outs = eagerOutputsToSafetensors(ref64, *backend64);
        UnchunkedRun un64;
        runUnchunked(un64, wideOriginal, opts, wideInputs, boundary, stage);
        for (ChunkCheckRow& row : out.rows) {
            if (!row.referenceVsUnchunked || row.referenceVsUnchunked->bitwiseEqual) continue;
            const SafeTensor* r32 = refOuts.find(row.name);
            const SafeTensor* o32 = out.original.outputs.find(row.name);
            const SafeTensor* r64 = ref64Outs.find(row.name);
            const SafeTensor* o64 = un64.run.outputs.find(row.name);
            if (r64 && o64) row.proof = proveOrderOnly(*r32, *o32, *r64, *o64);
            row.explanation =
                row.proof && row.proof->proven ? ChunkExplanation::ReductionOrder : ChunkExplanation::ValuesDiffer;
        }
        // where the reference departs: the first live-out whose values differ by the same rule
        bool differ = false;
        for (const auto& row : out.rows) differ = differ || row.explanation == ChunkExplanation::ValuesDiffer;
        if (differ) {
            std::map<std::string, const EagerLiveOutValue*> wideLiveOuts;
            for (const auto& v : ref64.liveOutValues) wideLiveOuts[v.node] = &v;
            for (const auto& v : out.reference.liveOutValues) {
                auto w = wideLiveOuts.find(v.node);
                auto u32 = unchunked.kept.find(v.node);
                auto u64 = un64.kept.find(v.node);
                if (w == wideLiveOuts.end() || u32 == unchunked.kept.end() || u64 == un64.kept.end()) continue;
                const OrderProof p = proveOrderOnly(v.value, u32->second, w->second->value, u64->second);
                if (p.proven || p.diff32 == 0) continue;  // bitwise (or zero signs only) in float32
                out.departure = ChunkDeparture{v.node, v.region, std::string(chunkCombineName(v.combine)), p};
                break;
            }
        }
    }
    out.verdict = out.differing == 0 ? Verdict::BitwiseEqual : Verdict::Different;
    return out;
}

std::string chunkRowNote(const ChunkCheckRow& row)
{
    std::string s = row.how.how();
    if (row.explanation != ChunkExplanation::None && row.proof)
        s += "; reference vs unchunked: " + std::string(chunkExplanationText(row.explanation)) + " ("
            + row.proof->text() + ")";
    if (row.vsReference && !row.vsReference->bitwiseEqual && !row.formula.empty()) s += "; why: " + row.formula;
    return s;
}

}  // namespace fxl
