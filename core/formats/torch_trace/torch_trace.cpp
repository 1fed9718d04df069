#include "core/formats/torch_trace/torch_trace.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>

#include "core/formats/fx/fx_text_parser.hpp"
#include "core/formats/source.hpp"
#include "core/formats/torch_trace/tlparse_output.hpp"
#include "core/formats/torch_trace/trace_header.hpp"
#include "core/formats/torch_trace/trace_indexer.hpp"
#include "core/util/strings.hpp"

namespace fxl {

// ---------------------------------------------------------------------------------------
// Compile ids

std::string TraceCompileId::str() const
{
    if (empty()) return "[-/-]";
    std::string s = "[";
    if (compiledAutograd >= 0) s += "!" + std::to_string(compiledAutograd) + "/";
    s += frame >= 0 ? std::to_string(frame) : "-";
    s += "/";
    s += frameCompile >= 0 ? std::to_string(frameCompile) : "-";
    if (attempt > 0) s += "_" + std::to_string(attempt);
    return s + "]";
}

std::string TraceCompileId::directoryName() const
{
    auto part = [](int64_t v) { return v >= 0 ? std::to_string(v) : std::string("-"); };
    return part(compiledAutograd) + "_" + part(frame) + "_" + part(frameCompile) + "_" + part(attempt);
}

bool TraceCompileId::sameCompile(const TraceCompileId& o) const
{
    return compiledAutograd == o.compiledAutograd && frame == o.frame && frameCompile == o.frameCompile
        && std::max<int64_t>(attempt, 0) == std::max<int64_t>(o.attempt, 0);
}

// ---------------------------------------------------------------------------------------
// Small helpers

bool isGraphKind(std::string_view k)
{
    static const std::set<std::string_view> kinds = {
        "dynamo_output_graph", "aot_joint_graph", "aot_forward_graph", "aot_backward_graph", "aot_inference_graph",
        "inductor_pre_grad_graph", "inductor_post_grad_graph", "optimize_ddp_split_graph", "optimize_ddp_split_child",
        "compiled_autograd_graph", "exported_program",
        // Inductor pass pipelines (before/after pairs), 2025 names and their older names.
        "before_pre_grad_graph", "after_pre_grad_graph", "before_post_grad_graph", "after_post_grad_graph",
        "before_recompile_pre_grad", "after_recompile_pre_grad", "before_recompile_post_grad",
        "after_recompile_post_grad"};
    // fx_graph_runnable is deliberately absent: it is a Python repro script (imports, config
    // assignments, class Repro, load_args), not print_readable() output.
    return kinds.count(k) > 0 || k.starts_with("optimize_ddp_split_child_");
}

// ---------------------------------------------------------------------------------------
// TraceIndex

size_t TraceIndex::graphCount() const
{
    return size_t(std::count_if(events.begin(), events.end(), [](const TraceEvent& e) { return e.isGraph; }));
}

std::vector<int> TraceIndex::ranks() const
{
    std::set<int> r;
    for (const auto& e : events)
        if (e.rank >= 0) r.insert(e.rank);
    return {r.begin(), r.end()};
}

std::string TraceIndex::timeString(const TraceEvent& e)
{
    char buf[40];
    int64_t t = e.timeMicros;
    std::snprintf(buf, sizeof buf, "%02d%02d %02d:%02d:%02d.%06d", e.month, e.day, int(t / 3600000000),
                  int(t / 60000000 % 60), int(t / 1000000 % 60), int(t % 1000000));
    return buf;
}

TraceIndex indexTorchTraceText(std::string_view text, const std::string& file, DiagnosticList& diags)
{
    TraceIndexer ix(file, diags);
    size_t pos = 0;
    while (pos < text.size()) {
        const void* nl = std::memchr(text.data() + pos, '\n', text.size() - pos);
        size_t end = nl ? size_t(static_cast<const char*>(nl) - text.data()) : text.size();
        ix.line(text.data() + pos, end - pos, int64_t(pos));
        pos = end + 1;
    }
    return ix.finish(int64_t(text.size()));
}

TraceIndex indexTorchTrace(const std::string& path, DiagnosticList& diags,
                           const std::function<void(int64_t bytesDone)>& onBytes)
{
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) throw InputError(path, 0, 0, "cannot open TORCH_TRACE log: " + std::string(std::strerror(errno)));
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> guard(f, &std::fclose);
    std::setvbuf(f, nullptr, _IONBF, 0);  // we read in large blocks ourselves

