#include "core/formats/torch_trace/trace_envelope.hpp"

namespace fxl {

bool EnvelopeSax::string(json::string_t& v)
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
        } else if (eventKey_ == "name") {
            name = v;
        } else if (eventKey_ == "encoding") {
            encoding = v;
        } else if (eventKey_ == "type") {
            type = v;
        }
    }
    return true;
}

bool EnvelopeSax::key(json::string_t& k)
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
        eventKey_ = k;
    }
    return true;
}

bool EnvelopeSax::parse_error(std::size_t pos, const std::string&, const nlohmann::detail::exception& ex)
{
    errorPos = pos;
    error = ex.what();
    // "[json.exception.parse_error.101] parse error at line 1, column 5: syntax error ..."
    if (auto p = error.find(": "); p != std::string::npos && error.starts_with("[json.")) error = error.substr(p + 2);
    return false;
}

EnvelopeSax::Slot EnvelopeSax::classify(const std::string& k)
{
    if (k == "frame_id") return Slot::Frame;
    if (k == "frame_compile_id") return Slot::FrameCompile;
    if (k == "attempt") return Slot::Attempt;
    if (k == "compiled_autograd_id") return Slot::CompiledAutograd;
    if (k == "rank") return Slot::Rank;
    if (k == "has_payload") return Slot::HasPayload;
    if (k == "subgraph_name") return Slot::Subgraph;
    // reserved by the producer, never event keys
    if (k == "stack" || k == "severity" || k == "timestamp" || k == "pathname" || k == "thread") return Slot::Ignore;
    return Slot::Event;
}

bool EnvelopeSax::scalar()
{
    if (depth_ == 2 && inEvent_ && eventIsArray_) ++arrayPos_;
    return true;
}

bool EnvelopeSax::typeError()
{
    if (depth_ == 1 && slot_ != Slot::Event && slot_ != Slot::Ignore && slot_ != Slot::None && badField.empty())
        badField = slotName();
    return scalar();
}

bool EnvelopeSax::integer(int64_t v)
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

bool EnvelopeSax::open(bool array)
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

bool EnvelopeSax::close()
{
    --depth_;
    if (depth_ == 1) {
        inEvent_ = false;
        eventKey_.clear();
    }
    return true;
}

std::string EnvelopeSax::slotName() const
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

}  // namespace fxl
