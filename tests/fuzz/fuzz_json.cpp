// libFuzzer target: fxlens JSON graph files. Bad input must end in InputError, never a crash;
// what reads must write and read back.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/formats/json_io.hpp"
#include "core/ir/diagnostics.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    std::string_view text(reinterpret_cast<const char*>(data), size);
    (void)fxl::looksLikeGraphJson(text);
    try {
        fxl::Graph g = fxl::parseGraphJson(text, "<fuzz>");
        // a graph that was read can always be written and read again, unchanged
        fxl::Graph back = fxl::parseGraphJson(fxl::formatGraphJson(g), "<fuzz-roundtrip>");
        if (!g.structurallyEqual(back)) __builtin_trap();
    } catch (const fxl::InputError&) { }
    return 0;
}
