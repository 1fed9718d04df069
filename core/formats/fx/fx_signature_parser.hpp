// Internal to the FX text reader (core/formats/fx): the state of the forward being read and the
// forms that give it its placeholders. The def line's parameters (flat or one per line with
// "# desc" comments) become placeholders at the first node, unless a prologue replaces them:
// pytree ("name: annot; ..." declarations, then "a, b, = fx_pytree.tree_flatten_spec(...)")
// or boxed ("args_iter = iter(args_list)", "x = next(args_iter)", "args_list.clear()").
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/formats/fx/fx_value_parser.hpp"

namespace fxl {

class FxSignatureParser : public FxValueParser
{
public:
    using FxValueParser::FxValueParser;

protected:
    // A parameter of the def line (or a pytree declaration) before it becomes a placeholder.
    struct Param
    {
        std::string_view target;  // as written, '*' included
        uint32_t offset = 0;  // of the name
        ValueMeta val;
        std::string typeExpr;
        std::optional<Arg> defaultValue;
        std::string desc;
    };

    // What is known while one forward is read.
    struct ForwardState
    {
        ForwardState(Graph& g, std::string_view text)
            : graph(&g)
            , names(text)
        { }
        Graph* graph;
        NodeNameTable names;
        std::vector<uint32_t> definedAt;  // node id -> offset of its definition (error messages)
        std::vector<Param> params;
        std::unordered_set<std::string_view> paramNames;
        bool selfParam = false;
        bool materialized = false;  // the placeholders exist (from the params or a prologue)
        bool boxed = false;
        bool pytree = false;
        bool returned = false;
        std::unordered_map<std::string_view, Param> declared;  // pytree "name: annot" lines
        std::vector<std::string_view> declaredOrder;
        NodeMeta latestSummary;  // meta from the latest summary comment
    };
    ForwardState* forward_ = nullptr;

    // Makes `state` the forward being read; returns the one it replaces (nested classes).
    ForwardState* enterForward(ForwardState& state);
    void leaveForward(ForwardState* previous);

    // Adds a node whose name is spelled at `at` in the text; binds the name for lookups.
    NodeId addNode(Node&& n, uint32_t at, bool bind = true);

    // The parameter list from '(' to ')'; true when it spans several lines (expanded).
    bool parseParams(ForwardState& state);
    // The def parameters become placeholders (unless a pytree or boxed prologue replaced them).
    void materialize();

    // "name: annot; name2: annot2  # desc" after the first annotation (already read).
    void parseDeclarations(Token first, AnnotationText annotation);
    // "a, b, = fx_pytree.tree_flatten_spec([primals, tangents], self._in_spec)"
    void parseFlatten(Token first);
    // "args_iter = iter(args_list)" after '=' ("iter(" ahead).
    void parseBoxedIter(Token lhs);
    // "x = next(args_iter)" after '=' ("next" ahead): the placeholder `node` named `lhs`.
    void parseBoxedPlaceholder(Token lhs, Node&& node);
    // "args_list.clear()" ("args_list" ahead).
    void parseBoxedClear();
};

}  // namespace fxl
