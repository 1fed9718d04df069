#include "viewer/widgets/graph_view.hpp"

#include <QGraphicsItem>
#include <QGraphicsScene>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QStyleOptionGraphicsItem>
#include <QTimer>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

#include "viewer/render/painter_canvas.hpp"

namespace fxl::viewer {

namespace {
const ViewGraph kNoView;
const Layout kNoLayout;
const std::set<int> kNone;

// One drawn element of the shown view: a frame, an edge or a box, painted by scene_draw.
class SceneItem : public QGraphicsItem
{
public:
    enum Kind
    {
        Frame,
        Edge,
        Box
    };
    static constexpr int kIndexKey = 0;  // data(): the view item index of a Box

    SceneItem(const GraphView* view, Kind kind, size_t index)
        : view_(view)
        , kind_(kind)
        , index_(index)
    {
        const PreparedView& v = *view->shown();
        QRectF r;
        switch (kind) {
        case Frame: {
            const viewer::Box& b = v.layout.containers[index].box;
            r = QRectF(b.x, b.y, b.w, b.h);
            setZValue(0);
            break;
        }
        case Edge: {
            const auto& pts = v.layout.edges[index].points;
            for (const Point& p : pts) r |= QRectF(p.x, p.y, 0.01, 0.01);
            setZValue(1);
            break;
        }
        case Box: {
            const viewer::Box& b = v.layout.items[index];
            r = QRectF(b.x, b.y - 4, b.w + 4, b.h + 8);  // folder tab above, a stack's shadow below
            setZValue(2);
            setData(kIndexKey, static_cast<int>(index));
            break;
        }
        }
        bounds_ = r.adjusted(-8, -8, 8, 8);  // strokes and arrow heads
    }
    QRectF boundingRect() const override { return bounds_; }
    void paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget*) override
    {
        const PreparedView* v = view_->shown();
        if (!v) return;
        DrawOptions opts = view_->drawOptions();
        // level of detail: zoomed out, titles alone, larger, while the boxes have room for them
        const double scale = labelScale(option->levelOfDetailFromTransform(p->worldTransform()));
        opts.labels = scale > 0;
        opts.titleScale = std::max(1.0, scale);
        p->setRenderHint(QPainter::Antialiasing);
        PainterCanvas c(*p);
        switch (kind_) {
        case Frame: drawFrame(c, *v->graph->tree, v->layout, index_, opts); break;
        case Edge: drawEdge(c, v->layout.edges[index_], opts); break;
        case Box: drawItem(c, *v->graph->tree, v->view, v->layout, index_, opts); break;
        }
    }

private:
    const GraphView* view_;
    Kind kind_;
    size_t index_;
    QRectF bounds_;
};

}  // namespace

