// What File > Export writes: the views on screen to files. Each function returns the error
// ("" when written). A file is written through a temporary file renamed over it (never half a
// file), and an existing file is replaced only with `replace` (the save dialog asked first).
#pragma once

#include <QByteArray>
#include <QString>

namespace fxl {
class Graph;
}

namespace fxl::viewer {

class DiffView;
class GraphView;
class TimelineModel;

QString writeExport(const QString& path, const QByteArray& bytes, bool replace);

// The graph view as it is shown (open groups, marks, selection): .svg, else .png.
QString exportGraphView(const GraphView& view, const QString& path, bool replace);
// The diff view's two sides, side by side with their titles: .svg, else .png.
QString exportDiffView(const DiffView& diff, const QString& path, bool replace);
// The memory timeline shown: .csv (one row per node, core/analysis/memory_timeline.hpp
// timelineToCsv of `graph`), else .png.
QString exportTimelineView(const TimelineModel& model, const Graph& graph, bool dark, const QString& path,
                           bool replace);

}  // namespace fxl::viewer
