// Internal to the safetensors reader and writer (core/formats/safetensors): the checks and
// the message spellings they share.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/ir/dtype.hpp"

namespace fxl {

// InputError(file, 0, column): the column is the 1-based byte offset in the file (0 when it
// does not fit an int).
[[noreturn]] void failAtByte(const std::string& file, uint64_t byteOffset, const std::string& msg);
// InputError(file, 0, 0).
[[noreturn]] void failFile(const std::string& file, const std::string& msg);
// strerror(errno)
std::string errnoText();

bool validUtf8(const std::string& s);
// A name as it appears in messages: quoted, control characters escaped, long names cut.
std::string showName(std::string_view s);
// Bits per element in the safetensors sense ("F4" is 4 bits; our F4E2M1FNx2 maps to it).
int dtypeBits(DType t);
// numel * bits / 8 with overflow checks; nullopt (and `why`, when given) when it overflows or
// leaves a partial byte.
std::optional<uint64_t> bytesFor(DType t, const std::vector<int64_t>& shape, std::string* why);
// "[2, 3]"
std::string shapeStr(const std::vector<int64_t>& shape);

}  // namespace fxl
