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

namespace {
const ViewGraph kNoView;
const Layout kNoLayout;
const std::set<int> kNone;
}  // namespace

GraphView::GraphView(ViewJobs* jobs, QWidget* parent)
    : QAbstractScrollArea(parent)
    , jobs_(jobs ? jobs : new ViewJobs(this))
{
    setFocusPolicy(Qt::StrongFocus);
    draw_.dark = palette().color(QPalette::Base).lightness() < 128;
    connect(jobs_, &ViewJobs::viewAvailable, this, &GraphView::onViewAvailable);
    connect(jobs_, &ViewJobs::finished, this, [this](quint64 id, int kind) {
        if (kind == ViewJobs::LayoutJob && id == pendingLayout_) {
            pendingLayout_ = 0;  // failed or cancelled: the previous view stays
            viewport()->update();
        }
    });
}

const ViewGraph& GraphView::view() const { return shown_ ? shown_->view : kNoView; }
const Layout& GraphView::layout() const { return shown_ ? shown_->layout : kNoLayout; }
const std::set<int>& GraphView::expanded() const { return shown_ ? shown_->expanded : kNone; }

void GraphView::setGraph(std::shared_ptr<const PreparedGraph> graph)
{
    graph_ = std::move(graph);
    shown_.reset();
    wanted_.clear();
    selected_.clear();
    draw_.selected.clear();
    setHighlights({});
    fitOnArrival_ = true;
    centreOnArrival_.clear();
    groupOnArrival_ = -1;
    if (graph_)
        requestLayout();
    else if (pendingLayout_)
        jobs_->cancel(ViewJobs::LayoutJob);
    updateScrollBars();
    viewport()->update();
}

void GraphView::requestLayout()
{
    if (!graph_) return;
    pendingLayout_ = jobs_->layout(graph_, wanted_, options_);
    viewport()->update();
}

void GraphView::onViewAvailable(quint64 id, std::shared_ptr<const PreparedView> view)
{
    if (id != pendingLayout_ || !view || view->graph != graph_) return;  // not ours, or stale
    pendingLayout_ = 0;
    // keep the point at the centre of the screen where it was (a group grows around it)
    shown_ = std::move(view);
    updateScrollBars();
    if (fitOnArrival_) {
        fitOnArrival_ = false;
        fit();
    }
    if (!centreOnArrival_.isEmpty()) {
        if (zoom_ < 0.6) zoom_ = 1.0;  // a node asked for is shown readable
        updateScrollBars();
        const int item = shown_->view.itemOfNode(graph_->graph->findByName(centreOnArrival_.toStdString()));
        if (item >= 0) centreOn(shown_->layout.items[static_cast<size_t>(item)]);
        centreOnArrival_.clear();
    }
    if (groupOnArrival_ >= 0) {
        const int item = shown_->view.itemOfGroup(groupOnArrival_);
        if (item >= 0) centreOn(shown_->layout.items[static_cast<size_t>(item)]);
        for (const ContainerBox& c : shown_->layout.containers)
            if (c.group == groupOnArrival_ && c.group != 0) centreOn(c.box);
        groupOnArrival_ = -1;
    }
    viewport()->update();
    emit viewChanged();
    emit viewportMoved();
}

void GraphView::toggleGroup(int group)
{
    if (!graph_ || group <= 0) return;
    if (wanted_.count(group))
        wanted_.erase(group);
    else
        for (int k : graph_->tree->chain(group)) wanted_.insert(k);
    requestLayout();
}

void GraphView::setExpanded(std::set<int> groups)
{
    wanted_ = std::move(groups);
    requestLayout();
}

void GraphView::collapseAll()
{
    wanted_.clear();
    requestLayout();
}

bool GraphView::showNode(const QString& name)
{
    if (!graph_) return false;
    const NodeId id = graph_->graph->findByName(name.toStdString());
    if (id == kNoNode) return false;
    const size_t before = wanted_.size();
    expandTo(*graph_->tree, id, wanted_);
    selectNode(name);
    const int item = shown_ ? shown_->view.itemOfNode(id) : -1;
    if (wanted_.size() == before && item >= 0 && !pendingLayout_) {
        if (zoom_ < 0.6) setZoom(1.0);  // a node asked for is shown readable
        centreOn(shown_->layout.items[static_cast<size_t>(item)]);
    } else {
        centreOnArrival_ = name;
        requestLayout();
    }
    return true;
}

