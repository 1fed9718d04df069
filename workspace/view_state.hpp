// What reopening a workspace restores of the window: the current source and step, the
// selection, the viewport, the open groups and tabs. Saved as one row per key in the
// view_state table (workspace/workspace_schema.hpp), each value JSON text, so a newer fxlens
// can add keys that an older one keeps (in `extra`) without a format change.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace fxl {

struct Viewport
{
    double centreX = 0.0, centreY = 0.0;  // scene coordinates at the centre of the view
    double zoom = 1.0;
    bool operator==(const Viewport&) const = default;
};

struct ViewState
{
    int64_t currentSource = 0;  // sources.id (0 = none)
    int stepIndex = 0;  // the step shown (0 = the input)
    std::string selectedGraph;  // graph role of the selection ("" = the step's first graph)
    std::string selectedNode;  // node name ("" = nothing selected)
    Viewport viewport;
    std::vector<std::string> expandedGroups;  // group paths ("forward/blocks.0")
    std::vector<std::string> openTabs;  // the GUI's tab names, in order
    std::map<std::string, std::string> extra;  // rows of keys this version does not know: kept as they are

    bool operator==(const ViewState&) const = default;

    // key -> JSON text, the rows of the view_state table.
    std::map<std::string, std::string> toRows() const;
    // The inverse; a key that is missing or does not parse keeps its default (a damaged row
    // must not stop a workspace from opening), unknown keys go to `extra`.
    static ViewState fromRows(const std::map<std::string, std::string>& rows);
};

}  // namespace fxl
