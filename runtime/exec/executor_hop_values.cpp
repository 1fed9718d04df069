#include "runtime/exec/executor_hop_values.hpp"

#include <algorithm>
#include <set>
#include <stdexcept>
#include <string>

#include "runtime/base/dtype_codec.hpp"
#include "runtime/exec/executor_plan.hpp"

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
        return loadAsDouble(host, one.dtype()) != 0.0;
    }
    throw KernelError(std::string(what) + " must be a bool or a one-element tensor");
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

Tensor clonePreserveStrides(Backend& backend, const Tensor& t)
{
    bool plain = t.numel() > 0;
    int64_t needed = t.offset() + 1;
    for (int64_t d = 0; d < t.dim() && plain; ++d) {
        if (t.stride(d) < 0) plain = false;
        needed += (t.size(d) - 1) * t.stride(d);
    }
    if (!plain) {  // empty, or negative strides: a dense copy
        Tensor c = backend.empty(t.sizes(), t.dtype());
        if (t.numel() > 0) backend.copy(c, t);
        return c;
    }
    Tensor buf = backend.empty({needed}, t.dtype());
    backend.copy(buf, t.asStrided({needed}, {1}, 0));
    return buf.asStrided(t.sizes(), t.strides(), t.offset());
}

Tensor cloneDense(Backend& backend, const Tensor& t)
{
    const int64_t n = t.numel();
    std::vector<int64_t> dims;
    for (int64_t d = 0; d < t.dim(); ++d)
        if (t.size(d) != 1) dims.push_back(d);
    std::stable_sort(dims.begin(), dims.end(), [&](int64_t a, int64_t b) { return t.stride(a) > t.stride(b); });
    bool dense = n > 0;
    int64_t expect = 1;
    for (auto it = dims.rbegin(); it != dims.rend() && dense; ++it) {
        dense = t.stride(*it) == expect;
        expect *= t.size(*it);
    }
    if (!dense || t.isContiguous()) {
        Tensor c = backend.empty(t.sizes(), t.dtype());
        if (n > 0) backend.copy(c, t);
        return c;
    }
    std::vector<int64_t> strides = t.strides();
    for (int64_t d = 0; d < t.dim(); ++d)  // size-1 dims: any stride is dense; keep them in range
        if (t.size(d) == 1) strides[static_cast<size_t>(d)] = 1;
    Tensor c = backend.empty({n}, t.dtype()).asStrided(t.sizes(), strides, 0);
    backend.copy(c, t);
    return c;
}

namespace {

bool isListType(const std::string& type) { return type.find("[]") != std::string::npos || type.rfind("List[", 0) == 0; }

Value copyTensors(Backend& backend, const Value& v)
{
    if (v.isTensor()) return Value::ofTensor(clonePreserveStrides(backend, v.tensor));
    if (v.kind != Value::Kind::List) return v;
    std::vector<Value> items;
    for (const auto& it : v.items) items.push_back(copyTensors(backend, it));
    return Value::ofList(std::move(items));
}

}  // namespace

