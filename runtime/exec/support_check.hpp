// What a backend lacks to run a graph, found by planning it (runtime/exec/executor_plan.hpp) without
// running anything: `fxlens info` says whether a graph can run before `fxlens run` finds out
// at the first node it cannot.
#pragma once

#include <string>
#include <vector>

#include "core/ir/graph.hpp"
#include "runtime/base/tensor.hpp"

namespace fxl {

// One reason a graph cannot run ("no CPU kernel for prims.convert_element_type.default") and
// the nodes it stops ("graph/name" for nodes of nested graphs, by the attribute that holds them).
struct MissingSupport
{
    std::string reason;
    std::vector<std::string> nodes;
};

// Every reason the executor would refuse a node of `g` or of its nested graphs on `device`, in
// order of first appearance: an operator without a kernel, an unknown operator, arguments that
// do not fit the schema, a higher-order operator or a Dynamo-level call it does not support, a
// call_module. Empty when every node can run (data-dependent failures, such as an index out of
// range, show only when running).
std::vector<MissingSupport> missingSupport(const Graph& g, DeviceKind device = DeviceKind::Cpu);

}  // namespace fxl
