// Internals of the CPU shape family (cpu_shape.cpp views, cpu_shape_copy.cpp cat/stack/
// scatter-like copies, cpu_index.cpp indexing, cpu_sort.cpp sort/topk): argument access,
// PyTorch's dim wrapping and view geometry (computeStride, infer_size), and element copies.
//
// Views return Tensor::asStrided of the input's storage (the memory timeline's R3 counts them
// as aliases); copies allocate exactly their outputs. Data movement is bitwise; the few ops
// that add (index_put accumulate, index_add, scatter_add) add in index order, one writer per
// output element, so results do not depend on the thread count.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "runtime/base/backend.hpp"
#include "runtime/base/kernel.hpp"
#include "runtime/cpu/cpu_common.hpp"

namespace fxl::cpu::shape {

// ---- arguments (KernelError on a wrong kind)
int64_t intArg(const KernelCall& call, const char* name);
std::optional<int64_t> optIntArg(const KernelCall& call, const char* name);  // None -> nullopt
bool boolArg(const KernelCall& call, const char* name, bool dflt = false);  // None -> dflt
std::vector<int64_t> intListArg(const KernelCall& call, const char* name);
std::vector<Tensor> tensorListArg(const KernelCall& call, const char* name);
// Tensor?[]: undefined tensors for None entries.
std::vector<Tensor> optTensorListArg(const KernelCall& call, const char* name);

// ---- geometry (PyTorch's rules)
// maybe_wrap_dim: a 0-dim tensor accepts dims -1 and 0.
int64_t wrapDim(int64_t d, int64_t ndim);
// infer_size: one -1 allowed; the product must equal numel.
std::vector<int64_t> inferSize(const std::vector<int64_t>& shape, int64_t numel);
// at::detail::computeStride: strides viewing (sizes, strides) as newSizes, or nullopt.
std::optional<std::vector<int64_t>> computeStride(const std::vector<int64_t>& sizes,
                                                  const std::vector<int64_t>& strides,
                                                  const std::vector<int64_t>& newSizes);
std::string shapeStr(const std::vector<int64_t>& v);  // "[2, 3]"
int64_t numelOf(const std::vector<int64_t>& sizes);

// Views (no copy): the same storage with other geometry.
Tensor viewAs(const Tensor& t, const std::vector<int64_t>& newSizes);  // view(); KernelError when impossible
Tensor sliceView(const Tensor& t, int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end, int64_t step);
Tensor selectView(const Tensor& t, int64_t dim, int64_t index);
Tensor unsqueezeView(const Tensor& t, int64_t dim);

// ---- copies
// dst (any strides, dst's dtype) = src (same sizes; any dtype: converted like PyTorch's copy_).
void copyInto(const KernelCall& call, const Tensor& dst, const Tensor& src);
// A contiguous tensor of zeros.
Tensor zeros(const KernelCall& call, const std::vector<int64_t>& sizes, DType t);
// A copy of t with PyTorch's clone(preserve_format) strides.
Tensor clonePreserve(const KernelCall& call, const Tensor& t);

// Index values of an integer tensor (i64/i32/i16/i8/u8) in row-major order.
std::vector<int64_t> indexValues(const Tensor& idx, const char* op);
bool isIndexDType(DType t);  // i64 or i32

void registerViewKernels(KernelRegistry& reg, DeviceKind d);  // the views of this file

}  // namespace fxl::cpu::shape

namespace fxl::cpu {

// The whole family, registered by registerCpuKernels.
void registerShapeKernels(KernelRegistry& reg);
// The views and the copying shape kernels (cat, stack, repeat, flip, the scatters) on a device:
// their host logic is device-independent (copies through the pointwise loop).
void registerDeviceShapeKernels(KernelRegistry& reg, DeviceKind d);

}  // namespace fxl::cpu
