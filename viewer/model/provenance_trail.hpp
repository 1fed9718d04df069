// Where a node of a step came from: its counterpart in every earlier step, down to the input
// graph and its source line, through the diffs the step runner made (viewer/jobs/step_jobs.hpp).
// A copy made by a pass (a recomputed node) continues through the node it copies
// (meta.provenance), so a recomputed node links to the forward node it recomputes.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "viewer/jobs/step_jobs.hpp"

namespace fxl::viewer {

struct TrailEntry
{
    int step = 0;
    std::string role;  // the graph of the step it is in ("" when the step has one)
    std::string node;  // its name in that step
    // what the step did to it: "unchanged", "changed: recompute", "added: copy of gelu",
    // "added", "renamed from x"; "input" for step 0
    std::string change;
    std::string copyOf;  // for a copy: the node it copies (in the step before)
    SourceLocation source;  // step 0 only: where the input graph says it comes from
};

// The trail of `node` of step `step` (graph `role`), newest first: one entry per step from
// `step` down to the input, or fewer when the node was made by a pass from nothing (an added
// node that copies nothing ends it). Empty when the step or the node does not exist.
std::vector<TrailEntry> provenanceTrail(const std::vector<std::shared_ptr<const StepState>>& steps, int step,
                                        const std::string& role, const std::string& node);

// One line per entry: "step 3 (remat): gelu_recomputed  added: copy of gelu", then the source
// of the input's node when known.
std::string trailToText(const std::vector<TrailEntry>& trail,
                        const std::vector<std::shared_ptr<const StepState>>& steps);

}  // namespace fxl::viewer
