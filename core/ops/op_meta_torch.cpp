// Meta functions of the torch-level calls Dynamo graphs contain (torch.addmm,
// torch.nn.functional.gelu, ...) and of side-effect builtins. Most reuse the aten
// overload's meta: the bound arguments are renamed into the aten schema.
#include "core/ops/op_meta_torch.hpp"

namespace fxl::meta {
namespace {

// Runs `aten`'s meta with the call's arguments matched by name (`rename`: torch name ->
// aten name); aten arguments the call lacks take their schema defaults.
MetaFn viaAten(std::string aten, std::vector<std::pair<std::string, std::string>> rename)
{
    return [aten = std::move(aten), rename = std::move(rename)](const MetaCall& c) {
        const OpInfo* op = OpRegistry::instance().find(aten);
        if (!op || !op->meta) throw MetaError("no meta function for " + aten);
        MetaCall m = c;
        m.op = op;
        m.bound.assign(op->schema.args.size(), Arg::none());
        for (size_t i = 0; i < op->schema.args.size(); ++i) {
            const SchemaArg& sa = op->schema.args[i];
            std::string from = sa.name;
            for (const auto& [t, a] : rename)
                if (a == sa.name) from = t;
            int j = c.op ? c.op->schema.argIndex(from) : -1;
            if (j >= 0 && static_cast<size_t>(j) < c.bound.size() && !c.bound[static_cast<size_t>(j)].isNone())
                m.bound[i] = c.bound[static_cast<size_t>(j)];
            else if (sa.defaultText)
                m.bound[i] = parseDefaultValue(sa);
        }
        return op->meta(m);
    };
}

}  // namespace

void registerTorchFunctions(MetaTable& t)
{
    const std::vector<std::pair<std::string, std::string>> inputIsSelf{{"input", "self"}};
    t["torch._C._nn.linear"] = viaAten("aten.linear.default", {});
    t["torch.nn.functional.linear"] = viaAten("aten.linear.default", {});
    t["torch._C._nn.gelu"] = viaAten("aten.gelu.default", {});
    t["torch.nn.functional.gelu"] = viaAten("aten.gelu.default", inputIsSelf);
    t["torch.nn.functional.relu"] = viaAten("aten.relu.default", inputIsSelf);
    t["torch.nn.functional.silu"] = viaAten("aten.silu.default", inputIsSelf);
    t["torch.nn.functional.scaled_dot_product_attention"] = viaAten("aten.scaled_dot_product_attention.default", {});
    t["torch.addmm"] = viaAten("aten.addmm.default", inputIsSelf);
    t["torch.bmm"] = viaAten("aten.bmm.default", inputIsSelf);
    t["torch.baddbmm"] = viaAten("aten.baddbmm.default", inputIsSelf);
    t["torch.matmul"] = viaAten("aten.matmul.default", inputIsSelf);
    t["torch.add"] = viaAten("aten.add.Tensor", inputIsSelf);
    t["torch.mul"] = viaAten("aten.mul.Tensor", inputIsSelf);
    t["torch.sin"] = viaAten("aten.sin.default", inputIsSelf);
    t["torch.cos"] = viaAten("aten.cos.default", inputIsSelf);
    t["torch.sigmoid"] = viaAten("aten.sigmoid.default", inputIsSelf);
    t["torch.sum"] = viaAten("aten.sum.dim_IntList", inputIsSelf);
    t["torch.cat"] = viaAten("aten.cat.default", {});
    t["torch.nn.functional.dropout"] = [](const MetaCall& c) {
        const TensorMeta& in = tensorOf(c, "input");
        return tensorValue(makeTensor(in.dtype, in.sizes, stridesLike(in, ""), in.device));
    };
    t["torch.nn.functional.layer_norm"] = [](const MetaCall& c) {
        const TensorMeta& in = tensorOf(c, "input");
        return tensorValue(makeContiguous(in.dtype, in.sizes, in.device));
    };
    t["torch.nn.functional.softmax"] = [](const MetaCall& c) {
        const TensorMeta& in = tensorOf(c, "input");
        auto dt = toOptDType(c.arg("dtype"));
        return tensorValue(makeContiguous(dt ? *dt : in.dtype, in.sizes, in.device));
    };
    // torch.split(tensor, int | list, dim)
    t["torch.split"] = [](const MetaCall& c) {
        const Arg& s = c.arg("split_size_or_sections");
        MetaCall m = c;
        const char* aten = s.isSequence() ? "aten.split_with_sizes.default" : "aten.split.Tensor";
        const OpInfo* op = OpRegistry::instance().find(aten);
        if (!op || !op->meta) throw MetaError(std::string("no meta function for ") + aten);
        m.op = op;
        m.bound = {c.arg("tensor"), s, c.arg("dim")};
        return op->meta(m);
    };
    for (const char* n : {"torch._check", "torch._check_is_size", "torch._assert", "torch._C._set_grad_enabled"})
        t[n] = [](const MetaCall&) { return ValueMeta::none(); };
}

}  // namespace fxl::meta
