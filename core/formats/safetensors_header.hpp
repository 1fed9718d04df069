// Internal to the safetensors reader (core/formats/safetensors): the 8-byte header length and
// the JSON header, parsed and checked (names, dtypes, shapes, offsets that tile the data).
#pragma once

#include <cstdint>
#include <string>

#include "core/formats/safetensors.hpp"

namespace fxl {

// Checks the 8-byte length against the limit and the file size; returns it.
uint64_t checkSafetensorsHeaderLength(const uint8_t* first8, uint64_t fileSize, const std::string& file);

// Parses and checks the `n` header bytes. `dataLen` is the size of the data section. The
// tensors come back in data-offset order with fileOffset set; data stays empty.
SafeTensorsFile parseSafetensorsHeader(const uint8_t* hdr, uint64_t n, uint64_t dataLen, const std::string& file);

}  // namespace fxl
