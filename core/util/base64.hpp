// Base64 (RFC 4648, standard alphabet, '=' padding), for binary data carried in JSON.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fxl {

std::string encodeBase64(const uint8_t* data, size_t size);

// The decoded bytes, or nullopt with `errorOffset` set to the offset of the first character
// that is not valid there (a character outside the alphabet, padding in the middle, a length
// that is not a multiple of 4, or non-zero bits in the padding).
std::optional<std::vector<uint8_t>> decodeBase64(std::string_view text, size_t& errorOffset);

}  // namespace fxl
