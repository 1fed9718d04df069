// The minimap: the whole laid-out view of the graph view, scaled to fit, without labels, with
// the part the graph view shows framed; a click or a drag moves the graph view there.
#pragma once

#include <QWidget>

namespace fxl::viewer {

class GraphView;

class Overview : public QWidget
{
    Q_OBJECT

public:
    explicit Overview(GraphView* view, QWidget* parent = nullptr);
    QSize sizeHint() const override { return {260, 180}; }
    // The drawing's scale and offset in this widget (points -> pixels), for tests.
    double scale() const;

protected:
    void paintEvent(QPaintEvent*) override;
    void mousePressEvent(QMouseEvent* e) override;
    void mouseMoveEvent(QMouseEvent* e) override;

private:
    GraphView* view_;
    QPointF offset() const;
    void moveTo(const QPoint& pos);
};

}  // namespace fxl::viewer
