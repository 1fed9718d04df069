// The active-memory timeline of a CUDA memory snapshot (viewer/render/snapshot_draw.hpp draws it
// from a SnapshotTimelineModel), as memory_viz's "Active Memory Timeline": hover a band for its
// size, its FX node and its stack (a tooltip, and bandHovered); drag across the plot, or along
// the overview strip under it (memory_viz's brush), to zoom the steps shown; Esc or a double
// click shows them all again (resetRange).
#pragma once

#include <QWidget>

#include "viewer/model/snapshot_timeline_model.hpp"
#include "viewer/render/snapshot_draw.hpp"

namespace fxl::viewer {

class SnapshotView : public QWidget
{
    Q_OBJECT

public:
    explicit SnapshotView(SnapshotTimelineModel* model, QWidget* parent = nullptr);

    SnapshotTimelineModel* model() const { return model_; }
    // The steps shown (last -1: to the end); clamped to the model.
    void setRange(int64_t first, int64_t last);
    void resetRange();
    int64_t first() const;
    int64_t last() const;
    bool zoomed() const;  // not every step shown
    void setTitle(const QString& title);
    void setYMax(uint64_t bytes);  // a shared y axis (0: the range's own largest)
    void setHighlightedBand(int row);  // drawn outlined (a row picked in a table)
    int hoverBand() const { return opts_.hoverBand; }
    QString hoverText() const { return hoverText_; }  // what the tooltip shows ("" none)
    void setDark(bool dark);
    QRectF plotRect() const;
    QRectF overviewRect() const;
    // The widget's point over the middle of a band's drawn area at `step` (tests, the
    // screenshots); a null point when the band is not drawn there.
    QPointF pointOnBand(int row, int64_t step) const;
    QSize sizeHint() const override { return {800, 260}; }

signals:
    void rangeChanged(int64_t first, int64_t last);
    void bandHovered(int row);  // -1 when the pointer left every band

protected:
    bool event(QEvent* e) override;
    void paintEvent(QPaintEvent*) override;
    void mouseMoveEvent(QMouseEvent* e) override;
    void mousePressEvent(QMouseEvent* e) override;
    void mouseReleaseEvent(QMouseEvent* e) override;
    void mouseDoubleClickEvent(QMouseEvent* e) override;
    void keyPressEvent(QKeyEvent* e) override;
    void leaveEvent(QEvent*) override;

private:
    SnapshotTimelineModel* model_;
    SnapshotDrawOptions opts_;
    QString hoverText_;
    enum class Drag
    {
        None,
        Plot,
        Overview
    } drag_ = Drag::None;
    double dragFrom_ = 0, dragTo_ = 0;

    QRectF plotArea() const;  // the widget minus the overview
    int64_t overviewStepAt(double x) const;
    void hover(const QPointF& pos, const QPoint& global);
};

}  // namespace fxl::viewer