    // Lines are processed in place in a large block; the unfinished tail moves to the front
    // and the block grows only for a line longer than the block.
    std::vector<char> buf(size_t(8) << 20);
    size_t begin = 0, end = 0;
    int64_t base = 0;  // file offset of buf[0]
    TraceIndexer ix(path, diags);
    bool eof = false;
    constexpr int64_t kBytesBetweenCalls = 64 * 1024;  // a cheap test per line, a call now and then
    int64_t nextCall = onBytes ? 0 : std::numeric_limits<int64_t>::max();
    while (true) {
        const char* nl =
            begin < end ? static_cast<const char*>(std::memchr(buf.data() + begin, '\n', end - begin)) : nullptr;
        if (nl) {
            size_t e = size_t(nl - buf.data());
            ix.line(buf.data() + begin, e - begin, base + int64_t(begin));
            begin = e + 1;
            if (base + int64_t(begin) >= nextCall) {
                onBytes(base + int64_t(begin));
                nextCall = base + int64_t(begin) + kBytesBetweenCalls;
            }
            continue;
        }
        if (eof) {
            if (begin < end) ix.line(buf.data() + begin, end - begin, base + int64_t(begin));
            break;
        }
        if (begin > 0) {
            std::memmove(buf.data(), buf.data() + begin, end - begin);
            base += int64_t(begin);
            end -= begin;
            begin = 0;
        }
        if (end == buf.size()) buf.resize(buf.size() * 2);
        size_t got = std::fread(buf.data() + end, 1, buf.size() - end, f);
        if (got == 0) {
            if (std::ferror(f)) throw InputError(path, 0, 0, "read error in TORCH_TRACE log");
            eof = true;
        }
        end += got;
    }
    return ix.finish(base + int64_t(end));
}

// ---------------------------------------------------------------------------------------
// Payloads

std::string payloadFromRaw(std::string_view raw)
{
    std::string out;
    out.reserve(raw.size());
    bool first = true;
    size_t pos = 0;
    while (pos <= raw.size()) {
        size_t nl = raw.find('\n', pos);
        size_t end = nl == std::string_view::npos ? raw.size() : nl;
        std::string_view l = raw.substr(pos, end - pos);
        if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
        if (!l.empty()) {
            if (!first) out += '\n';
            first = false;
            out.append(l[0] == '\t' ? l.substr(1) : l);
        }
        if (nl == std::string_view::npos) break;
        pos = nl + 1;
    }
    return out;
}

std::string readTracePayload(const std::string& file, int64_t line, int64_t offset, int64_t length)
{
    if (length <= 0) return {};
    std::ifstream in(file, std::ios::binary);
    if (!in) throw InputError(file, int(line), 0, "cannot reopen the log to read a payload");
    std::string raw(size_t(length), '\0');
    in.seekg(offset);
    in.read(raw.data(), length);
    if (in.gcount() != length)
        throw InputError(file, int(line), 0, "payload is cut short: the log changed since it was indexed");
    return payloadFromRaw(raw);
}

// ---------------------------------------------------------------------------------------
// Detection

bool looksLikeTorchTrace(std::string_view s)
{
    // Skip blank lines a log collector may have added before the first record.
    while (!s.empty() && (s.front() == '\n' || s.front() == '\r')) s.remove_prefix(1);
    size_t nl = s.find('\n');
    std::string_view first = s.substr(0, nl);
    TraceHeader h;
    if (parseTraceHeader(first, h) != 0) return false;
    return h.jsonStart < first.size() && first[h.jsonStart] == '{';
}

std::optional<int> rankFromTraceFileName(std::string_view name)
{
    static constexpr std::string_view prefix = "dedicated_log_torch_trace_rank_";
    if (!name.starts_with(prefix) || name.size() < 4 || name.substr(name.size() - 4) != ".log") return std::nullopt;
    size_t i = prefix.size();
    int64_t r = 0;
    size_t start = i;
    while (i < name.size() && isDigit(name[i]) && i - start < 9) r = r * 10 + (name[i++] - '0');
    if (i == start || (name[i] != '_' && name[i] != '.')) return std::nullopt;
    return int(r);
}

// ---------------------------------------------------------------------------------------
// Sources

