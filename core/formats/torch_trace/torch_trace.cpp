#include "core/formats/torch_trace/torch_trace.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>

#include "core/formats/fx/fx_text_parser.hpp"
#include "core/formats/source.hpp"
#include "core/formats/torch_trace/md5.hpp"
#include "core/formats/torch_trace/tlparse_output.hpp"

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
    return kinds.count(k) > 0 || k.rfind("optimize_ddp_split_child_", 0) == 0;
}

namespace {

// "class X(torch.nn.Module):" / "class GraphModule(torch.nn.Module):" — how every
// print_readable() dump starts; used for artifact and graph_dump names we do not know.
bool looksLikeGraphClassLine(std::string_view s)
{
    while (!s.empty() && (s.back() == ' ' || s.back() == '\r')) s.remove_suffix(1);
    return s.rfind("class ", 0) == 0 && s.size() > 8 && s.substr(s.size() - 2) == "):"
        && s.find("Module") != std::string_view::npos;
}

// Offset of the first byte that is not valid UTF-8, or npos.
size_t firstInvalidUtf8(const unsigned char* p, size_t n)
{
    size_t i = 0;
    while (i < n) {
        if (i + 8 <= n) {  // ASCII fast path
            uint64_t w;
            std::memcpy(&w, p + i, 8);
            if ((w & 0x8080808080808080ull) == 0) {
                i += 8;
                continue;
            }
        }
        unsigned char c = p[i];
        if (c < 0x80) {
            ++i;
            continue;
        }
        size_t len;
        uint32_t cp;
        if ((c & 0xE0) == 0xC0)
            len = 2, cp = c & 0x1F;
        else if ((c & 0xF0) == 0xE0)
            len = 3, cp = c & 0x0F;
        else if ((c & 0xF8) == 0xF0)
            len = 4, cp = c & 0x07;
        else
            return i;
        if (i + len > n) return i;
        for (size_t k = 1; k < len; ++k) {
            if ((p[i + k] & 0xC0) != 0x80) return i;
            cp = (cp << 6) | (p[i + k] & 0x3F);
        }
        // overlong forms, surrogates, beyond U+10FFFF
        if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10FFFF
            || (cp >= 0xD800 && cp <= 0xDFFF))
            return i;
        i += len;
    }
    return std::string_view::npos;
}

bool isDigit(char c) { return c >= '0' && c <= '9'; }

struct Header
{
    char level = 'V';
    int month = 0, day = 0;
    int64_t timeMicros = 0;
    int64_t pid = 0;
    std::string_view path;
    int32_t sourceLine = 0;
    size_t jsonStart = 0;  // offset of the envelope in the line
};

