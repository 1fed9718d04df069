// The partitioner behind the partition pass: normalises the recompute tags, classifies the
// joint graph, lets the mode choose the saves (partition_save_modes.hpp,
// partition_min_cut.hpp), completes them (what the backward still misses, minus what it does
// not read) and builds the forward and backward graphs.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "passes/partition.hpp"
#include "passes/partition_classify.hpp"
#include "passes/partition_op_sets.hpp"

namespace fxl::partitioning {

class Partitioner
{
public:
    // Takes its own copy of the joint (moved in when the caller has one to spare).
    Partitioner(Graph joint, const PartitionOptions& options, PassContext* context)
        : joint_(std::move(joint))
        , options_(options)
        , ops_(options.registry ? *options.registry : OpRegistry::instance())
        , context_(context)
    { }
    Partitioner(const Partitioner&) = delete;  // classified_ points into joint_
    Partitioner& operator=(const Partitioner&) = delete;

    PartitionResult run();

private:
    // The joint's name -> the name of the backward placeholder a loss seed became.
    using SeedRenames = std::vector<std::pair<std::string, std::string>>;

    Graph joint_;
    PartitionOptions options_;
    PartitionOpSets ops_;
    PassContext* context_;
    ClassifiedJoint classified_;
    std::vector<NodeId> saved_, savedSymbols_;
    std::vector<std::string> banned_;
    std::vector<std::string> notes_;

    const Node& node(NodeId id) const { return joint_.node(id); }
    const NodeClassification& classes() const { return classified_.classes; }
    bool hasSlot(NodeId id) const { return classified_.hasSlot(id); }

    void prepareTags();
    void classify();
    void chooseSaves();
    void keepInGraphOrder(std::vector<NodeId>& ids) const;
    std::vector<char> addMissingSaves();
    void dropSavesNotRead(const std::vector<char>& backwardNeed);

    // Backward nodes needed for the gradients given the current saves; fills `missing` with
    // forward placeholders / RNG ops the backward would need but that are not saved.
    std::vector<char> backwardNeeds(std::vector<NodeId>* missing) const;
    std::vector<char> forwardNeeds(const std::vector<char>& backwardNeed) const;
    std::vector<NodeId> reorderBackward(const std::vector<NodeId>& sequence) const;
    Node copyOf(const Node& src, const std::vector<NodeId>& copies) const;

    void buildForward(const std::vector<char>& forwardNeed, Graph& forward) const;
    SeedRenames buildBackward(const std::vector<char>& backwardNeed, Graph& backward) const;
    void copyNestedGraphs(Graph& part) const;
    void summarise(const std::vector<char>& forwardNeed, const std::vector<char>& backwardNeed, PartitionMode requested,
                   PartitionResult& result) const;
    void logToContext(const std::vector<char>& forwardNeed, const std::vector<char>& backwardNeed,
                      const SeedRenames& seedRenames, const PartitionResult& result) const;
};

}  // namespace fxl::partitioning