void GraphView::showGroup(int group)
{
    if (!graph_ || group <= 0) return;
    const std::vector<int> chain = graph_->tree->chain(group);
    for (size_t k = 0; k + 1 < chain.size(); ++k) wanted_.insert(chain[k]);
    groupOnArrival_ = group;
    requestLayout();
}

void GraphView::selectNode(const QString& name)
{
    selected_ = name;
    draw_.selected = name.toStdString();
    viewport()->update();
    emit nodeSelected(name);
}

void GraphView::setHighlights(const std::vector<NodeId>& nodes)
{
    highlightCount_ = nodes.size();
    if (graph_)
        viewer::setHighlights(*graph_->tree, nodes, draw_);
    else
        draw_.highlightNodes.clear(), draw_.highlightGroups.clear();
    viewport()->update();
}

void GraphView::setFoldIdentical(bool fold)
{
    if (options_.foldIdentical == fold) return;
    options_.foldIdentical = fold;
    requestLayout();
}

void GraphView::setDark(bool dark)
{
    draw_.dark = dark;
    viewport()->update();
}

void GraphView::fit()
{
    const Layout& l = layout();
    if (l.width <= 0 || l.height <= 0) return;
    const double z = std::min(viewport()->width() / l.width, viewport()->height() / l.height);
    setZoom(std::clamp(z * 0.95, 0.02, 2.0));
}

void GraphView::setZoom(double z)
{
    const QPointF centre = visibleRect().center();
    zoom_ = std::clamp(z, 0.02, 8.0);
    updateScrollBars();
    centreOnPoint(centre);
    viewport()->update();
    emit viewportMoved();
}

void GraphView::updateScrollBars()
{
    const Layout& l = layout();
    const int w = static_cast<int>(std::ceil(l.width * zoom_)), h = static_cast<int>(std::ceil(l.height * zoom_));
    horizontalScrollBar()->setRange(0, std::max(0, w - viewport()->width()));
    verticalScrollBar()->setRange(0, std::max(0, h - viewport()->height()));
    horizontalScrollBar()->setPageStep(viewport()->width());
    verticalScrollBar()->setPageStep(viewport()->height());
}

QPointF GraphView::toScene(const QPoint& p) const
{
    return {(p.x() + horizontalScrollBar()->value()) / zoom_, (p.y() + verticalScrollBar()->value()) / zoom_};
}

QRectF GraphView::visibleRect() const
{
    return {toScene(QPoint(0, 0)), QSizeF(viewport()->width() / zoom_, viewport()->height() / zoom_)};
}

void GraphView::centreOnPoint(const QPointF& p)
{
    horizontalScrollBar()->setValue(static_cast<int>(p.x() * zoom_ - viewport()->width() / 2.0));
    verticalScrollBar()->setValue(static_cast<int>(p.y() * zoom_ - viewport()->height() / 2.0));
}

void GraphView::centreOn(const viewer::Box& b) { centreOnPoint({b.x + b.w / 2, b.y + b.h / 2}); }

int GraphView::itemAt(const QPoint& viewportPos) const
{
    const QPointF s = toScene(viewportPos);
    const Layout& l = layout();
    for (size_t k = l.items.size(); k-- > 0;) {
        const viewer::Box& b = l.items[k];
        if (s.x() >= b.x && s.x() <= b.x + b.w && s.y() >= b.y && s.y() <= b.y + b.h) return static_cast<int>(k);
    }
    return -1;
}

