// Nodes a graph pass must not run a second time, nor merge with an equal call, on its own: side
// effects and mutations, collectives, and ops the OpRegistry does not know. Recomputing one in
// the backward (sac + remat, partition(mode=tagged)) logs twice, mutates twice or issues a
// collective the other ranks do not issue; merging two (cse) drops one. sac, remat, partition
// and cse share this one predicate (docs/passes.md: "never recomputed unless a policy names them
// on purpose", as RNG ops already are).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/ir/graph.hpp"
#include "core/ops/op_registry.hpp"

namespace fxl {

enum class Unreplayable : uint8_t
{
    None,
    SideEffect,  // in-place, out=, auto_functionalized(_v2), with_effects, logging, call_module, side_effect trait
    Collective,  // _c10d_functional.* / c10d_functional.* / torch.distributed ops, wait_tensor
    Unknown,  // a call the OpRegistry does not know: it may do either
};

// "side effect", "collective", "unknown op" ("" for None).
std::string_view unreplayableName(Unreplayable k);

// Why `n` must not run twice (None when it may). A collective that also mutates counts as a
// collective; a logging op the registry does not know counts as a side effect.
Unreplayable unreplayableKind(const Node& n, const OpRegistry& reg = OpRegistry::instance());

// A collective or its wait (the Collective kind above).
inline bool isCollectiveNode(const Node& n, const OpRegistry& reg = OpRegistry::instance())
{
    return unreplayableKind(n, reg) == Unreplayable::Collective;
}

// Names of nodes grouped by kind, for the notes: "5 side effect (log_tensor, log_tensor_1, ...),
// 7 collective (broadcast, ...)" with at most `maxNames` names per kind.
struct UnreplayableCounts
{
    std::vector<std::string> sideEffect, collective, unknown;
    void add(Unreplayable k, const std::string& name);
    size_t total() const { return sideEffect.size() + collective.size() + unknown.size(); }
    std::string text(size_t maxNames = 3) const;  // "" when total() == 0
};

}  // namespace fxl
