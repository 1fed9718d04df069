// Operator schemas in the TorchScript function-schema grammar that ops.tsv uses: the parsed
// form, the strict and the lenient parser, the printer and default values.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/ir/argument.hpp"

namespace fxl {

struct AliasInfo
{
    std::string set;  // "a" in Tensor(a!) ; "a" in Tensor(a -> *)
    bool isWrite = false;  // "!"
    bool toWildcard = false;  // "a -> *"
};

struct SchemaArg
{
    std::string name;
    std::string type;  // as written, without alias annotation: "Tensor", "SymInt[]", "Tensor?", "int[1]"
    std::optional<AliasInfo> alias;
    std::optional<std::string> defaultText;  // "None", "1", "[]", "contiguous_format", ...
    bool kwargOnly = false;
};

struct Schema
{
    std::string ns;  // "aten"
    std::string name;  // "add"
    std::string overload;  // "Tensor" ("default" when none; "" in the registry for targets
                           // that have no overload: HOPs, Python builtins)
    std::vector<SchemaArg> args;
    std::vector<SchemaArg> returns;  // names may be empty
    bool varargs = false;  // "*args" style (HOPs)
    std::string text;  // the schema as given
    // The text did not follow the schema grammar (informal HOP / builtin rows): args and
    // returns hold what could be read; the rest is only in `text`.
    bool informal = false;

    std::string qualifiedName() const;  // "aten.add.Tensor" ("higher_order.cond" without overload)
    // Index of an argument by name, or -1.
    int argIndex(std::string_view argName) const;
};

// Parses "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor".
// `ns` is the namespace the table gives. Throws InputError on malformed text.
Schema parseSchema(std::string_view text, std::string_view ns);

// Best-effort parse for informal rows ("from memory" HOP schemas, Python builtins): never
// throws. What does not follow the grammar sets `informal`; arguments that could not be
// read set `varargs` too, so binding stays loose. `why` gets the strict parser's error.
Schema parseSchemaLenient(std::string_view text, std::string_view ns, std::string* why = nullptr);

// Prints a schema back in the grammar parseSchema reads ("add.Tensor(Tensor self, ...) -> Tensor").
std::string formatSchema(const Schema& s);

// The value of an argument's default text as an Arg, typed by the argument: "None", "1",
// "-1", "0.5", "True", "[0,1]", "()", "'mean'", "contiguous_format", "long" (ScalarType),
// "Mean" (int reduction = 1); "int[2] stride=1" gives [1, 1]. Unrecognised text comes
// back as Arg::ofRaw. No default: Arg::none().
Arg parseDefaultValue(const SchemaArg& a);

}  // namespace fxl
