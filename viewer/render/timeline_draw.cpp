#include "viewer/render/timeline_draw.hpp"

#include <QPainterPath>

#include <algorithm>
#include <cmath>

#include "core/util/format.hpp"
#include "viewer/render/scene_draw.hpp"

namespace fxl::viewer {

namespace {

QColor qc(Rgb c) { return QColor(c.r, c.g, c.b); }

int lastRow(const TimelineDrawOptions& o, const TimelineModel& m)
{
    const int n = m.rowCount();
    return o.last < 0 || o.last >= n ? n - 1 : o.last;
}

int firstRow(const TimelineDrawOptions& o, const TimelineModel& m)
{
    return std::clamp(o.first, 0, std::max(0, m.rowCount() - 1));
}

// A "nice" step for about `ticks` ticks over [0, max]: 1, 2 or 5 times a power of 1024 or 10.
double niceStep(double max, int ticks)
{
    if (max <= 0) return 1;
    const double raw = max / ticks;
    // powers of two read as binary units: 256 KiB, 512 KiB, 1 MiB
    double step = 1;
    while (step * 2 <= raw) step *= 2;
    return step * 2;
}

const QColor kPrevious(230, 140, 20);
const QColor kMeasured(20, 150, 60);

}  // namespace

QColor timelineAreaColour(StepPhase ph, bool dark)
{
    switch (ph) {
    case StepPhase::Backward: return dark ? QColor(170, 90, 90) : QColor(214, 120, 120);
    case StepPhase::Input: return dark ? QColor(105, 105, 115) : QColor(185, 185, 195);
    case StepPhase::Output: return dark ? QColor(150, 110, 185) : QColor(165, 125, 205);
    case StepPhase::Forward: break;
    }
    return dark ? QColor(90, 130, 190) : QColor(110, 160, 220);
}

std::vector<TimelineLegendEntry> timelineLegend(const TimelineModel& m, const TimelineDrawOptions& opts)
{
    using Mark = TimelineLegendEntry::Mark;
    std::vector<TimelineLegendEntry> out;
    if (m.rowCount() == 0) return out;
    const int a = firstRow(opts, m), b = lastRow(opts, m);
    bool present[4] = {false, false, false, false};
    for (int r = a; r <= b; ++r) present[static_cast<size_t>(m.points()[static_cast<size_t>(r)].phase)] = true;
    // the phases drawn in the range shown, in execution order
    const std::pair<StepPhase, QString> phases[] = {{StepPhase::Input, QObject::tr("inputs")},
                                                    {StepPhase::Forward, QObject::tr("forward")},
                                                    {StepPhase::Backward, QObject::tr("backward")},
                                                    {StepPhase::Output, QObject::tr("output")}};
    for (const auto& [ph, text] : phases)
        if (present[static_cast<size_t>(ph)]) out.push_back({timelineAreaColour(ph, opts.dark), text, Mark::Area});
    out.push_back({timelineAreaColour(StepPhase::Forward, opts.dark).darker(opts.dark ? 150 : 135),
                   QObject::tr("saved activations"), Mark::Area});
    if (m.boundaryRow() >= a && m.boundaryRow() <= b)
        out.push_back({qc(theme(opts.dark).text), QObject::tr("backward starts"), Mark::DashedLine});
    if (m.hasPrevious()) out.push_back({kPrevious, QObject::tr("step before"), Mark::Line});
    if (m.hasMeasured()) out.push_back({kMeasured, QObject::tr("measured"), Mark::DashedLine});
    return out;
}

QRectF timelinePlotRect(const QRectF& r, const TimelineDrawOptions& opts)
{
    const double top = opts.title ? 22 : 6;
    return r.adjusted(64, top, -10, -18);
}

double timelineXOf(int row, const QRectF& plot, const TimelineDrawOptions& opts, const TimelineModel& m)
{
    const int a = firstRow(opts, m), b = lastRow(opts, m);
    const double n = std::max(1, b - a + 1);
    return plot.left() + (row - a + 0.5) * plot.width() / n;
}

int timelineRowAt(double x, const QRectF& plot, const TimelineDrawOptions& opts, const TimelineModel& m)
{
    if (m.rowCount() == 0) return -1;
    const int a = firstRow(opts, m), b = lastRow(opts, m);
    const double n = std::max(1, b - a + 1);
    const int row = a + static_cast<int>(std::floor((x - plot.left()) * n / std::max(1.0, plot.width())));
    return std::clamp(row, a, b);
}

void drawTimeline(QPainter& p, const QRectF& widgetRect, const TimelineModel& m, const TimelineDrawOptions& opts)
{
    const Theme& th = theme(opts.dark);
    p.save();
    p.setRenderHint(QPainter::Antialiasing, false);
    p.fillRect(widgetRect, qc(th.background));
    QFont f = p.font();
    f.setPointSizeF(8);
    p.setFont(f);
    const QRectF plot = timelinePlotRect(widgetRect, opts);
    if (m.rowCount() == 0 || plot.width() < 10 || plot.height() < 10) {
        p.setPen(qc(th.subText));
        p.drawText(widgetRect, Qt::AlignCenter, QObject::tr("no memory timeline"));
        p.restore();
        return;
    }
    const int a = firstRow(opts, m), b = lastRow(opts, m);
    const auto& pts = m.points();
    // y scale: the largest value in the range shown
    int64_t ymax = 1;
    for (int r = a; r <= b; ++r) {
        const auto& pt = pts[static_cast<size_t>(r)];
        ymax = std::max({ymax, pt.live, m.hasPrevious() ? pt.previousLive : 0, pt.measured});
    }
    const double step = niceStep(static_cast<double>(ymax), 4);
    const double top = std::ceil(static_cast<double>(ymax) * 1.08 / step) * step;
    auto yOf = [&](double bytes) { return plot.bottom() - bytes / top * plot.height(); };

    // grid and y axis
    p.setPen(QPen(qc(th.border), 0, Qt::DotLine));
    for (double v = 0; v <= top + 0.5; v += step) {
        const double y = yOf(v);
        p.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y));
        p.setPen(qc(th.subText));
        p.drawText(QRectF(widgetRect.left(), y - 7, plot.left() - widgetRect.left() - 4, 14),
                   Qt::AlignRight | Qt::AlignVCenter, QString::fromStdString(formatByteSize(static_cast<int64_t>(v))));
        p.setPen(QPen(qc(th.border), 0, Qt::DotLine));
    }

    // per pixel column: the maximum of each series over the rows it covers
    const int cols = std::max(1, static_cast<int>(std::floor(plot.width())));
    const int n = b - a + 1;
    const bool perRow = n <= cols;
    const int count = perRow ? n : cols;
    auto colRange = [&](int c, int& r0, int& r1) {
        if (perRow) {
            r0 = r1 = a + c;
            return;
        }
        r0 = a + static_cast<int>(static_cast<int64_t>(c) * n / count);
        r1 = a + static_cast<int>(static_cast<int64_t>(c + 1) * n / count) - 1;
        r1 = std::max(r0, r1);
    };
    const double colW = plot.width() / count;
    for (int c = 0; c < count; ++c) {
        int r0, r1;
        colRange(c, r0, r1);
        int64_t live = 0, saved = 0;
        StepPhase ph = pts[static_cast<size_t>(r0)].phase;
        for (int r = r0; r <= r1; ++r) {
            const auto& pt = pts[static_cast<size_t>(r)];
            if (pt.live >= live) ph = pt.phase;
            live = std::max(live, pt.live);
            saved = std::max(saved, pt.saved);
        }
        const double x0 = plot.left() + c * colW, x1 = x0 + colW;
        const QColor fill = timelineAreaColour(ph, opts.dark);
        p.fillRect(QRectF(QPointF(x0, yOf(static_cast<double>(live))), QPointF(x1, plot.bottom())), fill);
        if (saved > 0)
            p.fillRect(QRectF(QPointF(x0, yOf(static_cast<double>(saved))), QPointF(x1, plot.bottom())),
                       fill.darker(opts.dark ? 150 : 135));
    }
    // the step before, as a line
    if (m.hasPrevious()) {
        p.setRenderHint(QPainter::Antialiasing, true);
        QPainterPath path;
        for (int c = 0; c < count; ++c) {
            int r0, r1;
            colRange(c, r0, r1);
            int64_t v = 0;
            for (int r = r0; r <= r1; ++r) v = std::max(v, pts[static_cast<size_t>(r)].previousLive);
            const double x0 = plot.left() + c * colW, y = yOf(static_cast<double>(v));
            if (c == 0)
                path.moveTo(x0, y);
            else
                path.lineTo(x0, y);
            path.lineTo(x0 + colW, y);
        }
        p.setPen(QPen(kPrevious, 1.5));
        p.setBrush(Qt::NoBrush);
        p.drawPath(path);
        p.setRenderHint(QPainter::Antialiasing, false);
    }
    // what a run measured, as a dashed line
    if (m.hasMeasured()) {
        QPainterPath path;
        bool started = false;
        for (int c = 0; c < count; ++c) {
            int r0, r1;
            colRange(c, r0, r1);
            int64_t v = -1;
            for (int r = r0; r <= r1; ++r) v = std::max(v, pts[static_cast<size_t>(r)].measured);
            if (v < 0) continue;
            const double x0 = plot.left() + c * colW, y = yOf(static_cast<double>(v));
            if (!started)
                path.moveTo(x0, y);
            else
                path.lineTo(x0, y);
            path.lineTo(x0 + colW, y);
            started = true;
        }
        p.setPen(QPen(kMeasured, 1.5, Qt::DashLine));
        p.setBrush(Qt::NoBrush);
        p.drawPath(path);
    }
    // boundary
    if (m.boundaryRow() >= a && m.boundaryRow() <= b) {
        const double x = timelineXOf(m.boundaryRow(), plot, opts, m);
        p.setPen(QPen(qc(th.text), 1, Qt::DashLine));
        p.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
        p.drawText(QPointF(x + 3, plot.top() + 10), QObject::tr("backward \u2192"));
    }
    // axes
    p.setPen(qc(th.border));
    p.drawLine(plot.bottomLeft(), plot.bottomRight());
    p.drawLine(plot.bottomLeft(), plot.topLeft());
    p.setPen(qc(th.subText));
    p.drawText(QRectF(plot.left(), plot.bottom() + 2, plot.width(), 14), Qt::AlignLeft, QString::number(a));
    p.drawText(QRectF(plot.left(), plot.bottom() + 2, plot.width(), 14), Qt::AlignHCenter,
               QObject::tr("execution order (%1 nodes)").arg(n));
    p.drawText(QRectF(plot.left(), plot.bottom() + 2, plot.width(), 14), Qt::AlignRight, QString::number(b));

    // markers: the previous peak (hollow), the peak (filled, labelled)
    p.setRenderHint(QPainter::Antialiasing, true);
    if (m.hasPrevious() && m.previousPeakRow() >= a && m.previousPeakRow() <= b) {
        const auto& pt = pts[static_cast<size_t>(m.previousPeakRow())];
        const QPointF c(timelineXOf(m.previousPeakRow(), plot, opts, m), yOf(static_cast<double>(pt.previousLive)));
        p.setPen(QPen(kPrevious, 1.5));
        p.setBrush(Qt::NoBrush);
        p.drawEllipse(c, 4, 4);
    }
    if (m.peakRow() >= a && m.peakRow() <= b) {
        const auto& pt = pts[static_cast<size_t>(m.peakRow())];
        const QPointF c(timelineXOf(m.peakRow(), plot, opts, m), yOf(static_cast<double>(pt.live)));
        p.setPen(QPen(qc(th.text), 1));
        p.setBrush(QColor(200, 30, 30));
        p.drawEllipse(c, 4, 4);
        const QString label = m.peakLabel();
        const QFontMetricsF fm(p.font());
        const double w = fm.horizontalAdvance(label) + 8;
        double x = c.x() + 7;
        if (x + w > plot.right()) x = c.x() - 7 - w;
        const QRectF box(x, c.y() - 8, w, 15);
        p.setPen(qc(th.border));
        p.setBrush(qc(th.background));
        p.drawRect(box);
        p.setPen(qc(th.text));
        p.drawText(box, Qt::AlignCenter, label);
    }
    p.setRenderHint(QPainter::Antialiasing, false);
    // hover and selection lines
    auto vline = [&](int row, QColor col) {
        if (row < a || row > b) return;
        const double x = timelineXOf(row, plot, opts, m);
        p.setPen(QPen(col, 1));
        p.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
    };
    vline(opts.selectedRow, qc(th.selected));
    vline(opts.hoverRow, qc(th.subText));

    // title and legend
    double titleEnd = plot.left();
    if (opts.title) {
        QFont tf = p.font();
        tf.setBold(true);
        p.setFont(tf);
        p.setPen(qc(th.text));
        const QString title =
            m.hasPrevious() ? m.peakChangeLabel() + QStringLiteral("   ") + m.peakLabel() : m.peakLabel();
        p.drawText(QRectF(plot.left(), widgetRect.top() + 3, plot.width(), 16), Qt::AlignLeft | Qt::AlignVCenter,
                   title);
        titleEnd = plot.left() + QFontMetricsF(tf).horizontalAdvance(title) + 12;
        p.setFont(f);
    }
    if (opts.legend) {
        const std::vector<TimelineLegendEntry> entries = timelineLegend(m, opts);
        const QFontMetricsF fm(p.font());
        double width = 0;
        for (const TimelineLegendEntry& e : entries) width += fm.horizontalAdvance(e.text) + 22;
        // beside the title when there is room, else inside the plot's top right corner
        double y = widgetRect.top() + 6;
        if (!opts.title || plot.right() - width < titleEnd) {
            y = opts.title ? plot.top() + 4 : widgetRect.top() + 6;
            QColor bg = qc(th.background);
            bg.setAlpha(220);
            p.fillRect(QRectF(plot.right() - width - 6, y - 3, width + 6, 16), bg);
        }
        double x = plot.right();
        for (auto it = entries.rbegin(); it != entries.rend(); ++it) {
            x -= fm.horizontalAdvance(it->text) + 22;
            if (it->mark != TimelineLegendEntry::Mark::Area) {
                p.setPen(QPen(it->colour, 2,
                              it->mark == TimelineLegendEntry::Mark::DashedLine ? Qt::DashLine : Qt::SolidLine));
                p.drawLine(QPointF(x, y + 5), QPointF(x + 12, y + 5));
            } else {
                p.fillRect(QRectF(x, y, 12, 10), it->colour);
            }
            p.setPen(qc(th.text));
            p.drawText(QPointF(x + 15, y + 9), it->text);
        }
    }
    p.restore();
}

