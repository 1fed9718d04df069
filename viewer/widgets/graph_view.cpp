#include "viewer/widgets/graph_view.hpp"

#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

#include "viewer/render/painter_canvas.hpp"

namespace fxl::viewer {

GraphView::GraphView(QWidget* parent)
    : QAbstractScrollArea(parent)
{
    setFocusPolicy(Qt::StrongFocus);
    viewport()->setMouseTracking(false);
}

void GraphView::setGraph(std::shared_ptr<const Graph> graph)
{
    graph_ = std::move(graph);
    tree_ = graph_ ? std::make_unique<GroupTree>(*graph_) : nullptr;
    expanded_.clear();
    selected_.clear();
    rebuild();
    fit();
}

void GraphView::rebuild()
{
    if (!tree_) {
        view_ = {};
        layout_ = {};
    } else {
        view_ = buildViewGraph(*tree_, expanded_);
        layout_ = layoutView(view_, *tree_);
    }
    updateScrollBars();
    viewport()->update();
}

void GraphView::toggleGroup(int group)
{
    if (!tree_ || group <= 0) return;
    if (expanded_.count(group))
        expanded_.erase(group);
    else
        for (int k : tree_->chain(group)) expanded_.insert(k);
    rebuild();
}

void GraphView::collapseAll()
{
    expanded_.clear();
    rebuild();
}

bool GraphView::showNode(const QString& name)
{
    if (!graph_) return false;
    const NodeId id = graph_->findByName(name.toStdString());
    if (id == kNoNode) return false;
    expandTo(*tree_, id, expanded_);
    rebuild();
    selected_ = name;
    const int item = view_.itemOfNode(id);
    if (item >= 0) centreOn(layout_.items[static_cast<size_t>(item)]);
    viewport()->update();
    emit nodeSelected(name);
    return true;
}

void GraphView::fit()
{
    if (layout_.width <= 0 || layout_.height <= 0) return;
    const double z = std::min(viewport()->width() / layout_.width, viewport()->height() / layout_.height);
    setZoom(std::clamp(z * 0.95, 0.05, 2.0));
}

void GraphView::setZoom(double z)
{
    zoom_ = std::clamp(z, 0.02, 8.0);
    updateScrollBars();
    viewport()->update();
}

void GraphView::updateScrollBars()
{
    const int w = static_cast<int>(std::ceil(layout_.width * zoom_)),
              h = static_cast<int>(std::ceil(layout_.height * zoom_));
    horizontalScrollBar()->setRange(0, std::max(0, w - viewport()->width()));
    verticalScrollBar()->setRange(0, std::max(0, h - viewport()->height()));
    horizontalScrollBar()->setPageStep(viewport()->width());
    verticalScrollBar()->setPageStep(viewport()->height());
}

QPointF GraphView::toScene(const QPoint& p) const
{
    return {(p.x() + horizontalScrollBar()->value()) / zoom_, (p.y() + verticalScrollBar()->value()) / zoom_};
}

void GraphView::centreOn(const viewer::Box& b)
{
    horizontalScrollBar()->setValue(static_cast<int>((b.x + b.w / 2) * zoom_ - viewport()->width() / 2.0));
    verticalScrollBar()->setValue(static_cast<int>((b.y + b.h / 2) * zoom_ - viewport()->height() / 2.0));
}

int GraphView::itemAt(const QPoint& viewportPos) const
{
    const QPointF s = toScene(viewportPos);
    for (size_t k = view_.items.size(); k-- > 0;) {
        const viewer::Box& b = layout_.items[k];
        if (s.x() >= b.x && s.x() <= b.x + b.w && s.y() >= b.y && s.y() <= b.y + b.h) return static_cast<int>(k);
    }
    return -1;
}

void GraphView::paintEvent(QPaintEvent*)
{
    QPainter p(viewport());
    p.fillRect(viewport()->rect(), palette().color(QPalette::Base));
    if (!tree_) {
        p.drawText(viewport()->rect(), Qt::AlignCenter,
                   tr("Open a graph (Ctrl+O), or double-click one in the source tree"));
        return;
    }
    p.setRenderHint(QPainter::Antialiasing);
    p.translate(-horizontalScrollBar()->value(), -verticalScrollBar()->value());
    p.scale(zoom_, zoom_);
    PainterCanvas canvas(p);
    DrawOptions opts;
    opts.selected = selected_.toStdString();
    opts.labels = zoom_ >= 0.45;  // level of detail
    drawScene(canvas, *tree_, view_, layout_, opts);
}

void GraphView::resizeEvent(QResizeEvent* e)
{
    QAbstractScrollArea::resizeEvent(e);
    updateScrollBars();
}

void GraphView::wheelEvent(QWheelEvent* e)
{
    const QPointF before = toScene(e->position().toPoint());
    setZoom(zoom_ * std::pow(1.0015, e->angleDelta().y()));
    // keep the point under the cursor where it was
    horizontalScrollBar()->setValue(static_cast<int>(before.x() * zoom_ - e->position().x()));
    verticalScrollBar()->setValue(static_cast<int>(before.y() * zoom_ - e->position().y()));
    e->accept();
}

void GraphView::mousePressEvent(QMouseEvent* e)
{
    dragFrom_ = e->pos();
    const int k = itemAt(e->pos());
    if (k < 0) return;
    const ViewItem& it = view_.items[static_cast<size_t>(k)];
    if (it.kind == ItemKind::Node) {
        selected_ = QString::fromStdString(it.title);
        viewport()->update();
        emit nodeSelected(selected_);
    } else if (it.kind == ItemKind::Stub && !it.peers.empty() && graph_) {
        showNode(QString::fromStdString(graph_->node(it.peers.front()).name));  // jump to the far end
    }
}

void GraphView::mouseMoveEvent(QMouseEvent* e)
{
    if (!(e->buttons() & Qt::LeftButton)) return;
    const QPoint d = e->pos() - dragFrom_;
    dragFrom_ = e->pos();
    horizontalScrollBar()->setValue(horizontalScrollBar()->value() - d.x());
    verticalScrollBar()->setValue(verticalScrollBar()->value() - d.y());
}

void GraphView::mouseDoubleClickEvent(QMouseEvent* e)
{
    const int k = itemAt(e->pos());
    if (k >= 0 && view_.items[static_cast<size_t>(k)].kind == ItemKind::Group) {
        toggleGroup(view_.items[static_cast<size_t>(k)].group);
        return;
    }
    // on an expanded group's frame: collapse it
    const QPointF s = toScene(e->pos());
    for (size_t c = layout_.containers.size(); c-- > 1;) {
        const viewer::Box& b = layout_.containers[c].box;
        if (s.x() >= b.x && s.x() <= b.x + b.w && s.y() >= b.y && s.y() <= b.y + kFrameTitle) {
            toggleGroup(layout_.containers[c].group);
            return;
        }
    }
}

void GraphView::keyPressEvent(QKeyEvent* e)
{
    switch (e->key()) {
    case Qt::Key_F: fit(); return;
    case Qt::Key_Plus:
    case Qt::Key_Equal: setZoom(zoom_ * 1.25); return;
    case Qt::Key_Minus: setZoom(zoom_ / 1.25); return;
    default: QAbstractScrollArea::keyPressEvent(e);
    }
}

}  // namespace fxl::viewer