GraphView::GraphView(ViewJobs* jobs, QWidget* parent)
    : QGraphicsView(parent)
    , jobs_(jobs ? jobs : new ViewJobs(this))
    , scene_(new QGraphicsScene(this))
{
    setScene(scene_);
    setFocusPolicy(Qt::StrongFocus);
    // a scroll bar moved by the user sets the centre to keep (once the move is done)
    for (QScrollBar* bar : {horizontalScrollBar(), verticalScrollBar()})
        connect(bar, &QAbstractSlider::actionTriggered, this,
                [this] { QTimer::singleShot(0, this, [this] { intendedCentre_ = visibleRect().center(); }); });
    setTransformationAnchor(QGraphicsView::NoAnchor);
    setResizeAnchor(QGraphicsView::AnchorViewCenter);
    setViewportUpdateMode(QGraphicsView::SmartViewportUpdate);
    setRenderHint(QPainter::Antialiasing);
    scene_->setItemIndexMethod(QGraphicsScene::BspTreeIndex);
    setDark(palette().color(QPalette::Base).lightness() < 128);
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

void GraphView::setGraph(std::shared_ptr<const PreparedGraph> graph, bool keepView)
{
    // keeping the view: the same groups open (by key), the same node selected when it is there,
    // the zoom and the centre as they were
    std::set<std::string> openKeys;
    if (keepView && graph_)
        for (int k : wanted_) openKeys.insert(graph_->tree->group(k).key);
    const QString keepSelected = keepView ? selected_ : QString();
    // the centre asked for, not where a smaller drawing clamped it: stepping through a step
    // whose drawing is narrower and back comes back to the same place
    keepCentre_ =
        keepView && shown_ ? std::optional<QPointF>(intendedCentre_.value_or(visibleRect().center())) : std::nullopt;
    graph_ = std::move(graph);
    shown_.reset();
    wanted_.clear();
    selected_.clear();
    draw_.selected.clear();
    setHighlights({});
    draw_.nodeMarks.clear();
    draw_.groupMarks.clear();
    if (graph_ && keepView) {
        for (const std::string& key : openKeys)
            if (const int k = graph_->tree->find(key); k >= 0) wanted_.insert(k);
        if (!keepSelected.isEmpty() && graph_->graph->findByName(keepSelected.toStdString()) != kNoNode) {
            selected_ = keepSelected;
            draw_.selected = keepSelected.toStdString();
        }
    }
    fitOnArrival_ = !keepView;
    centreOnArrival_.clear();
    groupOnArrival_ = -1;
    if (graph_)
        requestLayout();
    else if (pendingLayout_)
        jobs_->cancel(ViewJobs::LayoutJob);
    rebuildScene();
}

void GraphView::rebuildScene()
{
    scene_->clear();
    if (shown_) {
        const Layout& l = shown_->layout;
        for (size_t k = 1; k < l.containers.size(); ++k) scene_->addItem(new SceneItem(this, SceneItem::Frame, k));
        for (size_t k = 0; k < l.edges.size(); ++k)
            if (l.edges[k].points.size() >= 4) scene_->addItem(new SceneItem(this, SceneItem::Edge, k));
        for (size_t k = 0; k < l.items.size(); ++k) scene_->addItem(new SceneItem(this, SceneItem::Box, k));
        scene_->setSceneRect(0, 0, l.width, l.height);
    } else {
        scene_->setSceneRect(0, 0, 1, 1);
    }
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
    rebuildScene();
    if (fitOnArrival_) {
        fitOnArrival_ = false;
        fit();
    }
    if (keepCentre_) {
        centreOnPoint(*keepCentre_);
        keepCentre_.reset();
    }
    if (!centreOnArrival_.isEmpty()) {
        if (zoom_ < 0.6) setZoom(1.0);  // a node asked for is shown readable
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
    scene_->update();
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

void GraphView::setMarks(std::vector<uint8_t> nodeMarks, std::vector<Rgb> colours)
{
    if (graph_ && !nodeMarks.empty())
        viewer::setMarks(*graph_->tree, std::move(nodeMarks), std::move(colours), draw_);
    else
        draw_.nodeMarks.clear(), draw_.groupMarks.clear();
    scene_->update();
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
    centreOnPoint({l.width / 2, l.height / 2});
}

void GraphView::setZoom(double z)
{
    const QPointF centre = visibleRect().center();
    zoom_ = std::clamp(z, 0.02, 8.0);
    setTransform(QTransform::fromScale(zoom_, zoom_));
    centreOnPoint(centre);
    emit viewportMoved();
}

QPointF GraphView::toScene(const QPoint& p) const { return mapToScene(p); }

QRectF GraphView::visibleRect() const { return mapToScene(viewport()->rect()).boundingRect(); }

void GraphView::centreOnPoint(const QPointF& p)
{
    centring_ = true;
    centerOn(p);
    centring_ = false;
    intendedCentre_ = p;
    emit viewportMoved();
}

void GraphView::centreOn(const viewer::Box& b) { centreOnPoint({b.x + b.w / 2, b.y + b.h / 2}); }

int GraphView::itemAt(const QPoint& viewportPos) const
{
    // the topmost box under the point (frames and edges are not picked)
    for (QGraphicsItem* it : items(viewportPos)) {
        const QVariant k = it->data(SceneItem::kIndexKey);
        if (!k.isValid()) continue;
        const viewer::Box& b = layout().items[static_cast<size_t>(k.toInt())];
        const QPointF s = mapToScene(viewportPos);
        if (s.x() >= b.x && s.x() <= b.x + b.w && s.y() >= b.y && s.y() <= b.y + b.h) return k.toInt();
    }
    return -1;
}

void GraphView::paintEvent(QPaintEvent* e)
{
    QGraphicsView::paintEvent(e);
    QPainter p(viewport());
    const Rgb fg = theme(draw_.dark).subText;
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
    if (pendingLayout_)
        p.drawText(viewport()->rect().adjusted(8, 6, -8, -6), Qt::AlignTop | Qt::AlignLeft, tr("laying out..."));
    emit framePainted();
}

void GraphView::resizeEvent(QResizeEvent* e)
{
    QGraphicsView::resizeEvent(e);
    emit viewportMoved();
}

void GraphView::scrollContentsBy(int dx, int dy)
{
    QGraphicsView::scrollContentsBy(dx, dy);
    if (userScroll_) intendedCentre_ = visibleRect().center();  // the user moved the view
    emit viewportMoved();
}

void GraphView::wheelEvent(QWheelEvent* e)
{
    // what the wheel does to the view is the user's: the centre to keep
    struct UserScroll
    {
        bool& flag;
        ~UserScroll() { flag = false; }
    } user{userScroll_ = true};
    const QPointF before = mapToScene(e->position().toPoint());
    zoom_ = std::clamp(zoom_ * std::pow(1.0015, e->angleDelta().y()), 0.02, 8.0);
    setTransform(QTransform::fromScale(zoom_, zoom_));
    // keep the point under the cursor where it was
    const QPointF after = mapToScene(e->position().toPoint());
    const QPointF centre = visibleRect().center() + (before - after);
    centerOn(centre);
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
    else if (it.kind == ItemKind::Stub)
        activateStub(k, e->globalPosition().toPoint());
}

void GraphView::activateStub(int item, const QPoint& globalPos)
{
    if (!shown_ || item < 0 || static_cast<size_t>(item) >= shown_->view.items.size()) return;
    const ViewItem& it = shown_->view.items[static_cast<size_t>(item)];
    if (it.kind != ItemKind::Stub || it.peers.empty()) return;
    auto name = [&](NodeId id) { return QString::fromStdString(graph_->graph->node(id).name); };
    if (it.peers.size() == 1) {
        showNode(name(it.peers.front()));  // jump to the far end
        return;
    }
    delete stubMenu_;
    stubMenu_ = new QMenu(this);
    const size_t shown = std::min(it.peers.size(), static_cast<size_t>(kMaxStubMenu));
    for (size_t k = 0; k < shown; ++k) {
        const NodeId id = it.peers[k];
        const QString n = name(id);
        stubMenu_->addAction(n + QStringLiteral("  (") + QString::fromLatin1(phaseClassName(graph_->tree->phaseOf(id)))
                                 + QStringLiteral(")"),
                             this, [this, n] { showNode(n); });
    }
    if (it.peers.size() > shown)
        stubMenu_
            ->addAction(
                tr("... and %1 more: the inspector of the producer lists them all").arg(it.peers.size() - shown))
            ->setEnabled(false);
    stubMenu_->popup(globalPos);
}

void GraphView::mouseMoveEvent(QMouseEvent* e)
{
    if (!(e->buttons() & Qt::LeftButton)) return;
    const QPoint d = e->pos() - dragFrom_;
    dragFrom_ = e->pos();
    userScroll_ = true;
    horizontalScrollBar()->setValue(horizontalScrollBar()->value() - d.x());
    verticalScrollBar()->setValue(verticalScrollBar()->value() - d.y());
    userScroll_ = false;
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
    struct UserScroll
    {
        bool& flag;
        ~UserScroll() { flag = false; }
    } user{userScroll_ = true};
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
    default: QGraphicsView::keyPressEvent(e);
    }
}

}  // namespace fxl::viewer
