#include "core/formats/fx/python_operators.hpp"

namespace fxl {

namespace {

struct PythonOperator
{
    const char* target;
    const char* text;
};

// "operator.truediv" comes before "operator.div": looked up by text, "/" gives the first.
constexpr PythonOperator kBinary[] = {
    {"operator.add", "+"},     {"operator.sub", "-"},       {"operator.mul", "*"},  {"operator.truediv", "/"},
    {"operator.div", "/"},     {"operator.floordiv", "//"}, {"operator.mod", "%"},  {"operator.pow", "**"},
    {"operator.lshift", "<<"}, {"operator.rshift", ">>"},   {"operator.and_", "&"}, {"operator.or_", "|"},
    {"operator.xor", "^"},     {"operator.matmul", "@"},    {"operator.eq", "=="},  {"operator.ne", "!="},
    {"operator.lt", "<"},      {"operator.gt", ">"},        {"operator.le", "<="},  {"operator.ge", ">="},
};
constexpr PythonOperator kUnary[] = {{"operator.neg", "-"}, {"operator.pos", "+"}, {"operator.invert", "~"}};
constexpr PythonOperator kInplace[] = {
    {"operator.iadd", "+="},  {"operator.iand", "&="},     {"operator.ifloordiv", "//="}, {"operator.ilshift", "<<="},
    {"operator.imod", "%="},  {"operator.imul", "*="},     {"operator.imatmul", "@="},    {"operator.ior", "|="},
    {"operator.ipow", "**="}, {"operator.irshift", ">>="}, {"operator.isub", "-="},       {"operator.itruediv", "/="},
    {"operator.ixor", "^="},
};

template<size_t N>
const char* targetOf(const PythonOperator (&table)[N], std::string_view text)
{
    for (const auto& op : table)
        if (text == op.text) return op.target;
    return nullptr;
}

template<size_t N>
const char* textOf(const PythonOperator (&table)[N], std::string_view target)
{
    for (const auto& op : table)
        if (target == op.target) return op.text;
    return nullptr;
}

}  // namespace

const char* binaryOperatorTarget(std::string_view text) { return targetOf(kBinary, text); }
const char* binaryOperatorText(std::string_view target) { return textOf(kBinary, target); }
const char* unaryOperatorTarget(std::string_view text) { return targetOf(kUnary, text); }
const char* unaryOperatorText(std::string_view target) { return textOf(kUnary, target); }
const char* inplaceOperatorTarget(std::string_view text) { return targetOf(kInplace, text); }
const char* inplaceOperatorText(std::string_view target) { return textOf(kInplace, target); }

}  // namespace fxl
