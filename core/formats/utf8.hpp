// Internal to core/formats: the UTF-8 check the readers share (FX text, TORCH_TRACE payloads,
// safetensors headers).
#pragma once

#include <cstddef>
#include <string_view>

namespace fxl {

enum class NulByte
{
    Allowed,
    Invalid,  // FX text: a NUL byte cannot be part of Python source
};

// Offset of the first byte that does not belong to valid UTF-8, or npos when all of `bytes`
// is valid. Overlong forms, surrogates and code points above U+10FFFF are invalid, as for
// Rust's str::from_utf8; the offset is that of the first byte of the broken sequence.
size_t firstInvalidUtf8(std::string_view bytes, NulByte nul = NulByte::Allowed);

}  // namespace fxl