void GraphView::paintEvent(QPaintEvent*)
{
    QPainter p(viewport());
    const Rgb bg = theme(draw_.dark).background, fg = theme(draw_.dark).subText;
    p.fillRect(viewport()->rect(), QColor(bg.r, bg.g, bg.b));
    p.setPen(QColor(fg.r, fg.g, fg.b));
    if (!graph_) {
        p.drawText(viewport()->rect(), Qt::AlignCenter,
                   tr("Open a graph or a TORCH_TRACE log (Ctrl+O, or drop it here),\nor double-click a graph "
                      "in the source tree"));
        return;
    }
    if (!shown_) {
        p.drawText(viewport()->rect(), Qt::AlignCenter, tr("Laying out %1 nodes...").arg(graph_->graph->size()));
        return;
    }
    p.save();
    p.setRenderHint(QPainter::Antialiasing);
    p.translate(-horizontalScrollBar()->value(), -verticalScrollBar()->value());
    p.scale(zoom_, zoom_);
    PainterCanvas canvas(p);
    DrawOptions opts = draw_;
    opts.labels = zoom_ >= 0.45;  // level of detail
    drawScene(canvas, *graph_->tree, shown_->view, shown_->layout, opts);
    p.restore();
    if (pendingLayout_) {
        p.setPen(QColor(fg.r, fg.g, fg.b));
        p.drawText(viewport()->rect().adjusted(8, 6, -8, -6), Qt::AlignTop | Qt::AlignLeft, tr("laying out..."));
    }
    emit framePainted();
}

void GraphView::resizeEvent(QResizeEvent* e)
{
    QAbstractScrollArea::resizeEvent(e);
    updateScrollBars();
    emit viewportMoved();
}

void GraphView::scrollContentsBy(int, int)
{
    viewport()->update();
    emit viewportMoved();
}

void GraphView::wheelEvent(QWheelEvent* e)
{
    const QPointF before = toScene(e->position().toPoint());
    zoom_ = std::clamp(zoom_ * std::pow(1.0015, e->angleDelta().y()), 0.02, 8.0);
    updateScrollBars();
    // keep the point under the cursor where it was
    horizontalScrollBar()->setValue(static_cast<int>(before.x() * zoom_ - e->position().x()));
    verticalScrollBar()->setValue(static_cast<int>(before.y() * zoom_ - e->position().y()));
    viewport()->update();
    emit viewportMoved();
    e->accept();
}

void GraphView::mousePressEvent(QMouseEvent* e)
{
    dragFrom_ = e->pos();
    const int k = itemAt(e->pos());
    if (k < 0 || !graph_) return;
    const ViewItem& it = shown_->view.items[static_cast<size_t>(k)];
    if (it.kind == ItemKind::Node)
        selectNode(QString::fromStdString(it.title));
    else if (it.kind == ItemKind::Stub && !it.peers.empty())
        showNode(QString::fromStdString(graph_->graph->node(it.peers.front()).name));  // jump to the far end
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
    if (!shown_) return;
    const int k = itemAt(e->pos());
    if (k >= 0 && shown_->view.items[static_cast<size_t>(k)].kind == ItemKind::Group) {
        toggleGroup(shown_->view.items[static_cast<size_t>(k)].group);
        return;
    }
    // on an expanded group's frame: collapse it
    const QPointF s = toScene(e->pos());
    const Layout& l = shown_->layout;
    for (size_t c = l.containers.size(); c-- > 1;) {
        const viewer::Box& b = l.containers[c].box;
        if (s.x() >= b.x && s.x() <= b.x + b.w && s.y() >= b.y && s.y() <= b.y + kFrameTitle) {
            toggleGroup(l.containers[c].group);
            return;
        }
    }
}

void GraphView::keyPressEvent(QKeyEvent* e)
{
    // + / - on the selected node's group: expand its collapsed parent or collapse its group
    const NodeId sel = graph_ && !selected_.isEmpty() ? graph_->graph->findByName(selected_.toStdString()) : kNoNode;
    switch (e->key()) {
    case Qt::Key_F: fit(); return;
    case Qt::Key_Plus:
    case Qt::Key_Equal:
        if (e->modifiers() & Qt::ControlModifier)
            setZoom(zoom_ * 1.25);
        else if (sel != kNoNode)
            showNode(selected_);
        return;
    case Qt::Key_Minus:
        if (e->modifiers() & Qt::ControlModifier)
            setZoom(zoom_ / 1.25);
        else if (sel != kNoNode && graph_->tree->groupOf(sel) > 0)
            toggleGroup(graph_->tree->groupOf(sel));  // collapse the group around the selection
        return;
    default: QAbstractScrollArea::keyPressEvent(e);
    }
}

}  // namespace fxl::viewer
