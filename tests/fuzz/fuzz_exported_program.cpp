// libFuzzer target for the ExportedProgram JSON of torch.export archives: any text gives a
// graph (every union, symbolic size and sub-graph read) or an InputError with a position.
#include <cstdint>
#include <set>
#include <string>
#include <string_view>

#include "core/formats/pt2/exported_program.hpp"
#include "core/ir/diagnostics.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const std::set<std::string> weights = {"fc1.weight", "fc1.bias", "ln.weight", "scale", "emb.weight"};
    fxl::DiagnosticList diags;
    try {
        const fxl::ExportedProgram ep = fxl::readExportedProgram(text, "<fuzz>", weights, diags);
        ep.graph->forEachNode([](const fxl::Node& n) { (void)n.val; });
    } catch (const fxl::InputError&) { }
    try {
        (void)fxl::readRawWeightsConfig(text, "<fuzz>");
    } catch (const fxl::InputError&) { }
    try {
        (void)fxl::sympyReprToText(text);
    } catch (const std::exception&) { }
    return 0;
}
