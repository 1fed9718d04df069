#include "viewer/widgets/overview.hpp"

#include <QMouseEvent>
#include <QPainter>

#include <algorithm>

#include "viewer/render/painter_canvas.hpp"
#include "viewer/widgets/graph_view.hpp"

namespace fxl::viewer {

Overview::Overview(GraphView* view, QWidget* parent)
    : QWidget(parent)
    , view_(view)
{
    setMinimumSize(120, 80);
    connect(view_, &GraphView::viewportMoved, this, qOverload<>(&QWidget::update));
    connect(view_, &GraphView::viewChanged, this, qOverload<>(&QWidget::update));
}

double Overview::scale() const
{
    const Layout& l = view_->layout();
    if (l.width <= 0 || l.height <= 0) return 1;
    return std::min((width() - 8) / l.width, (height() - 8) / l.height);
}

QPointF Overview::offset() const
{
    const Layout& l = view_->layout();
    const double s = scale();
    return {(width() - l.width * s) / 2, (height() - l.height * s) / 2};
}

void Overview::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    const Rgb bg = theme(view_->dark()).background;
    p.fillRect(rect(), QColor(bg.r, bg.g, bg.b).darker(view_->dark() ? 80 : 104));
    if (!view_->tree() || view_->layout().items.empty()) return;
    const double s = scale();
    p.save();
    p.setRenderHint(QPainter::Antialiasing);
    p.translate(offset());
    p.scale(s, s);
    PainterCanvas canvas(p);
    DrawOptions opts;
    opts.labels = false;
    opts.dark = view_->dark();
    drawScene(canvas, *view_->tree(), view_->view(), view_->layout(), opts);
    p.restore();
    // the part the graph view shows
    const QRectF r = view_->visibleRect();
    const QPointF o = offset();
    p.setPen(QPen(QColor(255, 140, 0), 2));
    p.setBrush(QColor(255, 140, 0, 40));
    p.drawRect(QRectF(o.x() + r.x() * s, o.y() + r.y() * s, r.width() * s, r.height() * s));
}

void Overview::moveTo(const QPoint& pos)
{
    const double s = scale();
    const QPointF o = offset();
    view_->centreOnPoint({(pos.x() - o.x()) / s, (pos.y() - o.y()) / s});
}

void Overview::mousePressEvent(QMouseEvent* e) { moveTo(e->pos()); }

void Overview::mouseMoveEvent(QMouseEvent* e)
{
    if (e->buttons() & Qt::LeftButton) moveTo(e->pos());
}

}  // namespace fxl::viewer
