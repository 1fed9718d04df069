// CUDA memory snapshots in the window (torch.cuda.memory._dump_snapshot pickles; `fxlens mem`
// reads the same files): the central "Memory snapshot" tab and the Memory menu.
//  - Timeline: the snapshot's active-memory timeline as memory_viz draws it (the largest
//    allocations as stacked bands, the rest in one summarized band), hover for a band's size
//    and frames, a drag or the overview's brush zooms, Esc or Memory > Show every step resets;
//    a device selector when the snapshot has several; the bands listed beside, largest first.
//  - Against the graph's estimate (Memory > Compare the graph with a snapshot...): a snapshot of
//    the shown graph's run over the graph's estimated timeline (snapshot_overlay_page.hpp).
//  - Compared with another snapshot (Memory > Compare with another snapshot...): the snapshot
//    shown (A) against a second one (B) (snapshot_compare_page.hpp).
// Reading a snapshot runs in a job (viewer/jobs/snapshot_jobs.hpp) with the status bar's
// progress and Cancel; an unreadable file is reported with its reason, nothing else changes.
#pragma once

#include <QWidget>

#include <memory>

#include "viewer/jobs/snapshot_jobs.hpp"

class QAction;
class QComboBox;
class QLabel;
class QMenu;
class QTabWidget;
class QTableView;

namespace fxl::viewer {

class MainWindow;
class SnapshotComparePage;
class SnapshotOverlayPage;
class SnapshotTimelineModel;
class SnapshotView;

class SnapshotPanel : public QWidget
{
    Q_OBJECT

public:
    explicit SnapshotPanel(MainWindow& window);

    // The Memory menu's entries.
    void addActions(QMenu* memory);
    QAction* openAction() const { return open_; }
    QAction* overlayAction() const { return overlay_; }
    QAction* compareAction() const { return compare_; }
    QAction* resetZoomAction() const { return reset_; }
    QAction* privatePoolsAction() const { return pools_; }

    // Starts reading a snapshot; it shows in the Timeline page when read.
    void open(const QString& path);
    // Starts laying snapshot `path` over the graph shown (an error when none is shown).
    void overlayShownGraph(const QString& path);
    // Starts comparing the snapshot shown with `path` (an error when none is shown).
    void compareWith(const QString& path);
    bool busy() const { return jobs_->busy(); }
    void cancel() { jobs_->cancelAll(); }
    SnapshotJobs* jobs() const { return jobs_; }

    SnapshotTimelineModel* model() const { return model_; }
    SnapshotView* view() const { return view_; }
    QTableView* bandTable() const { return bands_; }
    QComboBox* deviceBox() const { return devices_; }
    QTabWidget* pages() const { return pages_; }
    SnapshotOverlayPage* overlayPage() const { return overlayPage_; }
    SnapshotComparePage* comparePage() const { return comparePage_; }
    QString summaryText() const;
    void setDark(bool dark);

signals:
    void wantsFront();  // something to show: the window brings the tab to the front

private:
    MainWindow& w_;
    SnapshotJobs* jobs_;
    SnapshotTimelineModel* model_;
    SnapshotView* view_;
    QTableView* bands_;
    QComboBox* devices_;
    QLabel* summary_;
    QTabWidget* pages_;
    SnapshotOverlayPage* overlayPage_;
    SnapshotComparePage* comparePage_;
    QAction *open_, *overlay_, *compare_, *reset_, *pools_;
    std::shared_ptr<const LoadedSnapshot> loaded_;  // as read (its default view)

    QString askSnapshot(const QString& title);
    void showSnapshot(std::shared_ptr<const LoadedSnapshot> s);
    void setDeviceIndex(int index);
    void showPrivatePools(bool on);
};

}  // namespace fxl::viewer
