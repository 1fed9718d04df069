#include "viewer/widgets/snapshot_compare_page.hpp"

#include <QComboBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include "viewer/model/snapshot_compare_model.hpp"
#include "viewer/model/snapshot_timeline_model.hpp"
#include "viewer/widgets/snapshot_view.hpp"

namespace fxl::viewer {

SnapshotComparePage::SnapshotComparePage(QWidget* parent)
    : QWidget(parent)
    , model_(new SnapshotCompareModel(this))
    , a_(new SnapshotTimelineModel(this))
    , b_(new SnapshotTimelineModel(this))
{
    summary_ =
        new QLabel(tr("Memory > Compare with another snapshot compares the snapshot shown with a second one."), this);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    summary_->setWordWrap(true);
    devices_ = new QComboBox(this);
    devices_->setToolTip(tr("The device compared"));
    devices_->hide();
    connect(devices_, &QComboBox::currentIndexChanged, this, &SnapshotComparePage::setDeviceIndex);
    auto* head = new QHBoxLayout;
    head->addWidget(summary_, 1);
    head->addWidget(devices_, 0, Qt::AlignTop);

    viewA_ = new SnapshotView(a_, this);
    viewB_ = new SnapshotView(b_, this);
    // zooming one zooms the other when both have as many steps (two runs of one graph)
    connect(viewA_, &SnapshotView::rangeChanged, this, [this](int64_t f, int64_t l) {
        if (a_->steps() == b_->steps()) viewB_->setRange(f, l);
    });
    connect(viewB_, &SnapshotView::rangeChanged, this, [this](int64_t f, int64_t l) {
        if (a_->steps() == b_->steps()) viewA_->setRange(f, l);
    });
    auto* plots = new QSplitter(Qt::Vertical, this);
    plots->addWidget(viewA_);
    plots->addWidget(viewB_);
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

void SnapshotComparePage::setResult(std::shared_ptr<const SnapshotComparisonResult> result, int deviceIndex)
{
    result_ = std::move(result);
    // B as the views read it: its timeline on each of A's devices
    auto b = std::make_shared<LoadedSnapshot>(*result_->b);
    b->devices = result_->devices;
    b->timelines = result_->timelinesB;
    bOnDevices_ = b;
    {
        const QSignalBlocker block(devices_);
        devices_->clear();
        for (int64_t d : result_->devices) devices_->addItem(tr("device %1").arg(d));
    }
    devices_->setVisible(result_->devices.size() > 1);
    devices_->setCurrentIndex(deviceIndex);
    setDeviceIndex(deviceIndex);
}

void SnapshotComparePage::setDeviceIndex(int index)
{
    if (!result_ || index < 0) return;
    model_->setComparison(result_, index);
    a_->setSnapshot(result_->a, index);
    b_->setSnapshot(bOnDevices_, index);
    viewA_->setTitle(QStringLiteral("A: ") + QFileInfo(result_->a->path).fileName());
    viewB_->setTitle(QStringLiteral("B: ") + QFileInfo(result_->b->path).fileName());
    const uint64_t top = std::max(a_->maxBytes(), b_->maxBytes());
    viewA_->setYMax(top);
    viewB_->setYMax(top);
    summary_->setText(model_->summary());
    table_->resizeColumnsToContents();
}

QString SnapshotComparePage::summaryText() const { return summary_->text(); }

void SnapshotComparePage::setDark(bool dark)
{
    viewA_->setDark(dark);
    viewB_->setDark(dark);
}

}  // namespace fxl::viewer
