// Internal to the TORCH_TRACE reader (core/formats/torch_trace): the glog header that starts
// every envelope line, "V0819 12:42:53.477000 888578 torch/x.py:1633] {...}".
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace fxl {

struct TraceHeader
{
    char level = 'V';
    int month = 0, day = 0;
    int64_t timeMicros = 0;
    int64_t pid = 0;
    std::string_view path;
    int32_t sourceLine = 0;
    size_t jsonStart = 0;  // offset of the envelope in the line
};

// Parses the header of `line`. Returns the 1-based column of the first mismatch, or 0 on
// success.
size_t parseTraceHeader(std::string_view line, TraceHeader& h);

}  // namespace fxl
