#include "viewer/widgets/snapshot_overlay_page.hpp"

#include <QComboBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include "viewer/model/snapshot_overlay_model.hpp"
#include "viewer/model/snapshot_timeline_model.hpp"
#include "viewer/model/timeline_model.hpp"
#include "viewer/widgets/snapshot_view.hpp"
#include "viewer/widgets/timeline_view.hpp"

namespace fxl::viewer {

SnapshotOverlayPage::SnapshotOverlayPage(QWidget* parent)
    : QWidget(parent)
    , model_(new SnapshotOverlayModel(this))
    , measured_(new SnapshotTimelineModel(this))
    , estimate_(new TimelineModel(this))
{
    summary_ = new QLabel(tr("Memory > Compare the graph with a snapshot lays a snapshot of the graph's run over "
                             "its estimate."),
                          this);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    summary_->setWordWrap(true);
    devices_ = new QComboBox(this);
    devices_->setToolTip(tr("The device of the snapshot laid over the estimate"));
    devices_->hide();
    connect(devices_, &QComboBox::currentIndexChanged, this, &SnapshotOverlayPage::setDeviceIndex);
    auto* head = new QHBoxLayout;
    head->addWidget(summary_, 1);
    head->addWidget(devices_, 0, Qt::AlignTop);

    estimateView_ = new TimelineView(estimate_, this);
    measuredView_ = new SnapshotView(measured_, this);
    // the estimate's own title is its peak: say above it what it is
    estimateTitle_ = new QLabel(this);
    auto* estimate = new QWidget(this);
    auto* el = new QVBoxLayout(estimate);
    el->setContentsMargins(0, 0, 0, 0);
    el->setSpacing(0);
    el->addWidget(estimateTitle_);
    el->addWidget(estimateView_, 1);
    auto* plots = new QSplitter(Qt::Vertical, this);
    plots->addWidget(estimate);
    plots->addWidget(measuredView_);
    table_ = new QTableView(this);
    table_->setModel(model_);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->verticalHeader()->hide();
    table_->horizontalHeader()->setStretchLastSection(true);
    table_->setMinimumWidth(300);
    table_->horizontalHeader()->setMaximumSectionSize(240);
    table_->setWordWrap(false);
    auto* split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(plots);
    split->addWidget(table_);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    split->setSizes({640, 420});

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 4, 6, 4);
    layout->addLayout(head);
    layout->addWidget(split, 1);
}

void SnapshotOverlayPage::setResult(std::shared_ptr<const SnapshotOverlayResult> result)
{
    result_ = std::move(result);
    estimate_->setTimelines(result_->estimate, result_->graph);
    {
        const QSignalBlocker block(devices_);
        devices_->clear();
        for (int64_t d : result_->snapshot->devices) devices_->addItem(tr("device %1").arg(d));
    }
    devices_->setVisible(result_->snapshot->devices.size() > 1);
    // the device the CLI picks by itself: the first one traced
    int first = 0;
    const MemorySnapshot& s = *result_->snapshot->snapshot;
    for (size_t i = 0; i < result_->snapshot->devices.size(); ++i) {
        const auto d = static_cast<size_t>(result_->snapshot->devices[i]);
        if (d < s.deviceTraces.size() && !s.deviceTraces[d].empty()) {
            first = static_cast<int>(i);
            break;
        }
    }
    devices_->setCurrentIndex(first);
    setDeviceIndex(first);
}

void SnapshotOverlayPage::setDeviceIndex(int index)
{
    if (!result_ || index < 0) return;
    model_->setOverlay(result_, index);
    measured_->setSnapshot(result_->snapshot, index);
    measuredView_->setTitle(tr("measured: %1").arg(QFileInfo(result_->snapshot->path).fileName()));
    estimateTitle_->setText(tr("<b>estimated: %1</b> (live bytes over execution order; fxlens mem's rules)")
                                .arg(result_->graphName.toHtmlEscaped()));
    summary_->setText(
        tr("%1 over the estimate of %2\n").arg(QFileInfo(result_->snapshot->path).fileName(), result_->graphName)
        + model_->summary());
    table_->resizeColumnsToContents();
}

QString SnapshotOverlayPage::summaryText() const { return summary_->text(); }

void SnapshotOverlayPage::setDark(bool dark)
{
    estimateView_->setDark(dark);
    measuredView_->setDark(dark);
}

}  // namespace fxl::viewer
