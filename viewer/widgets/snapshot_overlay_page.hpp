// The snapshot panel's "Against the graph's estimate" page: a CUDA memory snapshot of a graph's
// run laid over that graph's estimated memory timeline (core/analysis/snapshot_overlay.hpp, as
// `fxlens mem GRAPH --snapshot SNAP`): the match rate and both peaks above, the estimate
// (live bytes over execution order, viewer/widgets/timeline_view.hpp) over the measurement
// (memory_viz's bands over allocator steps) with both peaks marked, and the nodes whose measured
// bytes differ from the estimate most. The two plots have their own x axes (nodes, allocator
// steps) and y axes; the peaks are written on each and in the summary.
#pragma once

#include <QWidget>

#include <memory>

#include "viewer/jobs/snapshot_jobs.hpp"

class QComboBox;
class QLabel;
class QTableView;

namespace fxl::viewer {

class SnapshotOverlayModel;
class SnapshotTimelineModel;
class SnapshotView;
class TimelineModel;
class TimelineView;

class SnapshotOverlayPage : public QWidget
{
    Q_OBJECT

public:
    explicit SnapshotOverlayPage(QWidget* parent = nullptr);

    void setResult(std::shared_ptr<const SnapshotOverlayResult> result);
    void setDeviceIndex(int index);
    SnapshotOverlayModel* model() const { return model_; }
    SnapshotTimelineModel* measuredModel() const { return measured_; }
    TimelineModel* estimateModel() const { return estimate_; }
    SnapshotView* measuredView() const { return measuredView_; }
    TimelineView* estimateView() const { return estimateView_; }
    QTableView* table() const { return table_; }
    QComboBox* deviceBox() const { return devices_; }
    QString summaryText() const;
    void setDark(bool dark);

private:
    std::shared_ptr<const SnapshotOverlayResult> result_;
    SnapshotOverlayModel* model_;
    SnapshotTimelineModel* measured_;
    TimelineModel* estimate_;
    SnapshotView* measuredView_;
    TimelineView* estimateView_;
    QTableView* table_;
    QComboBox* devices_;
    QLabel* summary_;
    QLabel* estimateTitle_;
};

}  // namespace fxl::viewer
