#include "core/ir/diagnostics.hpp"

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

}  // namespace fxl
