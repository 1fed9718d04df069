#include "viewer/render/painter_canvas.hpp"

#include <QFont>
#include <QPainterPath>
#include <QPen>

#include <cmath>

namespace fxl::viewer {

namespace {
QColor qcolour(Rgb c) { return QColor(c.r, c.g, c.b); }
}  // namespace

void PainterCanvas::rect(const Box& b, Rgb fill, Rgb stroke, double strokeWidth, double radius, bool dashed)
{
    QPen pen(qcolour(stroke), strokeWidth);
    if (dashed) pen.setStyle(Qt::DashLine);
    p_.setPen(strokeWidth > 0 ? pen : QPen(Qt::NoPen));
    p_.setBrush(qcolour(fill));
    p_.drawRoundedRect(QRectF(b.x, b.y, b.w, b.h), radius, radius);
}

void PainterCanvas::text(double x, double y, const std::string& s, double size, Rgb colour, bool bold)
{
    QFont f(QStringLiteral("DejaVu Sans"));
    f.setPixelSize(static_cast<int>(std::lround(size)));
    f.setBold(bold);
    p_.setFont(f);
    p_.setPen(qcolour(colour));
    p_.drawText(QPointF(x, y), QString::fromStdString(s));
}

void PainterCanvas::bezier(const std::vector<Point>& pts, Rgb colour, double width)
{
    QPainterPath path(QPointF(pts[0].x, pts[0].y));
    for (size_t i = 1; i + 2 < pts.size(); i += 3)
        path.cubicTo(QPointF(pts[i].x, pts[i].y), QPointF(pts[i + 1].x, pts[i + 1].y),
                     QPointF(pts[i + 2].x, pts[i + 2].y));
    p_.setPen(QPen(qcolour(colour), width));
    p_.setBrush(Qt::NoBrush);
    p_.drawPath(path);
    QPolygonF head;
    for (const Point& q : arrowHead(pts)) head << QPointF(q.x, q.y);
    p_.setPen(Qt::NoPen);
    p_.setBrush(qcolour(colour));
    p_.drawPolygon(head);
}

QImage renderImage(double width, double height, double scale, bool dark, const std::function<void(Canvas&)>& draw)
{
    const int w = std::max(1, static_cast<int>(std::ceil(width * scale)));
    const int h = std::max(1, static_cast<int>(std::ceil(height * scale)));
    QImage img(w, h, QImage::Format_ARGB32_Premultiplied);
    const Rgb bg = theme(dark).background;
    img.fill(QColor(bg.r, bg.g, bg.b));
    QPainter p(&img);
    p.setRenderHint(QPainter::Antialiasing);
    p.setRenderHint(QPainter::TextAntialiasing);
    p.scale(scale, scale);
    PainterCanvas c(p);
    draw(c);
    p.end();
    return img;
}

QImage renderImage(const GroupTree& tree, const ViewGraph& v, const Layout& l, double scale, const DrawOptions& opts)
{
    return renderImage(l.width, l.height, scale, opts.dark, [&](Canvas& c) { drawScene(c, tree, v, l, opts); });
}

}  // namespace fxl::viewer
