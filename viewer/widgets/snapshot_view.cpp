#include "viewer/widgets/snapshot_view.hpp"

#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <cmath>

namespace fxl::viewer {

namespace {
constexpr double kSnapshotOverviewHeight = 26;
}

SnapshotView::SnapshotView(SnapshotTimelineModel* model, QWidget* parent)
    : QWidget(parent)
    , model_(model)
{
    setMouseTracking(true);
    setFocusPolicy(Qt::ClickFocus);
    setMinimumHeight(160);
    connect(model_, &QAbstractItemModel::modelReset, this, [this] {
        opts_.first = 0;
        opts_.last = -1;
        opts_.hoverBand = -1;
        opts_.hoverStep = -1;
        hoverText_.clear();
        update();
    });
}

int64_t SnapshotView::first() const { return snapshotFirstStep(opts_, *model_); }
int64_t SnapshotView::last() const { return snapshotLastStep(opts_, *model_); }
bool SnapshotView::zoomed() const { return model_->steps() > 0 && (first() > 0 || last() < model_->steps() - 1); }

void SnapshotView::setRange(int64_t first, int64_t last)
{
    const int64_t n = model_->steps();
    if (n == 0) return;
    if (last < 0 || last >= n) last = n - 1;
    first = std::clamp<int64_t>(first, 0, last);
    if (first == this->first() && last == this->last()) return;
    opts_.first = first;
    opts_.last = last;
    update();
    emit rangeChanged(first, last);
}

void SnapshotView::resetRange() { setRange(0, -1); }

void SnapshotView::setTitle(const QString& title)
{
    opts_.title = title;
    update();
}

void SnapshotView::setYMax(uint64_t bytes)
{
    opts_.yMax = bytes;
    update();
}

void SnapshotView::setHighlightedBand(int row)
{
    opts_.hoverBand = row;
    update();
}

void SnapshotView::setDark(bool dark)
{
    opts_.dark = dark;
    update();
}

QRectF SnapshotView::plotArea() const { return QRectF(0, 0, width(), height() - kSnapshotOverviewHeight - 6); }

QRectF SnapshotView::plotRect() const { return snapshotPlotRect(plotArea()); }

QRectF SnapshotView::overviewRect() const
{
    const QRectF plot = plotRect();
    return QRectF(plot.left(), height() - kSnapshotOverviewHeight - 2, plot.width(), kSnapshotOverviewHeight);
}

int64_t SnapshotView::overviewStepAt(double x) const
{
    const int64_t n = model_->steps();
    if (n == 0) return -1;
    const QRectF r = overviewRect();
    return std::clamp<int64_t>(static_cast<int64_t>((x - r.left()) / std::max(1.0, r.width()) * static_cast<double>(n)),
                               0, n - 1);
}

QPointF SnapshotView::pointOnBand(int row, int64_t step) const
{
    const SnapshotTimeline* t = model_->timeline();
    if (!t || row < 0 || row >= model_->rowCount()) return {};
    const QRectF plot = plotRect();
    const double x = snapshotXOf(static_cast<double>(step), plot, opts_, *model_);
    // scan the column for the band (its offset there depends on the bands below it)
    for (double y = plot.bottom() - 1; y > plot.top(); y -= 1) {
        if (snapshotBandAt(QPointF(x, y), plot, opts_, *model_) != row) continue;
        double y2 = y;
        while (y2 - 1 > plot.top() && snapshotBandAt(QPointF(x, y2 - 1), plot, opts_, *model_) == row) y2 -= 1;
        return QPointF(x, std::round((y + y2) / 2));
    }
    return {};
}

bool SnapshotView::event(QEvent* e)
{
    // Esc resets the zoom here, before the window's Esc (clear the trace) takes it
    if (e->type() == QEvent::ShortcutOverride && static_cast<QKeyEvent*>(e)->key() == Qt::Key_Escape && zoomed()) {
        e->accept();
        return true;
    }
    return QWidget::event(e);
}

void SnapshotView::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    drawSnapshotTimeline(p, plotArea(), *model_, opts_);
    p.fillRect(QRectF(0, plotArea().bottom(), width(), height() - plotArea().bottom()), palette().window());
    drawSnapshotOverview(p, overviewRect(), *model_, first(), last(), opts_.dark);
    if (drag_ == Drag::Plot) {
        QColor c = palette().highlight().color();
        c.setAlpha(60);
        const QRectF plot = plotRect();
        p.fillRect(QRectF(QPointF(std::min(dragFrom_, dragTo_), plot.top()),
                          QPointF(std::max(dragFrom_, dragTo_), plot.bottom())),
                   c);
    }
}