// Parses "V0819 12:42:53.477000 888578 torch/x.py:1633] {...". Returns the 1-based column
// of the first mismatch, or 0 on success.
size_t parseHeader(std::string_view s, Header& h)
{
    size_t i = 0;
    auto digits = [&](size_t count, int64_t& out) -> bool {
        out = 0;
        for (size_t k = 0; k < count; ++k, ++i) {
            if (i >= s.size() || !isDigit(s[i])) return false;
            out = out * 10 + (s[i] - '0');
        }
        return true;
    };
    auto expect = [&](char c) -> bool {
        if (i >= s.size() || s[i] != c) return false;
        ++i;
        return true;
    };
    if (s.empty() || !std::strchr("VIWEC", s[0])) return 1;
    h.level = s[0];
    i = 1;
    int64_t mo, dd, hh, mi, ss;
    if (!digits(2, mo) || !digits(2, dd)) return i + 1;
    if (!expect(' ')) return i + 1;
    if (!digits(2, hh) || !expect(':') || !digits(2, mi) || !expect(':') || !digits(2, ss) || !expect('.'))
        return i + 1;
    int64_t frac = 0;
    int fracDigits = 0;
    while (i < s.size() && isDigit(s[i])) {
        if (fracDigits < 6) frac = frac * 10 + (s[i] - '0'), ++fracDigits;
        ++i;
    }
    if (fracDigits == 0) return i + 1;
    while (fracDigits < 6) frac *= 10, ++fracDigits;
    h.month = int(mo);
    h.day = int(dd);
    h.timeMicros = ((hh * 60 + mi) * 60 + ss) * 1000000 + frac;
    if (!expect(' ')) return i + 1;
    while (i < s.size() && s[i] == ' ') ++i;
    size_t pidStart = i;
    h.pid = 0;
    while (i < s.size() && isDigit(s[i]) && i - pidStart < 18) h.pid = h.pid * 10 + (s[i++] - '0');
    if (i == pidStart || i >= s.size() || s[i] != ' ') return i + 1;
    ++i;
    // The path runs to the first ':' (tlparse: [^:]+), then the line number and "] ".
    size_t colon = s.find(':', i);
    if (colon == std::string_view::npos || colon == i) return i + 1;
    h.path = s.substr(i, colon - i);
    if (h.path.find(']') != std::string_view::npos) return i + 1;
    i = colon + 1;
    size_t lineStart = i;
    int64_t ln = 0;
    while (i < s.size() && isDigit(s[i]) && i - lineStart < 9) ln = ln * 10 + (s[i++] - '0');
    if (i == lineStart) return i + 1;
    h.sourceLine = int32_t(ln);
    if (!expect(']') || !expect(' ')) return i + 1;
    h.jsonStart = i;
    return 0;
}

// Captures what the index needs from an envelope without building a DOM: the top-level
// context keys, the first event key, and "name"/"encoding"/"type" of its metadata (or the
// [string, index] pair of a "str" entry).
class EnvelopeSax
{
public:
    using json = nlohmann::json;
    enum class Slot
    {
        None,
        Frame,
        FrameCompile,
        Attempt,
        CompiledAutograd,
        Rank,
        HasPayload,
        Subgraph,
        Event,
        Ignore
    };

    TraceCompileId cid;
    int64_t rank = -1;
    bool hasPayload = false;
    std::string md5;
    std::string kind, extraKind, subgraph;
    std::string name, encoding, type;
    std::string strValue;
    int64_t strIndex = -1;
    bool strValueSet = false;
    std::string badField;  // first context key with a value of the wrong type
    std::string error;  // parse error message
    size_t errorPos = 0;

