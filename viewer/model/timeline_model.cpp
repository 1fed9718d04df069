#include "viewer/model/timeline_model.hpp"

#include <algorithm>

#include "core/util/format.hpp"

namespace fxl::viewer {

namespace {

// step index by NodeId for the steps of a timeline
std::vector<int> stepsByNode(const MemoryTimeline& t)
{
    std::vector<int> out;
    for (size_t k = 0; k < t.steps.size(); ++k) {
        const NodeId id = t.steps[k].node;
        if (id == kNoNode) continue;
        const auto i = static_cast<size_t>(id);
        if (out.size() <= i) out.resize(i + 1, -1);
        out[i] = static_cast<int>(k);
    }
    return out;
}

int stepOf(const std::vector<int>& v, NodeId id)
{
    if (id == kNoNode || static_cast<size_t>(id) >= v.size()) return -1;
    return v[static_cast<size_t>(id)];
}

// Bytes of the saved activations' storages live at each step (T2): storages allocated by a
// saved, not input-backed node, from their allocation to their free.
std::vector<int64_t> savedLive(const MemoryTimeline& t)
{
    std::vector<int64_t> out(t.steps.size() + 1, 0);
    std::vector<char> savedNode;
    for (const SavedValue& v : t.saved) {
        if (v.inputBacked || v.node == kNoNode) continue;
        const auto i = static_cast<size_t>(v.node);
        if (savedNode.size() <= i) savedNode.resize(i + 1, 0);
        savedNode[i] = 1;
    }
    for (const StorageInfo& s : t.storages) {
        if (s.input || s.node == kNoNode || static_cast<size_t>(s.node) >= savedNode.size()
            || !savedNode[static_cast<size_t>(s.node)])
            continue;
        out[static_cast<size_t>(s.allocStep)] += s.bytes;
        if (s.freeStep >= 0) out[static_cast<size_t>(s.freeStep) + 1] -= s.bytes;
    }
    int64_t run = 0;
    for (auto& v : out) {
        run += v;
        v = run;
    }
    out.pop_back();
    return out;
}

}  // namespace

TimelineModel::TimelineModel(QObject* parent)
    : QAbstractTableModel(parent)
{ }

void TimelineModel::clear() { setTimelines(nullptr, nullptr); }

void TimelineModel::setTimelines(std::shared_ptr<const MemoryTimeline> current, std::shared_ptr<const Graph> graph,
                                 std::shared_ptr<const MemoryTimeline> previous,
                                 std::shared_ptr<const Graph> previousGraph, std::shared_ptr<const GraphDiff> diff)
{
    beginResetModel();
    current_ = std::move(current);
    graph_ = std::move(graph);
    previous_ = current_ ? std::move(previous) : nullptr;
    previousGraph_ = previous_ ? std::move(previousGraph) : nullptr;
    diff_ = previous_ ? std::move(diff) : nullptr;
    points_.clear();
    peakRow_ = previousPeakRow_ = boundaryRow_ = -1;
    measuredPeak_ = -1;
    if (current_) {
        const MemoryTimeline& c = *current_;
        const std::vector<int64_t> saved = savedLive(c);
        auto fillCurrent = [&](Point& p, int k) {
            const TimelineStep& s = c.steps[static_cast<size_t>(k)];
            p.current = k;
            p.live = s.liveBytes;
            p.allocated = s.allocatedBytes;
            p.freed = s.freedBytes;
            p.saved = saved[static_cast<size_t>(k)];
            p.phase = s.phase;
        };
        if (previous_ && diff_) {
            const std::vector<int> stepA = stepsByNode(*previous_), stepB = stepsByNode(c);
            Point last;
            for (const NodeDiff& nd : diff_->nodes) {
                Point p;
                const int kb = stepOf(stepB, nd.b), ka = stepOf(stepA, nd.a);
                if (kb < 0 && ka < 0) continue;
                if (kb >= 0) {
                    fillCurrent(p, kb);
                } else {
                    p.live = last.live;
                    p.saved = last.saved;
                    p.flags |= CurrentMissing;
                    p.phase = previous_->steps[static_cast<size_t>(ka)].phase;
                }
                if (ka >= 0) {
                    p.previous = ka;
                    p.previousLive = previous_->steps[static_cast<size_t>(ka)].liveBytes;
                } else {
                    p.previousLive = last.previousLive;
                    p.flags |= PreviousMissing;
                }
                points_.push_back(p);
                last = p;
            }
        } else {
            for (size_t k = 0; k < c.steps.size(); ++k) {
                Point p;
                fillCurrent(p, static_cast<int>(k));
                p.flags |= PreviousMissing;
                points_.push_back(p);
            }
        }
        for (size_t r = 0; r < points_.size(); ++r) {
            const Point& p = points_[r];
            if (p.current >= 0 && p.current == c.peakStep) peakRow_ = static_cast<int>(r);
            if (p.current >= 0 && p.current == c.boundaryStep) boundaryRow_ = static_cast<int>(r);
            if (previous_ && p.previous >= 0 && p.previous == previous_->peakStep)
                previousPeakRow_ = static_cast<int>(r);
        }
    }
    endResetModel();
}

void TimelineModel::setMeasured(const std::vector<int64_t>& live, int64_t peakBytes)
{
    const bool fits = current_ && live.size() == current_->steps.size();
    for (Point& p : points_) p.measured = fits && p.current >= 0 ? live[static_cast<size_t>(p.current)] : -1;
    measuredPeak_ = fits ? peakBytes : -1;
    if (!points_.empty()) emit dataChanged(index(0, MeasuredColumn), index(rowCount() - 1, MeasuredColumn));
}

int TimelineModel::measuredMismatches() const
{
    int n = 0;
    for (const Point& p : points_) n += p.measured >= 0 && p.measured != p.live ? 1 : 0;
    return n;
}

QString TimelineModel::nameAt(int row) const
{
    if (row < 0 || row >= rowCount()) return {};
    const Point& p = points_[static_cast<size_t>(row)];
    if (p.current >= 0) return QString::fromStdString(current_->names[static_cast<size_t>(p.current)]);
    if (p.previous >= 0) return QString::fromStdString(previous_->names[static_cast<size_t>(p.previous)]);
    return {};
}

int TimelineModel::rowOfNode(const QString& name) const
{
    const std::string n = name.toStdString();
    for (size_t r = 0; r < points_.size(); ++r) {
        const Point& p = points_[r];
        if (p.current >= 0 && current_->names[static_cast<size_t>(p.current)] == n) return static_cast<int>(r);
    }
    return -1;
}

int64_t TimelineModel::maxBytes() const
{
    int64_t m = 0;
    for (const Point& p : points_) m = std::max({m, p.live, previous_ ? p.previousLive : 0});
    return m;
}

QString TimelineModel::peakLabel() const
{
    if (!current_ || current_->peakStep < 0) return {};
    return tr("peak %1 at %2")
        .arg(QString::fromStdString(formatByteSize(current_->peakBytes)), QString::fromStdString(current_->peakNode()));
}

QString TimelineModel::previousPeakLabel() const
{
    if (!previous_ || previous_->peakStep < 0) return {};
    return tr("before: peak %1 at %2")
        .arg(QString::fromStdString(formatByteSize(previous_->peakBytes)),
             QString::fromStdString(previous_->peakNode()));
}

QString TimelineModel::peakChangeLabel() const
{
    if (!current_ || !previous_) return {};
    return tr("peak %1 \u2192 %2 (%3)")
        .arg(QString::fromStdString(formatByteSize(previous_->peakBytes)),
             QString::fromStdString(formatByteSize(current_->peakBytes)),
             QString::fromStdString(formatByteChange(previous_->peakBytes, current_->peakBytes)));
}

QStringList TimelineModel::largestLiveAt(int row, int n) const
{
    QStringList out;
    if (!current_ || row < 0 || row >= rowCount()) return out;
    int k = -1;
    for (int r = row; r >= 0 && k < 0; --r) k = points_[static_cast<size_t>(r)].current;
    if (k < 0) return out;
    std::vector<int> live;
    const auto& st = current_->storages;
    for (size_t s = 0; s < st.size(); ++s)
        if (st[s].allocStep <= k && (st[s].freeStep < 0 || st[s].freeStep >= k) && st[s].bytes > 0)
            live.push_back(static_cast<int>(s));
    const size_t take = std::min(live.size(), static_cast<size_t>(std::max(0, n)));
    std::partial_sort(live.begin(), live.begin() + static_cast<std::ptrdiff_t>(take), live.end(), [&](int a, int b) {
        const auto& x = st[static_cast<size_t>(a)];
        const auto& y = st[static_cast<size_t>(b)];
        return x.bytes != y.bytes ? x.bytes > y.bytes : x.allocStep < y.allocStep;
    });
    for (size_t i = 0; i < take; ++i)
        out << QStringLiteral("%1  %2").arg(
            QString::fromStdString(current_->storageName(live[i])),
            QString::fromStdString(formatByteSize(st[static_cast<size_t>(live[i])].bytes)));
    return out;
}

int TimelineModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(points_.size());
}

int TimelineModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant TimelineModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount()) return {};
    const Point& p = points_[static_cast<size_t>(index.row())];
    if (role == StepRole) return p.current;
    auto bytes = [&]() -> int64_t {
        switch (index.column()) {
        case LiveColumn: return p.live;
        case PreviousColumn: return p.previousLive;
        case AllocatedColumn: return p.allocated;
        case FreedColumn: return p.freed;
        case SavedColumn: return p.saved;
        case MeasuredColumn: return p.measured;
        default: return 0;
        }
    };
    const bool isBytes = index.column() >= LiveColumn;
    if (role == BytesRole) return isBytes ? QVariant(qint64(bytes())) : QVariant();
    if (role != Qt::DisplayRole) return {};
    if (index.column() == NodeColumn) return nameAt(index.row());
    if (index.column() == PhaseColumn) return QString::fromLatin1(stepPhaseName(p.phase).data());
    if (index.column() == PreviousColumn && !previous_) return {};
    if (index.column() == MeasuredColumn && p.measured < 0) return {};
    return QString::fromStdString(formatByteSize(bytes()));
}

QVariant TimelineModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
    case NodeColumn: return tr("Node");
    case PhaseColumn: return tr("Phase");
    case LiveColumn: return tr("Live");
    case PreviousColumn: return tr("Previous");
    case AllocatedColumn: return tr("Allocated");
    case FreedColumn: return tr("Freed");
    case SavedColumn: return tr("Saved");
    case MeasuredColumn: return tr("Measured");
    default: return {};
    }
}

}  // namespace fxl::viewer
