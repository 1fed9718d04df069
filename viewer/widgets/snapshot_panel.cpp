#include "viewer/widgets/snapshot_panel.hpp"

#include <QAction>
#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

#include "viewer/model/snapshot_compare_model.hpp"
#include "viewer/model/snapshot_overlay_model.hpp"
#include "viewer/model/snapshot_timeline_model.hpp"
#include "viewer/model/source_tree_model.hpp"
#include "viewer/widgets/graph_view.hpp"
#include "viewer/widgets/main_window.hpp"
#include "viewer/widgets/snapshot_compare_page.hpp"
#include "viewer/widgets/snapshot_overlay_page.hpp"
#include "viewer/widgets/snapshot_view.hpp"

namespace fxl::viewer {

SnapshotPanel::SnapshotPanel(MainWindow& window)
    : QWidget(&window)
    , w_(window)
    , jobs_(new SnapshotJobs(this))
    , model_(new SnapshotTimelineModel(this))
{
    // the Timeline page: summary, device, show every step; the plot; the bands, largest first
    summary_ = new QLabel(tr("No snapshot open: File > Open or Memory > Open a CUDA memory snapshot reads a "
                             "torch.cuda.memory._dump_snapshot pickle."),
                          this);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    summary_->setWordWrap(true);
    devices_ = new QComboBox(this);
    devices_->setToolTip(tr("The device whose timeline is shown"));
    devices_->hide();
    connect(devices_, &QComboBox::currentIndexChanged, this, &SnapshotPanel::setDeviceIndex);
    auto* all = new QToolButton(this);
    all->setText(tr("Show every step"));
    all->setToolTip(tr("Zoom out to every step (Esc or a double click on the plot)"));
    auto* head = new QHBoxLayout;
    head->addWidget(summary_, 1);
    head->addWidget(devices_, 0, Qt::AlignTop);
    head->addWidget(all, 0, Qt::AlignTop);

    view_ = new SnapshotView(model_, this);
    connect(all, &QToolButton::clicked, view_, &SnapshotView::resetRange);
    auto* sorted = new QSortFilterProxyModel(this);
    sorted->setSourceModel(model_);
    sorted->setSortRole(SnapshotTimelineModel::BytesRole);
    bands_ = new QTableView(this);
    bands_->setModel(sorted);
    bands_->setSortingEnabled(true);
    bands_->sortByColumn(SnapshotTimelineModel::SizeColumn, Qt::DescendingOrder);
    bands_->setSelectionBehavior(QAbstractItemView::SelectRows);
    bands_->setSelectionMode(QAbstractItemView::SingleSelection);
    bands_->verticalHeader()->hide();
    bands_->horizontalHeader()->setStretchLastSection(true);
    bands_->setMinimumWidth(300);
    bands_->horizontalHeader()->setMaximumSectionSize(240);
    bands_->setWordWrap(false);
    connect(bands_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this, sorted](const QModelIndex& current) {
                view_->setHighlightedBand(current.isValid() ? sorted->mapToSource(current).row() : -1);
            });
    auto* split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(view_);
    split->addWidget(bands_);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    split->setSizes({640, 420});
    auto* timelinePage = new QWidget(this);
    auto* tl = new QVBoxLayout(timelinePage);
    tl->setContentsMargins(6, 4, 6, 4);
    tl->addLayout(head);
    tl->addWidget(split, 1);

