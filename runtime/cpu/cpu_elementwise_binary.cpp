#include "runtime/cpu/cpu_elementwise_binary.hpp"

namespace fxl::cpu::ew {

const Value& argOr(const KernelCall& call, const char* name, const Value& fallback)
{
    const int k = call.argIndex(name);
    if (k < 0 || static_cast<size_t>(k) >= call.args.size() || call.args[static_cast<size_t>(k)].isNone())
        return fallback;
    return call.args[static_cast<size_t>(k)];
}

const Value& intOne()
{
    static const Value v = Value::ofInt(1);
    return v;
}

std::vector<int64_t> broadcastOf(const std::vector<const Value*>& vals)
{
    std::vector<int64_t> shape;
    bool first = true;
    for (const Value* v : vals) {
        if (!v->isTensor()) continue;
        shape = first ? v->tensor.sizes() : broadcastShapes(shape, v->tensor.sizes());
        first = false;
    }
    return shape;
}

std::vector<const Tensor*> tensorsOf(const std::vector<const Value*>& vals)
{
    std::vector<const Tensor*> out;
    for (const Value* v : vals)
        if (v->isTensor()) out.push_back(&v->tensor);
    return out;
}

int scalarsOf(const std::vector<const Value*>& vals)
{
    int n = 0;
    for (const Value* v : vals) n += isScalarValue(*v) ? 1 : 0;
    return n;
}

void needOperand(const Value& v, const char* op, const char* name)
{
    if (!v.isTensor() && !isScalarValue(v))
        throw KernelError(std::string(op) + ": argument '" + name + "' must be a tensor or a number");
}

Tensor binaryOutput(const KernelCall& call, const Value& a, const Value& b, DType t)
{
    const std::vector<const Value*> ops = {&a, &b};
    const std::vector<int64_t> shape = broadcastOf(ops);
    return allocStrided(call, shape, iteratorStrides(shape, tensorsOf(ops), scalarsOf(ops)), t);
}

void checkIntDivisor(const KernelCall& call, const Value& divisor, DType common, const Tensor& out, const char* message)
{
    if (!isIntegral(common, false) || out.numel() == 0) return;
    dispatch<Set::Numeric>(common, message, [&](auto tag) {
        using S = typename decltype(tag)::type;
        if constexpr (kIsInt<S>) {
            if (!divisor.isTensor()) {
                if (scalarTo<S>(divisor) == 0) throw KernelError(message);
                return;
            }
            // every element of the divisor meets the dividend: out is not empty
            const std::vector<unsigned char> bytes = hostBytes(castTo(call, divisor.tensor, common));
            for (size_t i = 0; i + sizeof(S) <= bytes.size(); i += sizeof(S)) {
                S v;
                std::memcpy(&v, bytes.data() + i, sizeof v);
                if (v == 0) throw KernelError(message);
            }
        }
    });
}

}  // namespace fxl::cpu::ew
