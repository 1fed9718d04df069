// Custom operators declared in an ops file (docs/custom_ops.md): operators of third-party
// libraries and tests (apex.fused_layer_norm_affine_fwd, tg.log_tensor, test.baz) that
// ops.tsv does not know. Each declaration gives the op's schema and what it computes: the value
// of one of its arguments (identity) or an FX graph over known operators (decomposition).
// Loading a file adds the ops to OpRegistry::instance() with a meta function derived from the
// declaration; the runtime executes them from OpInfo::custom.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/ir/graph.hpp"
#include "core/ops/op_registry.hpp"
#include "core/ops/schema.hpp"

namespace fxl {

// What a declared operator computes.
struct CustomOp
{
    std::string file;  // the ops file that declared it
    int line = 0;  // line of its 'op' statement
    // identity: the index of the schema argument whose value the op returns (-1 otherwise)
    int identityArg = -1;
    // decomposition: placeholders are the schema's arguments in order; the output node returns
    // the schema's returns (a tuple; a single return may also be returned bare)
    std::shared_ptr<const Graph> decomposition;
};

// One declaration as read from a file.
struct CustomOpDecl
{
    Schema schema;  // ns set ("apex"), overload "default" when none was written
    std::shared_ptr<CustomOp> body;
};

// Parses an ops file's text. Throws InputError(file, line, column, what was expected) on a
// malformed file: an unknown statement, a schema that does not parse, an identity argument
// the schema lacks or whose type does not match the single return, a decomposition whose
// placeholders or returns do not match the schema, or that calls an operator the registry
// does not know.
std::vector<CustomOpDecl> parseOpsFile(std::string_view text, const std::string& file);

// Registers the declarations in OpRegistry::instance() (meta functions included). A name that
// is a built-in operator, or a custom one declared earlier with another schema, throws
// InputError at the declaration's line; declaring the same schema again replaces the body.
// Not thread-safe: load ops files before graphs are analysed or run concurrently.
void registerCustomOps(const std::vector<CustomOpDecl>& decls);

// Reads, parses and registers the file at `path` (InputError when it cannot be read). Returns
// the qualified names of the ops it declared.
std::vector<std::string> loadOpsFile(const std::string& path);

// The meta of a call of `op` (declared with `body`) given the metas of its bound arguments
// (tensor arguments by their meta, constants as the Args): identity: the argument's meta;
// decomposition: shape propagation through a copy of the graph with those inputs. Throws
// MetaError when the graph does not propagate.
ValueMeta customOpMeta(const OpInfo& op, const CustomOp& body, const MetaCall& call);

// The decomposition of a call of `op` as the call runs it: a copy of the graph with the call's
// tensor metas on its placeholders (constant arguments written in), shapes propagated. Throws
// MetaError as customOpMeta does. The memory timeline measures its temporaries with it.
Graph instantiateDecomposition(const OpInfo& op, const CustomOp& body, const MetaCall& call);

// What `fxlens run` / `info` say about an operator nobody declared: how to declare it.
std::string undeclaredOperatorHint();

}  // namespace fxl
