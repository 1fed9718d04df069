// Internal to the FX text reader (core/formats/fx): annotations ("x: \"f32[8, 4]\"") and the
// Python values FX prints as arguments (numbers, strings, node names, containers, torch
// dtypes / devices / ops, slices), read into ValueMeta and Arg.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/formats/fx/fx_token_stream.hpp"
#include "core/formats/fx/node_name_table.hpp"
#include "core/ir/graph.hpp"

namespace fxl {

class FxValueParser : public FxTokenStream
{
public:
    using FxTokenStream::FxTokenStream;

protected:
    // The node names values may refer to (those of the forward being read); null outside one.
    const NodeNameTable* nodeNames_ = nullptr;
    int valueDepth_ = 0;

    NodeId lookup(const Token& t) const { return nodeNames_->find(text(t)); }
    NodeId requireNode(const Token& t) const;

    // --- annotations

    // An annotation as written, before it is understood.
    struct AnnotationText
    {
        bool present = false;
        bool quoted = false;
        std::string_view text;  // quotes removed
        uint32_t offset = 0;  // of `text` in the FX text
        std::string decoded;  // when the quoted text had escapes (`text` views it)
    };
    // After the ':' of "name: annot": a quoted annotation, or the raw text up to '=', ';', '#'
    // or the end of the line (also ',' and ')' when `inParams`).
    AnnotationText parseAnnotationAfterColon(bool inParams);
    // Shape annotations ("f32[s0, 3]", "Sym(s0)") into `val`, Python types ("torch.Tensor")
    // into `typeExpr`. Unquoted ones that do not parse are errors, quoted ones a warning (then
    // kept as opaque text).
    void applyAnnotation(const AnnotationText& annotation, ValueMeta* val, std::string* typeExpr);

    // --- values

    // One value; `descs` gets the per-item "# desc" comments of an expanded tuple or list.
    Arg parseValue(std::vector<std::string>* descs = nullptr);
    // After '(' up to and including ')': positional and keyword arguments into `n`.
    void parseCallArgs(Node& n);
    // After '[' (`open`) up to and including ']': one index, or a tuple of them.
    Arg parseSubscript(const Token& open);

private:
    Arg parseNumber(const Token& t, bool negative);
    Arg parseSignedNumber(const Token& sign);
    Arg parseString(Token first);
    Arg parseNameValue(const Token& name);
    Arg parseSequence(const Token& open, std::vector<std::string>* descs);
    Arg parseDict();
    Arg parseSlice();
    Arg parseDevice(Token nameTok);
    Arg parseTorchPath(Token first);
    Arg parseRawPrimary(Token first);
};

}  // namespace fxl