namespace {

// Appends one artifact per event that has a payload or is a graph.
void addArtifacts(Source& src, const TraceIndex& ix, const std::string& idPrefix, std::optional<int> forcedRank)
{
    src.artifacts.reserve(src.artifacts.size() + ix.events.size());
    for (size_t i = 0; i < ix.events.size(); ++i) {
        const TraceEvent& e = ix.events[i];
        if (!e.hasPayload && !e.isGraph) continue;
        Artifact a;
        a.id = idPrefix + std::to_string(i);
        a.kind = std::string(ix.kind(e));
        if (forcedRank)
            a.rank = forcedRank;
        else if (e.rank >= 0)
            a.rank = e.rank;
        a.compileId = e.compileId.str();
        a.file = ix.file;
        a.line = e.line;
        a.byteOffset = e.offset;
        a.payloadOffset = e.payloadOffset;
        a.payloadLength = e.payloadLength;
        a.isGraph = e.isGraph;
        if (e.md5 != Md5Check::None) a.md5Ok = e.md5 == Md5Check::Ok;
        if (e.pairedWith >= 0) a.pairedWith = idPrefix + std::to_string(e.pairedWith);
        a.subgraphName = std::string(ix.name(e.subgraphName));
        src.artifacts.push_back(std::move(a));
    }
}

void setTraceReaders(Source& src)
{
    src.readPayload = [](const Artifact& a) {
        return readTracePayload(a.file, a.line, a.payloadOffset, a.payloadLength);
    };
    src.parseGraph = [](const Artifact& a, DiagnosticList& d) -> std::shared_ptr<Graph> {
        if (!a.isGraph) throw InputError(a.file, int(a.line), 1, "'" + a.kind + "' is not an FX graph payload");
        std::string text = readTracePayload(a.file, a.line, a.payloadOffset, a.payloadLength);
        // The payload's first line is the line after the envelope; columns shift by the TAB.
        return std::make_shared<Graph>(parseFxText(text, a.file, int(a.line + 1), &d, 1));
    };
}

void collectRanks(Source& src)
{
    std::set<int> r;
    for (const auto& a : src.artifacts)
        if (a.rank) r.insert(*a.rank);
    src.ranks.assign(r.begin(), r.end());
}

// One log of a directory, indexed.
struct DirectoryLog
{
    TraceIndex index;
    std::optional<int> rank;  // from the file name, else the envelopes' single rank
    std::string stem;
};

// The regular files of `dir`, sorted.
std::vector<std::filesystem::path> directoryFiles(const std::string& dir)
{
    namespace fs = std::filesystem;
    std::vector<fs::path> files;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), endIt; !ec && it != endIt; it.increment(ec)) {
        std::error_code fileError;
        if (it->is_regular_file(fileError)) files.push_back(it->path());
    }
    if (ec) throw InputError(dir, 0, 0, "cannot list directory: " + ec.message());
    std::sort(files.begin(), files.end());
    return files;
}

// Indexes `path` when it is a TORCH_TRACE log; what is skipped and why goes into `diags`.
std::optional<DirectoryLog> loadDirectoryLog(const std::filesystem::path& path, DiagnosticList& diags,
                                             const std::function<void(int64_t bytesDone)>& onBytes)
{
    const std::string file = path.string();
    std::error_code ec;
    auto size = std::filesystem::file_size(path, ec);
    if (ec || size == 0) {
        diags.note(file, 0, 0, "empty file skipped");
        return std::nullopt;
    }
    std::string head(4096, '\0');
    {
        std::ifstream in(path, std::ios::binary);
        in.read(head.data(), std::streamsize(head.size()));
        head.resize(size_t(in.gcount()));
    }
    if (!looksLikeTorchTrace(head)) {
        diags.note(file, 0, 0, "not a TORCH_TRACE log, skipped");
        return std::nullopt;
    }
    DirectoryLog log;
    try {
        log.index = indexTorchTrace(file, diags, onBytes);
    } catch (const InputError& e) {
        diags.items.push_back(e.diagnostic());
        return std::nullopt;
    }
    std::vector<int> envelopeRanks = log.index.ranks();
    auto nameRank = rankFromTraceFileName(path.filename().string());
    if (nameRank) {
        log.rank = nameRank;
        bool agree = envelopeRanks.empty() || (envelopeRanks.size() == 1 && envelopeRanks[0] == *nameRank);
        if (!agree) {
            std::string said;
            for (int r : envelopeRanks) said += (said.empty() ? "" : ", ") + std::to_string(r);
            diags.warn(file, 0, 0,
                       "the file name says rank " + std::to_string(*nameRank) + " but its envelopes say rank " + said
                           + "; using the file name (as tlparse does)");
        }
    } else if (envelopeRanks.size() == 1) {
        log.rank = envelopeRanks[0];
    }
    log.stem = path.stem().string();
    return log;
}