    bool null() { return scalar(); }
    bool boolean(bool) { return typeError(); }
    bool number_integer(json::number_integer_t v) { return integer(v); }
    bool number_unsigned(json::number_unsigned_t v) { return integer(v > uint64_t(INT64_MAX) ? -2 : int64_t(v)); }
    bool number_float(json::number_float_t, const json::string_t&) { return typeError(); }
    bool binary(json::binary_t&) { return scalar(); }
    bool string(json::string_t& v)
    {
        if (depth_ == 1) {
            switch (slot_) {
            case Slot::HasPayload:
                hasPayload = true;
                md5 = v;
                return true;
            case Slot::Subgraph: subgraph = v; return true;
            case Slot::None:
            case Slot::Event:
            case Slot::Ignore: return true;
            default: return typeError();
            }
        }
        if (depth_ == 2 && inEvent_) {
            if (eventIsArray_) {
                if (arrayPos_++ == 0) strValue = v, strValueSet = true;
            } else if (key2_ == "name") {
                name = v;
            } else if (key2_ == "encoding") {
                encoding = v;
            } else if (key2_ == "type") {
                type = v;
            }
        }
        return true;
    }
    bool start_object(std::size_t) { return open(false); }
    bool start_array(std::size_t) { return open(true); }
    bool end_object() { return close(); }
    bool end_array() { return close(); }
    bool key(json::string_t& k)
    {
        if (depth_ == 1) {
            slot_ = classify(k);
            if (slot_ == Slot::Event) {
                if (kind.empty()) {
                    kind = k;
                } else {
                    if (extraKind.empty()) extraKind = k;
                    slot_ = Slot::Ignore;
                }
            }
        } else if (depth_ == 2 && inEvent_) {
            key2_ = k;
        }
        return true;
    }
    bool parse_error(std::size_t pos, const std::string&, const nlohmann::detail::exception& ex)
    {
        errorPos = pos;
        error = ex.what();
        // "[json.exception.parse_error.101] parse error at line 1, column 5: syntax error ..."
        if (auto p = error.find(": "); p != std::string::npos && error.rfind("[json.", 0) == 0)
            error = error.substr(p + 2);
        return false;
    }

private:
    static Slot classify(const std::string& k)
    {
        if (k == "frame_id") return Slot::Frame;
        if (k == "frame_compile_id") return Slot::FrameCompile;
        if (k == "attempt") return Slot::Attempt;
        if (k == "compiled_autograd_id") return Slot::CompiledAutograd;
        if (k == "rank") return Slot::Rank;
        if (k == "has_payload") return Slot::HasPayload;
        if (k == "subgraph_name") return Slot::Subgraph;
        // reserved by the producer, never event keys
        if (k == "stack" || k == "severity" || k == "timestamp" || k == "pathname" || k == "thread")
            return Slot::Ignore;
        return Slot::Event;
    }
    bool scalar()
    {
        if (depth_ == 2 && inEvent_ && eventIsArray_) ++arrayPos_;
        return true;
    }
    bool typeError()
    {
        if (depth_ == 1 && slot_ != Slot::Event && slot_ != Slot::Ignore && slot_ != Slot::None && badField.empty())
            badField = slotName();
        return scalar();
    }
    bool integer(int64_t v)
    {
        if (depth_ == 1) {
            if (v < 0 && slot_ != Slot::None && slot_ != Slot::Event && slot_ != Slot::Ignore) return typeError();
            switch (slot_) {
            case Slot::Frame: cid.frame = v; break;
            case Slot::FrameCompile: cid.frameCompile = v; break;
            case Slot::Attempt: cid.attempt = v; break;
            case Slot::CompiledAutograd: cid.compiledAutograd = v; break;
            case Slot::Rank: rank = v > INT32_MAX ? -1 : v; break;
            case Slot::HasPayload: hasPayload = true; break;
            case Slot::Subgraph: return typeError();
            default: break;
            }
            return true;
        }
        if (depth_ == 2 && inEvent_ && eventIsArray_) {
            if (arrayPos_++ == 1) strIndex = v;
        }
        return true;
    }
    bool open(bool array)
    {
        if (depth_ == 0 && array) {
            error = "the envelope is a JSON array, expected an object";
            return false;
        }
        if (depth_ == 1) {
            if (slot_ == Slot::Event) {
                inEvent_ = true;
                eventIsArray_ = array;
                arrayPos_ = 0;
            } else if (slot_ == Slot::HasPayload) {
                hasPayload = true;
            } else if (slot_ != Slot::Ignore && slot_ != Slot::None) {
                typeError();
            }
        } else if (depth_ == 2 && inEvent_ && eventIsArray_) {
            ++arrayPos_;
        }
        ++depth_;
        return true;
    }
    bool close()
    {
        --depth_;
        if (depth_ == 1) {
            inEvent_ = false;
            key2_.clear();
        }
        return true;
    }
    std::string slotName() const
    {
        switch (slot_) {
        case Slot::Frame: return "frame_id";
        case Slot::FrameCompile: return "frame_compile_id";
        case Slot::Attempt: return "attempt";
        case Slot::CompiledAutograd: return "compiled_autograd_id";
        case Slot::Rank: return "rank";
        case Slot::HasPayload: return "has_payload";
        case Slot::Subgraph: return "subgraph_name";
        default: return "?";
        }
    }

    int depth_ = 0;
    Slot slot_ = Slot::None;
    bool inEvent_ = false, eventIsArray_ = false;
    int arrayPos_ = 0;
    std::string key2_;
};

