// Values the executor's higher-order operators read and make: predicates of cond / while_loop,
// the RNG-state tensors of run_and_save_rng_state / run_with_rng_state, the slices and stacked
// outputs of map_impl, the copies while_loop returns when it does not iterate, the arguments of
// the op auto_functionalized(_v2) wraps.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/ops/op_registry.hpp"
#include "runtime/base/backend.hpp"
#include "runtime/base/kernel.hpp"
#include "runtime/base/value.hpp"

namespace fxl::exec {

// Truth value of a predicate: a bool/int, or a tensor with one element (cond's pred,
// while_loop's cond_fn result). `what` names it in errors.
bool predicateTruth(Backend& backend, const Value& v, const char* what);

// The runtime value of an RNG state (run_and_save_rng_state's first output): an int64
// tensor [2] = {seed, offset} (bit patterns of the uint64s). Its 16 bytes are also the layout
// of PyTorch's CUDA Philox state (torch.cuda.get_rng_state(): uint8[16], seed then offset,
// little-endian), which run_with_rng_state accepts too; CPU PyTorch's mt19937 state
// (uint8[5056]) has no Philox equivalent and is rejected.
Tensor rngStateTensor(Backend& backend, const RngState& s);
RngState rngStateOf(Backend& backend, const Value& v);

// Slice i of t along dim 0 (a view).
Tensor sliceOfDim0(const Tensor& t, int64_t i);

// map_impl: the stacked outputs [count, ...] shaped after the body's outputs for slice 0,
// then each slice's outputs copied into place (same number, shapes and dtypes every slice).
std::vector<Tensor> allocateStackedOutputs(Backend& backend, const std::vector<Value>& firstOutputs, int64_t count);
void copyIntoStackedOutputs(Backend& backend, const std::vector<Tensor>& stacked, const std::vector<Value>& outputs,
                            int64_t slice);

// A copy of t with its sizes, strides and storage offset (PyTorch's clone_preserve_strides):
// the storage up to t's last element is copied, so views given by (size, stride, offset) of
// t's storage regenerate on the copy.
Tensor clonePreserveStrides(Backend& backend, const Tensor& t);

// A copy of t as torch.clone makes it (memory_format=preserve_format): a new storage of t's
// numel, with t's strides when they are dense (a permutation of contiguous strides, e.g.
// channels-last), else contiguous.
Tensor cloneDense(Backend& backend, const Tensor& t);

// The arguments, in schema order, of the op that auto_functionalized(op, **kwargs) (v2 false)
// or auto_functionalized_v2 (v2 true) wraps, with PyTorch's functional semantics
// (torch/_higher_order_ops/auto_functionalize.py): arguments by keyword, defaults for the
// others. v1: every mutable argument (Tensor(a!), Tensor(a!)[], Tensor(a!)?) is copied and the
// copies (a list for a list argument, None for None) go to `mutated` in schema order. v2: the
// bases in _all_bases are copied (those in _only_clone_these_bases when given) and go to
// `mutated`; each mutable argument is regenerated from its base by _<arg>_base_index and the
// view information: _<arg>_alias, _<arg>_size/_stride/_storage_offset (as_strided),
// _<arg>_slice_dim/_start/_end, none (the base itself); list arguments by _<arg>_length and
// _<arg>_<i>_...). Throws KernelError for keywords the op does not take, missing arguments and
// the out= form (_<arg>_dtype: no base to copy).
std::vector<Value> bindFunctionalizedArgs(Backend& backend, const OpInfo& op,
                                          const std::vector<std::pair<std::string, Value>>& kwargs, bool v2,
                                          std::vector<Value>& mutated);

}  // namespace fxl::exec
