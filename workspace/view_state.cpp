#include "workspace/view_state.hpp"

#include <nlohmann/json.hpp>

namespace fxl {

namespace {
using json = nlohmann::json;

const char* const kSource = "current_source";
const char* const kStep = "step";
const char* const kSelection = "selection";
const char* const kViewport = "viewport";
const char* const kExpanded = "expanded_groups";
const char* const kTabs = "open_tabs";

template<typename T>
void read(const std::map<std::string, std::string>& rows, const char* key, T& out)
{
    const auto it = rows.find(key);
    if (it == rows.end()) return;
    try {
        out = json::parse(it->second).get<T>();
    } catch (const json::exception&) { }
}
}  // namespace

std::map<std::string, std::string> ViewState::toRows() const
{
    std::map<std::string, std::string> rows = extra;
    rows[kSource] = json(currentSource).dump();
    rows[kStep] = json(stepIndex).dump();
    rows[kSelection] = json{{"graph", selectedGraph}, {"node", selectedNode}}.dump();
    rows[kViewport] = json{{"x", viewport.centreX}, {"y", viewport.centreY}, {"zoom", viewport.zoom}}.dump();
    rows[kExpanded] = json(expandedGroups).dump();
    rows[kTabs] = json(openTabs).dump();
    return rows;
}

ViewState ViewState::fromRows(const std::map<std::string, std::string>& rows)
{
    ViewState s;
    read(rows, kSource, s.currentSource);
    read(rows, kStep, s.stepIndex);
    json sel, vp;
    read(rows, kSelection, sel);
    read(rows, kViewport, vp);
    if (sel.is_object()) {
        s.selectedGraph = sel.value("graph", std::string());
        s.selectedNode = sel.value("node", std::string());
    }
    if (vp.is_object()) {
        try {
            s.viewport.centreX = vp.value("x", 0.0);
            s.viewport.centreY = vp.value("y", 0.0);
            s.viewport.zoom = vp.value("zoom", 1.0);
        } catch (const json::exception&) {
            s.viewport = Viewport{};
        }
    }
    read(rows, kExpanded, s.expandedGroups);
    read(rows, kTabs, s.openTabs);
    for (const auto& [k, v] : rows)
        if (k != kSource && k != kStep && k != kSelection && k != kViewport && k != kExpanded && k != kTabs)
            s.extra[k] = v;
    return s;
}

}  // namespace fxl