enum WarnKind
{
    kBadHeader,
    kBadJson,
    kMd5,
    kOrphan,
    kUtf8,
    kField,
    kNoKind,
    kExtraKey,
    kBadStr,
    kWarnKinds
};
constexpr int kMaxWarningsPerKind = 25;

struct TransparentHash
{
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

// The one-pass indexer: fed complete lines (without their '\n') in file order.
class Indexer
{
public:
    Indexer(std::string file, DiagnosticList& diags)
        : diags_(diags)
    {
        index_.file = std::move(file);
        index_.names.emplace_back();
        lookup_.emplace(std::string(), 0);
    }

    void line(const char* p, size_t n, int64_t offset)
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

    TraceIndex finish(int64_t fileSize)
    {
        finishEvent();
        index_.fileSize = fileSize;
        index_.lineCount = lineNo_;
        for (int k = 0; k < kWarnKinds; ++k)
            if (suppressed_[k] > 0)
                diags_.note(index_.file, 0, 0,
                            std::to_string(suppressed_[k]) + " more warnings like '" + firstMessage_[k]
                                + "' not shown");
        if (index_.events.empty() && index_.strings.empty()) {
            if (index_.badHeaderLines > 0 || index_.badJsonLines > 0)
                throw InputError(index_.file, int(firstBadLine_), int(firstBadColumn_),
                                 "not a TORCH_TRACE log: expected header lines like "
                                 "'V0819 12:42:53.477000 <pid> <file>.py:<line>] {json}'");
            diags_.note(index_.file, 0, 0, lineNo_ == 0 ? "empty TORCH_TRACE log" : "TORCH_TRACE log without events");
        }
        return std::move(index_);
    }

private:
    uint32_t intern(std::string_view s)
    {
        if (auto it = lookup_.find(s); it != lookup_.end()) return it->second;
        uint32_t id = uint32_t(index_.names.size());
        index_.names.emplace_back(s);
        lookup_.emplace(std::string(s), id);
        return id;
    }

    void warn(WarnKind k, int64_t line, int64_t column, std::string msg)
    {
        if (count_[k]++ >= kMaxWarningsPerKind) {
            ++suppressed_[k];
            return;
        }
        if (count_[k] == 1) firstMessage_[k] = msg.substr(0, 60);
        diags_.warn(index_.file, int(line), int(column), std::move(msg));
    }

    void noteBad(int64_t column)
    {
        if (firstBadLine_ == 0) firstBadLine_ = lineNo_, firstBadColumn_ = column;
    }

