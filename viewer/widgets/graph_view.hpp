// The graph view of the window: a laid-out view (viewer/jobs: built and laid out off the UI
// thread, stale layouts dropped) shown in a QGraphicsView. The scene holds one item per frame
// (an expanded group), edge and box (node, group, stub) at the layout's coordinates and splines
// (not Graphviz's SVG), each painted by the drawing routine of `fxlens render`
// (viewer/render/scene_draw.hpp), so the window and the files show the same thing. Zoom (wheel
// at the cursor, Ctrl +/-), pan (scroll bars, drag), fit (F), level of detail (labels drop
// below 45% zoom), double click (or + / -) to expand or collapse a group, click to select a
// node, click on a stub to jump to the node it names. While a new layout is computed the
// previous one stays on screen, and a line at the top says so. Only the open level exists as
// items (a few thousand at most), whatever the size of the graph.
#pragma once

#include <QGraphicsView>
#include <QMenu>

#include <memory>
#include <optional>
#include <set>

#include "viewer/jobs/view_jobs.hpp"
#include "viewer/render/scene_draw.hpp"

namespace fxl::viewer {

class GraphView : public QGraphicsView
{
    Q_OBJECT

public:
    // Layouts go through `jobs` (the window's), or through jobs of its own when null.
    explicit GraphView(ViewJobs* jobs = nullptr, QWidget* parent = nullptr);

    // Shows a prepared graph (collapsed to its top level, fitted); null clears the view. With
    // keepView, the groups open now (by key) stay open where the new graph has them, the
    // selected node stays selected when the new graph has it, and the zoom and centre stay
    // (stepping through passes).
    void setGraph(std::shared_ptr<const PreparedGraph> graph, bool keepView = false);
    std::shared_ptr<const PreparedGraph> prepared() const { return graph_; }
    const GroupTree* tree() const { return graph_ ? graph_->tree.get() : nullptr; }
    const Graph* graph() const { return graph_ ? graph_->graph.get() : nullptr; }
    // What is on screen (empty before the first layout arrives).
    const ViewGraph& view() const;
    const Layout& layout() const;
    const std::set<int>& expanded() const;  // of what is on screen
    bool layoutPending() const { return pendingLayout_ != 0; }
    double zoom() const { return zoom_; }

    // Expand or collapse a group (a new layout is requested).
    void toggleGroup(int group);
    void setExpanded(std::set<int> groups);
    void collapseAll();
    // Expand down to a node, select it and centre on it once laid out; false when there is no
    // such node.
    bool showNode(const QString& name);
    // Expand the groups above a group so that it shows, and centre on it.
    void showGroup(int group);
    void fit();
    void setZoom(double z);
    QString selected() const { return selected_; }
    // The view item at a viewport position, -1 when none.
    int itemAt(const QPoint& viewportPos) const;
    // A click on a stub (view item `item`): one far end -> jump there; several -> a menu of them
    // (the first kMaxStubMenu) at `globalPos`, each entry jumping to its node.
    void activateStub(int item, const QPoint& globalPos);
    QMenu* stubMenu() const { return stubMenu_; }
    static constexpr int kMaxStubMenu = 30;
    // Traced nodes, drawn highlighted (empty: none).
    void setHighlights(const std::vector<NodeId>& nodes);
    size_t highlightCount() const { return highlightCount_; }
    // Marks by NodeId drawn on the boxes (scene_draw.hpp setMarks: diff classes, ULP distances);
    // empty clears them. A new graph clears them too.
    void setMarks(std::vector<uint8_t> nodeMarks, std::vector<Rgb> colours);
    const std::vector<uint8_t>& nodeMarks() const { return draw_.nodeMarks; }
    // V3 of viewer/model/view_graph.hpp: identical sibling groups folded into one box.
    void setFoldIdentical(bool fold);
    bool foldIdentical() const { return options_.foldIdentical; }
    void setDark(bool dark);
    bool dark() const { return draw_.dark; }
    // What the scene's items paint with (selection, highlights, theme).
    const DrawOptions& drawOptions() const { return draw_; }
    const PreparedView* shown() const { return shown_.get(); }

    // The part of the drawing the viewport shows, in points; and moving it (the overview).
    QRectF visibleRect() const;
    void centreOnPoint(const QPointF& p);

signals:
    void nodeSelected(const QString& name);
    void viewChanged();  // a new layout is on screen
    void viewportMoved();  // scrolled, zoomed, resized, or a new layout
    void framePainted();  // after each paint with a layout on screen

protected:
    void paintEvent(QPaintEvent* e) override;
    void resizeEvent(QResizeEvent*) override;
    void scrollContentsBy(int dx, int dy) override;
    void wheelEvent(QWheelEvent* e) override;
    void mousePressEvent(QMouseEvent* e) override;
    void mouseMoveEvent(QMouseEvent* e) override;
    void mouseDoubleClickEvent(QMouseEvent* e) override;
    void keyPressEvent(QKeyEvent* e) override;

private:
    ViewJobs* jobs_ = nullptr;
    std::shared_ptr<const PreparedGraph> graph_;
    std::shared_ptr<const PreparedView> shown_;
    std::set<int> wanted_;  // the latest requested expansion
    ViewOptions options_;
    quint64 pendingLayout_ = 0;
    bool fitOnArrival_ = false;
    QString centreOnArrival_;  // node to centre on when the pending layout arrives
    int groupOnArrival_ = -1;
    std::optional<QPointF> keepCentre_;  // setGraph(keepView): the centre to keep
    std::optional<QPointF> intendedCentre_;  // the centre last asked for (or scrolled to)
    bool centring_ = false;
    bool userScroll_ = false;  // a scroll now is the user's (drag, wheel, keys, scroll bars)
    double zoom_ = 1.0;
    QString selected_;
    QPoint dragFrom_;
    DrawOptions draw_;
    size_t highlightCount_ = 0;
    QGraphicsScene* scene_ = nullptr;
    QMenu* stubMenu_ = nullptr;

    void requestLayout();
    void onViewAvailable(quint64 id, std::shared_ptr<const PreparedView> view);
    void rebuildScene();
    QPointF toScene(const QPoint& viewportPos) const;
    void centreOn(const viewer::Box& b);
    void selectNode(const QString& name);
};

}  // namespace fxl::viewer