void drawTimelineOverview(QPainter& p, const QRectF& rect, const TimelineModel& m, int first, int last, bool dark)
{
    const Theme& th = theme(dark);
    p.save();
    p.fillRect(rect, qc(th.background));
    p.setPen(qc(th.border));
    p.drawRect(rect.adjusted(0, 0, -1, -1));
    const int n = m.rowCount();
    if (n > 0) {
        const auto& pts = m.points();
        const int64_t ymax = std::max<int64_t>(1, m.maxBytes());
        const int cols = std::max(1, static_cast<int>(rect.width()));
        const double colW = rect.width() / cols;
        for (int c = 0; c < cols; ++c) {
            const int r0 = static_cast<int>(static_cast<int64_t>(c) * n / cols);
            const int r1 = std::max(r0, static_cast<int>(static_cast<int64_t>(c + 1) * n / cols) - 1);
            int64_t v = 0;
            for (int r = r0; r <= r1 && r < n; ++r) v = std::max(v, pts[static_cast<size_t>(r)].live);
            const double h = static_cast<double>(v) / static_cast<double>(ymax) * (rect.height() - 2);
            p.fillRect(QRectF(rect.left() + c * colW, rect.bottom() - 1 - h, colW, h),
                       timelineAreaColour(StepPhase::Forward, dark));
        }
        if (last < 0 || last >= n) last = n - 1;
        const double x0 = rect.left() + rect.width() * first / n, x1 = rect.left() + rect.width() * (last + 1) / n;
        QColor brush = qc(th.selected);
        brush.setAlpha(60);
        p.fillRect(QRectF(QPointF(x0, rect.top()), QPointF(x1, rect.bottom())), brush);
        p.setPen(qc(th.selected));
        p.drawRect(QRectF(QPointF(x0, rect.top()), QPointF(x1, rect.bottom())).adjusted(0, 0, -1, -1));
    }
    p.restore();
}

QImage renderTimelineImage(const TimelineModel& m, int width, int height, double scale, bool dark)
{
    QImage img(static_cast<int>(width * scale), static_cast<int>(height * scale), QImage::Format_ARGB32_Premultiplied);
    img.setDevicePixelRatio(scale);
    QPainter p(&img);
    TimelineDrawOptions o;
    o.dark = dark;
    drawTimeline(p, QRectF(0, 0, width, height), m, o);
    p.end();
    return img;
}

}  // namespace fxl::viewer