    overlayPage_ = new SnapshotOverlayPage(this);
    comparePage_ = new SnapshotComparePage(this);
    pages_ = new QTabWidget(this);
    pages_->setDocumentMode(true);
    pages_->addTab(timelinePage, tr("Timeline"));
    pages_->addTab(overlayPage_, tr("Against the graph's estimate"));
    pages_->addTab(comparePage_, tr("Compared with another snapshot"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(pages_);

    // the Memory menu
    open_ = new QAction(tr("Open a CUDA memory &snapshot..."), this);
    connect(open_, &QAction::triggered, this, [this] {
        const QString path = askSnapshot(tr("Open a CUDA memory snapshot"));
        if (!path.isEmpty()) open(path);
    });
    overlay_ = new QAction(tr("Compare the &graph with a snapshot..."), this);
    overlay_->setToolTip(tr("A snapshot of the shown graph's run over the graph's estimated memory timeline"));
    connect(overlay_, &QAction::triggered, this, [this] {
        if (!w_.graphView()->prepared()) {
            w_.showError(tr("Compare the graph with a snapshot: no graph is shown; open the graph whose run the "
                            "snapshot recorded first."));
            return;
        }
        const QString path = askSnapshot(tr("A snapshot of the graph's run"));
        if (!path.isEmpty()) overlayShownGraph(path);
    });
    compare_ = new QAction(tr("Compare with &another snapshot..."), this);
    connect(compare_, &QAction::triggered, this, [this] {
        if (!model_->snapshot()) {
            w_.showError(tr("Compare with another snapshot: no snapshot is shown; open one first (Memory > Open a "
                            "CUDA memory snapshot)."));
            return;
        }
        const QString path =
            askSnapshot(tr("A snapshot to compare with %1").arg(QFileInfo(model_->snapshot()->path).fileName()));
        if (!path.isEmpty()) compareWith(path);
    });
    reset_ = new QAction(tr("Show &every step of the snapshot"), this);
    reset_->setToolTip(tr("Zoom the snapshot timelines out (Esc on a timeline does the same)"));
    connect(reset_, &QAction::triggered, this, [this] {
        for (SnapshotView* v : findChildren<SnapshotView*>()) v->resetRange();
    });

    pools_ = new QAction(tr("Include &private pools in the snapshot timeline"), this);
    pools_->setCheckable(true);
    pools_->setToolTip(tr("memory_viz's view incl. private pools (CUDA graphs, MemPool): each pool one envelope as "
                          "high as its reserved bytes, its allocations inside (fxlens mem --private-pools)"));
    connect(pools_, &QAction::toggled, this, &SnapshotPanel::showPrivatePools);

    // the jobs' results
    connect(jobs_, &SnapshotJobs::snapshotAvailable, this,
            [this](quint64, std::shared_ptr<const LoadedSnapshot> s) { showSnapshot(s); });
    connect(jobs_, &SnapshotJobs::overlayAvailable, this,
            [this](quint64, std::shared_ptr<const SnapshotOverlayResult> r) {
                overlayPage_->setResult(r);
                pages_->setCurrentWidget(overlayPage_);
                w_.setStatus(tr("%1 over the graph: %2% of its allocations matched")
                                 .arg(QFileInfo(r->snapshot->path).fileName())
                                 .arg(100.0 * overlayPage_->model()->matchRate(), 0, 'f', 1));
                emit wantsFront();
            });
    connect(jobs_, &SnapshotJobs::comparisonAvailable, this,
            [this](quint64, std::shared_ptr<const SnapshotComparisonResult> r) {
                comparePage_->setResult(r, std::max(0, model_->deviceIndex()));
                pages_->setCurrentWidget(comparePage_);
                w_.setStatus(
                    tr("%1 compared with %2").arg(QFileInfo(r->a->path).fileName(), QFileInfo(r->b->path).fileName()));
                emit wantsFront();
            });
    connect(jobs_, &SnapshotJobs::failed, this, [this](quint64, int, const QString& message) {
        w_.showError(tr("The snapshot could not be read (nothing else changed):\n%1").arg(message));
    });
    connect(jobs_, &SnapshotJobs::cancelled, this, [this] { w_.setStatus(tr("cancelled")); });
}

void SnapshotPanel::addActions(QMenu* memory)
{
    memory->addAction(open_);
    memory->addAction(overlay_);
    memory->addAction(compare_);
    memory->addSeparator();
    memory->addAction(reset_);
    memory->addAction(pools_);
}

QString SnapshotPanel::askSnapshot(const QString& title)
{
    return QFileDialog::getOpenFileName(&w_, title, {}, tr("CUDA memory snapshots (*.pickle *.pkl);;All files (*)"));
}

void SnapshotPanel::open(const QString& path)
{
    w_.setStatus(tr("reading the snapshot %1...").arg(QFileInfo(path).fileName()));
    jobs_->read(path);
    w_.updateBusy();
}

void SnapshotPanel::overlayShownGraph(const QString& path)
{
    const auto g = w_.graphView()->prepared();
    if (!g) {
        w_.showError(tr("Compare the graph with a snapshot: no graph is shown."));
        return;
    }
    QString name = graphTitle(*g->source, g->artifactId);
    if (w_.currentStep() > 0) name += tr(", step %1").arg(w_.currentStep());
    w_.setStatus(tr("laying %1 over %2...").arg(QFileInfo(path).fileName(), name));
    jobs_->overlay(path, g->graph, name);
    w_.updateBusy();
}

void SnapshotPanel::compareWith(const QString& path)
{
    if (!model_->snapshot()) {
        w_.showError(tr("Compare with another snapshot: no snapshot is shown."));
        return;
    }
    w_.setStatus(tr("comparing with %1...").arg(QFileInfo(path).fileName()));
    jobs_->compare(model_->snapshot(), path);
    w_.updateBusy();
}

void SnapshotPanel::showSnapshot(std::shared_ptr<const LoadedSnapshot> s)
{
    loaded_ = s;
    {
        const QSignalBlocker block(pools_);
        pools_->setChecked(false);
    }
    {
        const QSignalBlocker block(devices_);
        devices_->clear();
        for (int64_t d : s->devices) devices_->addItem(tr("device %1").arg(d));
    }
    devices_->setVisible(s->devices.size() > 1);
    // the first device with a trace
    int first = 0;
    for (size_t i = 0; i < s->devices.size(); ++i) {
        const auto d = static_cast<size_t>(s->devices[i]);
        if (d < s->snapshot->deviceTraces.size() && !s->snapshot->deviceTraces[d].empty()) {
            first = static_cast<int>(i);
            break;
        }
    }
    model_->setSnapshot(s, first);
    devices_->setCurrentIndex(first);
    setDeviceIndex(first);
    view_->setTitle(QFileInfo(s->path).fileName());
    pages_->setCurrentIndex(0);
    w_.rememberRecent(s->path);
    w_.setStatus(tr("%1: %2 devices, read in %3 s")
                     .arg(QFileInfo(s->path).fileName())
                     .arg(s->devices.size())
                     .arg(s->seconds, 0, 'f', 2));
    emit wantsFront();
}

void SnapshotPanel::setDeviceIndex(int index)
{
    if (!model_->snapshot() || index < 0) return;
    if (index != model_->deviceIndex()) model_->setDeviceIndex(index);
    const LoadedSnapshot& s = *model_->snapshot();
    QString text = tr("%1 (pickle protocol %2, %3 distinct frames%4)")
                       .arg(QFileInfo(s.path).fileName())
                       .arg(s.snapshot->pickleProtocol)
                       .arg(s.snapshot->frames.size())
                       .arg(s.snapshot->fxFrames ? tr("; frames name FX nodes") : QString());
    text += QLatin1Char('\n') + model_->summary();
    if (s.privatePools) text += tr("; incl. private pools (an envelope per pool, as high as its reserved bytes)");
    if (s.devices.empty()) text += QLatin1Char('\n') + tr("the snapshot has no trace and no segment on any device");
    summary_->setText(text);
    bands_->resizeColumnsToContents();
}

// The loaded snapshot again, its timelines those of the view asked for.
void SnapshotPanel::showPrivatePools(bool on)
{
    if (!loaded_ || loaded_->poolTimelines.empty()) {
        if (on) {
            const QSignalBlocker block(pools_);
            pools_->setChecked(false);
            w_.showError(loaded_ ? tr("Include private pools: %1 has no private pool (every segment is in the default "
                                      "pool)")
                                       .arg(QFileInfo(loaded_->path).fileName())
                                 : tr("Include private pools: no snapshot is shown."));
        }
        return;
    }
    auto view = std::make_shared<LoadedSnapshot>(*loaded_);
    if (on) view->timelines = loaded_->poolTimelines;
    view->privatePools = on;
    const int device = std::max(0, model_->deviceIndex());
    model_->setSnapshot(view, device);
    setDeviceIndex(device);
    view_->resetRange();
}

QString SnapshotPanel::summaryText() const { return summary_->text(); }

void SnapshotPanel::setDark(bool dark)
{
    view_->setDark(dark);
    overlayPage_->setDark(dark);
    comparePage_->setDark(dark);
}

}  // namespace fxl::viewer
