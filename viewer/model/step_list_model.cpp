#include "viewer/model/step_list_model.hpp"

#include "viewer/model/table_dump.hpp"

#include <QColor>

#include "core/util/format.hpp"

namespace fxl::viewer {

StepListModel::StepListModel(QObject* parent)
    : QAbstractTableModel(parent)
{ }

void StepListModel::setSteps(std::vector<std::shared_ptr<const StepState>> steps, QStringList stages, bool running)
{
    beginResetModel();
    steps_ = std::move(steps);
    stages_ = std::move(stages);
    running_ = running;
    endResetModel();
}

void StepListModel::clear() { setSteps({}, {}, false); }

std::shared_ptr<const StepState> StepListModel::step(int row) const
{
    return row >= 0 && row < stepCount() ? steps_[static_cast<size_t>(row)] : nullptr;
}

int64_t StepListModel::peakOf(const StepState& s)
{
    int64_t peak = 0;
    for (const StepGraph& g : s.graphs)
        if (g.timeline) peak = std::max(peak, g.timeline->peakBytes);
    return peak;
}

int StepListModel::rowCount(const QModelIndex& parent) const
{
    if (parent.isValid()) return 0;
    // the input row plus one per stage, or the made steps when there are more (a shorter spec
    // was set while they were shown)
    return std::max(stepCount(), static_cast<int>(stages_.size()) + (stages_.isEmpty() && steps_.empty() ? 0 : 1));
}

int StepListModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant StepListModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount()) return {};
    const int row = index.row();
    const auto s = step(row);
    if (role == StepRole) return s ? s->index : -1;
    if (!s) {  // pending (S1)
        if (role != Qt::DisplayRole && role != Qt::ForegroundRole) return {};
        if (role == Qt::ForegroundRole) return QColor(Qt::gray);
        if (index.column() == StepColumn) {
            const int stage = row - 1;
            return QStringLiteral("%1 %2").arg(row).arg(stage >= 0 && stage < stages_.size() ? stages_[stage]
                                                                                             : QString());
        }
        if (index.column() == VerifierColumn) return running_ && row == stepCount() ? tr("running") : tr("pending");
        return {};
    }
    if (role == ErrorRole) return QString::fromStdString(s->error);
    if (role == PeakBytesRole) return qint64(peakOf(*s));
    if (role == Qt::ToolTipRole && index.column() == VerifierColumn) {
        if (s->failed) return QString::fromStdString(s->error);
        QString t;
        for (const Problem& p : s->problems)
            if (p.severity == Severity::Error) t += QString::fromStdString(p.format()) + QLatin1Char('\n');
        return t.trimmed();
    }
    if (role == Qt::ForegroundRole && index.column() == VerifierColumn && (s->failed || s->errorCount()))
        return QColor(0xc0, 0x20, 0x20);
    if (role == Qt::TextAlignmentRole && index.column() != StepColumn && index.column() != VerifierColumn)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    if (role != Qt::DisplayRole) return {};
    const bool first = s->index == 0;
    const DiffCounts c = s->diffCounts();
    switch (index.column()) {
    case StepColumn:
        return QStringLiteral("%1 %2").arg(s->index).arg(first ? tr("input") : QString::fromStdString(s->spec));
    case AddedColumn: return first || s->failed ? QVariant() : QVariant(qulonglong(c.added));
    case RemovedColumn: return first || s->failed ? QVariant() : QVariant(qulonglong(c.removed));
    case ChangedColumn: return first || s->failed ? QVariant() : QVariant(qulonglong(c.changed));
    case RewiredColumn: return first || s->failed ? QVariant() : QVariant(qulonglong(c.rewired));
    case VerifierColumn: {
        if (s->failed) return tr("failed: %1").arg(QString::fromStdString(s->error));
        const size_t e = s->errorCount();
        if (!e) return tr("ok");
        return e == 1 ? tr("1 error") : tr("%1 errors").arg(qulonglong(e));
    }
    case TimeColumn: return first || s->failed ? QVariant() : QString::fromStdString(formatDuration(s->passSeconds));
    case PeakColumn: return s->failed ? QVariant() : QString::fromStdString(formatByteSize(peakOf(*s)));
    case PeakChangeColumn: {
        if (first || s->failed) return {};
        const auto prev = step(row - 1);
        if (!prev || prev->failed) return {};
        return QString::fromStdString(formatByteChange(peakOf(*prev), peakOf(*s)));
    }
    default: return {};
    }
}

QVariant StepListModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
    case StepColumn: return tr("Step");
    case AddedColumn: return tr("Added");
    case RemovedColumn: return tr("Removed");
    case ChangedColumn: return tr("Changed");
    case RewiredColumn: return tr("Rewired");
    case VerifierColumn: return tr("Verifier");
    case TimeColumn: return tr("Time");
    case PeakColumn: return tr("Peak");
    case PeakChangeColumn: return tr("\u0394 Peak");
    default: return {};
    }
}

QString StepListModel::dump() const { return dumpTable(*this); }

}  // namespace fxl::viewer
