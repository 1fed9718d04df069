#include "runtime/check/float64_proof.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <set>

#include "runtime/base/dtype_codec.hpp"
#include "runtime/check/equivalence.hpp"
#include "runtime/math/storage.hpp"

namespace fxl {

namespace {

bool widens(DType t) { return t == DType::F32 || t == DType::BF16 || t == DType::F16; }

void widenArg(Arg& a)
{
    if (a.kind == Arg::Kind::DType && widens(a.dtype)) a.dtype = DType::F64;
    for (auto& x : a.items) widenArg(x);
    for (auto& kv : a.dict) {
        widenArg(kv.first);
        widenArg(kv.second);
    }
}

void widenMeta(ValueMeta& v)
{
    if (v.kind == ValueMeta::Kind::Tensor && widens(v.tensor.dtype)) v.tensor.dtype = DType::F64;
    for (auto& e : v.elems) widenMeta(e);
}

// Factories that make the default dtype (float32) when no dtype is given: the widened graph's
// default is float64, as PyTorch's under torch.set_default_dtype(torch.float64).
bool defaultDtypeFactory(const Node& n)
{
    static const std::set<std::string> k{
        "aten.zeros.default",         "aten.ones.default", "aten.full.default",      "aten.empty.memory_format",
        "aten.empty_strided.default", "aten.rand.default", "aten.randn.default",     "aten.scalar_tensor.default",
        "aten.arange.default",        "aten.arange.start", "aten.arange.start_step", "aten.linspace.default",
        "aten.eye.default",           "aten.zeros.names",  "aten.ones.names",        "aten.empty.names"};
    if (n.op != NodeOp::CallFunction || !k.count(n.target) || n.kwarg("dtype")) return false;
    if (!n.val.isTensor() || !widens(n.val.tensor.dtype)) return false;
    for (const auto& a : n.args)
        if (a.kind == Arg::Kind::DType) return false;
    return true;
}

void widenInPlace(Graph& g)
{
    g.forEachNodeMut([](Node& n) {
        if (defaultDtypeFactory(n)) n.kwargs.push_back({"dtype", Arg::ofDType(DType::F64)});
        for (auto& a : n.args) widenArg(a);
        for (auto& kv : n.kwargs) widenArg(kv.second);
        widenMeta(n.val);
    });
    for (auto& [name, sub] : g.subgraphs) {
        if (!sub) continue;
        auto copy = std::make_shared<Graph>(sub->clone());
        widenInPlace(*copy);
        sub = std::move(copy);
    }
}

std::string sci(double x)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", x);
    return buf;
}

}  // namespace

Graph widenToFloat64(const Graph& g)
{
    Graph w = g.clone();
    widenInPlace(w);
    return w;
}

SafeTensorsFile widenToFloat64(const SafeTensorsFile& f)
{
    SafeTensorsFile out;
    out.metadata = f.metadata;
    for (const SafeTensor& t : f.tensors) {
        if (!widens(t.dtype)) {
            out.tensors.push_back(t);
            continue;
        }
        SafeTensor w;
        w.name = t.name;
        w.shape = t.shape;
        w.dtype = DType::F64;
        const int64_t n = t.numel();
        w.data.resize(static_cast<size_t>(n) * sizeof(double));
        for (int64_t i = 0; i < n; ++i) {
            double x = 0;
            if (t.dtype == DType::F32) {
                float v;
                std::memcpy(&v, t.data.data() + i * 4, 4);
                x = v;
            } else {
                uint16_t h;
                std::memcpy(&h, t.data.data() + i * 2, 2);
                x = t.dtype == DType::BF16 ? fxl::math::bf16ToF32(h) : fxl::math::f16ToF32(h);
            }
            std::memcpy(w.data.data() + i * 8, &x, 8);
        }
        out.tensors.push_back(std::move(w));
    }
    return out;
}

std::string OrderProof::text() const
{
    return "float64 difference " + sci(diff64) + (proven ? " <= " : " > ") + "2^-16 x float32 difference "
        + sci(diff32);
}

OrderProof proveOrderOnly(const SafeTensor& a32, const SafeTensor& b32, const SafeTensor& a64, const SafeTensor& b64)
{
    OrderProof p;
    const TensorDiff d32 = compareTensors(a32.name, a32, b32);
    const TensorDiff d64 = compareTensors(a64.name, a64, b64);
    p.diff32 = d32.maxAbs;
    p.diff64 = d64.maxAbs;
    if (d32.shapeMismatch || d64.shapeMismatch || d32.dtypeMismatch || d64.dtypeMismatch) return p;
    if (d64.nanMismatch > 0 || std::isnan(p.diff64)) return p;
    p.proven = d64.bitwiseEqual || p.diff64 <= kOrderProofShrink * p.diff32;
    return p;
}

}  // namespace fxl
