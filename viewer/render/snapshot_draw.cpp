#include "viewer/render/snapshot_draw.hpp"

#include <QPainterPath>
#include <QPolygonF>

#include <algorithm>
#include <cmath>

#include "core/util/format.hpp"
#include "viewer/render/scene_draw.hpp"

namespace fxl::viewer {

namespace {

QColor snapshotQColor(Rgb c) { return QColor(c.r, c.g, c.b); }

// a step of 1, 2 or 4 times a power of two bytes for about `ticks` ticks over [0, max]
double snapshotNiceStep(double max, int ticks)
{
    if (max <= 0) return 1;
    const double raw = max / ticks;
    double step = 1;
    while (step * 2 <= raw) step *= 2;
    return step * 2;
}

QString snapshotAxisBytes(double v) { return QString::fromStdString(formatByteSize(static_cast<int64_t>(v))); }

}  // namespace

int64_t snapshotFirstStep(const SnapshotDrawOptions& o, const SnapshotTimelineModel& m)
{
    return std::clamp<int64_t>(o.first, 0, std::max<int64_t>(0, m.steps() - 1));
}

int64_t snapshotLastStep(const SnapshotDrawOptions& o, const SnapshotTimelineModel& m)
{
    const int64_t n = m.steps();
    const int64_t last = o.last < 0 || o.last >= n ? n - 1 : o.last;
    return std::max(last, snapshotFirstStep(o, m));
}

QRectF snapshotPlotRect(const QRectF& r) { return r.adjusted(64, 22, -12, -18); }

double snapshotXOf(double step, const QRectF& plot, const SnapshotDrawOptions& o, const SnapshotTimelineModel& m)
{
    const double a = static_cast<double>(snapshotFirstStep(o, m)), b = static_cast<double>(snapshotLastStep(o, m));
    return plot.left() + (step - a) / std::max(1.0, b - a) * plot.width();
}

double snapshotStepAt(double x, const QRectF& plot, const SnapshotDrawOptions& o, const SnapshotTimelineModel& m)
{
    const double a = static_cast<double>(snapshotFirstStep(o, m)), b = static_cast<double>(snapshotLastStep(o, m));
    return a + (x - plot.left()) / std::max(1.0, plot.width()) * std::max(1.0, b - a);
}

double snapshotYTop(const SnapshotDrawOptions& o, const SnapshotTimelineModel& m)
{
    const double max =
        static_cast<double>(o.yMax ? o.yMax : m.maxBytesIn(snapshotFirstStep(o, m), snapshotLastStep(o, m)));
    const double step = snapshotNiceStep(std::max(1.0, max), 4);
    return std::max(step, std::ceil(max * 1.08 / step) * step);
}

double snapshotBytesAt(double y, const QRectF& plot, const SnapshotDrawOptions& o, const SnapshotTimelineModel& m)
{
    return (plot.bottom() - y) / std::max(1.0, plot.height()) * snapshotYTop(o, m);
}

int snapshotBandAt(const QPointF& pos, const QRectF& plot, const SnapshotDrawOptions& o, const SnapshotTimelineModel& m)
{
    if (!plot.contains(pos)) return -1;
    return m.bandAt(snapshotStepAt(pos.x(), plot, o, m), snapshotBytesAt(pos.y(), plot, o, m));
}

QColor snapshotBandColour(int64_t element, bool dark)
{
    if (element < 0) return dark ? QColor(120, 120, 120) : QColor(175, 175, 175);
    // d3's schemeTableau10, which memory_viz's bands cycle through
    static const QColor kPalette[] = {{78, 121, 167}, {242, 142, 44}, {225, 87, 89},   {118, 183, 178},
                                      {89, 161, 79},  {237, 201, 73}, {175, 122, 161}, {255, 157, 167},
                                      {156, 117, 95}, {186, 176, 171}};
    const QColor c = kPalette[static_cast<size_t>(element) % 10];
    return dark ? c.darker(125) : c;
}

void drawSnapshotTimeline(QPainter& p, const QRectF& widgetRect, const SnapshotTimelineModel& m,
                          const SnapshotDrawOptions& o)
{
    const Theme& th = theme(o.dark);
    p.save();
    p.fillRect(widgetRect, snapshotQColor(th.background));
    QFont f = p.font();
    f.setPointSizeF(8);
    p.setFont(f);
    const QRectF plot = snapshotPlotRect(widgetRect);
    const SnapshotTimeline* t = m.timeline();
    if (!t || m.steps() == 0 || plot.width() < 10 || plot.height() < 10) {
        p.setPen(snapshotQColor(th.subText));
        p.drawText(widgetRect, Qt::AlignCenter,
                   t ? QObject::tr("no allocations traced on this device") : QObject::tr("no snapshot"));
        p.restore();
        return;
    }
    const int64_t a = snapshotFirstStep(o, m), b = snapshotLastStep(o, m);
    const double top = snapshotYTop(o, m);
    const double tick = snapshotNiceStep(top / 1.08, 4);
    auto yOf = [&](double bytes) { return plot.bottom() - bytes / top * plot.height(); };
    auto xOf = [&](double step) { return snapshotXOf(step, plot, o, m); };

    // grid and y axis
    for (double v = 0; v <= top + 0.5; v += tick) {
        const double y = yOf(v);
        p.setPen(QPen(snapshotQColor(th.border), 0, Qt::DotLine));
        p.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y));
        p.setPen(snapshotQColor(th.subText));
        p.drawText(QRectF(widgetRect.left(), y - 7, plot.left() - widgetRect.left() - 4, 14),
                   Qt::AlignRight | Qt::AlignVCenter, snapshotAxisBytes(v));
    }

    // the bands: memory_viz's polygons, lower edge through the offsets, upper edge a size above
    p.setClipRect(plot.adjusted(0, -1, 1, 0));
    p.setRenderHint(QPainter::Antialiasing, true);
    const auto& series = t->series;
    for (size_t r = 0; r < static_cast<size_t>(m.rowCount()); ++r) {
        const TimelineSeries& s = series[r];
        if (s.timesteps.empty() || s.timesteps.back() < a || s.timesteps.front() > b) continue;
        QPolygonF poly;
        poly.reserve(static_cast<qsizetype>(s.timesteps.size() * 2));
        for (size_t i = 0; i < s.timesteps.size(); ++i)
            poly << QPointF(xOf(static_cast<double>(s.timesteps[i])), yOf(static_cast<double>(s.offsets[i])));
        for (size_t i = s.timesteps.size(); i-- > 0;) {
            const double size = static_cast<double>(s.elem < 0 && i < s.sizes.size() ? s.sizes[i] : s.size);
            poly << QPointF(xOf(static_cast<double>(s.timesteps[i])), yOf(static_cast<double>(s.offsets[i]) + size));
        }
        QColor fill = snapshotBandColour(s.elem, o.dark);
        if (s.ghost) fill.setAlpha(140);
        if (s.kind == SeriesKind::Envelope) fill = o.dark ? QColor(90, 90, 100, 110) : QColor(150, 150, 160, 90);
        if (s.kind == SeriesKind::Stripe) fill.setAlpha(s.ghost ? 110 : 170);
        const bool hovered = static_cast<int>(r) == o.hoverBand;
        p.setPen(hovered ? QPen(snapshotQColor(th.text), 1.5) : QPen(fill.darker(115), 0.5));
        p.setBrush(hovered ? fill.lighter(125) : fill);
        p.drawPolygon(poly);
    }
    p.setClipping(false);

    // the peak: a dashed line at its step, a marker at its bytes, its label
    if (t->peakStep >= a && t->peakStep <= b) {
        const QPointF c(xOf(static_cast<double>(t->peakStep)), yOf(static_cast<double>(t->peakBytes)));
        p.setPen(QPen(QColor(200, 30, 30), 1, Qt::DashLine));
        p.drawLine(QPointF(c.x(), plot.top()), QPointF(c.x(), plot.bottom()));
        p.setPen(QPen(snapshotQColor(th.text), 1));
        p.setBrush(QColor(200, 30, 30));
        p.drawEllipse(c, 4, 4);
        const QString label = m.peakLabel();
        const QFontMetricsF fm(p.font());
        const double w = fm.horizontalAdvance(label) + 8;
        double x = c.x() + 7;
        if (x + w > plot.right()) x = c.x() - 7 - w;
        const QRectF box(std::max(plot.left() + 2, x), std::max(plot.top() + 1, c.y() - 8), w, 15);
        p.setPen(snapshotQColor(th.border));
        p.setBrush(snapshotQColor(th.background));
        p.drawRect(box);
        p.setPen(snapshotQColor(th.text));
        p.drawText(box, Qt::AlignCenter, label);
    }
    p.setRenderHint(QPainter::Antialiasing, false);
    if (o.hoverStep >= a && o.hoverStep <= b) {
        p.setPen(QPen(snapshotQColor(th.subText), 1));
        const double x = xOf(static_cast<double>(o.hoverStep));
        p.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
    }

    // axes
    p.setPen(snapshotQColor(th.border));
    p.drawLine(plot.bottomLeft(), plot.bottomRight());
    p.drawLine(plot.bottomLeft(), plot.topLeft());
    p.setPen(snapshotQColor(th.subText));
    const QRectF below(plot.left(), plot.bottom() + 2, plot.width(), 14);
    p.drawText(below, Qt::AlignLeft, QString::number(a));
    p.drawText(below, Qt::AlignRight, QString::number(b));
    // the axis' name between its ends, as long as it fits there
    const QFontMetricsF fm(p.font());
    const double room = plot.width() - 2 * fm.horizontalAdvance(QString::number(b)) - 24;
    for (const QString& name :
         {QObject::tr("allocator steps %1 to %2 of %3 (allocations and frees, not time)").arg(a).arg(b).arg(m.steps()),
          QObject::tr("allocator steps (%1 of %2)").arg(b - a + 1).arg(m.steps()), QObject::tr("steps")})
        if (fm.horizontalAdvance(name) <= room) {
            p.drawText(below, Qt::AlignHCenter, name);
            break;
        }

    // title: what is shown, and the device
    QFont tf = p.font();
    tf.setBold(true);
    p.setFont(tf);
    p.setPen(snapshotQColor(th.text));
    QString title = o.title.isEmpty() ? QString() : o.title + QStringLiteral("   ");
    title += QObject::tr("device %1").arg(m.device());  // the peak is labelled at its marker
    p.drawText(QRectF(plot.left(), widgetRect.top() + 3, plot.width(), 16), Qt::AlignLeft | Qt::AlignVCenter,
               QFontMetricsF(tf).elidedText(title, Qt::ElideMiddle, plot.width()));
    p.restore();
}

