// The steps of a pipeline run (viewer/jobs/step_jobs.hpp), one row each, for the step list of
// the pass stepper: what each step changed, whether the verifier accepts it, how long the pass
// took and what it did to the memory peak. Stages not made yet are listed too, as pending.
// QtCore only.
//
// Rules:
//  S1 Row k is step k (0 = the input); after the made steps come the stages still to run
//     ("pending", the first one "running" while the run is busy).
//  S2 Columns: Step ("3 remat"), Added, Removed, Changed (the diff from the step before, the
//     numbers of `fxlens diff --json` summed over the step's graphs), Rewired (edges), Verifier
//     ("ok", "2 errors", "failed"), Time (the pass), Peak (the memory timeline's peak, the
//     largest over the step's graphs) and ΔPeak (from the step before: bytes and percent).
//  S3 A failed step shows its error in the Verifier column's tooltip and ErrorRole; its counts
//     are empty. StepRole gives the step index (an int) in every column, -1 on pending rows.
#pragma once

#include <QAbstractTableModel>
#include <QStringList>

#include <memory>
#include <vector>

#include "viewer/jobs/step_jobs.hpp"

namespace fxl::viewer {

class StepListModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column
    {
        StepColumn,
        AddedColumn,
        RemovedColumn,
        ChangedColumn,
        RewiredColumn,
        VerifierColumn,
        TimeColumn,
        PeakColumn,
        PeakChangeColumn,
        ColumnCount
    };
    enum Role
    {
        StepRole = Qt::UserRole + 1,
        ErrorRole,
        PeakBytesRole,  // qint64
    };
    explicit StepListModel(QObject* parent = nullptr);

    // S1: the made steps and the texts of every stage of the pipeline (made or not).
    void setSteps(std::vector<std::shared_ptr<const StepState>> steps, QStringList stages, bool running);
    void clear();
    int stepCount() const { return static_cast<int>(steps_.size()); }
    std::shared_ptr<const StepState> step(int row) const;
    // The peak of a step (S2): the largest peak over its graphs; 0 for a failed step.
    static int64_t peakOf(const StepState& s);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    QString dump() const;  // one line per row, columns separated by tabs

private:
    std::vector<std::shared_ptr<const StepState>> steps_;
    QStringList stages_;
    bool running_ = false;
};

}  // namespace fxl::viewer
