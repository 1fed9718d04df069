// The snapshot panel's "Compared with another snapshot" page: two CUDA memory snapshots (two
// steps, two runs, a graph before and after a pass) compared as `fxlens mem A --compare B` does
// (core/analysis/snapshot_compare.hpp): both peaks and their change above, A's and B's
// active-memory timelines one over the other on the same y axis, and the allocation sites (FX
// nodes, else innermost frames) aligned across the two with the bytes each allocated and had
// live at its peak, the largest differences first.
#pragma once

#include <QWidget>

#include <memory>

#include "viewer/jobs/snapshot_jobs.hpp"

class QComboBox;
class QLabel;
class QTableView;

namespace fxl::viewer {

class SnapshotCompareModel;
class SnapshotTimelineModel;
class SnapshotView;

class SnapshotComparePage : public QWidget
{
    Q_OBJECT

public:
    explicit SnapshotComparePage(QWidget* parent = nullptr);

    void setResult(std::shared_ptr<const SnapshotComparisonResult> result, int deviceIndex = 0);
    void setDeviceIndex(int index);
    SnapshotCompareModel* model() const { return model_; }
    SnapshotTimelineModel* modelA() const { return a_; }
    SnapshotTimelineModel* modelB() const { return b_; }
    SnapshotView* viewA() const { return viewA_; }
    SnapshotView* viewB() const { return viewB_; }
    QTableView* table() const { return table_; }
    QComboBox* deviceBox() const { return devices_; }
    QString summaryText() const;
    void setDark(bool dark);

private:
    std::shared_ptr<const SnapshotComparisonResult> result_;
    std::shared_ptr<const LoadedSnapshot> bOnDevices_;  // B's timelines on A's devices
    SnapshotCompareModel* model_;
    SnapshotTimelineModel *a_, *b_;
    SnapshotView *viewA_, *viewB_;
    QTableView* table_;
    QComboBox* devices_;
    QLabel* summary_;
};

}  // namespace fxl::viewer
