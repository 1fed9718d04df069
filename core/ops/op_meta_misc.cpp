// Meta functions of shape-building ops (cat, stack, repeat, pad, flip, triu), the
// backward-of-view ops, scatters into views, functional collectives, symbolic-int ops,
// foreach ops and operator.getitem.
#include "core/ops/op_meta_misc.hpp"
#include "core/ir/graph.hpp"

namespace fxl::meta {
namespace {

ValueMeta symValue(const SymInt& s)
{
    ValueMeta v;
    v.kind = ValueMeta::Kind::SymInt;
    v.sym = s.expr();
    v.symHint = s.maybeValue();
    return v;
}

std::string suggestFormat(const TensorMeta& t)
{
    if (t.strides.size() == t.sizes.size() && isChannelsLastStrides(t))
        return t.sizes.size() == 4 ? "channels_last" : "channels_last_3d";
    return "contiguous_format";
}

ValueMeta catImpl(const MetaCall& c)
{
    auto ts = tensorListOf(c, "tensors");
    if (ts.empty()) throw MetaError("torch.cat(): expected a non-empty list of Tensors");
    // legacy: 1-d empty tensors are skipped
    const TensorMeta* ref = nullptr;
    for (const auto* t : ts)
        if (!(t->sizes.size() == 1 && guardEq(t->sizes[0], 0))) {
            ref = t;
            break;
        }
    if (!ref) ref = ts.front();
    int64_t n = static_cast<int64_t>(ref->sizes.size());
    int64_t dim = wrapDim(intArg(c, "dim"), n);
    std::vector<Operand> ops;
    Sizes out = ref->sizes;
    SymInt total = 0;
    std::string fmt;
    bool fmtSet = false;
    for (const auto* t : ts) {
        ops.push_back(Operand{t, DType::Undefined});
        if (t->sizes.size() == 1 && guardEq(t->sizes[0], 0) && n != 1) continue;
        if (static_cast<int64_t>(t->sizes.size()) != n)
            throw MetaError("torch.cat(): Tensors must have same number of dimensions: got " + std::to_string(n)
                            + " and " + std::to_string(t->sizes.size()));
        for (int64_t d = 0; d < n; ++d)
            if (d != dim && !guardEq(t->sizes[static_cast<size_t>(d)], ref->sizes[static_cast<size_t>(d)]))
                throw MetaError("torch.cat(): Sizes of tensors must match except in dimension " + std::to_string(dim));
        total = add(total, t->sizes[static_cast<size_t>(dim)]);
        std::string f = suggestFormat(*t);
        if (!fmtSet) {
            fmt = f;
            fmtSet = true;
        } else if (fmt != f)
            fmt = "contiguous_format";
    }
    if (n > 0) out[static_cast<size_t>(dim)] = total;
    DType dt = resultType(ops);
    return tensorValue(makeTensor(dt, out, stridesFor(out, fmt), deviceOfInputs(ts)));
}

ValueMeta stackImpl(const MetaCall& c)
{
    auto ts = tensorListOf(c, "tensors");
    if (ts.empty()) throw MetaError("stack expects a non-empty TensorList");
    const TensorMeta& ref = *ts.front();
    int64_t n = static_cast<int64_t>(ref.sizes.size());
    int64_t dim = wrapDim(intArg(c, "dim"), n + 1);
    std::vector<Operand> ops;
    for (const auto* t : ts) {
        if (t->sizes.size() != ref.sizes.size()) throw MetaError("stack expects each tensor to be equal size");
        for (size_t d = 0; d < ref.sizes.size(); ++d)
            if (!guardEq(t->sizes[d], ref.sizes[d])) throw MetaError("stack expects each tensor to be equal size");
        ops.push_back(Operand{t, DType::Undefined});
    }
    Sizes out = ref.sizes;
    out.insert(out.begin() + dim, SymInt(static_cast<int64_t>(ts.size())));
    return tensorValue(makeContiguous(resultType(ops), std::move(out), deviceOfInputs(ts)));
}

ValueMeta likePreserve(const TensorMeta& t)
{
    return tensorValue(makeTensor(t.dtype, t.sizes, stridesLike(t, ""), t.device));
}

ValueMeta selfPreserve(const MetaCall& c) { return likePreserve(tensorOf(c, "self")); }

ValueMeta zerosOfSizes(const MetaCall& c)
{
    const TensorMeta& g = tensorOf(c, "grad_output");
    return tensorValue(makeContiguous(g.dtype, symListArg(c, "input_sizes"), g.device));
}

ValueMeta sameAs(const MetaCall& c, const char* name)
{
    const ValueMeta& v = c.tensorArg(name);
    if (!v.isTensor()) throw MetaError(std::string("argument '") + name + "' has no tensor meta");
    return v;
}

int64_t groupSize(const MetaCall& c)
{
    int64_t g = intArg(c, "group_size");
    if (g <= 0) throw MetaError("group_size must be positive");
    return g;
}

TensorMeta gathered(const TensorMeta& in, int64_t g)
{
    if (in.sizes.empty()) throw MetaError("all_gather_into_tensor: input must have at least one dim");
    Sizes out = in.sizes;
    out[0] = mul(out[0], g);
    return makeContiguous(in.dtype, std::move(out), in.device);
}

TensorMeta scattered(const TensorMeta& in, int64_t g)
{
    if (in.sizes.empty()) throw MetaError("reduce_scatter_tensor: input must have at least one dim");
    const SymInt& d0 = in.sizes[0];
    if (d0.isConcrete() && *d0.maybeValue() % g != 0)
        throw MetaError("reduce_scatter_tensor: input dim 0 (" + d0.str() + ") must be divisible by group_size "
                        + std::to_string(g));
    Sizes out = in.sizes;
    out[0] = exactDiv(d0, g);
    return makeContiguous(in.dtype, std::move(out), in.device);
}

ValueMeta listOf(std::vector<ValueMeta> v) { return ValueMeta::ofTuple(std::move(v)); }

// cat, stack, repeat, pad, flip, triu, the scatter and backward of slicing
void registerShapeOps(MetaTable& t)
{
    t["aten.cat.default"] = catImpl;
    t["aten.stack.default"] = stackImpl;
    t["aten.repeat.default"] = [](const MetaCall& c) {
        const TensorMeta& self = tensorOf(c, "self");
        Sizes rep = symListArg(c, "repeats");
        if (rep.size() < self.sizes.size())
            throw MetaError(
                "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor");
        Sizes out(rep.size());
        size_t pad = rep.size() - self.sizes.size();
        for (size_t i = 0; i < rep.size(); ++i) out[i] = i < pad ? rep[i] : mul(rep[i], self.sizes[i - pad]);
        return tensorValue(makeContiguous(self.dtype, std::move(out), self.device));
    };
    t["aten.constant_pad_nd.default"] = [](const MetaCall& c) {
        const TensorMeta& self = tensorOf(c, "self");
        Sizes pad = symListArg(c, "pad");
        if (pad.size() % 2 != 0 || pad.size() / 2 > self.sizes.size())
            throw MetaError("Length of pad must be even but instead it equals " + std::to_string(pad.size()));
        Sizes out = self.sizes;
        for (size_t i = 0; i < pad.size() / 2; ++i) {
            size_t d = self.sizes.size() - 1 - i;
            out[d] = add(add(out[d], pad[2 * i]), pad[2 * i + 1]);
        }
        return tensorValue(makeTensor(self.dtype, out, stridesFor(out, suggestFormat(self)), self.device));
    };
    // reflection_pad{1,2,3}d / replication_pad{2,3}d: the last k dims grow by their pads
    // (left, right of the last dim first); (k+1)- or (k+2)-d input, contiguous output.
    // Reflection needs each pad < the padded dim's size.
    for (int k = 1; k <= 3; ++k)
        for (bool reflect : {true, false}) {
            if (!reflect && k == 1) continue;
            const std::string name =
                std::string(reflect ? "aten.reflection_pad" : "aten.replication_pad") + std::to_string(k) + "d.default";
            t[name] = [k, reflect, name](const MetaCall& c) {
                const TensorMeta& self = tensorOf(c, "self");
                Sizes pad = symListArg(c, "padding");
                const size_t nd = self.sizes.size(), kk = static_cast<size_t>(k);
                if (pad.size() != 2 * kk)
                    throw MetaError(name + ": padding size is expected to be " + std::to_string(2 * k) + ", got "
                                    + std::to_string(pad.size()));
                if (nd != kk + 1 && nd != kk + 2)
                    throw MetaError(name + ": expected " + std::to_string(k + 1) + "D or " + std::to_string(k + 2)
                                    + "D input, got " + std::to_string(nd) + "D");
                Sizes out = self.sizes;
                for (size_t i = 0; i < kk; ++i) {
                    const size_t d = nd - 1 - i;
                    const SymInt& lo = pad[2 * i];
                    const SymInt& hi = pad[2 * i + 1];
                    if (reflect && (!hintLt(lo, self.sizes[d]) || !hintLt(hi, self.sizes[d])))
                        throw MetaError(name + ": padding size should be less than the corresponding input dimension");
                    out[d] = add(add(out[d], lo), hi);
                    if (hintLt(out[d], SymInt(1)))
                        throw MetaError(name + ": output size is too small (input and padding give "
                                        + std::to_string(hintOf(out[d])) + ")");
                }
                return tensorValue(makeContiguous(self.dtype, out, self.device));
            };
        }
    for (const char* n : {"aten.flip.default", "aten.roll.default"}) t[n] = selfPreserve;
    for (const char* n : {"aten.triu.default", "aten.tril.default"})
        t[n] = [](const MetaCall& c) {
            const TensorMeta& self = tensorOf(c, "self");
            if (self.sizes.size() < 2) throw MetaError("triu/tril: input tensor must have at least 2 dimensions");
            return tensorValue(makeContiguous(self.dtype, self.sizes, self.device));
        };
    t["aten.slice_scatter.default"] = [](const MetaCall& c) {
        const TensorMeta& self = tensorOf(c, "self");
        tensorOf(c, "src");
        return likePreserve(self);
    };
    t["aten.select_scatter.default"] = t["aten.slice_scatter.default"];
    t["aten.as_strided_scatter.default"] = t["aten.slice_scatter.default"];
    t["aten.slice_backward.default"] = zerosOfSizes;
    t["aten.select_backward.default"] = zerosOfSizes;
}

// functional collectives (results valid after wait_tensor), FSDP and inductor buffers
void registerCollectives(MetaTable& t)
{
    t["_c10d_functional.all_reduce.default"] = [](const MetaCall& c) { return likePreserve(tensorOf(c, "input")); };
    t["_c10d_functional.broadcast.default"] = t["_c10d_functional.all_reduce.default"];
    t["_c10d_functional.all_reduce_.default"] = [](const MetaCall& c) { return sameAs(c, "input"); };
    t["_c10d_functional.broadcast_.default"] = t["_c10d_functional.all_reduce_.default"];
    t["_c10d_functional.wait_tensor.default"] = [](const MetaCall& c) { return sameAs(c, "tensor"); };
    t["_c10d_functional.all_reduce_coalesced.default"] = [](const MetaCall& c) {
        std::vector<ValueMeta> out;
        for (const auto* in : tensorListOf(c, "inputs")) out.push_back(likePreserve(*in));
        return listOf(std::move(out));
    };
    t["_c10d_functional.all_gather_into_tensor.default"] = [](const MetaCall& c) {
        return tensorValue(gathered(tensorOf(c, "input"), groupSize(c)));
    };
    t["_c10d_functional.all_gather_into_tensor_out.default"] = [](const MetaCall& c) { return sameAs(c, "out"); };
    t["_c10d_functional.all_gather_into_tensor_coalesced.default"] = [](const MetaCall& c) {
        int64_t g = groupSize(c);
        std::vector<ValueMeta> out;
        for (const auto* in : tensorListOf(c, "inputs")) out.push_back(tensorValue(gathered(*in, g)));
        return listOf(std::move(out));
    };
    t["_c10d_functional.reduce_scatter_tensor.default"] = [](const MetaCall& c) {
        return tensorValue(scattered(tensorOf(c, "input"), groupSize(c)));
    };
    t["_c10d_functional.reduce_scatter_tensor_coalesced.default"] = [](const MetaCall& c) {
        int64_t g = groupSize(c);
        std::vector<ValueMeta> out;
        for (const auto* in : tensorListOf(c, "inputs")) out.push_back(tensorValue(scattered(*in, g)));
        return listOf(std::move(out));
    };
    auto allToAll = [](const MetaCall& c) {
        const TensorMeta& in = tensorOf(c, "input");
        Sizes split = symListArg(c, "output_split_sizes");
        Sizes out = in.sizes;
        if (!split.empty()) {
            if (out.empty()) throw MetaError("all_to_all_single: input must have at least one dim");
            SymInt total = 0;
            for (const auto& s : split) total = add(total, s);
            out[0] = total;
        }
        return tensorValue(makeContiguous(in.dtype, std::move(out), in.device));
    };
    t["_c10d_functional.all_to_all_single.default"] = allToAll;
    t["_c10d_functional_autograd.all_to_all_single.default"] = allToAll;
    t["fsdp.all_gather_copy_in.default"] = [](const MetaCall& c) {
        auto dt = toOptDType(c.arg("dtype"));
        std::string dev = deviceOf(c.arg("device"), "cpu");
        SymInt numel = symArg(c, "all_gather_input_numel");
        SymInt world = symArg(c, "world_size");
        DType d = dt ? *dt : DType::F32;
        return ValueMeta::ofTuple(
            {tensorValue(makeContiguous(d, {numel}, dev)), tensorValue(makeContiguous(d, {mul(numel, world)}, dev))});
    };
    for (const char* n :
         {"fsdp.split_with_sizes_copy.default", "inductor.resize_storage_bytes_.default", "aten._foreach_copy_.default",
          "aten.split_with_sizes_copy.out", "aten._assert_scalar.default", "aten.sym_constrain_range_for_size.default",
          "aten._assert_async.msg", "aten.sym_constrain_range.default"})
        t[n] = [](const MetaCall&) { return ValueMeta::none(); };
    t["inductor._reinterpret_tensor.default"] = [](const MetaCall& c) {
        const TensorMeta& self = tensorOf(c, "self");
        TensorMeta r = makeTensor(self.dtype, symListArg(c, "size"), symListArg(c, "stride"), self.device);
        r.storageOffset = add(self.storageOffset, intArg(c, "offset_increment"));
        return tensorValue(std::move(r));
    };
    t["inductor._alloc_from_pool.default"] = [](const MetaCall& c) {
        const TensorMeta& self = tensorOf(c, "self");
        auto dt = toOptDType(c.arg("dtype"));
        return tensorValue(
            makeTensor(dt ? *dt : self.dtype, symListArg(c, "size"), symListArg(c, "stride"), self.device));
    };
}

// sym_size, sym_stride, sym_numel, _local_scalar_dense
void registerSymbolicInts(MetaTable& t)
{
    t["aten.sym_size.int"] = [](const MetaCall& c) {
        const TensorMeta& self = tensorOf(c, "self");
        int64_t d = wrapDim(intArg(c, "dim"), static_cast<int64_t>(self.sizes.size()), false);
        return symValue(self.sizes[static_cast<size_t>(d)]);
    };
    t["aten.sym_stride.int"] = [](const MetaCall& c) {
        const TensorMeta& self = tensorOf(c, "self");
        int64_t d = wrapDim(intArg(c, "dim"), static_cast<int64_t>(self.sizes.size()), false);
        Sizes st = self.strides.size() == self.sizes.size() ? self.strides : contiguous(self.sizes);
        return symValue(st[static_cast<size_t>(d)]);
    };
    t["aten.sym_numel.default"] = [](const MetaCall& c) { return symValue(product(tensorOf(c, "self").sizes)); };
    t["aten.sym_storage_offset.default"] = [](const MetaCall& c) {
        return symValue(tensorOf(c, "self").storageOffset);
    };
    t["aten._local_scalar_dense.default"] = [](const MetaCall& c) {
        const TensorMeta& self = tensorOf(c, "self");
        ValueMeta v;
        if (isFloatingPoint(self.dtype) || isComplex(self.dtype)) {
            v.kind = ValueMeta::Kind::SymFloat;  // unbacked float: value unknown
            return v;
        }
        SymInt u = c.newUnbacked ? c.newUnbacked(std::nullopt) : SymInt(0);
        v = symValue(u);
        if (self.dtype == DType::Bool) v.kind = ValueMeta::Kind::SymBool;
        return v;
    };
}

// _foreach ops and operator.getitem
void registerForeachAndGetitem(MetaTable& t)
{
    t["aten._foreach_add.List"] = [](const MetaCall& c) {
        auto a = tensorListOf(c, "self");
        auto b = tensorListOf(c, "other");
        if (a.size() != b.size()) throw MetaError("_foreach_add: lists differ in length");
        std::vector<ValueMeta> out;
        for (size_t i = 0; i < a.size(); ++i) {
            Sizes shape = broadcastShapes({&a[i]->sizes, &b[i]->sizes});
            Sizes st = iteratorStrides(shape, {a[i], b[i]});
            DType dt = resultType({Operand{a[i], DType::Undefined}, Operand{b[i], DType::Undefined}});
            out.push_back(tensorValue(makeTensor(dt, std::move(shape), std::move(st), a[i]->device)));
        }
        return listOf(std::move(out));
    };
    t["aten._foreach_mul.Scalar"] = [](const MetaCall& c) {
        std::vector<ValueMeta> out;
        Operand s = operandOf(c, c.arg("scalar"), "scalar");
        for (const auto* a : tensorListOf(c, "self")) {
            DType dt = resultType({Operand{a, DType::Undefined}, s});
            out.push_back(tensorValue(makeTensor(dt, a->sizes, iteratorStrides(a->sizes, {a}, true), a->device)));
        }
        return listOf(std::move(out));
    };

    // operator.getitem on tuple / list metas (read from the node: the schema has no types)
    t["operator.getitem"] = [](const MetaCall& c) {
        const Node& n = *c.node;
        if (n.args.size() != 2 || !n.args[0].isNode()) throw MetaError("getitem expects (node, index)");
        const ValueMeta& v = c.metaOf(n.args[0].node);
        if (v.kind != ValueMeta::Kind::Tuple) throw MetaError("getitem of a value that is not a tuple");
        int64_t i = toInt(c, n.args[1], "idx");
        int64_t sz = static_cast<int64_t>(v.elems.size());
        if (i < 0) i += sz;
        if (i < 0 || i >= sz) throw MetaError("getitem index " + std::to_string(i) + " out of range");
        return v.elems[static_cast<size_t>(i)];
    };
}

}  // namespace

void registerMisc(MetaTable& t)
{
    registerShapeOps(t);
    registerCollectives(t);
    registerSymbolicInts(t);
    registerForeachAndGetitem(t);
}

}  // namespace fxl::meta
