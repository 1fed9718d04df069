// libFuzzer target: print(gm.graph) listings. Bad input must end in InputError, never a crash.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/formats/fx/graph_listing.hpp"
#include "core/ir/diagnostics.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    std::string_view text(reinterpret_cast<const char*>(data), size);
    (void)fxl::looksLikeGraphListing(text);
    try {
        fxl::DiagnosticList diags;
        fxl::Graph g = fxl::parseGraphListing(text, "<fuzz>", diags);
        (void)g;
    } catch (const fxl::InputError&) { }
    return 0;
}
