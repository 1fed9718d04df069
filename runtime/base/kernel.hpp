// Kernels: one function per operator overload and device, found by the qualified target
// ("aten.mm.default"). A kernel gets its arguments bound to the schema (defaults filled in)
// and returns the node's value.
//
// Numerics contract (docs/numerics.md section 2): each output element is computed by one
// thread with one reduction order that depends only on the reduced length; results never
// depend on thread count, batch size, row offset, strides or SIMD path; -ffp-contract=off and
// explicit std::fma where the order says so; bf16/f16 accumulate in f32 and round once (RNE).
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/ir/graph.hpp"
#include "core/ops/op_registry.hpp"
#include "runtime/base/value.hpp"

namespace fxl {

class Backend;
class ThreadPool;

// A kernel could not run: unsupported dtype/shape/argument, or inputs that break the op's
// rules (index out of range). The executor adds the node name.
struct KernelError : std::runtime_error
{
    using std::runtime_error::runtime_error;
};

// Philox4x32-10 state with PyTorch's functional (seed, offset) semantics.
struct RngState
{
    uint64_t seed = 0;
    uint64_t offset = 0;  // advanced by every random op by the number of 32-bit draws it used (rounded up to 4)
};

struct KernelCall
{
    const Node* node = nullptr;  // the node being run (for messages and its meta)
    const OpInfo* op = nullptr;  // schema + traits
    std::vector<Value> args;  // bound in schema order: args[i] is op->schema.args[i]
    const ValueMeta* outMeta = nullptr;  // the node's recorded meta (sizes of factories, dtype); may be Unknown
    // The kernel, when the caller looked it up for this call's op and the backend's device
    // (the executor's plan does, once per node); null: the backend finds it by the op's name.
    const std::function<void(KernelCall&)>* kernel = nullptr;
    Backend* backend = nullptr;
    ThreadPool* pool = nullptr;
    RngState* rng = nullptr;
    Value result;  // set by the kernel

    const Value& arg(std::string_view name) const;  // throws std::out_of_range
    int argIndex(std::string_view name) const;  // -1 when absent
    const Tensor& tensor(std::string_view name) const;  // throws KernelError when not a tensor
    Tensor newTensor(const std::vector<int64_t>& sizes, DType t) const;  // contiguous, from the backend
};

using KernelFn = std::function<void(KernelCall&)>;

class KernelRegistry
{
public:
    // Every backend's kernels, registered on first use (runtime/backends.cpp, the one file that
    // knows every backend).
    static KernelRegistry& instance();
    void add(std::string target, DeviceKind device, KernelFn fn);
    const KernelFn* find(std::string_view target, DeviceKind device) const;
    std::vector<std::string> targets(DeviceKind device) const;  // sorted

private:
    std::unordered_map<std::string, KernelFn> cpu_, cuda_;
};

// Registers on `device` the in-place variant of each pointwise op whose functional kernel the
// device has (the kernel, then copy_ into self).
void registerInplaceVariants(KernelRegistry& reg, DeviceKind device);

// Whether a call of `op` on `device` runs the body an ops file declared (core/ops/custom_ops.hpp)
// rather than a kernel: always for an operator only an ops file knows; for a built-in operator
// given a body, only where the device has no kernel for it.
bool runsDeclaration(const OpInfo& op, DeviceKind device);

}  // namespace fxl
