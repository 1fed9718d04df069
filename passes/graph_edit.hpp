// Graph utilities shared by the passes: copying a node under a remap, erasing dead nodes,
// rewiring uses with change-log entries, the "impure" predicate of dead-code elimination and
// a topological-order check.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/ir/graph.hpp"
#include "core/ops/op_registry.hpp"
#include "passes/pass.hpp"

namespace fxl {

struct DceOptions
{
    bool collectivesPure = false;  // collectives and wait_tensor may be removed when unused
    bool randomPure = false;  // random ops may be removed (shifts the RNG stream)
    bool removeUnusedInputs = false;  // unused placeholders are removed too
};

// Why a node is never dead-code eliminated; None when it is pure.
enum class ImpureReason : uint8_t
{
    None,
    Placeholder,  // graph input (unless removeUnusedInputs)
    Output,
    Inplace,  // mutates an argument (in-place op, `!` in the schema, method ending in '_')
    SideEffect,  // kTraitSideEffect, effect-token HOPs, call_module
    Collective,  // collectives and wait_tensor (unless collectivesPure)
    Random,  // consumes RNG state (unless randomPure)
    Unknown,  // call_function target the registry does not know
};
std::string_view impureReasonName(ImpureReason r);  // "placeholder", "in-place", ...

ImpureReason impureReason(const Node& n, const OpRegistry& reg, const DceOptions& opts);
// Whether a call of `op` draws random numbers only through its arguments: it has a
// `dropout_p` argument (the attention ops) and the node gives it something other than 0.
bool dropsOut(const Node& n, const OpInfo& op);
inline bool isImpure(const Node& n, const OpRegistry& reg, const DceOptions& opts)
{
    return impureReason(n, reg, opts) != ImpureReason::None;
}

// Removes every node that has no users and is not impure, newest first (so chains of dead
// nodes go in one sweep). Records removals (and a note per reason dead nodes were kept)
// on ctx when given. Rebuilds users. Returns the number removed.
size_t eliminateDeadCode(Graph& g, const DceOptions& opts, PassContext* ctx = nullptr);

// Copies `src` (a node of any graph, `g` included) into `g`, remapping each node reference of its
// args/kwargs through `remap` (which must return a node of `g` defined before `before`),
// and inserts it before `before` (kNoNode = append) under a unique name derived from
// `nameHint` (src.name when empty). The copy's meta.provenance is src.name; users are not
// rebuilt (call g.rebuildUsers() after a batch of edits). Records the addition on ctx.
NodeId copyNodeBefore(Graph& g, const Node& src, const std::function<NodeId(NodeId)>& remap, NodeId before,
                      std::string_view nameHint = "", PassContext* ctx = nullptr);

// Removes the given nodes newest first (by position in the order); every node must have no
// users outside the set. Records removals on ctx. Rebuilds users. Returns how many it removed.
size_t eraseNodes(Graph& g, std::vector<NodeId> ids, PassContext* ctx = nullptr);

// Replaces every use of `from` by `to` (args and kwargs of its users), recording one rewired
// entry per argument position ("arg 1", "arg 0[2]", "kwarg other") on ctx, in graph order.
// `from`'s users must be current (Graph::rebuildUsers); the users of `from` and `to` are kept
// current (the order of `to`'s users is restored by the next rebuildUsers). Returns the
// number of positions rewired.
size_t replaceAllUsesLogged(Graph& g, NodeId from, NodeId to, PassContext* ctx = nullptr);

// True when every node argument refers to a live node defined earlier in the order, the
// output node (if any) is last, and names are unique; `why` gets the first violation.
bool isTopologicallyOrdered(const Graph& g, std::string* why = nullptr);

// The text form of a recompute tag for ChangeLog::TagSet ("" when None).
std::string recomputeText(Recompute r);

}  // namespace fxl
