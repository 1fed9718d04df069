// Drawing a CUDA memory snapshot's active-memory timeline (viewer/model/snapshot_timeline_model.hpp)
// with QPainter, as memory_viz's "Active Memory Timeline" draws it: each of the largest
// allocations a coloured band stacked in allocation order over the allocator's steps (a freed
// band's upper neighbours slide down), the smaller ones summed in one grey band on top, the y
// axis rescaled to the range shown, the peak marked with its bytes, step and FX node. The
// window's snapshot view and its PNG export draw through the same routines.
#pragma once

#include <QColor>
#include <QImage>
#include <QPainter>
#include <QRectF>

#include "viewer/model/snapshot_timeline_model.hpp"

namespace fxl::viewer {

struct SnapshotDrawOptions
{
    int64_t first = 0, last = -1;  // the steps shown (last -1: to the end)
    int hoverBand = -1;  // a row of the model, drawn outlined
    int64_t hoverStep = -1;  // a vertical line there
    uint64_t yMax = 0;  // the y axis' top; 0: the largest bytes in the range shown
    bool dark = false;
    QString title;  // written above the plot, before the peak label ("" none)
};

// The steps shown, clamped to the model: [first, last].
int64_t snapshotFirstStep(const SnapshotDrawOptions& o, const SnapshotTimelineModel& m);
int64_t snapshotLastStep(const SnapshotDrawOptions& o, const SnapshotTimelineModel& m);

// The plot inside the widget's rectangle (margins for the axes and the title).
QRectF snapshotPlotRect(const QRectF& widgetRect);
// Between the plot's coordinates and the timeline's: a step (fractional) and bytes.
double snapshotStepAt(double x, const QRectF& plot, const SnapshotDrawOptions& o, const SnapshotTimelineModel& m);
double snapshotXOf(double step, const QRectF& plot, const SnapshotDrawOptions& o, const SnapshotTimelineModel& m);
double snapshotYTop(const SnapshotDrawOptions& o, const SnapshotTimelineModel& m);  // bytes at the plot's top
double snapshotBytesAt(double y, const QRectF& plot, const SnapshotDrawOptions& o, const SnapshotTimelineModel& m);
// The band (a model row) under a point of the plot; -1 when none.
int snapshotBandAt(const QPointF& pos, const QRectF& plot, const SnapshotDrawOptions& o,
                   const SnapshotTimelineModel& m);
// A band's colour: memory_viz's categorical palette by element, grey for the summarized band.
QColor snapshotBandColour(int64_t element, bool dark);

void drawSnapshotTimeline(QPainter& p, const QRectF& widgetRect, const SnapshotTimelineModel& m,
                          const SnapshotDrawOptions& o);
// The whole timeline small (the bytes live at each step), with the range shown as a brush.
void drawSnapshotOverview(QPainter& p, const QRectF& rect, const SnapshotTimelineModel& m, int64_t first, int64_t last,
                          bool dark);
// The timeline as an image (an export), `scale` device pixels per point.
QImage renderSnapshotImage(const SnapshotTimelineModel& m, int width, int height, double scale = 1.0,
                           bool dark = false);

}  // namespace fxl::viewer
