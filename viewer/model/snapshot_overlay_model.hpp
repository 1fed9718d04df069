// A snapshot laid over a graph's estimate (core/analysis/snapshot_overlay.hpp) as a model: one row
// per node with an estimate or a measurement, the nodes whose measured bytes differ from the
// estimate most first (then graph order), as `fxlens mem GRAPH --snapshot SNAP` lists them.
// Columns: Node, Difference (measured - estimated), Estimated, Measured, Estimated allocations,
// Measured allocations. BytesRole gives the byte columns as qint64. QtCore only.
#pragma once

#include <QAbstractTableModel>

#include <memory>
#include <vector>

#include "viewer/jobs/snapshot_jobs.hpp"

namespace fxl::viewer {

class SnapshotOverlayModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column
    {
        NodeColumn,
        DifferenceColumn,
        EstimatedColumn,
        MeasuredColumn,
        EstimatedCountColumn,
        MeasuredCountColumn,
        ColumnCount
    };
    static constexpr int BytesRole = Qt::UserRole + 1;

    explicit SnapshotOverlayModel(QObject* parent = nullptr);

    void setOverlay(std::shared_ptr<const SnapshotOverlayResult> result, int deviceIndex = 0);
    void clear();
    std::shared_ptr<const SnapshotOverlayResult> result() const { return result_; }
    const SnapshotOverlay* overlay() const;
    int deviceIndex() const { return device_; }
    // (byName + byOrder) / allocations, as `fxlens mem --json`'s match_rate (0 when none)
    double matchRate() const;
    int differing() const;  // rows whose measured bytes differ from the estimate
    QString summary() const;  // match rate, both peaks

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const SnapshotOverlayResult> result_;
    int device_ = -1;
    std::vector<size_t> order_;  // rows: indices into overlay()->nodes
};

}  // namespace fxl::viewer
