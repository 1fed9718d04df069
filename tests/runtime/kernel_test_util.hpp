// Helpers shared by the runtime kernel tests (test_elementwise, test_reduction, test_shape,
// test_matmul, test_random): those of kernel_case_util.hpp, and the corpus graphs the tests
// iterate with the one loop that runs every corpus node of an op family against its recorded
// meta.
#pragma once

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "kernel_case_util.hpp"
#include "test_util.hpp"

namespace kerneltest {

using namespace fxl;

// ---- the corpus graphs

// The traced graphs of corpus/pytorch and corpus/pytorch/large (*.code.py), sorted; an absent
// directory gives a row of its own, which skips or fails by the corpus rule (test_util.hpp).
inline std::vector<std::string> corpusCodeFiles()
{
    std::vector<std::string> files;
    for (const char* dir : {"pytorch", "pytorch/large"})
        for (const std::filesystem::path& f : fxltest::corpusFiles(dir, {".code.py"})) files.push_back(f.string());
    std::sort(files.begin(), files.end());
    return files;
}

// The recorded metas of a node's outputs: one for a tensor, one per tuple element (nullptr
// for a non-tensor element), none otherwise.
inline std::vector<const TensorMeta*> outputMetas(const Node& n)
{
    std::vector<const TensorMeta*> want;
    if (n.val.isTensor())
        want.push_back(&n.val.tensor);
    else if (n.val.kind == ValueMeta::Kind::Tuple)
        for (const auto& e : n.val.elems) want.push_back(e.isTensor() ? &e.tensor : nullptr);
    return want;
}

// Concrete values of symbolic sizes / strides (`unknown` where a symbol has none).
inline std::vector<int64_t> concrete(const std::vector<SymInt>& v, int64_t unknown)
{
    std::vector<int64_t> out;
    for (const SymInt& s : v) out.push_back(s.maybeValue().value_or(unknown));
    return out;
}

// ---- every corpus node of an op family, run on inputs shaped like its recorded meta

// What differs between the families' corpus runs: which nodes, how their inputs are made, and
// which recorded facts each output must have (dtype and sizes are always checked).
struct CorpusRunOptions
{
    std::set<std::string> family;  // the targets to run
    // An input tensor for a node argument recorded with meta `m` (seed: distinct per input).
    std::function<Tensor(Backend&, const TensorMeta& m, uint32_t seed)> makeInput;
    bool onlyStridedTensorNodes = false;  // run only nodes recorded as one tensor with strides
    bool skipDynamicShapeOps = false;  // output sizes come from the data, not from the meta
    bool passRecordedMeta = false;  // the call carries its node and recorded meta (call.node, call.outMeta)
    bool checkStrides = false;  // outputs of more than one element have the recorded strides
    bool noneWhereMetaIsNone = false;  // a tuple element recorded as a non-tensor must be None
    bool acceptMissingOutputMeta = false;  // a node recorded with no output meta (split) just has to run
    // Ops whose outputs must share the first tensor input's storage (views).
    std::function<bool(const OpInfo*)> mustAliasFirstInput;
};

struct CorpusRunResult
{
    int ran = 0;  // distinct (target, argument metas and constants) calls run and checked
    int skipped = 0;  // nodes not run: an input without tensor meta, or a data-dependent size
    std::map<std::string, int> perOp;  // ran, by target
    std::string failure;  // the first failure ("" when every call ran and matched)
};

// One run per distinct (target, argument metas and constants) of each family node of `g`, in
// graph order; stops at the first failure.
inline CorpusRunResult runCorpusFamily(const Graph& g, Backend& be, const CorpusRunOptions& o)
{
    CorpusRunResult res;
    std::set<std::string> seen;
    uint32_t seed = 100;
    for (NodeId id : g.order()) {
        const Node& n = g.node(id);
        if (n.op != NodeOp::CallFunction || !o.family.count(n.target)) continue;
        if (o.onlyStridedTensorNodes && (!n.val.isTensor() || !n.val.tensor.hasStrides())) continue;
        const OpInfo* op = OpRegistry::instance().find(n.target);
        if (!op) {
            res.failure = n.name + ": no operator " + n.target;
            return res;
        }
        if (o.skipDynamicShapeOps && op->has(kTraitDynamicShape)) {
            ++res.skipped;
            continue;
        }
        std::vector<Arg> bound;
        if (auto err = OpRegistry::instance().bind(*op, n, bound)) {
            res.failure = n.name + ": " + *err;
            return res;
        }
        // node arguments become tensors made from their meta, also inside lists (cat, stack)
        std::string key = n.target;
        std::vector<Tensor> inputs;
        bool usable = true;
        std::function<Value(const Arg&)> convert = [&](const Arg& a) -> Value {
            if (a.isNode()) {
                const ValueMeta& m = g.node(a.node).val;
                if (!m.isTensor()) {  // e.g. a partition's placeholder the meta file does not cover
                    usable = false;
                    return Value::none();
                }
                key += "|" + formatAnnotation(m);
                inputs.push_back(o.makeInput(be, m.tensor, ++seed));
                return Value::ofTensor(inputs.back());
            }
            if (a.kind == Arg::Kind::List || a.kind == Arg::Kind::Tuple) {
                bool hasNode = false;
                for (const Arg& x : a.items) hasNode = hasNode || x.isNode();
                if (hasNode) {
                    std::vector<Value> items;
                    key += "|[";
                    for (const Arg& x : a.items) items.push_back(convert(x));
                    key += "]";
                    return Value::ofList(std::move(items));
                }
            }
            key += "|" + std::to_string(static_cast<int>(a.kind)) + ":" + std::to_string(a.i) + ":"
                + std::to_string(a.f) + ":" + std::to_string(a.b) + ":" + a.s;
            for (const Arg& x : a.items)
                key += "," + std::to_string(x.i) + ":" + std::to_string(x.f) + ":" + std::to_string(x.b);
            return argToValue(a);
        };
        std::vector<Value> args;
        for (const Arg& a : bound) args.push_back(convert(a));
        if (!usable) {
            ++res.skipped;
            continue;
        }
        if (!seen.insert(key).second) continue;
        KernelCall call;
        call.op = op;
        call.args = std::move(args);
        if (o.passRecordedMeta) {
            call.node = &n;
            call.outMeta = &n.val;
        }
        try {
            be.run(call);
        } catch (const std::exception& e) {
            res.failure = n.name + " (" + n.target + "): " + e.what();
            return res;
        }
        const std::vector<Tensor> out = resultTensors(call.result);
        const std::vector<const TensorMeta*> want = outputMetas(n);
        const std::string what = n.name + " (" + n.target + ")";
        if (want.empty() && o.acceptMissingOutputMeta) {  // split etc. recorded without tuple meta
            ++res.ran;
            ++res.perOp[n.target];
            continue;
        }
        if (want.size() != out.size()) {
            res.failure =
                what + ": " + std::to_string(out.size()) + " outputs, meta has " + std::to_string(want.size());
            return res;
        }
        for (size_t k = 0; k < want.size(); ++k) {
            const std::string where = what + ": output " + std::to_string(k);
            if (!want[k]) {
                if (o.noneWhereMetaIsNone && out[k].defined()) {
                    res.failure = where + " should be None";
                    return res;
                }
                continue;
            }
            // sizes and strides without a value or hint (symbolic) match anything
            const std::vector<int64_t> sizes = concrete(want[k]->sizes, -1), strides = concrete(want[k]->strides, -1);
            bool sizesOk = out[k].defined() && out[k].sizes().size() == sizes.size();
            for (size_t d = 0; sizesOk && d < sizes.size(); ++d)
                sizesOk = sizes[d] < 0 || sizes[d] == out[k].sizes()[d];
            if (!sizesOk || out[k].dtype() != want[k]->dtype) {
                res.failure = where + " is " + (out[k].defined() ? describe(out[k]) : "None") + ", meta says "
                    + formatAnnotation(ValueMeta::ofTensor(*want[k]));
                return res;
            }
            if (o.checkStrides && want[k]->hasStrides() && strides.size() == sizes.size() && out[k].numel() > 1) {
                bool stridesOk = true;
                for (size_t d = 0; d < strides.size(); ++d)
                    stridesOk = stridesOk && (strides[d] < 0 || strides[d] == out[k].strides()[d]);
                if (!stridesOk) {
                    res.failure = where + " has strides of " + describe(out[k]) + ", meta says "
                        + formatAnnotation(ValueMeta::ofTensor(*want[k]));
                    return res;
                }
            }
            if (o.mustAliasFirstInput && o.mustAliasFirstInput(op)
                && (inputs.empty() || out[k].storage() != inputs.front().storage())) {
                res.failure = where + ": a view must share its input's storage";
                return res;
            }
        }
        ++res.ran;
        ++res.perOp[n.target];
    }
    return res;
}

// The row's expected minimum of distinct calls (`floors`: by file name, counted when the floor
// was set, a little lower); -1 when the file has none (a new corpus file: add it).
inline int corpusRunFloor(const std::map<std::string, int>& floors, const std::string& path)
{
    const auto it = floors.find(std::filesystem::path(path).filename().string());
    return it == floors.end() ? -1 : it->second;
}

}  // namespace kerneltest
