// What the reduction kernel tests share (test_reduction, test_reduction_invariance): Values
// for named arguments, one op run by schema names, and views and relaid copies of tensors.
// Header-only; each test executable includes it once.
#pragma once

#include <cstring>
#include <string>
#include <vector>

#include "kernel_test_util.hpp"
#include "runtime/base/backend.hpp"
#include "runtime/base/kernel.hpp"

namespace reductiontest {

using namespace fxl;
using namespace kerneltest;

// ---- values
inline Value tv(const Tensor& t) { return Value::ofTensor(t); }
inline Value iv(int64_t i) { return Value::ofInt(i); }
inline Value bv(bool b) { return Value::ofBool(b); }
inline Value fv(double f) { return Value::ofFloat(f); }
inline Value bools(std::vector<bool> v)
{
    std::vector<Value> items;
    for (bool x : v) items.push_back(Value::ofBool(x));
    return Value::ofList(std::move(items));
}

// Runs an op with named arguments (the others take their schema defaults; one without a
// default must be given); returns the outputs (one for a tensor result, the items of a
// tuple; undefined tensors for None).
inline std::vector<Tensor> runOp(Backend& be, const std::string& target, const NamedArgs& given)
{
    KernelCall call = makeCall(target, given, /*requireAll=*/true);
    be.run(call);
    if (call.result.kind != Value::Kind::List && !call.result.isTensor())
        throw std::runtime_error(target + " returned no tensor");
    return resultTensors(call.result);
}

// ---- tensors
// Entries [o, o+n) of dimension d as a view.
inline Tensor chunk(const Tensor& t, int64_t d, int64_t o, int64_t n)
{
    std::vector<int64_t> sz = t.sizes();
    sz[static_cast<size_t>(d)] = n;
    return t.asStrided(sz, t.strides(), t.offset() + o * t.strides()[static_cast<size_t>(d)]);
}

// Same values, other strides: stored with the dims in reverse order (a "transposed" layout
// for every rank), or every other element of a larger buffer starting at offset 5.
inline Tensor reversedCopy(Backend& be, const Tensor& t)
{
    std::vector<int64_t> rs(t.sizes().rbegin(), t.sizes().rend());
    Tensor store = be.empty(rs, t.dtype());
    std::vector<int64_t> st(store.strides().rbegin(), store.strides().rend());
    Tensor view = store.asStrided(t.sizes(), st, 0);
    be.copy(view, t);
    return view;
}
inline Tensor gappedCopy(Backend& be, const Tensor& t)
{
    Tensor store = be.empty({2 * t.numel() + 7}, t.dtype());
    std::memset(store.rawData(), 0x7f, static_cast<size_t>(store.nbytes()));
    std::vector<int64_t> st = Tensor::contiguousStrides(t.sizes());
    for (auto& s : st) s *= 2;
    Tensor view = store.asStrided(t.sizes(), st, 5);
    be.copy(view, t);
    return view;
}

}  // namespace reductiontest
