// Internal to the FX text reader (core/formats/fx): the statements of a forward body, in the
// forms FX's CodeGen emits: "name: annot = rhs" (a call, an operator, an attribute of self,
// a method), "a += b;  iadd = a", "a[i] = v;  setitem = a", Dynamo's "l_x_ = L_x_" aliases,
// ";  a = b = None" deletion lists, and "return ...".
#pragma once

#include <optional>

#include "core/formats/fx/fx_signature_parser.hpp"

namespace fxl {

class FxStatementParser : public FxSignatureParser
{
public:
    using FxSignatureParser::FxSignatureParser;

protected:
    // One statement of the forward body (the first token is not a comment).
    void parseStatement();

private:
    void parseAnnotatedStatement(Token first);
    void parseAnnotatedAssignment(Token lhs, const AnnotationText& annotation);
    void parseAssignment(Token lhs);
    void parseAlias(Token lhs, Token source);
    void parseInplace(Token lhs);
    void parseSetitem(Token lhs);
    // ";  name: annot = lhs" after an in-place operator or an item assignment: the name FX gives
    // the mutated value. `semicolonContext` and `targetWhat` go into error messages.
    void parseMutationName(Token lhs, Node&& node, const char* semicolonContext, const char* targetWhat);
    // The end of a statement: ";  a = b = None" deletion lists are checked, then dropped.
    void parseTail();
    void parseReturn(Token ret);

    // --- right-hand sides of assignments

    void parseRhs(Node& n);
    // "-x", "~x" (not a signed number literal): the unary operator node.
    bool startsUnaryOperator(const Token& op);
    // A rhs that starts with a name; returns the left operand when an operator or a subscript
    // follows, nullopt when `n` is complete (a call, a method, an attribute of self).
    std::optional<Arg> parseNameRhs(Node& n, const Token& first);
    // "self.layers.0" / "getattr(self.layers, \"0\").weight", called or not.
    void parseSelfPath(Node& n);
    // "obj.method(...)" or "obj.attr" after the node `object` and its '.'.
    void parseMethodOrAttribute(Node& n, Arg object);
    // "torch.ops.aten.mm.default(...)", "operator.add(...)", "getattr(...)".
    void parseCall(Node& n, const Token& first);
    // "left[index]" or "left <op> right".
    void parseOperatorRhs(Node& n, Arg left);
};

}  // namespace fxl
