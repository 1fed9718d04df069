// Helpers shared by the runtime kernel tests (test_elementwise, test_reduction, test_shape,
// test_matmul, test_random): runtime Values from constants and schema defaults, one op run by
// hand (no executor), tensors from reference files and seeded random data, bitwise
// comparisons, the PyTorch reference files, and the corpus graphs the tests iterate with the
// one loop that runs every corpus node of an op family against its recorded meta.
#pragma once

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/formats/safetensors.hpp"
#include "core/ir/graph.hpp"
#include "core/ir/tensor_meta.hpp"
#include "core/ops/op_registry.hpp"
#include "runtime/base/backend.hpp"
#include "runtime/base/kernel.hpp"
#include "runtime/cpu/cpu_common.hpp"
#include "test_util.hpp"

namespace kerneltest {

using namespace fxl;

// ---- values

inline Value dtypeValue(DType t)
{
    Value v;
    v.kind = Value::Kind::DType;
    v.dtype = t;
    return v;
}

inline Value strValue(const std::string& s)
{
    Value v;
    v.kind = Value::Kind::Str;
    v.s = s;
    return v;
}

// An int[] argument.
inline Value sizesValue(const std::vector<int64_t>& s)
{
    std::vector<Value> items;
    for (int64_t x : s) items.push_back(Value::ofInt(x));
    return Value::ofList(std::move(items));
}

// A constant argument (no node refs) as a runtime Value.
inline Value argToValue(const Arg& a) { return Value::ofConstant(a); }

// ---- running one op by hand

using NamedArgs = std::map<std::string, Value>;

// A call of `target` with the `given` arguments by schema name and the others' schema
// defaults. requireAll: an argument with no default must be given (catches misspelt names).
inline KernelCall makeCall(const std::string& target, const NamedArgs& given, bool requireAll = false)
{
    const OpInfo* op = OpRegistry::instance().find(target);
    if (!op) throw std::runtime_error("no operator " + target);
    KernelCall call;
    call.op = op;
    for (const SchemaArg& a : op->schema.args) {
        auto it = given.find(a.name);
        if (it == given.end() && requireAll && !a.defaultText)
            throw std::runtime_error(target + ": argument " + a.name + " not given");
        call.args.push_back(it != given.end() ? it->second : argToValue(parseDefaultValue(a)));
    }
    return call;
}

// A result's tensors: one for a tensor, the items of a list (undefined tensors for None).
inline std::vector<Tensor> resultTensors(const Value& r)
{
    std::vector<Tensor> out;
    if (r.kind == Value::Kind::List) {
        for (const Value& v : r.items) out.push_back(v.isTensor() ? v.tensor : Tensor());
    } else {
        out.push_back(r.isTensor() ? r.tensor : Tensor());
    }
    return out;
}

// Runs `op` on positional arguments; missing trailing ones take their schema defaults.
inline std::vector<Tensor> runCall(Backend& be, const OpInfo* op, std::vector<Value> args)
{
    KernelCall call;
    call.op = op;
    for (size_t k = args.size(); k < op->schema.args.size(); ++k)
        args.push_back(argToValue(parseDefaultValue(op->schema.args[k])));
    call.args = std::move(args);
    be.run(call);
    return resultTensors(call.result);
}

// ---- tensors

inline Tensor upload(Backend& be, DType t, const std::vector<int64_t>& sizes, const void* bytes)
{
    Tensor x = be.empty(sizes, t);
    be.upload(x, bytes, x.nbytes());
    return x;
}

inline Tensor fromSafe(Backend& be, const SafeTensor& s)
{
    Tensor t = be.empty(s.shape, s.dtype);
    if (!s.data.empty()) be.upload(t, s.data.data(), static_cast<int64_t>(s.data.size()));
    return t;
}

// The elements' bytes in logical (row-major) order, whatever the strides.
inline std::vector<uint8_t> bytesOf(Backend& be, const Tensor& t)
{
    std::vector<uint8_t> out(static_cast<size_t>(t.nbytes()));
    be.download(out.data(), t, t.nbytes());
    return out;
}

inline bool sameBits(Backend& be, const Tensor& a, const Tensor& b)
{
    if (a.defined() != b.defined()) return false;
    if (!a.defined()) return true;
    return a.sizes() == b.sizes() && a.dtype() == b.dtype() && bytesOf(be, a) == bytesOf(be, b);
}

// Seeded normal(0, scale) values (drawn in double) of any dtype.
inline Tensor randomTensor(Backend& be, const std::vector<int64_t>& sizes, DType dt, uint32_t seed, double scale = 1.0)
{
    Tensor t = be.empty(sizes, dt);
    std::mt19937 rng(seed);
    std::normal_distribution<double> nd(0.0, scale);
    char* p = static_cast<char*>(t.rawData());
    for (int64_t k = 0; k < t.numel(); ++k) cpu::storeFromDouble(p + k * t.itemSize(), dt, nd(rng));
    return t;
}

// Seeded uniform integers in [lo, hi).
inline Tensor randomInts(Backend& be, const std::vector<int64_t>& sizes, int64_t lo, int64_t hi, uint32_t seed,
                         DType dt = DType::I64)
{
    Tensor t = be.empty(sizes, dt);
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int64_t> ud(lo, hi - 1);
    char* p = static_cast<char*>(t.rawData());
    for (int64_t k = 0; k < t.numel(); ++k)
        cpu::storeFromDouble(p + k * t.itemSize(), dt, static_cast<double>(ud(rng)));
    return t;
}

// Ordered integer of a bf16 / f16 bit pattern (adjacent values differ by 1: ulp distances).
inline int32_t ordered16(uint16_t h)
{
    return (h & 0x8000u) ? -static_cast<int32_t>(h & 0x7fffu) : static_cast<int32_t>(h);
}

// ---- PyTorch reference files: tests/data/kernels/<family>.cases.json + .safetensors

struct RefFile
{
    nlohmann::json doc;  // null when the files are missing
    SafeTensorsFile st;
    std::map<std::string, const SafeTensor*> byKey;
    std::map<std::string, const nlohmann::json*> byId;  // cases by "id"

