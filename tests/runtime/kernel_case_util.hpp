// Helpers shared by the runtime kernel tests and the GPU check (tests/gpu/, no Qt): runtime
// Values from constants and schema defaults, one op run by hand (no executor), tensors from
// reference files and seeded random data, bitwise comparisons, and the PyTorch reference files
// (tests/data/kernels/<family>.cases.json + .safetensors).
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

}  // namespace kerneltest
