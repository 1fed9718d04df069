// The memory timeline of a step as a model: live bytes over execution order, with the step
// before overlaid (core/analysis/memory_timeline.hpp computes both; this lines them up). The
// timeline panel draws from it and the tests read it. QtCore only.
//
// Rules:
//  T1 The x axis: one point per node of the current graph in execution order. With the step
//     before and the diff between them, the axis is the diff's merged order (the current
//     graph's order, each removed node placed where it was), so that both curves share it:
//     a node only on one side holds the other side's value from the point before (a step
//     function), and is marked (CurrentMissing / PreviousMissing).
//  T2 Columns: Node (the current name; the previous one for a removed node), Phase, Live (live
//     bytes while the node runs, R7), Previous (the same in the step before), Allocated, Freed,
//     Saved (bytes of saved activations live at that point: storages allocated by the nodes
//     the timeline lists as saved, not input-backed). BytesRole gives numbers as qint64.
//  T3 peakRow() / previousPeakRow() are the rows of each peak; boundaryRow() the first backward
//     point (-1 when none). peakLabel() is the text the panel writes at the peak: "peak
//     1.20 MiB at mm_4", the bytes and node of `fxlens mem --json`'s "peak".
//  T5 Measured (a run's live bytes per node) is shown beside the estimate when there is a run.
//  T4 largestLiveAt(row, n): the n largest storages live at that point of the current step
//     (largest first), as "name  bytes".
#pragma once

#include <QAbstractTableModel>
#include <QStringList>

#include <memory>
#include <vector>

#include "core/analysis/graph_diff.hpp"
#include "core/analysis/memory_timeline.hpp"

namespace fxl::viewer {

class TimelineModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column
    {
        NodeColumn,
        PhaseColumn,
        LiveColumn,
        PreviousColumn,
        AllocatedColumn,
        FreedColumn,
        SavedColumn,
        MeasuredColumn,
        ColumnCount
    };
    enum Role
    {
        BytesRole = Qt::UserRole + 1,  // qint64 (the byte columns)
        StepRole,  // the point's step in the current timeline (-1: a removed node)
    };
    enum Flag : uint8_t
    {
        CurrentMissing = 1,
        PreviousMissing = 2,
    };
    struct Point
    {
        int current = -1;  // step index in the current timeline
        int previous = -1;  // step index in the previous one
        int64_t live = 0, previousLive = 0, allocated = 0, freed = 0, saved = 0;
        int64_t measured = -1;  // live bytes the executor measured at this node (-1: no run)
        StepPhase phase = StepPhase::Forward;
        uint8_t flags = 0;
    };

    explicit TimelineModel(QObject* parent = nullptr);

    // T1: the current timeline (with its graph), optionally the previous one and the diff from
    // it to the current. The model keeps the shared pointers.
    void setTimelines(std::shared_ptr<const MemoryTimeline> current, std::shared_ptr<const Graph> graph,
                      std::shared_ptr<const MemoryTimeline> previous = nullptr,
                      std::shared_ptr<const Graph> previousGraph = nullptr,
                      std::shared_ptr<const GraphDiff> diff = nullptr);
    void clear();
    // T5: the live bytes a run measured, one per node of the current graph's order
    // (runtime/exec/executor.hpp ExecResult::liveBytesPerStep) and its peak; empty clears them. The
    // estimate and the measurement follow the same rules, so they should be equal.
    void setMeasured(const std::vector<int64_t>& liveBytesPerStep, int64_t peakBytes);
    bool hasMeasured() const { return measuredPeak_ >= 0; }
    int64_t measuredPeak() const { return measuredPeak_; }
    // Rows where the measured bytes differ from the estimate.
    int measuredMismatches() const;

    const std::vector<Point>& points() const { return points_; }
    const MemoryTimeline* current() const { return current_.get(); }
    const MemoryTimeline* previous() const { return previous_.get(); }
    bool hasPrevious() const { return previous_ != nullptr; }
    QString nameAt(int row) const;
    int rowOfNode(const QString& name) const;  // -1 when none
    int peakRow() const { return peakRow_; }
    int previousPeakRow() const { return previousPeakRow_; }
    int boundaryRow() const { return boundaryRow_; }
    int64_t maxBytes() const;  // the largest value of either curve
    QString peakLabel() const;  // T3
    QString previousPeakLabel() const;
    // "peak 1.20 MiB -> 1.10 MiB (-102 KiB, -8.3%)": the change of the peak from the step before
    QString peakChangeLabel() const;
    QStringList largestLiveAt(int row, int n = 5) const;  // T4

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const MemoryTimeline> current_, previous_;
    std::shared_ptr<const Graph> graph_, previousGraph_;
    std::shared_ptr<const GraphDiff> diff_;
    std::vector<Point> points_;
    int peakRow_ = -1, previousPeakRow_ = -1, boundaryRow_ = -1;
    int64_t measuredPeak_ = -1;
};

}  // namespace fxl::viewer
