// The pieces of a Dynamo-level lowering (runtime/torch_level/torch_level.hpp): aten overloads with their
// defaults as values, Python signatures ("self, other, *, alpha=1"), a node's arguments bound
// to one (Call), the table entry a lowering is, and small value helpers.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/ops/op_registry.hpp"
#include "runtime/base/kernel.hpp"
#include "runtime/torch_level/torch_level.hpp"

namespace fxl::torch_level {

// ---- aten overloads with their defaults as values, resolved once per process

struct Aten
{
    const OpInfo* op = nullptr;
    std::vector<Value> defaults;  // by schema argument (None where none)
};

// nullptr when the registry has no such op. Thread-safe: plans of different runs may be made
// concurrently.
const Aten* findAten(const std::string& name);
// Throws KernelError when the registry has no such op.
const Aten& aten(const std::string& name);

// ---- signatures ("self, other, *, alpha=1"; "*size" collects the remaining positionals;
// "~idx" is passed as the node's Arg, unresolved)

struct Param
{
    std::string name;
    bool hasDefault = false;
    Value def;
    bool varargs = false;
    bool kwOnly = false;
    bool raw = false;  // "~": the lowering reads the node's Arg itself
};

std::vector<Param> parseSignature(const std::string& sig);

// ---- a call being lowered: the node's arguments bound to the signature

struct Call
{
    TorchLevelContext& context;
    const Node& node;
    std::vector<Value> values;  // by parameter
    std::vector<const Arg*> rawArgs;  // by parameter: the Arg a "~" parameter came from

    const Value& at(size_t i) const { return values.at(i); }
    bool given(size_t i) const { return !values.at(i).isNone(); }
    const Tensor& tensor(size_t i, const char* what) const
    {
        if (!values.at(i).isTensor()) throw KernelError(std::string(what) + " must be a tensor");
        return values[i].tensor;
    }
    // Runs the aten op on `args`, the op's defaults filling the arguments not given.
    Value run(const Aten& a, std::vector<Value> args) const
    {
        for (size_t k = args.size(); k < a.defaults.size(); ++k) args.push_back(a.defaults[k]);
        return context.callAten(*a.op, std::move(args));
    }
    Value run(const std::string& name, std::vector<Value> args) const { return run(aten(name), std::move(args)); }
    Tensor runTensor(const std::string& name, std::vector<Value> args) const
    {
        Value r = run(name, std::move(args));
        if (!r.isTensor()) throw KernelError(name + " did not return a tensor");
        return r.tensor;
    }
};

using LowerFn = std::function<Value(const Call&)>;

// A lowering: its Python signature and what it runs.
struct Entry
{
    std::vector<Param> params;
    LowerFn fn;
    std::string atens;  // the aten ops it may run, for description() and the plan-time check
};

// ---- values

inline Value tensorValue(const Tensor& t) { return Value::ofTensor(t); }
inline Value intValue(int64_t i) { return Value::ofInt(i); }
Value intList(const std::vector<int64_t>& v);
bool isNumber(const Value& v);  // a Python int, float or bool
Value dtypeValue(DType d);
// A varargs size list: view(2, 3) or view((2, 3)) / view([2, 3]).
Value sizeList(const Value& varargs);
// d in [-rank, rank) as a dim in [0, rank) (a 0-d tensor takes -1 and 0).
int64_t wrapDim(int64_t d, int64_t rank);

}  // namespace fxl::torch_level