    void headerLine(std::string_view s, int64_t offset)
    {
        state_ = State::Skip;
        Header h;
        if (size_t col = parseHeader(s, h); col != 0) {
            ++index_.badHeaderLines;
            noteBad(int64_t(col));
            warn(kBadHeader, lineNo_, int64_t(col),
                 "not a TORCH_TRACE header line (expected 'V0819 12:42:53.477000 <pid> "
                 "<file>.py:<line>] {json}'); line skipped");
            return;
        }
        std::string_view js = s.substr(h.jsonStart);
        EnvelopeSax sax;
        bool ok = nlohmann::json::sax_parse(js.begin(), js.end(), &sax, nlohmann::json::input_format_t::json, true);
        if (!ok || !sax.error.empty()) {
            ++index_.badJsonLines;
            noteBad(int64_t(h.jsonStart + sax.errorPos));
            warn(kBadJson, lineNo_, int64_t(h.jsonStart + std::max<size_t>(sax.errorPos, 1)),
                 "envelope is not valid JSON (" + sax.error + "); event skipped");
            return;
        }
        if (sax.kind.empty()) {
            warn(kNoKind, lineNo_, int64_t(h.jsonStart + 1), "envelope has no event key; event skipped");
            return;
        }
        if (!sax.extraKind.empty())
            warn(kExtraKey, lineNo_, int64_t(h.jsonStart + 1),
                 "envelope has more than one event key ('" + sax.kind + "', '" + sax.extraKind + "'); using the first");
        if (!sax.badField.empty())
            warn(kField, lineNo_, int64_t(h.jsonStart + 1),
                 "envelope key '" + sax.badField + "' has a value of the wrong type; ignored");
        if (sax.kind == "str") {
            if (sax.strValueSet && sax.strIndex >= 0)
                index_.strings[sax.strIndex] = sax.strValue;
            else
                warn(kBadStr, lineNo_, int64_t(h.jsonStart + 1), "'str' entry is not [string, index]; ignored");
            return;  // any payload lines after it are ignored silently
        }

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

    void payloadLine(const char* p, size_t n, int64_t offset)
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
                size_t bad = firstInvalidUtf8(reinterpret_cast<const unsigned char*>(p), n);
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

    void finishEvent()
    {
        if (state_ == State::Payload) {
            TraceEvent& e = *cur_;
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
            std::string_view k = index_.kind(e);
            e.isGraph = isGraphKind(k) || (curMaybeGraph_ && !curIsCpp_ && firstLineIsClass_);
            pair(int32_t(cur_ - index_.events.data()));
        } else if (state_ == State::NoPayload) {
            pair(int32_t(cur_ - index_.events.data()));
        }
        state_ = State::Skip;
        cur_ = nullptr;
    }

    // before_X / after_X of one compile id, in log order.
    void pair(int32_t i)
    {
        TraceEvent& e = index_.events[size_t(i)];
        std::string_view k = index_.kind(e);
        bool before = k.rfind("before_", 0) == 0, after = k.rfind("after_", 0) == 0;
        if (!before && !after) return;
        std::string base(k.substr(before ? 7 : 6));
        const auto& c = e.compileId;
        auto key =
            std::make_tuple(e.rank, c.compiledAutograd, c.frame, c.frameCompile, std::max<int64_t>(c.attempt, 0), base);
        if (before) {
            pending_[key] = i;
        } else if (auto it = pending_.find(key); it != pending_.end()) {
            e.pairedWith = it->second;
            index_.events[size_t(it->second)].pairedWith = i;
            pending_.erase(it);
        }
    }

    enum class State
    {
        Skip,
        NoPayload,
        Payload
    };

    DiagnosticList& diags_;
    TraceIndex index_;
    std::unordered_map<std::string, uint32_t, TransparentHash, std::equal_to<>> lookup_;
    int64_t lineNo_ = 0;
    size_t rawLength_ = 0;  // of the current line, with a '\r' if it had one
    int64_t firstBadLine_ = 0, firstBadColumn_ = 0;
    State state_ = State::Skip;
    TraceEvent* cur_ = nullptr;  // valid until the next push_back, i.e. while its payload streams
    std::string expectedMd5_;
    Md5 md5_;
    bool curIsCpp_ = false, curMaybeGraph_ = false;
    bool firstLineSeen_ = false, firstLineIsClass_ = false, utf8Reported_ = false;
    std::map<std::tuple<int32_t, int64_t, int64_t, int64_t, int64_t, std::string>, int32_t> pending_;
    std::array<int, kWarnKinds> count_{}, suppressed_{};
    std::array<std::string, kWarnKinds> firstMessage_{};
};

}  // namespace

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
    Indexer ix(file, diags);
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
    Indexer ix(path, diags);
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
    Header h;
    if (parseHeader(first, h) != 0) return false;
    return h.jsonStart < first.size() && first[h.jsonStart] == '{';
}

