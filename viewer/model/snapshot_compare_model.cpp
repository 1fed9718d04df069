#include "viewer/model/snapshot_compare_model.hpp"

#include <QBrush>
#include <QColor>
#include <QFileInfo>

#include <algorithm>
#include <cstdlib>

#include "core/util/format.hpp"

namespace fxl::viewer {

namespace {

QString compareBytesText(uint64_t v) { return QString::fromStdString(formatByteSize(static_cast<int64_t>(v))); }

int64_t siteDifference(const SiteComparison& s)
{
    return static_cast<int64_t>(s.allocatedB) - static_cast<int64_t>(s.allocatedA);
}

}  // namespace

SnapshotCompareModel::SnapshotCompareModel(QObject* parent)
    : QAbstractTableModel(parent)
{ }

void SnapshotCompareModel::setComparison(std::shared_ptr<const SnapshotComparisonResult> result, int deviceIndex)
{
    beginResetModel();
    result_ = std::move(result);
    device_ = -1;
    if (result_ && !result_->comparisons.empty())
        device_ = std::clamp(deviceIndex, 0, static_cast<int>(result_->comparisons.size()) - 1);
    endResetModel();
}

void SnapshotCompareModel::clear() { setComparison(nullptr); }

const SnapshotComparison* SnapshotCompareModel::comparison() const
{
    return device_ >= 0 ? &result_->comparisons[static_cast<size_t>(device_)] : nullptr;
}

int SnapshotCompareModel::differing() const
{
    const SnapshotComparison* c = comparison();
    if (!c) return 0;
    int n = 0;
    for (const SiteComparison& s : c->sites) n += s.allocatedA != s.allocatedB || s.atPeakA != s.atPeakB;
    return n;
}

QString SnapshotCompareModel::summary() const
{
    const SnapshotComparison* c = comparison();
    if (!c) return tr("no second snapshot");
    const int64_t delta = static_cast<int64_t>(c->peakB) - static_cast<int64_t>(c->peakA);
    const QString change = delta == 0 ? tr("the same")
                                      : (delta > 0 ? QStringLiteral("B +") : QStringLiteral("B -"))
            + QString::fromStdString(formatByteSize(std::llabs(delta)));
    QString t = tr("A: %1\nB: %2").arg(QFileInfo(result_->a->path).fileName(), QFileInfo(result_->b->path).fileName());
    t += QLatin1Char('\n')
        + tr("device %1: peak A %2 at step %3, B %4 at step %5: %6")
              .arg(result_->devices[static_cast<size_t>(device_)])
              .arg(compareBytesText(c->peakA))
              .arg(c->peakStepA)
              .arg(compareBytesText(c->peakB))
              .arg(c->peakStepB)
              .arg(change);
    t += QLatin1Char('\n')
        + tr("aligned by %1: %2 sites in both, %3 only in A, %4 only in B; %5 differ")
              .arg(c->byFxNode ? tr("FX node") : tr("allocation site (innermost frame)"))
              .arg(c->bothSites)
              .arg(c->onlyA)
              .arg(c->onlyB)
              .arg(differing());
    return t;
}

int SnapshotCompareModel::rowCount(const QModelIndex& parent) const
{
    const SnapshotComparison* c = comparison();
    return parent.isValid() || !c ? 0 : static_cast<int>(c->sites.size());
}

int SnapshotCompareModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant SnapshotCompareModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount()) return {};
    const SiteComparison& s = comparison()->sites[static_cast<size_t>(index.row())];
    const int64_t diff = siteDifference(s);
    if (role == BytesRole) {
        switch (index.column()) {
        case AllocatedAColumn: return static_cast<qint64>(s.allocatedA);
        case AllocatedBColumn: return static_cast<qint64>(s.allocatedB);
        case DifferenceColumn: return static_cast<qint64>(diff);
        case AtPeakAColumn: return static_cast<qint64>(s.atPeakA);
        case AtPeakBColumn: return static_cast<qint64>(s.atPeakB);
        default: return {};
        }
    }
    if (role == Qt::TextAlignmentRole && index.column() != SiteColumn)
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ForegroundRole && index.column() == DifferenceColumn && diff != 0)
        return QBrush(diff > 0 ? QColor(200, 40, 40) : QColor(30, 140, 60));
    if (role != Qt::DisplayRole) return {};
    switch (index.column()) {
    case SiteColumn: return QString::fromStdString(s.site);
    case AllocatedAColumn: return compareBytesText(s.allocatedA);
    case AllocatedBColumn: return compareBytesText(s.allocatedB);
    case DifferenceColumn:
        return diff == 0 ? QStringLiteral("=")
                         : (diff > 0 ? QStringLiteral("+") : QStringLiteral("-"))
                + QString::fromStdString(formatByteSize(std::llabs(diff)));
    case CountAColumn: return static_cast<qulonglong>(s.countA);
    case CountBColumn: return static_cast<qulonglong>(s.countB);
    case AtPeakAColumn: return compareBytesText(s.atPeakA);
    case AtPeakBColumn: return compareBytesText(s.atPeakB);
    default: return {};
    }
}

QVariant SnapshotCompareModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
    case SiteColumn: return tr("Site");
    case AllocatedAColumn: return tr("Allocated A");
    case AllocatedBColumn: return tr("Allocated B");
    case DifferenceColumn: return tr("Difference");
    case CountAColumn: return tr("Count A");
    case CountBColumn: return tr("Count B");
    case AtPeakAColumn: return tr("At peak A");
    case AtPeakBColumn: return tr("At peak B");
    default: return {};
    }
}

}  // namespace fxl::viewer
