// Random ops on the CPU with Philox4x32-10 (seed, offset) streams (the stream, the bits ->
// float maps and the offset rules are documented in runtime/math/philox.hpp).
//
// Where (seed, offset) comes from:
// - Non-functional ops (aten.rand / rand_like / randn / randn_like / uniform /
//   normal_functional / bernoulli.p / bernoulli.default / native_dropout,
//   torch.nn.functional.dropout, prims.inductor_seeds) use the run's generator
//   KernelCall::rng (seed = ExecOptions::rngSeed, offset 0 at the start of a run): each call
//   takes the current offset and advances it by philoxRoundUp4(its draws), in execution
//   order. Element k gets draws offset + D*k .. (D = 1, or 2 for f64), k being the flat
//   row-major index of the output's logical shape (layout-independent).
// - rngprims.philox_rand(size, seed, offset, ...) (AOT's functionalize_rng_ops) reads seed
//   and offset from its tensor inputs, leaves the generator alone and returns
//   (values, offset + philoxRoundUp4(draws)) - the same values aten.rand gives at that state,
//   so a recomputation with the same inputs replays bitwise.
// - prims.inductor_random / inductor_randint use Triton's scheme (counter = element index,
//   key = the seed tensor's value; philox.hpp tritonRand); inductor_seeds draws its seeds
//   (63-bit, two draws each) from the generator; inductor_lookup_seed indexes them.
//
// Dropout (aten.native_dropout, PyTorch 1.13 CPU arithmetic): keep = u > p with u the value
// rand_like(input) would give at the same state and p rounded to the input's dtype (so the
// mask equals the decomposition `rand_like(x) > p` of AOT graphs bitwise); p == 0 keeps
// everything; scale = 1/(1-p) in double (0 when 1-p == 0, as at::native_dropout_cpu), cast to
// the compute type (f32 for f32/bf16/f16, f64 for f64); output = (x * keep) * scale, rounded
// once to the input dtype (so p = 1 gives x*0*0: NaN for inf/NaN inputs, -0 for negatives,
// as eager). Mask is bool. train=None counts as training (eager), train=False returns
// (copy of x, all-true mask) and draws nothing. Draws are taken for every training call, p = 0
// and p = 1 included, so offsets never depend on p. torch.nn.functional.dropout returns
// native_dropout's output (eager CPU computes x * (mask / (1-p)) instead, which can differ in
// the last bit; we follow the aten-level graphs).
//
// There are no PyTorch reference outputs for these streams (CPU PyTorch uses mt19937; CUDA
// orders elements by launch grid): tests check the Philox known-answer vectors and the
// properties above.
#pragma once

#include "runtime/base/kernel.hpp"

namespace fxl::cpu {

void registerRandomKernels(KernelRegistry& reg);  // cpu_random.cpp

}  // namespace fxl::cpu