std::optional<int> rankFromTraceFileName(std::string_view name)
{
    static constexpr std::string_view prefix = "dedicated_log_torch_trace_rank_";
    if (name.rfind(prefix, 0) != 0 || name.size() < 4 || name.substr(name.size() - 4) != ".log") return std::nullopt;
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

std::unique_ptr<Source> loadTraceDirectory(const std::string& dir, const Progress& progress)
{
    namespace fs = std::filesystem;
    auto src = std::make_unique<Source>();
    src->path = dir;
    src->format = SourceFormat::TorchTraceDir;

    std::vector<fs::path> files;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), endIt; !ec && it != endIt; it.increment(ec)) {
        std::error_code ec2;
        if (it->is_regular_file(ec2)) files.push_back(it->path());
    }
    if (ec) throw InputError(dir, 0, 0, "cannot list directory: " + ec.message());
    std::sort(files.begin(), files.end());
    // Progress counts the bytes of every file; a skipped file counts as done at once.
    std::vector<int64_t> sizes;
    int64_t totalBytes = 0;
    for (const auto& p : files) {
        std::error_code ec2;
        const auto size = fs::file_size(p, ec2);
        sizes.push_back(ec2 ? 0 : int64_t(size));
        totalBytes += sizes.back();
    }
    ProgressMeter meter(progress, totalBytes);
    meter.report(0, files.empty() ? std::string() : files.front().filename().string());
    int64_t bytesBefore = 0;  // of the files before the current one

    struct Loaded
    {
        TraceIndex index;
        std::optional<int> rank;  // from the file name, else the envelopes' single rank
        std::string stem;
    };
    std::vector<Loaded> loaded;
    for (size_t fi = 0; fi < files.size(); ++fi) {
        const fs::path& p = files[fi];
        const std::string ps = p.string();
        const std::string fileName = p.filename().string();
        if (fi > 0) bytesBefore += sizes[fi - 1];
        meter.update(bytesBefore, fileName);
        std::error_code ec2;
        auto size = fs::file_size(p, ec2);
        if (ec2 || size == 0) {
            src->diagnostics.note(ps, 0, 0, "empty file skipped");
            continue;
        }
        std::string head(4096, '\0');
        {
            std::ifstream in(p, std::ios::binary);
            in.read(head.data(), std::streamsize(head.size()));
            head.resize(size_t(in.gcount()));
        }
        if (!looksLikeTorchTrace(head)) {
            src->diagnostics.note(ps, 0, 0, "not a TORCH_TRACE log, skipped");
            continue;
        }
        Loaded l;
        try {
            l.index = indexTorchTrace(ps, src->diagnostics,
                                      [&](int64_t bytes) { meter.update(bytesBefore + bytes, fileName); });
        } catch (const InputError& e) {
            src->diagnostics.items.push_back(e.diagnostic());
            continue;
        }
        std::vector<int> envRanks = l.index.ranks();
        auto nameRank = rankFromTraceFileName(p.filename().string());
        if (nameRank) {
            l.rank = nameRank;
            bool agree = envRanks.empty() || (envRanks.size() == 1 && envRanks[0] == *nameRank);
            if (!agree) {
                std::string said;
                for (int r : envRanks) said += (said.empty() ? "" : ", ") + std::to_string(r);
                src->diagnostics.warn(ps, 0, 0,
                                      "the file name says rank " + std::to_string(*nameRank)
                                          + " but its envelopes say rank " + said
                                          + "; using the file name (as tlparse does)");
            }
        } else if (envRanks.size() == 1) {
            l.rank = envRanks[0];
        }
        l.stem = p.stem().string();
        loaded.push_back(std::move(l));
    }
    if (loaded.empty()) throw InputError(dir, 0, 0, "no TORCH_TRACE logs in this directory");

    std::map<int, int> perRank;
    for (const auto& l : loaded)
        if (l.rank) ++perRank[*l.rank];
    for (auto& l : loaded) {
        bool uniqueRank = l.rank && perRank[*l.rank] == 1;
        if (l.rank && !uniqueRank)
            src->diagnostics.warn(l.index.file, 0, 0,
                                  "more than one log for rank " + std::to_string(*l.rank)
                                      + " in this directory (repeated runs?); artifact ids use the file name");
        std::string prefix = uniqueRank ? "rank" + std::to_string(*l.rank) + "/" : l.stem + "/";
        // A file-name rank overrides the envelopes; without one each event keeps its own.
        std::optional<int> forced = rankFromTraceFileName(std::filesystem::path(l.index.file).filename().string());
        addArtifacts(*src, l.index, prefix, forced);
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
