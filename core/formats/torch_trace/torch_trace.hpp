// TORCH_TRACE structured logs (the input of tlparse): a one-pass index of every event with
// lazily read payloads, and loaders that turn a log, a directory of per-rank logs or a
// tlparse output folder into a Source. Format notes: shared/docs/torch_trace.md.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/ir/diagnostics.hpp"
#include "core/util/progress.hpp"

namespace fxl {

class Source;  // core/source.hpp (kept out so that index users need not pull in the graph IR)

// frame_id / frame_compile_id / attempt / compiled_autograd_id of an envelope; -1 = absent
// (explicit null counts as absent).
struct TraceCompileId
{
    int64_t compiledAutograd = -1, frame = -1, frameCompile = -1, attempt = -1;
    bool empty() const { return compiledAutograd < 0 && frame < 0 && frameCompile < 0; }
    // tlparse notation: "[0/0]", "[0/1_2]" (attempt != 0), "[!0/-/-]", "[-/-]". A missing
    // attempt (runtime events) prints as attempt 0.
    std::string str() const;
    // tlparse output folder name "<ca>_<frame>_<fcid>_<attempt>", '-' for missing parts.
    std::string directoryName() const;
    // Equality that treats a missing attempt as attempt 0 (how tlparse groups runtime events).
    bool sameCompile(const TraceCompileId& o) const;
};

enum class Md5Check : uint8_t
{
    None,
    Ok,
    Mismatch
};

// One envelope line and its payload. Strings are indexes into TraceIndex::names (0 = "").
struct TraceEvent
{
    int64_t line = 0;  // 1-based line of the envelope
    int64_t offset = 0;  // byte offset of the envelope line
    int64_t payloadOffset = 0;  // first byte of the first payload line (its TAB)
    int64_t payloadLength = 0;  // up to the end of the last payload line, without its newline
    int64_t payloadLines = 0;  // non-blank payload lines
    int64_t pid = 0;  // glog "thread" field (the OS process id)
    int64_t timeMicros = 0;  // time of day in microseconds
    uint32_t kind = 0;  // event key; for artifact / graph_dump their "name",
                        // for optimize_ddp_split_child "optimize_ddp_split_child_<name>"
    uint32_t eventKey = 0;  // the envelope key itself ("artifact", "graph_dump", ...)
    uint32_t name = 0;  // metadata "name" when present (artifact, dump_file, link, ...)
    uint32_t encoding = 0;  // artifact metadata "encoding" ("string", "json")
    uint32_t sourcePath = 0;  // emitting Python file from the header
    uint32_t subgraphName = 0;  // "subgraph_name" (2026 logs)
    int32_t sourceLine = 0;
    int32_t rank = -1;  // envelope "rank", -1 when absent
    int32_t pairedWith = -1;  // index of the before_/after_ partner event
    TraceCompileId compileId;
    char level = 'V';
    uint8_t month = 0, day = 0;
    bool hasPayload = false;  // the envelope had has_payload
    bool isGraph = false;  // the payload is FX graph text (print_readable)
    Md5Check md5 = Md5Check::None;
};

struct TraceIndex
{
    std::string file;
    int64_t fileSize = 0;
    int64_t lineCount = 0;
    int64_t blankLines = 0;  // completely empty lines (skipped, as tlparse does)
    int64_t badHeaderLines = 0;  // non-blank lines that are neither header nor payload
    int64_t badJsonLines = 0;  // header lines whose envelope is not valid JSON
    int64_t md5Mismatches = 0;
    std::vector<TraceEvent> events;  // every event except "str" entries, in log order
    std::vector<std::string> names;  // interned strings; names[0] == ""
    std::map<int64_t, std::string> strings;  // the log's "str" intern table (stack filenames)

    std::string_view name(uint32_t i) const { return i < names.size() ? names[i] : std::string_view{}; }
    std::string_view kind(const TraceEvent& e) const { return name(e.kind); }
    size_t graphCount() const;
    std::vector<int> ranks() const;  // distinct envelope ranks, sorted
    // "MMDD HH:MM:SS.uuuuuu" of an event's header.
    static std::string timeString(const TraceEvent& e);
};

// Indexes a log in one streaming pass (large block reads, no payload kept in memory). MD5
// mismatches, bad header lines and bad JSON are warnings with line numbers; the pass goes
// on. Throws InputError when the file cannot be read or holds no TORCH_TRACE line at all.
// `onBytes` (optional) gets the bytes indexed so far every 64 KiB or so; what it throws
// stops the pass and leaves the call.
TraceIndex indexTorchTrace(const std::string& path, DiagnosticList& diags,
                           const std::function<void(int64_t bytesDone)>& onBytes = {});
// The same over text in memory (tests, fuzzing); `file` names it in diagnostics.
TraceIndex indexTorchTraceText(std::string_view text, const std::string& file, DiagnosticList& diags);

// A payload's text from its raw bytes in the file: blank lines dropped, one leading TAB
// stripped from each line, lines joined with "\n" (byte-identical to what was logged).
std::string payloadFromRaw(std::string_view raw);
// Reads an event's payload lazily from the file. Throws InputError when it cannot be read.
std::string readTracePayload(const std::string& file, int64_t line, int64_t offset, int64_t length);

// True when the bytes start like a TORCH_TRACE log (a glog header followed by "] {").
bool looksLikeTorchTrace(std::string_view firstBytes);
// A file name of the form dedicated_log_torch_trace_rank_<N>_*.log gives N.
std::optional<int> rankFromTraceFileName(std::string_view fileName);
// Event keys / artifact names whose payload is FX graph text.
bool isGraphKind(std::string_view kind);

// One log file, a directory of per-rank logs, or a tlparse output folder.
// Throws InputError for unreadable input. Progress counts the bytes of the logs indexed (all
// the files of a directory), `what` is the file being indexed; a cancelled load throws
// CancelledError.
std::unique_ptr<Source> loadTorchTrace(const std::string& pathOrDir, const Progress& progress = {});
// A Source from an existing index (the file must still be there for payloads).
std::unique_ptr<Source> sourceFromTraceIndex(TraceIndex index, DiagnosticList diags);

}  // namespace fxl
