// Which ops the partitioner may recompute and which it treats specially (docs/passes.md section 9.8):
// PyTorch's op lists of min_cut_rematerialization_partition (views, recomputable ops, random
// and compute-intensive ops, collectives), matched by op name, with the registry's traits for
// ops the lists do not name.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>

#include "core/ir/graph.hpp"
#include "core/ops/op_registry.hpp"

namespace fxl::partitioning {

class PartitionOpSets
{
public:
    explicit PartitionOpSets(const OpRegistry& registry)
        : registry_(registry)
    { }

    // The registry entry of a call_function node (nullptr for other nodes and unknown ops).
    const OpInfo* opInfo(const Node& n) const;
    bool hasTrait(const Node& n, OpTrait trait) const;
    // "aten.mm.default" -> "mm" / "aten"; "operator.getitem" -> "getitem" / "operator".
    static std::string_view baseName(const Node& n);
    static std::string_view namespaceName(const Node& n);

    bool isView(const Node& n) const;
    bool isRandom(const Node& n) const;
    bool isComputeIntensive(const Node& n) const;
    bool isCollective(const Node& n) const;
    bool isRecomputable(const Node& n) const;
    bool isFusible(const Node& n) const { return isRecomputable(n) || isRandom(n); }
    bool isCat(const Node& n) const;
    bool isSideEffect(const Node& n) const { return hasTrait(n, kTraitSideEffect); }
    const OpRegistry& registry() const { return registry_; }

private:
    const OpRegistry& registry_;
    mutable std::unordered_map<std::string, const OpInfo*> infoByTarget_;
};

}  // namespace fxl::partitioning
