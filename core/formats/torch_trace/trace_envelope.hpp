// Internal to the TORCH_TRACE reader (core/formats/torch_trace): the JSON envelope of an event
// line, read by a SAX handler without building a DOM.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "core/formats/torch_trace/torch_trace.hpp"

namespace fxl {

// Captures what the index needs from an envelope: the top-level context keys, the first event
// key, and "name"/"encoding"/"type" of its metadata (or the [string, index] pair of a "str"
// entry). Used with nlohmann::json::sax_parse.
class EnvelopeSax
{
public:
    using json = nlohmann::json;

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

    // --- the SAX interface
    bool null() { return scalar(); }
    bool boolean(bool) { return typeError(); }
    bool number_integer(json::number_integer_t v) { return integer(v); }
    bool number_unsigned(json::number_unsigned_t v) { return integer(v > uint64_t(INT64_MAX) ? -2 : int64_t(v)); }
    bool number_float(json::number_float_t, const json::string_t&) { return typeError(); }
    bool binary(json::binary_t&) { return scalar(); }
    bool string(json::string_t& v);
    bool start_object(std::size_t) { return open(false); }
    bool start_array(std::size_t) { return open(true); }
    bool end_object() { return close(); }
    bool end_array() { return close(); }
    bool key(json::string_t& k);
    bool parse_error(std::size_t pos, const std::string&, const nlohmann::detail::exception& ex);

private:
    // What a top-level key holds.
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

    int depth_ = 0;
    Slot slot_ = Slot::None;
    bool inEvent_ = false, eventIsArray_ = false;
    int arrayPos_ = 0;
    std::string eventKey_;  // the key being read in the event's metadata

    static Slot classify(const std::string& k);
    bool scalar();
    bool typeError();
    bool integer(int64_t v);
    bool open(bool array);
    bool close();
    std::string slotName() const;
};

}  // namespace fxl
