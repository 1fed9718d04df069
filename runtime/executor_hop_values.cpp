#include "runtime/executor_hop_values.hpp"

#include <algorithm>
#include <string>

#include "runtime/cpu/cpu_common.hpp"

namespace fxl::exec {

bool predicateTruth(Backend& backend, const Value& v, const char* what)
{
    if (v.kind == Value::Kind::Bool) return v.b;
    if (v.kind == Value::Kind::Int) return v.i != 0;
    const Value* t = &v;
    if (v.kind == Value::Kind::List && v.items.size() == 1) t = &v.items[0];
    if (t->isTensor()) {
        if (t->tensor.numel() != 1)
            throw KernelError(std::string(what) + " must have one element, got " + describe(t->tensor));
        alignas(8) unsigned char host[8] = {};
        Tensor one = t->tensor.asStrided({}, {}, t->tensor.offset());
        backend.download(host, one, one.itemSize());
        return cpu::loadAsDouble(host, one.dtype()) != 0.0;
    }
    throw KernelError(std::string(what) + " must be a bool or a one-element tensor");
}

std::vector<Value> itemsOf(Value v)
{
    if (v.kind == Value::Kind::List) return std::move(v.items);
    std::vector<Value> one;
    one.push_back(std::move(v));
    return one;
}

Tensor rngStateTensor(Backend& backend, const RngState& s)
{
    Tensor t = backend.empty({2}, DType::I64);
    const uint64_t host[2] = {s.seed, s.offset};
    backend.upload(t, host, sizeof host);
    return t;
}

RngState rngStateOf(Backend& backend, const Value& v)
{
    if (!v.isTensor())
        throw KernelError("run_with_rng_state: rng_state (argument 0) must be a tensor (an int64 [2] {seed, offset})");
    const Tensor& t = v.tensor;
    const bool i64 = t.dtype() == DType::I64 && t.dim() == 1 && t.size(0) == 2;
    const bool u8 = t.dtype() == DType::U8 && t.dim() == 1 && t.size(0) == 16;
    if (!i64 && !u8)
        throw KernelError(
            "run_with_rng_state: rng_state must be an int64 tensor [2] {seed, offset} (as run_and_save_rng_state "
            "returns) or a uint8 tensor [16] (CUDA's Philox state), got "
            + describe(t));
    Tensor c = t;
    if (!t.isContiguous()) {
        c = backend.empty(t.sizes(), t.dtype());
        backend.copy(c, t);
    }
    uint64_t host[2] = {0, 0};
    backend.download(host, c, sizeof host);
    return RngState{host[0], host[1]};
}

Tensor sliceOfDim0(const Tensor& t, int64_t i)
{
    std::vector<int64_t> sizes(t.sizes().begin() + 1, t.sizes().end()),
        strides(t.strides().begin() + 1, t.strides().end());
    return t.asStrided(std::move(sizes), std::move(strides), t.offset() + i * t.stride(0));
}

std::vector<Tensor> allocateStackedOutputs(Backend& backend, const std::vector<Value>& firstOutputs, int64_t count)
{
    std::vector<Tensor> stacked;
    for (const auto& o : firstOutputs) {
        if (!o.isTensor()) throw KernelError("map_impl: the body must return tensors");
        std::vector<int64_t> sizes{count};
        sizes.insert(sizes.end(), o.tensor.sizes().begin(), o.tensor.sizes().end());
        stacked.push_back(backend.empty(sizes, o.tensor.dtype()));
    }
    return stacked;
}

void copyIntoStackedOutputs(Backend& backend, const std::vector<Tensor>& stacked, const std::vector<Value>& outputs,
                            int64_t slice)
{
    if (outputs.size() != stacked.size())
        throw KernelError("map_impl: the body returned a different number of outputs");
    for (size_t j = 0; j < outputs.size(); ++j) {
        const Tensor& dst = stacked[j];
        const Value& out = outputs[j];
        if (!out.isTensor() || out.tensor.dtype() != dst.dtype()
            || !std::equal(out.tensor.sizes().begin(), out.tensor.sizes().end(), dst.sizes().begin() + 1,
                           dst.sizes().end())
            || out.tensor.dim() + 1 != dst.dim())
            throw KernelError("map_impl: the body's output " + std::to_string(j)
                              + " changes shape or dtype across slices");
        backend.copy(sliceOfDim0(dst, slice), out.tensor);
    }
}

void replaceTensorsWithCopies(Backend& backend, std::vector<Value>& values)
{
    for (auto& v : values)
        if (v.isTensor()) {
            Tensor c = backend.empty(v.tensor.sizes(), v.tensor.dtype());
            backend.copy(c, v.tensor);
            v = Value::ofTensor(std::move(c));
        }
}

}  // namespace fxl::exec
