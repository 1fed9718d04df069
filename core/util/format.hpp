// Numbers as fxlens prints them for people. One rule for every verb, so that the same graph
// never shows the same size in two spellings.
#pragma once

#include <cstdint>
#include <string>

namespace fxl {

// A byte count in binary units, three significant digits: "512 B", "1 KiB", "1.50 KiB",
// "456 KiB", "0.98 MiB", "1.20 MiB", "12.3 GiB"; negative counts (deltas) get a "-".
std::string formatByteSize(int64_t bytes);

}  // namespace fxl
