// The graph view of the window: the view graph of one graph (viewer/model/view_graph.hpp) laid
// out (viewer/layout) and painted with the same drawing routine as `fxlens render`
// (viewer/render), with zoom (wheel, Ctrl +/-), pan (scroll bars, drag), fit (F), level of
// detail (labels drop below 45% zoom), double click to expand or collapse a group, click to
// select a node, click on a stub to jump to the node it names. Layout runs on the UI thread
// for now (one expanded level at a time is small); moving it to a worker is still to do.
#pragma once

#include <QAbstractScrollArea>

#include <memory>
#include <set>

#include "viewer/layout/graph_layout.hpp"
#include "viewer/model/view_graph.hpp"

namespace fxl::viewer {

class GraphView : public QAbstractScrollArea
{
    Q_OBJECT

public:
    explicit GraphView(QWidget* parent = nullptr);

    void setGraph(std::shared_ptr<const Graph> graph);
    const GroupTree* tree() const { return tree_.get(); }
    const ViewGraph& view() const { return view_; }
    const Layout& layout() const { return layout_; }
    double zoom() const { return zoom_; }

    // Expand or collapse a group (and relayout).
    void toggleGroup(int group);
    void collapseAll();
    // Expand down to a node, select it and centre on it; false when there is no such node.
    bool showNode(const QString& name);
    void fit();
    void setZoom(double z);
    QString selected() const { return selected_; }
    // The view item at a viewport position, -1 when none.
    int itemAt(const QPoint& viewportPos) const;

signals:
    void nodeSelected(const QString& name);

protected:
    void paintEvent(QPaintEvent*) override;
    void resizeEvent(QResizeEvent*) override;
    void wheelEvent(QWheelEvent* e) override;
    void mousePressEvent(QMouseEvent* e) override;
    void mouseMoveEvent(QMouseEvent* e) override;
    void mouseDoubleClickEvent(QMouseEvent* e) override;
    void keyPressEvent(QKeyEvent* e) override;

private:
    std::shared_ptr<const Graph> graph_;
    std::unique_ptr<GroupTree> tree_;
    std::set<int> expanded_;
    ViewGraph view_;
    Layout layout_;
    double zoom_ = 1.0;
    QString selected_;
    QPoint dragFrom_;

    void rebuild();
    void updateScrollBars();
    QPointF toScene(const QPoint& viewportPos) const;
    void centreOn(const viewer::Box& b);
};

}  // namespace fxl::viewer
