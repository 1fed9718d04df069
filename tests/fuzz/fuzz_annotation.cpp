// libFuzzer target for the FX annotation and symbolic-expression parsers. Besides "no crash",
// it checks that printing is a fixed point: whatever parses must re-parse from its printed
// form to an equal value.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "core/ir/diagnostics.hpp"
#include "core/ir/symexpr.hpp"
#include "core/ir/tensor_meta.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        fxl::ValueMeta m = fxl::parseAnnotation(text);
        std::string printed = fxl::formatAnnotation(m);
        fxl::ValueMeta again = fxl::parseAnnotation(printed);
        if (!(again == m) || fxl::formatAnnotation(again) != printed) std::abort();
        if (m.kind == fxl::ValueMeta::Kind::Tensor) {
            (void)m.tensor.numelHint();
            (void)m.tensor.bytesHint();
            (void)fxl::contiguousStrides(m.tensor.sizes);
        }
    } catch (const fxl::InputError&) { }
    try {
        fxl::SymExpr e = fxl::SymExpr::parse(text);
        std::string printed = e.str();
        if (!(fxl::SymExpr::parse(printed) == e)) std::abort();
        (void)e.evaluate({{"s0", 3}, {"s1", -2}, {"u0", 0}, {"u1", 7}});
        (void)(e + e - fxl::SymExpr::constant(1)).str();
        (void)fxl::SymExpr::floorDiv(e, fxl::SymExpr::constant(2)).str();
    } catch (const fxl::InputError&) { }
    return 0;
}
