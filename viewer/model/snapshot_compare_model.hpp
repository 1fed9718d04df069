// Two CUDA memory snapshots compared (core/analysis/snapshot_compare.hpp) as a model: one row per
// allocation site (the FX node its frames name, else its innermost frame), in the comparison's
// order (largest |allocated B - allocated A| first), as `fxlens mem A --compare B` lists them.
// Columns: Site, Difference (allocated B - A), Allocated A, Allocated B, At peak A, At peak B (the
// bytes live at each one's peak), Count A, Count B. BytesRole gives the byte columns as qint64. QtCore only.
#pragma once

#include <QAbstractTableModel>

#include <memory>

#include "viewer/jobs/snapshot_jobs.hpp"

namespace fxl::viewer {

class SnapshotCompareModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column
    {
        SiteColumn,
        DifferenceColumn,
        AllocatedAColumn,
        AllocatedBColumn,
        AtPeakAColumn,
        AtPeakBColumn,
        CountAColumn,
        CountBColumn,
        ColumnCount
    };
    static constexpr int BytesRole = Qt::UserRole + 1;

    explicit SnapshotCompareModel(QObject* parent = nullptr);

    void setComparison(std::shared_ptr<const SnapshotComparisonResult> result, int deviceIndex = 0);
    void clear();
    std::shared_ptr<const SnapshotComparisonResult> result() const { return result_; }
    const SnapshotComparison* comparison() const;
    int deviceIndex() const { return device_; }
    int differing() const;  // sites whose bytes differ (allocated or live at the peak)
    QString summary() const;  // both peaks, their change, how the sites were aligned

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const SnapshotComparisonResult> result_;
    int device_ = -1;
};

}  // namespace fxl::viewer
