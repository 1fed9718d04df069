// The saves of the min-cut partition mode: min_cut_rematerialization_partition's
// choose_saved_values_set with budget 1.0 (passes.md 6.3-6.5). Each node is an edge
// in -> out weighted by its size (grown with its distance to the backward, doubled when it
// would not be materialized anyway); what the backward needs is joined to the sink, what
// must not be recomputed (bans) to the source. The minimum cut is the set of values to save.
#pragma once

#include <string>
#include <vector>

#include "passes/partition.hpp"
#include "passes/partition_op_sets.hpp"
#include "passes/partition_save_modes.hpp"

namespace fxl::partitioning {

struct MinCutChoice
{
    SavedValues saved;  // in graph order
    std::vector<std::string> banned;  // names of the nodes joined to the source, in graph order
    std::vector<std::string> notes;
};

// Throws PassError when no finite cut exists (a value the backward needs can be neither
// saved nor recomputed).
MinCutChoice chooseMinCut(const ClassifiedJoint& joint, const PartitionOpSets& ops, const PartitionOptions& options);

}  // namespace fxl::partitioning