void drawSnapshotOverview(QPainter& p, const QRectF& rect, const SnapshotTimelineModel& m, int64_t first, int64_t last,
                          bool dark)
{
    const Theme& th = theme(dark);
    p.save();
    p.fillRect(rect, snapshotQColor(th.background));
    p.setPen(snapshotQColor(th.border));
    p.drawRect(rect.adjusted(0, 0, -1, -1));
    const int64_t n = m.steps();
    if (n > 0) {
        const auto& live = m.timeline()->maxAtTime;
        const double ymax = static_cast<double>(std::max<uint64_t>(1, m.maxBytes()));
        const int cols = std::max(1, static_cast<int>(rect.width()));
        const double colW = rect.width() / cols;
        for (int c = 0; c < cols; ++c) {
            const int64_t r0 = c * n / cols;
            const int64_t r1 = std::max(r0, (c + 1) * n / cols - 1);
            uint64_t v = 0;
            for (int64_t r = r0; r <= r1 && r < n; ++r) v = std::max(v, live[static_cast<size_t>(r)]);
            const double h = static_cast<double>(v) / ymax * (rect.height() - 2);
            p.fillRect(QRectF(rect.left() + c * colW, rect.bottom() - 1 - h, colW, h),
                       snapshotBandColour(0, dark).lighter(dark ? 100 : 150));
        }
        if (last < 0 || last >= n) last = n - 1;
        if (first <= 0 && last >= n - 1) {  // every step shown: no brush to draw
            p.restore();
            return;
        }
        const double x0 = rect.left() + rect.width() * static_cast<double>(first) / static_cast<double>(n);
        const double x1 = rect.left() + rect.width() * static_cast<double>(last + 1) / static_cast<double>(n);
        QColor brush = snapshotQColor(th.selected);
        brush.setAlpha(60);
        p.fillRect(QRectF(QPointF(x0, rect.top()), QPointF(x1, rect.bottom())), brush);
        p.setPen(snapshotQColor(th.selected));
        p.drawRect(QRectF(QPointF(x0, rect.top()), QPointF(x1, rect.bottom())).adjusted(0, 0, -1, -1));
    }
    p.restore();
}

QImage renderSnapshotImage(const SnapshotTimelineModel& m, int width, int height, double scale, bool dark)
{
    QImage img(static_cast<int>(width * scale), static_cast<int>(height * scale), QImage::Format_ARGB32_Premultiplied);
    img.setDevicePixelRatio(scale);
    QPainter p(&img);
    SnapshotDrawOptions o;
    o.dark = dark;
    drawSnapshotTimeline(p, QRectF(0, 0, width, height), m, o);
    p.end();
    return img;
}

}  // namespace fxl::viewer
