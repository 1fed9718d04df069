// libFuzzer target: the TORCH_TRACE indexer over arbitrary bytes, then every indexed payload
// reassembled from its byte range.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/formats/torch_trace/torch_trace.hpp"
#include "core/ir/diagnostics.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    std::string_view text(reinterpret_cast<const char*>(data), size);
    fxl::DiagnosticList diags;
    try {
        fxl::TraceIndex ix = fxl::indexTorchTraceText(text, "<fuzz>", diags);
        for (const auto& e : ix.events) {
            if (e.payloadOffset < 0 || e.payloadLength < 0 || size_t(e.payloadOffset + e.payloadLength) > size)
                __builtin_trap();  // a byte range outside the input is an indexer bug
            (void)fxl::payloadFromRaw(text.substr(size_t(e.payloadOffset), size_t(e.payloadLength)));
            (void)e.compileId.str();
        }
        (void)fxl::looksLikeTorchTrace(text);
    } catch (const fxl::InputError&) { }
    return 0;
}