    void load(const std::filesystem::path& dir, const std::string& family)
    {
        std::ifstream f(dir / (family + ".cases.json"));
        if (!f) return;
        doc = nlohmann::json::parse(f);
        st = readSafetensors((dir / (family + ".safetensors")).string());
        for (const auto& t : st.tensors) byKey[t.name] = &t;
        for (const auto& c : doc.at("cases")) byId[c.at("id").get<std::string>()] = &c;
    }
};

// A case's argument as a Value: number/bool/null/string/list as is, {"dtype": name},
// {"tensor": key} with an optional strided view ("sizes", "strides", "offset") over the
// stored base. Tensor inputs are appended to `inputs` (when given) in order.
inline Value caseArg(Backend& be, const RefFile& refs, const nlohmann::json& j, std::vector<Tensor>* inputs = nullptr)
{
    if (j.is_null()) return Value::none();
    if (j.is_boolean()) return Value::ofBool(j.get<bool>());
    if (j.is_number_integer()) return Value::ofInt(j.get<int64_t>());
    if (j.is_number_float()) return Value::ofFloat(j.get<double>());
    if (j.is_string()) return strValue(j.get<std::string>());
    if (j.is_array()) {
        std::vector<Value> items;
        for (const auto& x : j) items.push_back(caseArg(be, refs, x, inputs));
        return Value::ofList(std::move(items));
    }
    if (j.contains("dtype")) {
        auto t = dtypeFromTorchName(j.at("dtype").get<std::string>());
        if (!t) throw std::runtime_error("unknown dtype " + j.dump());
        return dtypeValue(*t);
    }
    Tensor t = fromSafe(be, *refs.byKey.at(j.at("tensor").get<std::string>()));
    if (j.contains("sizes"))
        t = t.asStrided(j.at("sizes").get<std::vector<int64_t>>(), j.at("strides").get<std::vector<int64_t>>(),
                        j.at("offset").get<int64_t>());
    if (inputs) inputs->push_back(t);
    return Value::ofTensor(t);
}

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
