// Values the executor's higher-order operators read and make: predicates of cond / while_loop,
// the RNG-state tensors of run_and_save_rng_state / run_with_rng_state, the slices and stacked
// outputs of map_impl, the copies while_loop returns when it does not iterate.
#pragma once

#include <cstdint>
#include <vector>

#include "runtime/backend.hpp"
#include "runtime/kernel.hpp"
#include "runtime/value.hpp"

namespace fxl::exec {

// Truth value of a predicate: a bool/int, or a tensor with one element (cond's pred,
// while_loop's cond_fn result). `what` names it in errors.
bool predicateTruth(Backend& backend, const Value& v, const char* what);

// The items of a body's result (a tuple), or the value itself as the one item.
std::vector<Value> itemsOf(Value v);

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

// The tensors among `values` replaced by copies (a HOP's outputs never alias its operands).
void replaceTensorsWithCopies(Backend& backend, std::vector<Value>& values);

}  // namespace fxl::exec
