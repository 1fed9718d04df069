// Numbers as fxlens prints them for people. One rule for every verb, so that the same graph
// never shows the same size in two spellings.
#pragma once

#include <cstdint>
#include <string>

namespace fxl {

// A byte count in binary units, three significant digits: "512 B", "1 KiB", "1.50 KiB",
// "456 KiB", "0.98 MiB", "1.20 MiB", "12.3 GiB"; negative counts (deltas) get a "-".
std::string formatByteSize(int64_t bytes);

// A duration, three significant digits in the largest unit under which it is at least 1:
// "0 s", "850 ns", "12.3 µs", "4.56 ms", "1.20 s", "75.0 s"; minutes above 100 s ("2.5 min").
std::string formatDuration(double seconds);

// A change from `before` to `after` as a signed byte delta and percent of `before`:
// "+1.50 KiB (+12.5%)", "-133 KiB (-9.8%)", "0 B (0%)"; "+1 KiB (new)" when before is 0.
std::string formatByteChange(int64_t before, int64_t after);

}  // namespace fxl
