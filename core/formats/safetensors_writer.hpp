// Internal to the safetensors writer (core/formats/safetensors): the file's bytes, and the
// atomic write that puts them on disk.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/formats/safetensors.hpp"

namespace fxl {

// Checks the tensors (names, dtypes, byte counts) and lays out the file. `dest` names the
// destination in errors.
std::vector<uint8_t> serializeSafetensorsFile(const SafeTensorsFile& f, TensorOrder order, const std::string& dest);

// Temp file beside `path` + fsync + rename; never leaves a partial file behind.
void writeFileAtomically(const std::string& path, const std::vector<uint8_t>& bytes);

}  // namespace fxl
