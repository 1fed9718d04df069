#include "core/ir/diagnostics.hpp"
#include "core/util/strings.hpp"

#include <unordered_map>

namespace fxl {

std::string Diagnostic::format() const
{
    std::string out;
    if (!file.empty()) out += file;
    if (line > 0) {
        out += ":" + std::to_string(line);
        if (column > 0) out += ":" + std::to_string(column);
    }
    if (!out.empty()) out += ": ";
    switch (severity) {
    case Severity::Note: out += "note: "; break;
    case Severity::Warning: out += "warning: "; break;
    case Severity::Error: out += "error: "; break;
    }
    out += message;
    return out;
}

InputError::InputError(Diagnostic d)
    : std::runtime_error(d.format())
    , diag_(std::move(d))
{ }

InputError::InputError(std::string file, int line, int column, const std::string& message)
    : InputError(Diagnostic{Severity::Error, std::move(file), line, column, message})
{ }

void DiagnosticList::warn(std::string file, int line, int column, std::string message)
{
    items.push_back({Severity::Warning, std::move(file), line, column, std::move(message)});
}
void DiagnosticList::note(std::string file, int line, int column, std::string message)
{
    items.push_back({Severity::Note, std::move(file), line, column, std::move(message)});
}
void DiagnosticList::error(std::string file, int line, int column, std::string message)
{
    items.push_back({Severity::Error, std::move(file), line, column, std::move(message)});
}
bool DiagnosticList::hasErrors() const
{
    for (const auto& d : items)
        if (d.severity == Severity::Error) return true;
    return false;
}

namespace {

// Where the quoted text opening at `open` ends (the index of its closing quote), or npos. A
// quote opens only after a non-word character and closes only before one, so the
// apostrophe of "can't" opens nothing.
size_t closingQuote(const std::string& m, size_t open)
{
    const char q = m[open];
    if (open > 0 && isIdentChar(m[open - 1])) return std::string::npos;
    for (size_t j = open + 1; j < m.size(); ++j)
        if (m[j] == q && (j + 1 == m.size() || !isIdentChar(m[j + 1]))) return j;
    return std::string::npos;
}

const char* severityName(Severity s)
{
    switch (s) {
    case Severity::Note: return "note";
    case Severity::Warning: return "warning";
    case Severity::Error: return "error";
    }
    return "?";
}

}  // namespace

std::string diagnosticKind(const Diagnostic& d)
{
    const std::string& m = d.message;
    std::string key = std::string(severityName(d.severity)) + ": ";
    key.reserve(key.size() + m.size());
    for (size_t i = 0; i < m.size(); ++i) {
        const char c = m[i];
        if (c == '\'' || c == '"') {
            const size_t close = closingQuote(m, i);
            if (close != std::string::npos) {
                key += c;
                key += '*';
                key += c;
                i = close;
                continue;
            }
        }
        if (isDigit(c)) {
            key += '#';
            while (i + 1 < m.size() && isDigit(m[i + 1])) ++i;
            continue;
        }
        key += c;
    }
    return key;
}

std::vector<FoldedDiagnostic> foldDiagnostics(std::span<const Diagnostic> items, size_t shownPerKind)
{
    std::vector<FoldedDiagnostic> out;
    if (shownPerKind == 0) {
        for (const Diagnostic& d : items) out.push_back({&d, 0});
        return out;
    }
    std::vector<std::string> kinds;
    kinds.reserve(items.size());
    std::unordered_map<std::string, size_t> total;
    for (const Diagnostic& d : items) total[kinds.emplace_back(diagnosticKind(d))]++;
    std::unordered_map<std::string, size_t> shown;
    for (size_t i = 0; i < items.size(); ++i) {
        size_t& n = shown[kinds[i]];
        if (n == shownPerKind) continue;
        ++n;
        const size_t all = total[kinds[i]];
        out.push_back({&items[i], n == shownPerKind && all > n ? all - n : 0});
    }
    return out;
}

}  // namespace fxl
