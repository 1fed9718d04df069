// The saves of the save_all and tagged partition modes: which forward values the forward
// hands to the backward. (The min-cut mode is in partition_min_cut.hpp.)
#pragma once

#include <vector>

#include "passes/partition_classify.hpp"

namespace fxl::partitioning {

// Joint node ids a mode chose to save, before the partitioner adds what the backward still
// misses and drops what it does not read.
struct SavedValues
{
    std::vector<NodeId> values;  // tensors and opaque values (a multi-output node through its getitems)
    std::vector<NodeId> symbols;  // symbolic scalars
};

// default_partition: every required_fw value (the getitems of a multi-output node); the ones
// the backward does not read are dropped after extraction.
SavedValues chooseSaveAll(const ClassifiedJoint& joint);

// _ReplaySavesPartitioner (5.4, landed semantics): MUST_SAVE / custom.ap_must_save nodes,
// placeholders, opaque values and symbolic scalars (except SymBools only asserts read), among
// the required_fw nodes and then the unclaimed ones; the backward recomputes the rest.
SavedValues chooseTagged(const ClassifiedJoint& joint);

}  // namespace fxl::partitioning
