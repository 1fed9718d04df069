#include "core/util/format.hpp"

#include <cstdio>
#include <string_view>

namespace fxl {

namespace {

// `v` with three significant digits at most ("1.20", "12.3", "456"); a value that rounds up
// to 1000 gives "1000" (four integer digits), which the caller moves to the next unit.
// The precision is chosen on the printed text, not on `v`, so that 9.996 becomes "10.0"
// (not "10.00") and 99.96 becomes "100" (not "100.0").
std::string threeSignificantDigits(double v)
{
    char buf[64];
    for (int decimals = 2; decimals > 0; --decimals) {
        std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
        const std::string_view text(buf);
        const size_t integerDigits = text.find('.');
        if (integerDigits + static_cast<size_t>(decimals) <= 3) return buf;
    }
    std::snprintf(buf, sizeof buf, "%.0f", v);
    return buf;
}

std::string formatMagnitude(uint64_t bytes)
{
    if (bytes < 1024) return std::to_string(bytes) + " B";
    static const char* const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    constexpr int lastUnit = 5;
    for (int u = 0;; ++u) {
        const uint64_t unit = uint64_t{1} << (10 * (u + 1));
        const uint64_t whole = bytes / unit;
        if (bytes % unit == 0 && (whole < 1000 || u == lastUnit)) return std::to_string(whole) + " " + units[u];
        const std::string digits = threeSignificantDigits(static_cast<double>(bytes) / static_cast<double>(unit));
        if (digits.size() <= 3 || digits.find('.') != std::string::npos || u == lastUnit)
            return digits + " " + units[u];
    }
}

}  // namespace

// The rule, and why:
// - three significant digits at every size: the rounding error stays about 0.5 % or less,
//   and "1.23 MiB" next to "456 KiB" reads at a glance (a fixed "%.1f" gives "2.6 MiB" and
//   "459.0 KiB": too coarse at the low end of a unit, too fine at the top);
// - the unit changes when the number would need a fourth integer digit (at 1000, not at
//   1024): "0.98 MiB" rather than "1000 KiB", and a value that rounds up to 1000 moves on
//   too (1023999 bytes is "0.98 MiB", not "1000 KiB");
// - an exact multiple of its unit prints without decimals ("2 MiB" is exactly 2 MiB, while
//   "2.00 MiB" is 2 MiB rounded); counts under 1 KiB print exactly in bytes ("1023 B");
// - negative counts are deltas ("-133 KiB"); INT64_MIN prints as "-8 EiB".
std::string formatByteSize(int64_t bytes)
{
    if (bytes >= 0) return formatMagnitude(static_cast<uint64_t>(bytes));
    return "-" + formatMagnitude(uint64_t{0} - static_cast<uint64_t>(bytes));
}

std::string formatDuration(double seconds)
{
    if (!(seconds > 0)) return "0 s";
    if (seconds >= 100) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.1f min", seconds / 60);
        return buf;
    }
    static const char* const units[] = {"s", "ms", "\u00b5s", "ns"};
    int u = 0;
    double scale = 1;
    while (u < 3 && seconds < scale) {
        ++u;
        scale /= 1000;
    }
    const std::string digits = threeSignificantDigits(seconds / scale);
    // a value that rounds up to 1000 moves to the unit above, as byte sizes do
    if (u > 0 && digits.size() > 3 && digits.find('.') == std::string::npos) return "1.00 " + std::string(units[u - 1]);
    return digits + " " + units[u];
}

std::string formatByteChange(int64_t before, int64_t after)
{
    const int64_t d = after - before;
    std::string s = (d > 0 ? "+" : "") + formatByteSize(d);
    if (before == 0) return s + (d == 0 ? " (0%)" : " (new)");
    const double pct = 100.0 * static_cast<double>(d) / static_cast<double>(before);
    char buf[64];
    if (d == 0)
        std::snprintf(buf, sizeof buf, " (0%%)");
    else
        std::snprintf(buf, sizeof buf, " (%+.1f%%)", pct);
    return s + buf;
}

}  // namespace fxl
