// Meta (shape) functions: the registration entry point, the arguments of a call and new
// tensor metas. The op groups live in op_meta_<group>.cpp and the helpers they share in
// op_meta_{symint,args,layout,promotion}.cpp; the rules follow PyTorch's meta kernels
// (structured kernels, torch/_meta_registrations.py, torch/_refs, torch/_prims_common).
#include "core/ops/op_meta.hpp"
#include "core/ir/graph.hpp"
#include "core/ops/op_meta_factories.hpp"
#include "core/ops/op_meta_indexing.hpp"
#include "core/ops/op_meta_misc.hpp"
#include "core/ops/op_meta_nn.hpp"
#include "core/ops/op_meta_pointwise.hpp"
#include "core/ops/op_meta_reductions.hpp"
#include "core/ops/op_meta_torch.hpp"
#include "core/ops/op_meta_views.hpp"
#include "core/ops/op_registry.hpp"

namespace fxl {

const Arg& MetaCall::arg(std::string_view name) const
{
    if (op) {
        int i = op->schema.argIndex(name);
        if (i >= 0 && static_cast<size_t>(i) < bound.size()) return bound[static_cast<size_t>(i)];
    }
    throw std::out_of_range("no argument '" + std::string(name) + "'");
}

const ValueMeta& MetaCall::tensorArg(std::string_view name) const
{
    static const ValueMeta kUnknown;
    const Arg& a = arg(name);
    if (a.isNode() && metaOf) return metaOf(a.node);
    return kUnknown;
}

void registerMetaFunctions(std::unordered_map<std::string, MetaFn>& table)
{
    meta::registerPointwise(table);
    meta::registerViews(table);
    meta::registerReductions(table);
    meta::registerNn(table);
    meta::registerFactories(table);
    meta::registerIndexing(table);
    meta::registerMisc(table);
    meta::registerTorchFunctions(table);
}

namespace meta {

TensorMeta makeTensor(DType dt, Sizes sizes, Sizes strides, std::string device)
{
    TensorMeta t;
    t.dtype = dt;
    t.sizes = std::move(sizes);
    t.strides = std::move(strides);
    t.device = std::move(device);
    return t;
}

TensorMeta makeContiguous(DType dt, Sizes sizes, std::string device)
{
    Sizes st = contiguous(sizes);
    return makeTensor(dt, std::move(sizes), std::move(st), std::move(device));
}

}  // namespace meta
}  // namespace fxl
