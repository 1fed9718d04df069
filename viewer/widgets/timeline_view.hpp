// The memory timeline panel: live bytes over execution order (viewer/render/timeline_draw.hpp
// draws it from a TimelineModel), the step before overlaid, the peak labelled, the
// forward/backward boundary, saved activations shaded. Under it an overview of the whole
// timeline with a brush (memory_viz's minimap): drag on the overview, or drag across the plot,
// to zoom into a range; double click or Esc shows everything again. Hover shows the node and
// the largest values live at that point; a click selects the node (nodeClicked).
#pragma once

#include <QWidget>

#include "viewer/model/timeline_model.hpp"
#include "viewer/render/timeline_draw.hpp"

namespace fxl::viewer {

class TimelineView : public QWidget
{
    Q_OBJECT

public:
    explicit TimelineView(TimelineModel* model, QWidget* parent = nullptr);

    TimelineModel* model() const { return model_; }
    // The rows shown (last -1: to the end); clamped to the model.
    void setRange(int first, int last);
    void resetRange();
    int first() const { return opts_.first; }
    int last() const;
    // The node shown selected (a vertical line); "" none.
    void setSelectedNode(const QString& name);
    int hoverRow() const { return opts_.hoverRow; }
    // What the hover shows for a row: node, phase, live bytes (and before), the largest live.
    QString hoverText(int row) const;
    void setDark(bool dark);
    bool dark() const { return opts_.dark; }
    QRectF plotRect() const;
    QRectF overviewRect() const;
    QSize sizeHint() const override { return {800, 220}; }

signals:
    void nodeClicked(const QString& name);
    void rangeChanged(int first, int last);

protected:
    void paintEvent(QPaintEvent*) override;
    void mouseMoveEvent(QMouseEvent* e) override;
    void mousePressEvent(QMouseEvent* e) override;
    void mouseReleaseEvent(QMouseEvent* e) override;
    void mouseDoubleClickEvent(QMouseEvent* e) override;
    void keyPressEvent(QKeyEvent* e) override;
    void leaveEvent(QEvent*) override;

private:
    TimelineModel* model_;
    TimelineDrawOptions opts_;
    QString selectedNode_;
    enum class Drag
    {
        None,
        Plot,
        Overview
    } drag_ = Drag::None;
    double dragFrom_ = 0, dragTo_ = 0;

    QRectF plotArea() const;  // the widget minus the overview
    int overviewRowAt(double x) const;
};

}  // namespace fxl::viewer
