#include "core/formats/torch_trace/trace_header.hpp"
#include "core/util/strings.hpp"

#include <cstring>

namespace fxl {

size_t parseTraceHeader(std::string_view line, TraceHeader& h)
{
    size_t i = 0;
    auto digits = [&](size_t count, int64_t& out) -> bool {
        out = 0;
        for (size_t k = 0; k < count; ++k, ++i) {
            if (i >= line.size() || !isDigit(line[i])) return false;
            out = out * 10 + (line[i] - '0');
        }
        return true;
    };
    auto expect = [&](char c) -> bool {
        if (i >= line.size() || line[i] != c) return false;
        ++i;
        return true;
    };
    if (line.empty() || !std::strchr("VIWEC", line[0])) return 1;
    h.level = line[0];
    i = 1;
    int64_t month, day, hours, minutes, seconds;
    if (!digits(2, month) || !digits(2, day)) return i + 1;
    if (!expect(' ')) return i + 1;
    if (!digits(2, hours) || !expect(':') || !digits(2, minutes) || !expect(':') || !digits(2, seconds) || !expect('.'))
        return i + 1;
    int64_t micros = 0;
    int microDigits = 0;
    while (i < line.size() && isDigit(line[i])) {
        if (microDigits < 6) micros = micros * 10 + (line[i] - '0'), ++microDigits;
        ++i;
    }
    if (microDigits == 0) return i + 1;
    while (microDigits < 6) micros *= 10, ++microDigits;
    h.month = int(month);
    h.day = int(day);
    h.timeMicros = ((hours * 60 + minutes) * 60 + seconds) * 1000000 + micros;
    if (!expect(' ')) return i + 1;
    while (i < line.size() && line[i] == ' ') ++i;
    size_t pidStart = i;
    h.pid = 0;
    while (i < line.size() && isDigit(line[i]) && i - pidStart < 18) h.pid = h.pid * 10 + (line[i++] - '0');
    if (i == pidStart || i >= line.size() || line[i] != ' ') return i + 1;
    ++i;
    // The path runs to the first ':' (tlparse: [^:]+), then the line number and "] ".
    size_t colon = line.find(':', i);
    if (colon == std::string_view::npos || colon == i) return i + 1;
    h.path = line.substr(i, colon - i);
    if (h.path.find(']') != std::string_view::npos) return i + 1;
    i = colon + 1;
    size_t lineStart = i;
    int64_t number = 0;
    while (i < line.size() && isDigit(line[i]) && i - lineStart < 9) number = number * 10 + (line[i++] - '0');
    if (i == lineStart) return i + 1;
    h.sourceLine = int32_t(number);
    if (!expect(']') || !expect(' ')) return i + 1;
    h.jsonStart = i;
    return 0;
}

}  // namespace fxl
