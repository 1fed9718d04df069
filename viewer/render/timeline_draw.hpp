// Drawing a memory timeline (viewer/model/timeline_model.hpp) with QPainter: the panel of the
// window and the PNG export (`fxlens mem --png`, reports) draw through the same routine.
//
// What is drawn, in a plot rectangle: live bytes of the current step as a filled area over
// execution order, coloured by phase (inputs, forward, backward, output); the part of it that is saved
// activations shaded darker; the step before as a line over it; the forward/backward boundary
// as a dashed vertical line; the peak as a marker labelled with its bytes and node (and the
// previous peak as a hollow marker); a y axis in bytes; a hover line. Many points per pixel
// column are reduced to their maximum, so a peak never disappears at any zoom.
#pragma once

#include <QColor>
#include <QImage>
#include <QPainter>
#include <QRectF>
#include <QString>

#include <vector>

#include "viewer/model/timeline_model.hpp"

namespace fxl::viewer {

struct TimelineDrawOptions
{
    int first = 0, last = -1;  // the rows shown (last -1: to the end)
    int hoverRow = -1, selectedRow = -1;
    bool dark = false;
    bool legend = true;
    bool title = true;  // the peak (and its change) written above the plot
};

// The area colour of a phase: inputs, forward, backward, output each their own.
QColor timelineAreaColour(StepPhase phase, bool dark);

// The legend: every colour and mark the plot draws over the rows shown (the phases present, the
// saved activations, the line where the backward starts, the step before, what a run measured).
struct TimelineLegendEntry
{
    enum class Mark
    {
        Area,
        Line,
        DashedLine
    };
    QColor colour;
    QString text;
    Mark mark = Mark::Area;
};
std::vector<TimelineLegendEntry> timelineLegend(const TimelineModel& m, const TimelineDrawOptions& opts);

// Margins around the plot inside the widget: the axis labels and the title.
QRectF timelinePlotRect(const QRectF& widgetRect, const TimelineDrawOptions& opts);
// The row under x in the plot (clamped to the range shown); -1 when the model is empty.
int timelineRowAt(double x, const QRectF& plot, const TimelineDrawOptions& opts, const TimelineModel& m);
// The x of a row's centre in the plot.
double timelineXOf(int row, const QRectF& plot, const TimelineDrawOptions& opts, const TimelineModel& m);

void drawTimeline(QPainter& p, const QRectF& widgetRect, const TimelineModel& m, const TimelineDrawOptions& opts);

// The overview strip under the plot (memory_viz's minimap): the whole timeline, small, with the
// range shown marked as a brush.
void drawTimelineOverview(QPainter& p, const QRectF& rect, const TimelineModel& m, int first, int last, bool dark);

// The whole timeline as an image (the export), `scale` device pixels per point.
QImage renderTimelineImage(const TimelineModel& m, int width, int height, double scale = 1.0, bool dark = false);

}  // namespace fxl::viewer
