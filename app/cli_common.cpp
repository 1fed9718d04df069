#include "app/cli_common.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <set>

#include "app/cli.hpp"
#include "core/ops/custom_ops.hpp"

namespace fxl::cli {

namespace fs = std::filesystem;

nlohmann::json diagnosticJson(const Diagnostic& d)
{
    const char* sev = d.severity == Severity::Error ? "error" : d.severity == Severity::Warning ? "warning" : "note";
    return {{"severity", sev},    {"file", d.file},       {"line", d.line},
            {"column", d.column}, {"message", d.message}, {"text", d.format()}};
}

nlohmann::json diagnosticsJson(const DiagnosticList& list, size_t from)
{
    nlohmann::json a = nlohmann::json::array();
    for (size_t i = from; i < list.items.size(); ++i) a.push_back(diagnosticJson(list.items[i]));
    return a;
}

void printDiagnostics(std::span<const Diagnostic> items, Io& io)
{
    for (const FoldedDiagnostic& f : foldDiagnostics(items, io.verbose ? 0 : kDiagnosticsShownPerKind)) {
        io.err << f.diagnostic->format() << "\n";
        if (f.moreLikeThis > 0) io.err << "... and " << f.moreLikeThis << " more like this (--verbose shows all)\n";
    }
}

void printDiagnostics(const DiagnosticList& list, size_t from, Io& io)
{
    printDiagnostics(std::span<const Diagnostic>(list.items).subspan(std::min(from, list.items.size())), io);
}

std::string formatDescription(SourceFormat f)
{
    switch (f) {
    case SourceFormat::FxCode: return "FX code (print_readable / gm.code)";
    case SourceFormat::GraphListing: return "FX graph listing (print(gm.graph))";
    case SourceFormat::TorchTrace: return "TORCH_TRACE log";
    case SourceFormat::TorchTraceDir: return "directory of TORCH_TRACE logs";
    case SourceFormat::TlparseOutput: return "tlparse output folder";
    case SourceFormat::Json: return "fxlens JSON graph";
    case SourceFormat::Pt2: return "torch.export .pt2 archive";
    }
    return "unknown";
}

namespace {
std::string graphIdList(const Source& src)
{
    std::string ids;
    size_t n = 0;
    for (const Artifact* a : src.graphs()) {
        if (++n > 20) {
            ids += ", ...";
            break;
        }
        ids += (ids.empty() ? "" : ", ") + a->id;
    }
    return ids.empty() ? "none" : ids;
}
}  // namespace

std::string noSuchGraphMessage(const Source& src, const std::string& id)
{
    return Diagnostic{Severity::Error, src.path, 0, 0,
                      "no graph with id '" + id + "' (graphs: " + graphIdList(src) + ")"}
        .format();
}

const Artifact& selectGraph(const Source& src, const std::string& id, const std::string& option)
{
    if (!id.empty()) {
        const Artifact* a = src.find(id);
        if (!a || !a->isGraph)
            throw InputError(src.path, 0, 0, "no graph with id '" + id + "' (graphs: " + graphIdList(src) + ")");
        return *a;
    }
    const auto graphs = src.graphs();
    if (graphs.empty())
        throw InputError(src.path, 0, 0,
                         src.about.contains("no_graph") ? src.about["no_graph"].get<std::string>()
                                                        : std::string("the file holds no graph"));
    if (graphs.size() > 1)
        throw UsageError(src.path + " holds " + std::to_string(graphs.size()) + " graphs: pick one with " + option
                         + " ID (graphs: " + graphIdList(src) + ")");
    return *graphs.front();
}

void writeFileAtomic(const std::string& path, const std::string& content, bool force)
{
    std::error_code ec;
    const fs::path target(path);
    if (fs::is_directory(target, ec)) throw InputError(path, 0, 0, "is a directory");
    if (!force && fs::exists(fs::symlink_status(target, ec)))
        throw InputError(path, 0, 0, "output file exists (use --force to replace it)");
    fs::path dir = target.parent_path();
    if (dir.empty()) dir = ".";
    std::string tmpl = (dir / ("." + target.filename().string() + ".fxlens-XXXXXX")).string();
    const int fd = mkstemp(tmpl.data());
    if (fd < 0) throw InputError(path, 0, 0, std::string("cannot create a temporary file: ") + std::strerror(errno));
    auto fail = [&](const std::string& what) {
        const int e = errno;
        ::unlink(tmpl.c_str());
        throw InputError(path, 0, 0, what + (e ? std::string(": ") + std::strerror(e) : std::string()));
    };
    const mode_t mask = ::umask(0);
    ::umask(mask);
    ::fchmod(fd, 0666 & ~mask);
    size_t done = 0;
    while (done < content.size()) {
        const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
        if (n < 0) {
            if (errno == EINTR) continue;
            ::close(fd);
            fail("write failed");
        }
        done += static_cast<size_t>(n);
    }
    if (::fsync(fd) != 0 || ::close(fd) != 0) fail("write failed");
    if (force) {
        if (::rename(tmpl.c_str(), path.c_str()) != 0) fail("cannot rename the temporary file");
        return;
    }
    // link() fails with EEXIST when the target appeared meanwhile: never replaces it.
    if (::link(tmpl.c_str(), path.c_str()) == 0) {
        ::unlink(tmpl.c_str());
        return;
    }
    if (errno == EEXIST) {
        errno = 0;
        fail("output file exists (use --force to replace it)");
    }
    // File systems without hard links: check, then rename (a small race is left).
    if (fs::exists(fs::symlink_status(target, ec))) {
        errno = 0;
        fail("output file exists (use --force to replace it)");
    }
    if (::rename(tmpl.c_str(), path.c_str()) != 0) fail("cannot rename the temporary file");
}

void printPipelineSpecError(const Diagnostic& d, const std::string& spec, Io& io)
{
    io.err << d.format() << "\n";
    io.err << "  " << spec << "\n";
    if (d.column >= 1) io.err << "  " << std::string(static_cast<size_t>(d.column - 1), ' ') << "^\n";
    io.err << "Run 'fxlens passes list' for the passes and their options.\n";
}

LoadedGraph loadGraph(const std::string& path, const std::string& id, Io& io, const std::string& option)
{
    LoadedGraph lg;
    lg.source = openSource(path);
    const Artifact& a = selectGraph(*lg.source, id, option);
    lg.id = a.id;
    lg.diagnosticsFrom = lg.source->diagnostics.items.size();
    lg.graph = lg.source->graph(a.id);
    const auto& items = lg.source->diagnostics.items;
    printDiagnostics(lg.source->diagnostics, lg.diagnosticsFrom, io);
    bool errors = false;
    for (size_t i = lg.diagnosticsFrom; i < items.size(); ++i) errors = errors || items[i].severity == Severity::Error;
    if (!lg.graph) throw InputError(lg.source->path, 0, 0, "graph '" + a.id + "' could not be read");
    if (errors) throw InputError(lg.source->path, 0, 0, "graph '" + a.id + "' came with errors (above): not used");
    return lg;
}

SymbolValues applySymbolsOption(const Args& args, std::initializer_list<Graph*> graphs)
{
    if (!args.has("symbols")) return {};
    const std::string text = args.value("symbols");
    SymbolValues values;
    std::string error;
    size_t column = 0;
    if (!parseSymbolValues(text, values, error, column))
        throw UsageError("--symbols '" + text + "': " + error + " at column " + std::to_string(column));
    std::set<std::string> known;
    for (Graph* g : graphs)
        if (g) known.merge(graphSymbols(*g));
    for (const auto& [name, v] : values) {
        if (known.count(name)) continue;
        std::string have;
        for (const auto& k : known) have += (have.empty() ? "" : ", ") + k;
        throw UsageError("--symbols: " + name + " is not a size symbol of the graph ("
                         + (have.empty() ? std::string("it has none") : "its symbols: " + have) + ")");
    }
    for (Graph* g : graphs)
        if (g) bindSymbols(*g, values);
    return values;
}

OptionSpec opsOption()
{
    return {"ops", 0, "FILE",
            "declarations of custom operators (schema; identity or decomposition), see docs/custom_ops.md", true};
}

void loadOpsFiles(const Args& args)
{
    auto it = args.options.find("ops");
    if (it == args.options.end()) return;
    for (const auto& path : it->second) loadOpsFile(path);
}

}  // namespace fxl::cli
