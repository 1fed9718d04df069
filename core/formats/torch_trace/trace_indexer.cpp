#include "core/formats/torch_trace/trace_indexer.hpp"

#include <algorithm>
#include <cctype>

#include "core/formats/torch_trace/trace_envelope.hpp"
#include "core/formats/torch_trace/trace_header.hpp"
#include "core/formats/utf8.hpp"

namespace fxl {

namespace {

constexpr int kMaxWarningsPerKind = 25;

// "class X(torch.nn.Module):" / "class GraphModule(torch.nn.Module):" — how every
// print_readable() dump starts; used for artifact and graph_dump names we do not know.
bool looksLikeGraphClassLine(std::string_view s)
{
    while (!s.empty() && (s.back() == ' ' || s.back() == '\r')) s.remove_suffix(1);
    return s.starts_with("class ") && s.size() > 8 && s.substr(s.size() - 2) == "):"
        && s.find("Module") != std::string_view::npos;
}

}  // namespace

TraceIndexer::TraceIndexer(std::string file, DiagnosticList& diags)
    : diags_(diags)
{
    index_.file = std::move(file);
    index_.names.emplace_back();
    lookup_.emplace(std::string(), 0);
}

void TraceIndexer::line(const char* p, size_t n, int64_t offset)
{
    ++lineNo_;
    rawLength_ = n;
    if (n > 0 && p[n - 1] == '\r') --n;  // CRLF logs (Rust's lines() accepts them too)
    if (n == 0) {
        ++index_.blankLines;
        return;
    }
    if (p[0] == '\t') {
        payloadLine(p, n, offset);
        return;
    }
    finishEvent();
    headerLine(std::string_view(p, n), offset);
}

TraceIndex TraceIndexer::finish(int64_t fileSize)
{
    finishEvent();
    index_.fileSize = fileSize;
    index_.lineCount = lineNo_;
    for (int k = 0; k < kWarnKinds; ++k)
        if (suppressed_[k] > 0)
            diags_.note(index_.file, 0, 0,
                        std::to_string(suppressed_[k]) + " more warnings like '" + firstMessage_[k] + "' not shown");
    if (index_.events.empty() && index_.strings.empty()) {
        if (index_.badHeaderLines > 0 || index_.badJsonLines > 0)
            throw InputError(index_.file, int(firstBadLine_), int(firstBadColumn_),
                             "not a TORCH_TRACE log: expected header lines like "
                             "'V0819 12:42:53.477000 <pid> <file>.py:<line>] {json}'");
        diags_.note(index_.file, 0, 0, lineNo_ == 0 ? "empty TORCH_TRACE log" : "TORCH_TRACE log without events");
    }
    return std::move(index_);
}

uint32_t TraceIndexer::intern(std::string_view s)
{
    if (auto it = lookup_.find(s); it != lookup_.end()) return it->second;
    uint32_t id = uint32_t(index_.names.size());
    index_.names.emplace_back(s);
    lookup_.emplace(std::string(s), id);
    return id;
}

void TraceIndexer::warn(WarnKind k, int64_t line, int64_t column, std::string msg)
{
    if (count_[k]++ >= kMaxWarningsPerKind) {
        ++suppressed_[k];
        return;
    }
    if (count_[k] == 1) firstMessage_[k] = msg.substr(0, 60);
    diags_.warn(index_.file, int(line), int(column), std::move(msg));
}

void TraceIndexer::noteBad(int64_t column)
{
    if (firstBadLine_ == 0) firstBadLine_ = lineNo_, firstBadColumn_ = column;
}

void TraceIndexer::headerLine(std::string_view s, int64_t offset)
{
    state_ = State::Skip;
    TraceHeader h;
    if (size_t col = parseTraceHeader(s, h); col != 0) {
        ++index_.badHeaderLines;
        noteBad(int64_t(col));
        warn(kBadHeader, lineNo_, int64_t(col),
             "not a TORCH_TRACE header line (expected 'V0819 12:42:53.477000 <pid> "
             "<file>.py:<line>] {json}'); line skipped");
        return;
    }
    std::string_view envelope = s.substr(h.jsonStart);
    EnvelopeSax sax;
    bool parsed =
        nlohmann::json::sax_parse(envelope.begin(), envelope.end(), &sax, nlohmann::json::input_format_t::json, true);
    if (!checkEnvelope(sax, parsed, h.jsonStart)) return;
    if (sax.kind == "str") {
        if (sax.strValueSet && sax.strIndex >= 0)
            index_.strings[sax.strIndex] = sax.strValue;
        else
            warn(kBadStr, lineNo_, int64_t(h.jsonStart + 1), "'str' entry is not [string, index]; ignored");
        return;  // any payload lines after it are ignored silently
    }
    startEvent(h, sax, offset);
}

bool TraceIndexer::checkEnvelope(const EnvelopeSax& sax, bool parsed, size_t jsonStart)
{
    if (!parsed || !sax.error.empty()) {
        ++index_.badJsonLines;
        noteBad(int64_t(jsonStart + sax.errorPos));
        warn(kBadJson, lineNo_, int64_t(jsonStart + std::max<size_t>(sax.errorPos, 1)),
             "envelope is not valid JSON (" + sax.error + "); event skipped");
        return false;
    }
    if (sax.kind.empty()) {
        warn(kNoKind, lineNo_, int64_t(jsonStart + 1), "envelope has no event key; event skipped");
        return false;
    }
    if (!sax.extraKind.empty())
        warn(kExtraKey, lineNo_, int64_t(jsonStart + 1),
             "envelope has more than one event key ('" + sax.kind + "', '" + sax.extraKind + "'); using the first");
    if (!sax.badField.empty())
        warn(kField, lineNo_, int64_t(jsonStart + 1),
             "envelope key '" + sax.badField + "' has a value of the wrong type; ignored");
    return true;
}

void TraceIndexer::startEvent(const TraceHeader& h, const EnvelopeSax& sax, int64_t offset)
{
    TraceEvent e;
    e.line = lineNo_;
    e.offset = offset;
    e.level = h.level;
    e.month = uint8_t(h.month);
    e.day = uint8_t(h.day);
    e.timeMicros = h.timeMicros;
    e.pid = h.pid;
    e.sourcePath = intern(h.path);
    e.sourceLine = h.sourceLine;
    e.eventKey = intern(sax.kind);
    e.name = intern(sax.name);
    e.encoding = intern(sax.encoding);
    e.subgraphName = intern(sax.subgraph);
    if ((sax.kind == "artifact" || sax.kind == "graph_dump") && !sax.name.empty())
        e.kind = e.name;
    else if (sax.kind == "optimize_ddp_split_child" && !sax.name.empty())
        e.kind = intern("optimize_ddp_split_child_" + sax.name);
    else
        e.kind = e.eventKey;
    e.compileId = sax.cid;
    e.rank = int32_t(sax.rank);
    e.hasPayload = sax.hasPayload;
    e.payloadOffset = offset + int64_t(rawLength_);  // the end of the line until a payload line comes
    index_.events.push_back(e);

    cur_ = &index_.events.back();
    expectedMd5_ = sax.md5;
    curIsCpp_ = sax.type == "cpp" || sax.encoding == "json";
    curMaybeGraph_ = sax.kind == "artifact" || sax.kind == "graph_dump";
    firstLineSeen_ = false;
    firstLineIsClass_ = false;
    utf8Reported_ = false;
    md5_.reset();
    state_ = sax.hasPayload ? State::Payload : State::NoPayload;
}

void TraceIndexer::payloadLine(const char* p, size_t n, int64_t offset)
{
    if (state_ == State::Payload) {
        if (cur_->payloadLines > 0) md5_.update("\n", 1);
        md5_.update(p + 1, n - 1);
        if (cur_->payloadLines == 0) cur_->payloadOffset = offset;
        ++cur_->payloadLines;
        cur_->payloadLength = offset + int64_t(n) - cur_->payloadOffset;
        if (!firstLineSeen_ && n > 1) {
            std::string_view first(p + 1, n - 1);
            if (first.find_first_not_of(" \t") != std::string_view::npos) {
                firstLineSeen_ = true;
                firstLineIsClass_ = looksLikeGraphClassLine(first);
            }
        }
        if (!utf8Reported_) {
            size_t bad = firstInvalidUtf8(std::string_view(p, n));
            if (bad != std::string_view::npos) {
                utf8Reported_ = true;
                warn(kUtf8, lineNo_, int64_t(bad) + 1,
                     "payload of '" + std::string(index_.kind(*cur_)) + "' (line " + std::to_string(cur_->line)
                         + ") is not valid UTF-8");
            }
        }
    } else if (state_ == State::NoPayload) {
        warn(kOrphan, lineNo_, 1,
             "payload lines after an event without has_payload (line " + std::to_string(cur_->line) + "); ignored");
        state_ = State::Skip;
    }
    // State::Skip: lines of an envelope that was already reported
}

void TraceIndexer::finishEvent()
{
    if (state_ == State::Payload) {
        TraceEvent& e = *cur_;
        checkMd5(e);
        e.isGraph = isGraphKind(index_.kind(e)) || (curMaybeGraph_ && !curIsCpp_ && firstLineIsClass_);
        pair(int32_t(cur_ - index_.events.data()));
    } else if (state_ == State::NoPayload) {
        pair(int32_t(cur_ - index_.events.data()));
    }
    state_ = State::Skip;
    cur_ = nullptr;
}

// The payload's MD5 against has_payload (when it holds a digest).
void TraceIndexer::checkMd5(TraceEvent& e)
{
    if (expectedMd5_.size() == 32) {
        std::string got = md5_.finishHex();
        bool same = std::equal(got.begin(), got.end(), expectedMd5_.begin(),
                               [](char a, char b) { return a == std::tolower(static_cast<unsigned char>(b)); });
        e.md5 = same ? Md5Check::Ok : Md5Check::Mismatch;
        if (!same) {
            ++index_.md5Mismatches;
            warn(kMd5, e.line, 1,
                 "payload of '" + std::string(index_.kind(e)) + "' " + e.compileId.str()
                     + " does not match its MD5 (has_payload " + expectedMd5_ + ", computed " + got + ", "
                     + std::to_string(e.payloadLines) + " lines): lines lost or edited; kept");
        }
    } else if (!expectedMd5_.empty()) {
        e.md5 = Md5Check::Mismatch;
        ++index_.md5Mismatches;
        warn(kMd5, e.line, 1, "has_payload '" + expectedMd5_.substr(0, 40) + "' is not an MD5 digest");
    }
}

void TraceIndexer::pair(int32_t i)
{
    TraceEvent& e = index_.events[size_t(i)];
    std::string_view k = index_.kind(e);
    const bool before = k.starts_with("before_"), after = k.starts_with("after_");
    if (!before && !after) return;
    std::string base(k.substr(before ? 7 : 6));
    const auto& c = e.compileId;
    PairKey key{e.rank, c.compiledAutograd, c.frame, c.frameCompile, std::max<int64_t>(c.attempt, 0), base};
    if (before) {
        pending_[key] = i;
    } else if (auto it = pending_.find(key); it != pending_.end()) {
        e.pairedWith = it->second;
        index_.events[size_t(it->second)].pairedWith = i;
        pending_.erase(it);
    }
}

}  // namespace fxl