std::vector<Value> bindFunctionalizedArgs(Backend& backend, const OpInfo& op,
                                          const std::vector<std::pair<std::string, Value>>& kwargs, bool v2,
                                          std::vector<Value>& mutated)
{
    const Schema& s = op.schema;
    const std::string who =
        std::string(v2 ? "auto_functionalized_v2" : "auto_functionalized") + "(" + op.qualifiedName + ")";
    std::set<std::string> used;
    auto take = [&](const std::string& key) -> const Value* {
        for (const auto& kv : kwargs)
            if (kv.first == key) {
                used.insert(key);
                return &kv.second;
            }
        return nullptr;
    };
    auto has = [&](const std::string& key) {
        return std::any_of(kwargs.begin(), kwargs.end(), [&](const auto& kv) { return kv.first == key; });
    };
    auto intOf = [&](const Value& v, const std::string& what) {
        if (v.kind != Value::Kind::Int) throw KernelError(who + ": " + what + " must be an int");
        return v.i;
    };
    auto intsOf = [&](const Value& v, const std::string& what) {
        try {
            return v.toIntList();
        } catch (const std::exception&) {
            throw KernelError(who + ": " + what + " must be a list of ints");
        }
    };

    std::vector<Value> bases;
    if (v2) {
        const Value* all = take("_all_bases");
        if (!all || all->kind != Value::Kind::List)
            throw KernelError(who + ": expects _all_bases, the list of the bases of the mutated arguments");
        bases = all->items;
        std::vector<uint8_t> copy(bases.size(), 1);
        if (const Value* only = take("_only_clone_these_bases"); only && !only->isNone()) {
            copy.assign(bases.size(), 0);
            for (int64_t k : intsOf(*only, "_only_clone_these_bases")) {
                if (k < 0 || k >= static_cast<int64_t>(bases.size()))
                    throw KernelError(who + ": _only_clone_these_bases names base " + std::to_string(k) + " of "
                                      + std::to_string(bases.size()));
                copy[static_cast<size_t>(k)] = 1;
            }
        }
        for (size_t k = 0; k < bases.size(); ++k)
            if (copy[k] && bases[k].isTensor())
                bases[k] = Value::ofTensor(clonePreserveStrides(backend, bases[k].tensor));
    }
    std::set<std::string> copyOnly;  // v1's _only_clone_these_tensors
    bool copyAll = true;
    if (!v2)
        if (const Value* only = take("_only_clone_these_tensors"); only && !only->isNone()) {
            copyAll = false;
            if (only->kind != Value::Kind::List)
                throw KernelError(who + ": _only_clone_these_tensors must be a list of argument names");
            for (const auto& it : only->items) copyOnly.insert(it.s);
        }

    // v2: a mutable argument as a view of its (copied) base
    auto regenerate = [&](const std::string& prefix) -> Value {
        const Value* bi = take(prefix + "_base_index");
        if (!bi) {
            if (has(prefix + "_dtype"))
                throw KernelError(who + ": the out= form (" + prefix
                                  + "_size/_stride/_dtype, no base) is not supported");
            throw KernelError(who + ": missing " + prefix + "_base_index");
        }
        if (bi->isNone()) return Value::none();
        const int64_t k = intOf(*bi, prefix + "_base_index");
        if (k < 0 || k >= static_cast<int64_t>(bases.size()))
            throw KernelError(who + ": " + prefix + "_base_index is " + std::to_string(k) + "; _all_bases has "
                              + std::to_string(bases.size()));
        const Value& base = bases[static_cast<size_t>(k)];
        if (!base.isTensor()) throw KernelError(who + ": base " + std::to_string(k) + " is not a tensor");
        const Tensor& b = base.tensor;
        try {
            if (take(prefix + "_alias")) return base;
            if (const Value* off = take(prefix + "_storage_offset")) {
                const Value* sz = take(prefix + "_size");
                const Value* st = take(prefix + "_stride");
                if (!sz || !st) throw KernelError(who + ": " + prefix + "_storage_offset without _size and _stride");
                return Value::ofTensor(b.asStrided(intsOf(*sz, prefix + "_size"), intsOf(*st, prefix + "_stride"),
                                                   intOf(*off, prefix + "_storage_offset")));
            }
            if (const Value* dv = take(prefix + "_slice_dim")) {
                const Value* sv = take(prefix + "_slice_start");
                const Value* ev = take(prefix + "_slice_end");
                int64_t d = intOf(*dv, prefix + "_slice_dim");
                if (d < 0) d += b.dim();
                if (d < 0 || d >= b.dim()) throw KernelError(who + ": " + prefix + "_slice_dim out of range");
                const int64_t n = b.size(d);
                auto clampIdx = [&](const Value* v, int64_t dflt) {
                    int64_t x = (!v || v->isNone()) ? dflt : intOf(*v, prefix + "_slice bound");
                    if (x < 0) x += n;
                    return std::clamp<int64_t>(x, 0, n);
                };
                const int64_t start = clampIdx(sv, 0);
                const int64_t end = std::max(start, clampIdx(ev, n));
                std::vector<int64_t> sizes = b.sizes();
                sizes[static_cast<size_t>(d)] = end - start;
                return Value::ofTensor(b.asStrided(sizes, b.strides(), b.offset() + start * b.stride(d)));
            }
        } catch (const std::out_of_range& e) {
            throw KernelError(who + ": " + prefix + ": " + e.what());
        }
        return base;  // the argument is the base itself
    };

    std::vector<Value> args(s.args.size());
    for (size_t i = 0; i < s.args.size(); ++i) {
        const SchemaArg& a = s.args[i];
        const bool mut = a.alias && a.alias->isWrite;
        if (mut && v2) {
            if (isListType(a.type)) {
                const Value* len = take("_" + a.name + "_length");
                if (!len) throw KernelError(who + ": missing _" + a.name + "_length");
                if (len->isNone()) continue;
                std::vector<Value> items;
                for (int64_t j = 0; j < intOf(*len, "_" + a.name + "_length"); ++j)
                    items.push_back(regenerate("_" + a.name + "_" + std::to_string(j)));
                args[i] = Value::ofList(std::move(items));
            } else {
                args[i] = regenerate("_" + a.name);
            }
            continue;
        }
        if (const Value* v = take(a.name))
            args[i] = *v;
        else if (a.defaultText)
            args[i] = argToValue(parseDefaultValue(a));
        else
            throw KernelError(who + ": missing a value for argument '" + a.name + "'");
        if (mut) {
            if (copyAll || copyOnly.count(a.name)) args[i] = copyTensors(backend, args[i]);
            mutated.push_back(args[i]);
        }
    }
    if (v2) mutated = std::move(bases);
    for (const auto& kv : kwargs)
        if (!used.count(kv.first)) throw KernelError(who + ": unexpected keyword argument '" + kv.first + "'");
    return args;
}

}  // namespace fxl::exec