std::unique_ptr<Source> loadTraceDirectory(const std::string& dir, const Progress& progress)
{
    auto src = std::make_unique<Source>();
    src->path = dir;
    src->format = SourceFormat::TorchTraceDir;

    std::vector<DirectoryLog> logs;
    const std::vector<std::filesystem::path> files = directoryFiles(dir);
    // Progress counts the bytes of every file; a skipped file counts as done at once.
    std::vector<int64_t> sizes;
    int64_t totalBytes = 0;
    for (const auto& path : files) {
        std::error_code ec;
        const auto size = std::filesystem::file_size(path, ec);
        sizes.push_back(ec ? 0 : int64_t(size));
        totalBytes += sizes.back();
    }
    ProgressMeter meter(progress, totalBytes);
    meter.report(0, files.empty() ? std::string() : files.front().filename().string());
    int64_t bytesBefore = 0;  // of the files before the current one
    for (size_t i = 0; i < files.size(); ++i) {
        const std::string fileName = files[i].filename().string();
        if (i > 0) bytesBefore += sizes[i - 1];
        meter.update(bytesBefore, fileName);
        auto onBytes = [&](int64_t bytes) { meter.update(bytesBefore + bytes, fileName); };
        if (auto log = loadDirectoryLog(files[i], src->diagnostics, onBytes)) logs.push_back(std::move(*log));
    }
    if (logs.empty()) throw InputError(dir, 0, 0, "no TORCH_TRACE logs in this directory");

    std::map<int, int> logsPerRank;
    for (const auto& log : logs)
        if (log.rank) ++logsPerRank[*log.rank];
    for (auto& log : logs) {
        bool uniqueRank = log.rank && logsPerRank[*log.rank] == 1;
        if (log.rank && !uniqueRank)
            src->diagnostics.warn(log.index.file, 0, 0,
                                  "more than one log for rank " + std::to_string(*log.rank)
                                      + " in this directory (repeated runs?); artifact ids use the file name");
        std::string prefix = uniqueRank ? "rank" + std::to_string(*log.rank) + "/" : log.stem + "/";
        // A file-name rank overrides the envelopes; without one each event keeps its own.
        std::optional<int> forced = rankFromTraceFileName(std::filesystem::path(log.index.file).filename().string());
        addArtifacts(*src, log.index, prefix, forced);
    }
    setTraceReaders(*src);
    collectRanks(*src);
    meter.finish(files.back().filename().string());
    return src;
}

}  // namespace

std::unique_ptr<Source> sourceFromTraceIndex(TraceIndex index, DiagnosticList diags)
{
    auto src = std::make_unique<Source>();
    src->path = index.file;
    src->format = SourceFormat::TorchTrace;
    src->diagnostics = std::move(diags);
    addArtifacts(*src, index, "", std::nullopt);
    setTraceReaders(*src);
    collectRanks(*src);
    return src;
}

std::unique_ptr<Source> loadTorchTrace(const std::string& pathOrDir, const Progress& progress)
{
    std::error_code ec;
    const std::filesystem::path fsPath(pathOrDir);
    const std::string name = (fsPath.has_filename() ? fsPath : fsPath.parent_path()).filename().string();
    if (std::filesystem::is_directory(pathOrDir, ec)) {
        if (isTlparseOutputDir(pathOrDir)) {  // nothing to index: one step
            ProgressMeter meter(progress, 1);
            meter.report(0, name);
            auto src = loadTlparseOutput(pathOrDir);
            meter.finish(name);
            return src;
        }
        return loadTraceDirectory(pathOrDir, progress);
    }
    const auto size = std::filesystem::file_size(pathOrDir, ec);
    ProgressMeter meter(progress, ec ? 0 : int64_t(size));
    meter.report(0, name);
    DiagnosticList diags;
    TraceIndex ix = indexTorchTrace(pathOrDir, diags, [&](int64_t bytes) { meter.update(bytes, name); });
    auto src = sourceFromTraceIndex(std::move(ix), std::move(diags));
    meter.finish(name);
    return src;
}

}  // namespace fxl
