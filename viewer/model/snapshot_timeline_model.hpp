// A CUDA memory snapshot's active-memory timeline on one device as a model (memory_viz's
// "Active Memory Timeline", core/analysis/snapshot_timeline.hpp): one row per band drawn, in
// memory_viz's stacking order (allocation order), the band summarizing the smaller allocations
// last. The snapshot view draws from it (viewer/render/snapshot_draw.hpp) and the tests read it.
// QtCore only.
//
// Rules:
//  S1 Rows: the timeline's series (the summarized band only when it holds bytes); columns Band ("#element" or
//  "summarized"), Size (the
//     summarized band's largest), Allocated (step), Freed (step; empty when never freed), FX node
//     (the first frame naming one), Frame (the innermost frame). BytesRole gives Size as qint64.
//  S2 bandAt(step, bytes): the band drawn at that point, by the polygon memory_viz draws
//     (offsets interpolated linearly between a band's points); -1 when none.
//  S3 bandText(row): its size, where it was allocated and freed, its FX node, and every frame of
//     its stack (innermost first), one per line.
//  S4 peakLabel(): "peak 1.2 MiB at step 17 (mm_2)": the bytes and step `fxlens mem SNAP --json`
//     reports as peak_bytes and peak_step, with the FX node of the last allocation live there.
#pragma once

#include <QAbstractTableModel>
#include <QStringList>

#include <memory>

#include "viewer/jobs/snapshot_jobs.hpp"

namespace fxl::viewer {

class SnapshotTimelineModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column
    {
        BandColumn,
        SizeColumn,
        AllocatedColumn,
        FreedColumn,
        FxNodeColumn,
        FrameColumn,
        ColumnCount
    };
    enum Role
    {
        BytesRole = Qt::UserRole + 1,  // qint64: the Size column's bytes
        ElementRole,  // int: the timeline element of the band (-1: the summarized band)
    };

    explicit SnapshotTimelineModel(QObject* parent = nullptr);

    // The snapshot and the device shown (an index into snapshot->devices); a reset.
    void setSnapshot(std::shared_ptr<const LoadedSnapshot> snapshot, int deviceIndex = 0);
    void setDeviceIndex(int deviceIndex);
    void clear();
    std::shared_ptr<const LoadedSnapshot> snapshot() const { return snapshot_; }
    int deviceIndex() const { return device_; }
    int64_t device() const;  // the device's number (-1 when none)
    const SnapshotTimeline* timeline() const { return timeline_.get(); }
    const MemorySnapshot* memorySnapshot() const { return snapshot_ ? snapshot_->snapshot.get() : nullptr; }
    int64_t steps() const;  // the x axis: maxAtTime's length
    uint64_t maxBytes() const;  // the largest of maxAtTime (the peak)
    uint64_t maxBytesIn(int64_t first, int64_t last) const;  // over the steps [first, last]

    int bandAt(double step, double bytes) const;  // S2
    QString bandText(int row) const;  // S3
    QString bandTitle(int row) const;  // the first line of bandText: size and FX node
    QString peakLabel() const;  // S4
    QString summary() const;  // "device 0: 12 allocations, 40 steps, peak ..."
    // the FX node named by an element's frames ("" when none)
    QString fxNodeOf(size_t element) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const LoadedSnapshot> snapshot_;
    std::shared_ptr<const SnapshotTimeline> timeline_;
    int device_ = -1;
    int rows_ = 0;  // rowCount()

    QString frameText(uint32_t frame) const;
};

}  // namespace fxl::viewer
