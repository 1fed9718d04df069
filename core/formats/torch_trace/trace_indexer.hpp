// Internal to the TORCH_TRACE reader (core/formats/torch_trace): the one-pass indexer behind
// indexTorchTrace, fed the log's lines in file order.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>

#include "core/formats/torch_trace/md5.hpp"
#include "core/formats/torch_trace/torch_trace.hpp"

namespace fxl {

class EnvelopeSax;
struct TraceHeader;

class TraceIndexer
{
public:
    TraceIndexer(std::string file, DiagnosticList& diags);

    // One complete line (without its '\n') starting at file `offset`.
    void line(const char* p, size_t n, int64_t offset);
    // The index, once every line was fed. Throws InputError when no line was a TORCH_TRACE line.
    TraceIndex finish(int64_t fileSize);

private:
    // Kinds of warnings, each shown kMaxWarningsPerKind times at most.
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
    enum class State
    {
        Skip,  // lines of an envelope that was already reported
        NoPayload,
        Payload
    };
    struct TransparentHash
    {
        using is_transparent = void;
        size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
    };
    // rank, compiled autograd id, frame id, frame compile id, attempt, kind without before_ / after_
    using PairKey = std::tuple<int32_t, int64_t, int64_t, int64_t, int64_t, std::string>;

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
    std::map<PairKey, int32_t> pending_;
    std::array<int, kWarnKinds> count_{}, suppressed_{};
    std::array<std::string, kWarnKinds> firstMessage_{};

    uint32_t intern(std::string_view s);
    void warn(WarnKind k, int64_t line, int64_t column, std::string msg);
    void noteBad(int64_t column);
    void headerLine(std::string_view s, int64_t offset);
    // Warns about what is wrong with the envelope; false when the event is skipped.
    bool checkEnvelope(const EnvelopeSax& sax, bool parsed, size_t jsonStart);
    void startEvent(const TraceHeader& h, const EnvelopeSax& sax, int64_t offset);
    void payloadLine(const char* p, size_t n, int64_t offset);
    void finishEvent();
    void checkMd5(TraceEvent& e);
    // before_X / after_X of one compile id, in log order.
    void pair(int32_t i);
};

}  // namespace fxl
