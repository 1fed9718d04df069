// The headless command line: a table of verbs, each with its options, help text and entry
// point. Adding a verb = one row in verbTable() (cli.cpp) and one cli_<verb>.cpp / .hpp.
#pragma once

#include <iosfwd>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace fxl {
class Graph;
class Source;
}  // namespace fxl

namespace fxl::cli {

enum ExitCode : int
{
    kExitOk = 0,
    kExitInputError = 1,  // unreadable / malformed input, or output that cannot be written
    kExitUsage = 2,  // unknown verb or option, missing or bad argument
    kExitInternal = 3,  // a bug in fxlens (unexpected exception): reported, never a crash
};

struct OptionSpec
{
    std::string name;  // long name without dashes: "graph"
    char shortName = 0;  // 'o' for -o, 0 = none
    std::string valueName;  // "ID" when the option takes a value, "" for a flag
    std::string help;
    bool repeatable = false;
};

// Options and positional arguments of one verb invocation, after parsing.
struct Args
{
    std::map<std::string, std::vector<std::string>> options;  // flags map to {""}
    std::vector<std::string> positional;

    bool has(const std::string& name) const { return options.count(name) != 0; }
    // Last value of an option, or `fallback`.
    std::string value(const std::string& name, const std::string& fallback = "") const;
    // Integer value; throws UsageError when not a non-negative integer.
    long long intValue(const std::string& name, long long fallback) const;
};

// Bad command line: printed with the verb's usage, exit code 2.
struct UsageError : std::runtime_error
{
    using std::runtime_error::runtime_error;
};

// Where a verb writes: normal output and diagnostics.
struct Io
{
    std::ostream& out;
    std::ostream& err;
    // --verbose: every load diagnostic is printed (by default repeated ones are folded)
    bool verbose = false;
};

struct Verb
{
    std::string name;
    std::string summary;  // one line for the global help
    std::string usage;  // "fxlens info [options] FILE..."
    std::string description;  // paragraph(s) for --help
    std::vector<OptionSpec> options;  // verb-specific (--json, --verbose and --help are added for all)
    int minPositional = 0;
    int maxPositional = -1;  // -1 = unlimited
    int (*run)(const Args&, Io&) = nullptr;
};

const std::vector<Verb>& verbTable();
const Verb* findVerb(const std::string& name);

// Parses the arguments after the verb. Throws UsageError.
Args parseArgs(const Verb& verb, const std::vector<std::string>& argv);

void printGlobalHelp(std::ostream& out);
void printVerbHelp(const Verb& verb, std::ostream& out);

// Entry point of the CLI (argv without the program name). Never throws.
int runCli(const std::vector<std::string>& argv, Io& io);

}  // namespace fxl::cli
