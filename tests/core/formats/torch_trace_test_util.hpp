// What the TORCH_TRACE tests share (test_torch_trace, test_torch_trace_robustness): where the
// corpus logs are, writing a log, lines, and counting diagnostics. Header-only; each test
// executable includes it once.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/ir/diagnostics.hpp"
#include "test_util.hpp"

namespace torchtracetest {

using namespace fxl;

// corpus/tlparse: TORCH_TRACE logs from PyTorch's and tlparse's tests (not committed).
inline const std::filesystem::path kTlparse = fxltest::corpusPath("tlparse");

using fxltest::readFile;

inline void writeText(const std::filesystem::path& p, const std::string& s)
{
    std::filesystem::create_directories(p.parent_path());
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out << s;
}

inline std::vector<std::string> splitLines(const std::string& s)
{
    std::vector<std::string> out;
    size_t pos = 0;
    while (pos <= s.size()) {
        size_t nl = s.find('\n', pos);
        if (nl == std::string::npos) {
            if (pos < s.size()) out.push_back(s.substr(pos));
            break;
        }
        out.push_back(s.substr(pos, nl - pos));
        pos = nl + 1;
    }
    return out;
}

inline std::string joinLines(const std::vector<std::string>& lines)
{
    std::string s;
    for (const auto& l : lines) s += l + "\n";
    return s;
}

// 1-based number of the first line containing `needle`, 0 when none.
inline int lineOf(const std::vector<std::string>& lines, const std::string& needle, int from = 1)
{
    for (size_t i = size_t(from - 1); i < lines.size(); ++i)
        if (lines[i].find(needle) != std::string::npos) return int(i + 1);
    return 0;
}

inline int countDiags(const DiagnosticList& d, Severity sev, const std::string& fragment, int line = -1)
{
    int n = 0;
    for (const auto& x : d.items)
        if (x.severity == sev && x.message.find(fragment) != std::string::npos && (line < 0 || x.line == line)) ++n;
    return n;
}

inline std::string dumpDiags(const DiagnosticList& d)
{
    std::string s;
    for (const auto& x : d.items) s += x.format() + "\n";
    return s;
}

}  // namespace torchtracetest
