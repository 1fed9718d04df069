// libFuzzer target for the schema grammar (parseSchema / parseSchemaLenient), default values,
// the ops.tsv table reader and the ops-file reader (core/ops/custom_ops.hpp, parsed only: nothing
// is registered). A schema that parses must print back to text that parses to
// the same schema.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "core/ir/diagnostics.hpp"
#include "core/ops/custom_ops.hpp"
#include "core/ops/op_registry.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        fxl::Schema s = fxl::parseSchema(text, "aten");
        for (const auto& a : s.args) (void)fxl::parseDefaultValue(a);
        std::string printed = fxl::formatSchema(s);
        fxl::Schema again = fxl::parseSchema(printed, "aten");  // must not throw
        if (fxl::formatSchema(again) != printed) std::abort();
    } catch (const fxl::InputError&) { }
    fxl::Schema loose = fxl::parseSchemaLenient(text, "aten");  // never throws
    for (const auto& a : loose.args) (void)fxl::parseDefaultValue(a);
    try {
        fxl::OpRegistry r = fxl::OpRegistry::fromTsv(text);
        for (const auto* op : r.all()) (void)r.find(op->qualifiedName);
    } catch (const fxl::InputError&) { }
    try {
        for (const auto& d : fxl::parseOpsFile(text, "fuzz.ops")) {
            if (!d.body || (d.body->identityArg < 0) == !d.body->decomposition) std::abort();  // exactly one body
            if (d.body->identityArg >= static_cast<int>(d.schema.args.size())) std::abort();
        }
    } catch (const fxl::InputError&) { }
    return 0;
}
