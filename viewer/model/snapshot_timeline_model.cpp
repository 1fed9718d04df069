#include "viewer/model/snapshot_timeline_model.hpp"

#include <algorithm>

#include "core/util/format.hpp"

namespace fxl::viewer {

namespace {

QString snapshotBytesText(uint64_t v) { return QString::fromStdString(formatByteSize(static_cast<int64_t>(v))); }

// a band's lower offset and size at `step` (linear between its points); false outside it
bool seriesSpanAt(const TimelineSeries& s, double step, double& offset, double& size)
{
    const auto& t = s.timesteps;
    if (t.empty() || step < static_cast<double>(t.front()) || step > static_cast<double>(t.back())) return false;
    const auto it = std::upper_bound(t.begin(), t.end(), static_cast<int64_t>(std::floor(step)));
    size_t i = it == t.begin() ? 0 : static_cast<size_t>(it - t.begin()) - 1;
    const size_t j = std::min(i + 1, t.size() - 1);
    const auto sizeAt = [&](size_t k) {
        return static_cast<double>(s.elem < 0 && k < s.sizes.size() ? s.sizes[k] : s.size);
    };
    const double span = static_cast<double>(t[j] - t[i]);
    const double f = span > 0 ? std::clamp((step - static_cast<double>(t[i])) / span, 0.0, 1.0) : 0.0;
    offset = static_cast<double>(s.offsets[i]) * (1 - f) + static_cast<double>(s.offsets[j]) * f;
    size = sizeAt(i) * (1 - f) + sizeAt(j) * f;
    return true;
}

}  // namespace

SnapshotTimelineModel::SnapshotTimelineModel(QObject* parent)
    : QAbstractTableModel(parent)
{ }

void SnapshotTimelineModel::setSnapshot(std::shared_ptr<const LoadedSnapshot> snapshot, int deviceIndex)
{
    beginResetModel();
    snapshot_ = std::move(snapshot);
    device_ = -1;
    timeline_.reset();
    if (snapshot_ && !snapshot_->devices.empty()) {
        device_ = std::clamp(deviceIndex, 0, static_cast<int>(snapshot_->devices.size()) - 1);
        timeline_ = snapshot_->timelines[static_cast<size_t>(device_)];
    }
    // memory_viz always adds the summarized band; one that never holds a byte is not a row (counted
    // once here: rowCount() is asked for every cell a sorted table compares)
    rows_ = 0;
    if (timeline_) {
        const auto& series = timeline_->series;
        rows_ = static_cast<int>(series.size());
        if (!series.empty() && series.back().elem < 0
            && std::all_of(series.back().sizes.begin(), series.back().sizes.end(), [](uint64_t v) { return v == 0; }))
            --rows_;
    }
    endResetModel();
}

void SnapshotTimelineModel::setDeviceIndex(int deviceIndex) { setSnapshot(snapshot_, deviceIndex); }

void SnapshotTimelineModel::clear() { setSnapshot(nullptr); }

int64_t SnapshotTimelineModel::device() const
{
    return device_ >= 0 ? snapshot_->devices[static_cast<size_t>(device_)] : -1;
}

int64_t SnapshotTimelineModel::steps() const
{
    return timeline_ ? static_cast<int64_t>(timeline_->maxAtTime.size()) : 0;
}

uint64_t SnapshotTimelineModel::maxBytes() const { return timeline_ ? timeline_->peakBytes : 0; }

uint64_t SnapshotTimelineModel::maxBytesIn(int64_t first, int64_t last) const
{
    if (!timeline_ || timeline_->maxAtTime.empty()) return 0;
    const int64_t n = steps();
    first = std::clamp<int64_t>(first, 0, n - 1);
    last = std::clamp<int64_t>(last, first, n - 1);
    uint64_t m = 0;
    for (int64_t i = first; i <= last; ++i) m = std::max(m, timeline_->maxAtTime[static_cast<size_t>(i)]);
    return m;
}

int SnapshotTimelineModel::bandAt(double step, double bytes) const
{
    if (!timeline_ || bytes < 0) return -1;
    for (size_t r = 0; r < static_cast<size_t>(rowCount()); ++r) {
        double offset = 0, size = 0;
        if (seriesSpanAt(timeline_->series[r], step, offset, size) && bytes >= offset && bytes < offset + size)
            return static_cast<int>(r);
    }
    return -1;
}

QString SnapshotTimelineModel::fxNodeOf(size_t element) const
{
    const MemorySnapshot* s = memorySnapshot();
    if (!s || !timeline_ || element >= timeline_->elements.size()) return {};
    for (uint32_t f : s->stacks.at(timeline_->elements[element].stack))
        if (!s->frames[f].fxNodeName.empty()) return QString::fromStdString(s->frames[f].fxNodeName);
    return {};
}

QString SnapshotTimelineModel::frameText(uint32_t frame) const
{
    const SnapshotFrame& f = memorySnapshot()->frames[frame];
    QString t =
        QStringLiteral("%1 %2:%3").arg(QString::fromStdString(f.name), QString::fromStdString(f.filename)).arg(f.line);
    if (!f.fxNodeName.empty()) t += QStringLiteral("  [FX node %1]").arg(QString::fromStdString(f.fxNodeName));
    return t;
}

QString SnapshotTimelineModel::bandTitle(int row) const
{
    if (!timeline_ || row < 0 || row >= rowCount()) return {};
    const TimelineSeries& s = timeline_->series[static_cast<size_t>(row)];
    if (s.kind == SeriesKind::Envelope || s.kind == SeriesKind::PoolSummary) {
        uint64_t most = 0;
        for (uint64_t v : s.sizes) most = std::max(most, v);
        size_t inside = 0;
        for (const TimelineElement& e : timeline_->elements) inside += e.poolKey == s.pool;
        return s.kind == SeriesKind::Envelope
            ? tr("private pool %1: envelope up to %2 (its reserved or live bytes), %3 allocations inside")
                  .arg(QString::fromStdString(s.pool), snapshotBytesText(most))
                  .arg(inside)
            : tr("private pool %1: its smaller allocations, up to %2 live at once")
                  .arg(QString::fromStdString(s.pool), snapshotBytesText(most));
    }
    if (s.elem < 0) {
        uint64_t most = 0;
        for (uint64_t v : s.sizes) most = std::max(most, v);
        size_t drawn = 0;
        for (const TimelineElement& e : timeline_->elements) drawn += e.drawn;
        return tr("summarized: %1 smaller allocations, up to %2 live at once")
            .arg(timeline_->elements.size() - drawn)
            .arg(snapshotBytesText(most));
    }
    const QString node = fxNodeOf(static_cast<size_t>(s.elem));
    return node.isEmpty() ? snapshotBytesText(s.size) : tr("%1, FX node %2").arg(snapshotBytesText(s.size), node);
}

QString SnapshotTimelineModel::bandText(int row) const
{
    if (!timeline_ || row < 0 || row >= rowCount()) return {};
    const TimelineSeries& s = timeline_->series[static_cast<size_t>(row)];
    QStringList lines{bandTitle(row)};
    if (s.kind == SeriesKind::Envelope || s.kind == SeriesKind::PoolSummary) return lines.join(QLatin1Char('\n'));
    if (s.elem < 0) {
        lines << tr("the allocations below the %1 largest, summed in one band").arg(timeline_->series.size() - 1);
        return lines.join(QLatin1Char('\n'));
    }
    const TimelineElement& e = timeline_->elements[static_cast<size_t>(s.elem)];
    lines << tr("%1 bytes at 0x%2, stream %3").arg(e.size).arg(e.addr, 0, 16).arg(e.stream);
    // where its band ends (maxAtTime counts a freed band until the bands above it slid down)
    const QString freed = e.end >= steps() ? tr("never freed") : tr("freed at step %1").arg(s.timesteps.back());
    lines << (e.initiallyAllocated ? tr("allocated before the trace began; %1").arg(freed)
                                   : tr("allocated at step %1; %2").arg(e.start).arg(freed));
    const auto& stack = memorySnapshot()->stacks.at(e.stack);
    if (stack.empty())
        lines << tr("(no frames recorded)");
    else
        for (uint32_t f : stack) lines << QStringLiteral("  ") + frameText(f);
    return lines.join(QLatin1Char('\n'));
}

QString SnapshotTimelineModel::peakLabel() const
{
    if (!timeline_ || timeline_->maxAtTime.empty()) return {};
    QString label = tr("peak %1 at step %2").arg(snapshotBytesText(timeline_->peakBytes)).arg(timeline_->peakStep);
    // the allocation that made the peak: the latest of those live there
    size_t last = SIZE_MAX;
    for (size_t id : timeline_->liveAtPeak)
        if (last == SIZE_MAX || timeline_->elements[id].start > timeline_->elements[last].start) last = id;
    if (last != SIZE_MAX) {
        const QString node = fxNodeOf(last);
        if (!node.isEmpty()) label += QStringLiteral(" (%1)").arg(node);
    }
    return label;
}

QString SnapshotTimelineModel::summary() const
{
    if (!timeline_) return tr("no snapshot");
    return tr("device %1: %2 allocations (%3 drawn as bands), %4 steps, %5")
        .arg(device())
        .arg(timeline_->elements.size())
        .arg(timeline_->series.empty() ? 0 : timeline_->series.size() - (timeline_->series.back().elem < 0 ? 1 : 0))
        .arg(steps())
        .arg(peakLabel());
}

int SnapshotTimelineModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() || !timeline_ ? 0 : rows_;
}

int SnapshotTimelineModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant SnapshotTimelineModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || !timeline_ || index.row() >= rowCount()) return {};
    const TimelineSeries& s = timeline_->series[static_cast<size_t>(index.row())];
    uint64_t size = s.size;
    if (s.elem < 0)
        for (uint64_t v : s.sizes) size = std::max(size, v);
    if (role == ElementRole) return static_cast<int>(s.elem);
    if (role == BytesRole) return index.column() == SizeColumn ? QVariant(static_cast<qint64>(size)) : QVariant();
    if (role == Qt::TextAlignmentRole && index.column() != FxNodeColumn && index.column() != FrameColumn)
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole) return bandText(index.row());
    if (role != Qt::DisplayRole) return {};
    if (s.elem < 0) {
        switch (index.column()) {
        case BandColumn:
            if (s.kind == SeriesKind::Envelope) return tr("pool %1").arg(QString::fromStdString(s.pool));
            if (s.kind == SeriesKind::PoolSummary) return tr("pool %1, summarized").arg(QString::fromStdString(s.pool));
            return tr("summarized");
        case SizeColumn: return snapshotBytesText(size);
        default: return {};
        }
    }
    const TimelineElement& e = timeline_->elements[static_cast<size_t>(s.elem)];
    switch (index.column()) {
    case BandColumn: return QStringLiteral("#%1").arg(s.elem);
    case SizeColumn: return snapshotBytesText(size);
    case AllocatedColumn: return e.initiallyAllocated ? tr("before") : QString::number(e.start);
    case FreedColumn: return e.end >= steps() ? QString() : QString::number(s.timesteps.back());
    case FxNodeColumn: return fxNodeOf(static_cast<size_t>(s.elem));
    case FrameColumn: {
        const auto& stack = memorySnapshot()->stacks.at(e.stack);
        return stack.empty() ? QString() : frameText(stack.front());
    }
    default: return {};
    }
}

QVariant SnapshotTimelineModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
    case BandColumn: return tr("Band");
    case SizeColumn: return tr("Size");
    case AllocatedColumn: return tr("Allocated");
    case FreedColumn: return tr("Freed");
    case FxNodeColumn: return tr("FX node");
    case FrameColumn: return tr("Frame");
    default: return {};
    }
}

}  // namespace fxl::viewer
