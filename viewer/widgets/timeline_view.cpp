#include "viewer/widgets/timeline_view.hpp"

#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include "core/util/format.hpp"

namespace fxl::viewer {

namespace {
constexpr double kOverviewHeight = 26;
}

TimelineView::TimelineView(TimelineModel* model, QWidget* parent)
    : QWidget(parent)
    , model_(model)
{
    setMouseTracking(true);
    setFocusPolicy(Qt::ClickFocus);
    setMinimumHeight(140);
    connect(model_, &QAbstractItemModel::modelReset, this, [this] {
        opts_.first = 0;
        opts_.last = -1;
        opts_.hoverRow = -1;
        opts_.selectedRow = selectedNode_.isEmpty() ? -1 : model_->rowOfNode(selectedNode_);
        update();
    });
}

int TimelineView::last() const
{
    const int n = model_->rowCount();
    return opts_.last < 0 || opts_.last >= n ? n - 1 : opts_.last;
}

void TimelineView::setRange(int first, int last)
{
    const int n = model_->rowCount();
    if (n == 0) return;
    if (last < 0 || last >= n) last = n - 1;
    first = std::clamp(first, 0, last);
    if (first == opts_.first && last == this->last()) return;
    opts_.first = first;
    opts_.last = last;
    update();
    emit rangeChanged(first, last);
}

void TimelineView::resetRange() { setRange(0, -1); }

void TimelineView::setSelectedNode(const QString& name)
{
    selectedNode_ = name;
    opts_.selectedRow = name.isEmpty() ? -1 : model_->rowOfNode(name);
    update();
}

void TimelineView::setDark(bool dark)
{
    opts_.dark = dark;
    update();
}

QRectF TimelineView::plotArea() const { return QRectF(0, 0, width(), height() - kOverviewHeight - 6); }

QRectF TimelineView::plotRect() const { return timelinePlotRect(plotArea(), opts_); }

QRectF TimelineView::overviewRect() const
{
    const QRectF plot = plotRect();
    return QRectF(plot.left(), height() - kOverviewHeight - 2, plot.width(), kOverviewHeight);
}

int TimelineView::overviewRowAt(double x) const
{
    const int n = model_->rowCount();
    if (n == 0) return -1;
    const QRectF r = overviewRect();
    return std::clamp(static_cast<int>((x - r.left()) / std::max(1.0, r.width()) * n), 0, n - 1);
}

QString TimelineView::hoverText(int row) const
{
    if (row < 0 || row >= model_->rowCount()) return {};
    const auto& p = model_->points()[static_cast<size_t>(row)];
    QString t = QStringLiteral("<b>%1</b> (%2)")
                    .arg(model_->nameAt(row).toHtmlEscaped(), QString::fromLatin1(stepPhaseName(p.phase).data()));
    if (p.flags & TimelineModel::CurrentMissing)
        t += tr("<br>removed by this step");
    else
        t += tr("<br>live %1 (allocates %2, frees %3)")
                 .arg(QString::fromStdString(formatByteSize(p.live)),
                      QString::fromStdString(formatByteSize(p.allocated)),
                      QString::fromStdString(formatByteSize(p.freed)));
    if (model_->hasPrevious())
        t += (p.flags & TimelineModel::PreviousMissing)
            ? tr("<br>added by this step")
            : tr("<br>step before: live %1").arg(QString::fromStdString(formatByteSize(p.previousLive)));
    if (p.saved > 0) t += tr("<br>saved activations live: %1").arg(QString::fromStdString(formatByteSize(p.saved)));
    const QStringList largest = model_->largestLiveAt(row, 5);
    if (!largest.isEmpty()) {
        t += tr("<br><i>largest live:</i>");
        for (const QString& l : largest) t += QStringLiteral("<br>&nbsp;&nbsp;") + l.toHtmlEscaped();
    }
    return t;
}

void TimelineView::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    drawTimeline(p, plotArea(), *model_, opts_);
    p.fillRect(QRectF(0, plotArea().bottom(), width(), height() - plotArea().bottom()), palette().window());
    drawTimelineOverview(p, overviewRect(), *model_, opts_.first, last(), opts_.dark);
    if (drag_ == Drag::Plot) {
        QColor c = palette().highlight().color();
        c.setAlpha(60);
        const QRectF plot = plotRect();
        p.fillRect(QRectF(QPointF(std::min(dragFrom_, dragTo_), plot.top()),
                          QPointF(std::max(dragFrom_, dragTo_), plot.bottom())),
                   c);
    }
}

void TimelineView::mouseMoveEvent(QMouseEvent* e)
{
    const QPointF pos = e->position();
    if (drag_ == Drag::Plot) {
        dragTo_ = pos.x();
        update();
        return;
    }
    if (drag_ == Drag::Overview) {
        dragTo_ = pos.x();
        const int a = overviewRowAt(std::min(dragFrom_, dragTo_)), b = overviewRowAt(std::max(dragFrom_, dragTo_));
        if (b > a) setRange(a, b);
        return;
    }
    const QRectF plot = plotRect();
    const int row = plot.contains(pos) ? timelineRowAt(pos.x(), plot, opts_, *model_) : -1;
    if (row != opts_.hoverRow) {
        opts_.hoverRow = row;
        update();
        if (row >= 0)
            QToolTip::showText(e->globalPosition().toPoint(), hoverText(row), this);
        else
            QToolTip::hideText();
    }
}

void TimelineView::mousePressEvent(QMouseEvent* e)
{
    if (e->button() != Qt::LeftButton) return;
    const QPointF pos = e->position();
    dragFrom_ = dragTo_ = pos.x();
    if (overviewRect().adjusted(0, -2, 0, 2).contains(pos))
        drag_ = Drag::Overview;
    else if (plotRect().contains(pos))
        drag_ = Drag::Plot;
}

void TimelineView::mouseReleaseEvent(QMouseEvent* e)
{
    const Drag d = drag_;
    drag_ = Drag::None;
    const QPointF pos = e->position();
    if (d == Drag::Plot) {
        const QRectF plot = plotRect();
        if (std::abs(pos.x() - dragFrom_) < 4) {  // a click: select the node there
            const int row = timelineRowAt(pos.x(), plot, opts_, *model_);
            const QString name = model_->nameAt(row);
            if (!name.isEmpty()) {
                setSelectedNode(name);
                emit nodeClicked(name);
            }
        } else {  // a drag: zoom into it
            const int a = timelineRowAt(std::min(dragFrom_, pos.x()), plot, opts_, *model_);
            const int b = timelineRowAt(std::max(dragFrom_, pos.x()), plot, opts_, *model_);
            if (b > a) setRange(a, b);
        }
        update();
    } else if (d == Drag::Overview && std::abs(pos.x() - dragFrom_) < 4) {
        // a click on the overview: centre the range shown there
        const int span = last() - opts_.first;
        const int mid = overviewRowAt(pos.x());
        setRange(mid - span / 2, mid - span / 2 + span);
    }
}

void TimelineView::mouseDoubleClickEvent(QMouseEvent*) { resetRange(); }

void TimelineView::keyPressEvent(QKeyEvent* e)
{
    if (e->key() == Qt::Key_Escape) {
        resetRange();
        return;
    }
    QWidget::keyPressEvent(e);
}

void TimelineView::leaveEvent(QEvent*)
{
    opts_.hoverRow = -1;
    update();
}

}  // namespace fxl::viewer