void SnapshotView::hover(const QPointF& pos, const QPoint& global)
{
    const QRectF plot = plotRect();
    const int band = snapshotBandAt(pos, plot, opts_, *model_);
    const int64_t step =
        plot.contains(pos) ? static_cast<int64_t>(std::llround(snapshotStepAt(pos.x(), plot, opts_, *model_))) : -1;
    if (step != opts_.hoverStep) {
        opts_.hoverStep = step;
        update();
    }
    if (band == opts_.hoverBand && !(band < 0 && !hoverText_.isEmpty())) return;
    opts_.hoverBand = band;
    hoverText_ = band >= 0 ? model_->bandText(band) : QString();
    update();
    if (band >= 0)
        QToolTip::showText(global, hoverText_, this);
    else
        QToolTip::hideText();
    emit bandHovered(band);
}

void SnapshotView::mouseMoveEvent(QMouseEvent* e)
{
    const QPointF pos = e->position();
    if (drag_ == Drag::Plot) {
        dragTo_ = pos.x();
        update();
        return;
    }
    if (drag_ == Drag::Overview) {
        dragTo_ = pos.x();
        const int64_t a = overviewStepAt(std::min(dragFrom_, dragTo_)),
                      b = overviewStepAt(std::max(dragFrom_, dragTo_));
        if (b > a) setRange(a, b);
        return;
    }
    hover(pos, e->globalPosition().toPoint());
}

void SnapshotView::mousePressEvent(QMouseEvent* e)
{
    if (e->button() != Qt::LeftButton) return;
    const QPointF pos = e->position();
    dragFrom_ = dragTo_ = pos.x();
    if (overviewRect().adjusted(0, -2, 0, 2).contains(pos))
        drag_ = Drag::Overview;
    else if (plotRect().contains(pos))
        drag_ = Drag::Plot;
}

void SnapshotView::mouseReleaseEvent(QMouseEvent* e)
{
    const Drag d = drag_;
    drag_ = Drag::None;
    const QPointF pos = e->position();
    if (d == Drag::Plot) {
        if (std::abs(pos.x() - dragFrom_) >= 4) {  // a drag: zoom into it
            const QRectF plot = plotRect();
            const double a = snapshotStepAt(std::min(dragFrom_, pos.x()), plot, opts_, *model_);
            const double b = snapshotStepAt(std::max(dragFrom_, pos.x()), plot, opts_, *model_);
            const int64_t ia = static_cast<int64_t>(std::floor(a)), ib = static_cast<int64_t>(std::ceil(b));
            if (ib > ia) setRange(ia, ib);
        }
        update();
    } else if (d == Drag::Overview && std::abs(pos.x() - dragFrom_) < 4) {
        // a click on the overview: the range shown centred there
        const int64_t span = last() - first();
        const int64_t mid = overviewStepAt(pos.x());
        const int64_t from = std::clamp<int64_t>(mid - span / 2, 0, std::max<int64_t>(0, model_->steps() - 1 - span));
        setRange(from, from + span);
    }
}

void SnapshotView::mouseDoubleClickEvent(QMouseEvent*) { resetRange(); }

void SnapshotView::keyPressEvent(QKeyEvent* e)
{
    if (e->key() == Qt::Key_Escape) {
        resetRange();
        return;
    }
    QWidget::keyPressEvent(e);
}

void SnapshotView::leaveEvent(QEvent*)
{
    opts_.hoverStep = -1;
    update();
}

}  // namespace fxl::viewer
