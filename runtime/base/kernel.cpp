#include "runtime/base/kernel.hpp"

#include <algorithm>
#include <mutex>

#include "runtime/base/backend.hpp"

namespace fxl {

int KernelCall::argIndex(std::string_view name) const
{
    if (!op) return -1;
    const auto& a = op->schema.args;
    for (size_t k = 0; k < a.size(); ++k)
        if (a[k].name == name) return static_cast<int>(k);
    return -1;
}

const Value& KernelCall::arg(std::string_view name) const
{
    const int k = argIndex(name);
    if (k < 0 || static_cast<size_t>(k) >= args.size())
        throw std::out_of_range(std::string("no argument '") + std::string(name) + "'");
    return args[static_cast<size_t>(k)];
}

const Tensor& KernelCall::tensor(std::string_view name) const
{
    const Value& v = arg(name);
    if (!v.isTensor()) throw KernelError(std::string("argument '") + std::string(name) + "' is not a tensor");
    return v.tensor;
}

Tensor KernelCall::newTensor(const std::vector<int64_t>& sizes, DType t) const
{
    if (!backend) throw KernelError("no backend");
    return backend->empty(sizes, t);
}

// The in-place variants the op registry made of pointwise ops (OpInfo::inplaceOf): the
// functional kernel, then its result written into self (cast by copy_'s rules, as PyTorch
// writes an in-place result), and self returned, so that later users of self see the write.
void registerInplaceVariants(KernelRegistry& reg, DeviceKind device)
{
    const OpRegistry& ops = OpRegistry::instance();
    const OpInfo* copyOp = ops.find("aten.copy_.default");
    const KernelFn* copyFn = reg.find("aten.copy_.default", device);
    if (!copyOp || !copyFn) return;
    for (const OpInfo* op : ops.all()) {
        if (op->inplaceOf.empty() || reg.find(op->qualifiedName, device)) continue;
        const KernelFn* fn = reg.find(op->inplaceOf, device);
        const OpInfo* functional = ops.find(op->inplaceOf);
        if (!fn || !functional) continue;
        reg.add(op->qualifiedName, device, [fn = *fn, functional, copyOp, copy = *copyFn](KernelCall& c) {
            const OpInfo* self = c.op;
            c.op = functional;
            fn(c);
            c.op = self;
            if (!c.result.isTensor()) throw KernelError(self->qualifiedName + ": the result is not a tensor");
            if (c.result.tensor.sizes() != c.tensor("self").sizes())
                throw KernelError(self->qualifiedName + ": the result's shape differs from self's (in place)");
            KernelCall w;
            w.node = c.node;
            w.op = copyOp;
            w.args = {c.args[0], c.result, Value::ofBool(false)};
            w.backend = c.backend;
            w.pool = c.pool;
            w.rng = c.rng;
            copy(w);
            c.result = c.args[0];
        });
    }
}

void KernelRegistry::add(std::string target, DeviceKind device, KernelFn fn)
{
    (device == DeviceKind::Cpu ? cpu_ : cuda_)[std::move(target)] = std::move(fn);
}

bool runsDeclaration(const OpInfo& op, DeviceKind device)
{
    if (!op.custom) return false;
    return op.tsvLine == 0 || !KernelRegistry::instance().find(op.qualifiedName, device);
}

const KernelFn* KernelRegistry::find(std::string_view target, DeviceKind device) const
{
    const auto& m = device == DeviceKind::Cpu ? cpu_ : cuda_;
    auto it = m.find(std::string(target));
    return it == m.end() ? nullptr : &it->second;
}

std::vector<std::string> KernelRegistry::targets(DeviceKind device) const
{
    const auto& m = device == DeviceKind::Cpu ? cpu_ : cuda_;
    std::vector<std::string> out;
    out.reserve(m.size());
    for (const auto& [k, v] : m) out.push_back(k);
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace fxl
