// libFuzzer target for the FX text parser: any bytes either parse or raise InputError; a graph
// that parses also prints and parses back.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/formats/fx/fx_text_parser.hpp"
#include "core/formats/fx/fx_text_writer.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    std::string_view text(reinterpret_cast<const char*>(data), size);
    fxl::Graph g;
    try {
        fxl::DiagnosticList diags;
        g = fxl::parseFxText(text, "<fuzz>", 1, &diags, 0);
    } catch (const fxl::InputError&) {
        return 0;
    }
    // the writer must handle whatever the parser accepted, and its text must parse again
    const std::string printed = fxl::printReadable(g);
    try {
        fxl::Graph again = fxl::parseFxText(printed, "<printed>");
        std::string why;
        if (!g.structurallyEqual(again, &why)) __builtin_trap();
    } catch (const fxl::InputError&) {
        __builtin_trap();
    }
    return 0;
}
