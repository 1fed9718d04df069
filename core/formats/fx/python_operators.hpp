// Internal to core/formats/fx: the Python operators FX prints for operator.* targets ("a + b",
// "-a", "a += b;  iadd = a"), one table that the FX text reader and writer both read.
#pragma once

#include <string_view>

namespace fxl {

// FX's magic_methods and reflectable_magic_methods: "+" <-> "operator.add". Two targets print
// as "/" ("operator.truediv" and "operator.div"); "/" reads back as "operator.truediv".
const char* binaryOperatorTarget(std::string_view text);
const char* binaryOperatorText(std::string_view target);
// "-a", "+a", "~a": "operator.neg", "operator.pos", "operator.invert".
const char* unaryOperatorTarget(std::string_view text);
const char* unaryOperatorText(std::string_view target);
// FX's inplace_methods ("+=" <-> "operator.iadd"); setitem has a statement form of its own.
const char* inplaceOperatorTarget(std::string_view text);
const char* inplaceOperatorText(std::string_view target);

}  // namespace fxl
