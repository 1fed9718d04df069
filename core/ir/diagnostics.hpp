// Errors and warnings with a location, shared by every loader and analysis.
#pragma once

#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace fxl {

enum class Severity
{
    Note,
    Warning,
    Error
};

struct Diagnostic
{
    Severity severity = Severity::Error;
    std::string file;  // path as given by the user, or "<memory>"
    int line = 0;  // 1-based; 0 = unknown / whole file
    int column = 0;  // 1-based; 0 = unknown
    std::string message;

    // "file:line:column: error: message" (parts that are unknown are left out)
    std::string format() const;
};

// Thrown by loaders for input that cannot be read. Always carries a location.
class InputError : public std::runtime_error
{
public:
    explicit InputError(Diagnostic d);
    InputError(std::string file, int line, int column, const std::string& message);
    const Diagnostic& diagnostic() const { return diag_; }

private:
    Diagnostic diag_;
};

// Collects non-fatal problems (md5 mismatch, lossy input, unknown ops).
struct DiagnosticList
{
    std::vector<Diagnostic> items;
    void warn(std::string file, int line, int column, std::string message);
    void note(std::string file, int line, int column, std::string message);
    void error(std::string file, int line, int column, std::string message);
    bool hasErrors() const;
};

// The kind of a diagnostic: its severity and its message with what changes from one place
// to the next abstracted: quoted text ('name', "name") becomes '*' and every run of digits
// '#' ("node '_tensor_constant12': ..." and "node 'mm_3': ..." are one kind). The file, line
// and column are not part of it.
std::string diagnosticKind(const Diagnostic& d);

// One line of a folded list: a diagnostic, and on the last one shown of its kind the number
// of that kind left out.
struct FoldedDiagnostic
{
    const Diagnostic* diagnostic = nullptr;
    size_t moreLikeThis = 0;
};

// Folds repeated diagnostics for people: the first `shownPerKind` of every kind, in their
// order (0 = all). A loader meeting one problem at 640 nodes then says so in a few lines.
std::vector<FoldedDiagnostic> foldDiagnostics(std::span<const Diagnostic> items, size_t shownPerKind);

}  // namespace fxl
