// CPU kernels of scaled_dot_product_attention in the forms graphs carry it: the pre-dispatch
// aten.scaled_dot_product_attention.default and the fused backends' ops with their backward
// (_scaled_dot_product_flash_attention_for_cpu, _scaled_dot_product_flash_attention,
// _scaled_dot_product_efficient_attention). Each computes PyTorch's math definition
// (runtime/composite/flex_attention.hpp: sdpaForward / sdpaBackward) composed from the
// runtime's aten kernels, so their numerics rules hold. dropout_p > 0 is a KernelError.
// Outputs as the ops' schemas return them: logsumexp [B, H, L] f32 (natural log; the efficient
// form pads L to a multiple of 32 with +inf, or returns [B, H, 0] without compute_log_sumexp),
// the flash form's cum_seq_q / cum_seq_k None, max_q / max_k the lengths, philox seed and
// offset 0-d int64 zeros, debug_attn_mask an empty tensor.
#pragma once

#include "runtime/base/kernel.hpp"

namespace fxl::exec {

void registerSdpaKernels(KernelRegistry& reg, DeviceKind device);

}  // namespace fxl::exec
