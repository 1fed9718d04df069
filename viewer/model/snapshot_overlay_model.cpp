#include "viewer/model/snapshot_overlay_model.hpp"

#include <QBrush>
#include <QColor>

#include <algorithm>
#include <cstdlib>

#include "core/util/format.hpp"

namespace fxl::viewer {

namespace {

QString overlayBytesText(int64_t v) { return QString::fromStdString(formatByteSize(v)); }

int64_t overlayDifference(const OverlayNode& n) { return static_cast<int64_t>(n.measuredBytes) - n.estimatedBytes; }

}  // namespace

SnapshotOverlayModel::SnapshotOverlayModel(QObject* parent)
    : QAbstractTableModel(parent)
{ }

void SnapshotOverlayModel::setOverlay(std::shared_ptr<const SnapshotOverlayResult> result, int deviceIndex)
{
    beginResetModel();
    result_ = std::move(result);
    device_ = -1;
    order_.clear();
    if (result_ && !result_->overlays.empty()) {
        device_ = std::clamp(deviceIndex, 0, static_cast<int>(result_->overlays.size()) - 1);
        const auto& nodes = result_->overlays[static_cast<size_t>(device_)].nodes;
        order_.resize(nodes.size());
        for (size_t i = 0; i < nodes.size(); ++i) order_[i] = i;
        // the CLI's order: largest |measured - estimated| first, graph order among equals
        std::stable_sort(order_.begin(), order_.end(), [&](size_t a, size_t b) {
            return std::llabs(overlayDifference(nodes[a])) > std::llabs(overlayDifference(nodes[b]));
        });
    }
    endResetModel();
}

void SnapshotOverlayModel::clear() { setOverlay(nullptr); }

const SnapshotOverlay* SnapshotOverlayModel::overlay() const
{
    return device_ >= 0 ? &result_->overlays[static_cast<size_t>(device_)] : nullptr;
}

double SnapshotOverlayModel::matchRate() const
{
    const SnapshotOverlay* o = overlay();
    if (!o || o->allocations == 0) return 0;
    return static_cast<double>(o->byName + o->byOrder) / static_cast<double>(o->allocations);
}

int SnapshotOverlayModel::differing() const
{
    const SnapshotOverlay* o = overlay();
    if (!o) return 0;
    int n = 0;
    for (const OverlayNode& x : o->nodes) n += overlayDifference(x) != 0;
    return n;
}

QString SnapshotOverlayModel::summary() const
{
    const SnapshotOverlay* o = overlay();
    if (!o) return tr("no snapshot laid over a graph");
    const int64_t device = result_->snapshot->devices[static_cast<size_t>(device_)];
    QString t = tr("%1 of %2 allocations matched to nodes (%3%): %4 by fx_node_name, %5 by allocation order; %6 "
                   "unmatched")
                    .arg(o->byName + o->byOrder)
                    .arg(o->allocations)
                    .arg(100.0 * matchRate(), 0, 'f', 1)
                    .arg(o->byName)
                    .arg(o->byOrder)
                    .arg(o->unmatched());
    t += QLatin1Char('\n')
        + tr("peak: estimated %1 at %2; measured (device %3) %4 at step %5")
              .arg(overlayBytesText(o->estimatedPeak), QString::fromStdString(o->estimatedPeakNode))
              .arg(device)
              .arg(overlayBytesText(static_cast<int64_t>(o->measuredPeak)))
              .arg(o->measuredPeakStep);
    if (!o->measuredPeakNode.empty()) t += tr(" (after %1)").arg(QString::fromStdString(o->measuredPeakNode));
    const int d = differing();
    t += QLatin1Char('\n')
        + (d == 0 ? tr("every node allocated the bytes the estimate says (%1 nodes)").arg(o->nodes.size())
                  : tr("%1 of %2 nodes differ from the estimate; the largest differences first")
                        .arg(d)
                        .arg(o->nodes.size()));
    return t;
}

int SnapshotOverlayModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(order_.size());
}

int SnapshotOverlayModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant SnapshotOverlayModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount()) return {};
    const OverlayNode& n = overlay()->nodes[order_[static_cast<size_t>(index.row())]];
    const int64_t diff = overlayDifference(n);
    if (role == BytesRole) {
        switch (index.column()) {
        case EstimatedColumn: return static_cast<qint64>(n.estimatedBytes);
        case MeasuredColumn: return static_cast<qint64>(n.measuredBytes);
        case DifferenceColumn: return static_cast<qint64>(diff);
        default: return {};
        }
    }
    if (role == Qt::TextAlignmentRole && index.column() != NodeColumn)
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ForegroundRole && index.column() == DifferenceColumn && diff != 0)
        return QBrush(diff > 0 ? QColor(200, 40, 40) : QColor(30, 140, 60));
    if (role != Qt::DisplayRole) return {};
    switch (index.column()) {
    case NodeColumn: return QString::fromStdString(result_->graph->node(n.node).name);
    case EstimatedColumn: return overlayBytesText(n.estimatedBytes);
    case MeasuredColumn: return overlayBytesText(static_cast<int64_t>(n.measuredBytes));
    case DifferenceColumn:
        return diff == 0 ? QStringLiteral("=")
                         : (diff > 0 ? QStringLiteral("+") : QStringLiteral("-")) + overlayBytesText(std::llabs(diff));
    case EstimatedCountColumn: return static_cast<qulonglong>(n.estimatedAllocations);
    case MeasuredCountColumn: return static_cast<qulonglong>(n.measuredAllocations);
    default: return {};
    }
}

QVariant SnapshotOverlayModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
    case NodeColumn: return tr("Node");
    case EstimatedColumn: return tr("Estimated");
    case MeasuredColumn: return tr("Measured");
    case DifferenceColumn: return tr("Difference");
    case EstimatedCountColumn: return tr("Est. allocations");
    case MeasuredCountColumn: return tr("Measured allocations");
    default: return {};
    }
}

}  // namespace fxl::viewer
