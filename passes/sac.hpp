// Helpers shared by the activation-checkpointing passes (annotate_regions, sac, remat):
// recompute tags, AC region ids, op classes (SAVE_OPS, RNG, getitem / wait), target matching.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "core/ir/graph.hpp"
#include "core/ops/op_registry.hpp"
#include "passes/pass.hpp"

namespace fxl {

// must_recompute of docs/passes.md section 2.5: MUST_RECOMPUTE or PREFER_RECOMPUTE.
inline bool isRecomputeTag(Recompute r) { return r == Recompute::MustRecompute || r == Recompute::PreferRecompute; }

// custom.ac_region_id when it is a non-negative integer (torchtitan's -1 = "not in layers").
std::optional<int> acRegionId(const Node& n);
// Writes custom.ac_region_id (custom becomes an object when it was null).
void setAcRegionId(Node& n, int id);

// "aten.mm.default" -> "aten.mm"; "operator.getitem" -> "operator.getitem".
std::string opPacket(std::string_view target);
// "aten.mm.default" -> "mm"; "higher_order.flex_attention" -> "flex_attention".
std::string opBaseName(std::string_view target);

// A user's op pattern against a node target: the full name ("aten.mm.default"), the packet
// ("aten.mm"), the name with overload ("mm.default") or the bare name ("mm").
bool targetMatches(std::string_view target, std::string_view pattern);

// getitem and wait_tensor: never decided on their own, they inherit their producer's tag.
// detach / alias too (docs/passes.md section 2.6), so a policy that saves "everything else" does not stop
// the recompute walk at an alias of a recomputable value.
bool inheritsTag(const Node& n);
// RNG ops (registry trait "random", plus the usual random op names the registry lacks).
bool isRngNode(const Node& n, const OpRegistry& reg = OpRegistry::instance());
// torchtitan's SAVE_OPS (docs/passes.md section 7.4): compute-intensive ops, attention kinds (the CPU
// flash variant included), aten.max.default, linear, flex attention / compiled-code HOPs,
// reduce_scatter / all_to_all outputs and DeepEP/HybridEP dispatch / combine.
bool isSaveOp(const Node& n);
// The node's value is a symbolic scalar (SymInt / SymFloat / SymBool) or its op is a sym op.
bool isSymNode(const Node& n, const OpRegistry& reg = OpRegistry::instance());

// The sac pass (per-op selective activation-checkpoint tagging).
std::unique_ptr<Pass> makeSacPass();

}  // namespace fxl
