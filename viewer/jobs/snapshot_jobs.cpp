#include "viewer/jobs/snapshot_jobs.hpp"

#include <QElapsedTimer>
#include <QMetaObject>

#include <set>

#include "core/ir/diagnostics.hpp"

namespace fxl::viewer {

namespace {

QString snapshotJobMessage(const std::exception_ptr& e, const QString& path)
{
    try {
        std::rethrow_exception(e);
    } catch (const InputError& err) {
        return QString::fromStdString(err.diagnostic().format());
    } catch (const std::exception& err) {
        return path + QStringLiteral(": ") + QString::fromUtf8(err.what());
    }
    return path + QStringLiteral(": unknown error");
}

}  // namespace

int LoadedSnapshot::indexOf(int64_t device) const
{
    for (size_t i = 0; i < devices.size(); ++i)
        if (devices[i] == device) return static_cast<int>(i);
    return -1;
}

SnapshotJobs::SnapshotJobs(QObject* parent)
    : QObject(parent)
{
    pool_.setMaxThreadCount(1);  // one snapshot at a time: a large one takes gigabytes
}

SnapshotJobs::~SnapshotJobs()
{
    slots_.stopAll();
    pool_.waitForDone();
}

bool SnapshotJobs::busy() const { return slots_.busy(); }

QString SnapshotJobs::kindName(Kind kind)
{
    switch (kind) {
    case Read: return tr("reading the snapshot");
    case Overlay: return tr("laying the snapshot over the graph");
    case Compare: return tr("comparing snapshots");
    case KindCount: break;
    }
    return {};
}

quint64 SnapshotJobs::start(Kind kind) { return slots_.start(kind); }

void SnapshotJobs::cancel(Kind kind)
{
    const quint64 id = slots_.stop(kind);
    if (!id) return;
    emit cancelled(id, kind);
    emit finished(id, kind);
}

void SnapshotJobs::cancelAll()
{
    for (int k = 0; k < KindCount; ++k) cancel(static_cast<Kind>(k));
}

void SnapshotJobs::deliver(Kind kind, quint64 id, const std::function<void()>& emitResult)
{
    if (!slots_.take(kind, id)) return;  // stale: a newer job of this kind started, or this one was cancelled
    emitResult();
    emit finished(id, kind);
}

Progress SnapshotJobs::progressFor(Kind kind, quint64 id, std::atomic<bool>* flag)
{
    return slots_.progress(this, kind, id, flag, [this, kind, id](qint64 done, qint64 total, const QString& w) {
        emit progress(id, kind, done, total, w);
    });
}

template<typename Result>
void SnapshotJobs::run(Kind kind, quint64 id, std::function<std::shared_ptr<const Result>()> work,
                       void (SnapshotJobs::*signal)(quint64, std::shared_ptr<const Result>))
{
    pool_.start([this, kind, id, work, signal] {
        std::shared_ptr<const Result> out;
        std::exception_ptr error;
        try {
            out = work();
        } catch (const CancelledError&) {
            return;  // cancel() already said so
        } catch (...) {
            error = std::current_exception();
        }
        QMetaObject::invokeMethod(
            this,
            [this, kind, id, out, error, signal] {
                deliver(kind, id, [&] {
                    if (error)
                        emit failed(id, kind, snapshotJobMessage(error, kindName(kind)));
                    else
                        emit(this->*signal)(id, out);
                });
            },
            Qt::QueuedConnection);
    });
}

std::shared_ptr<LoadedSnapshot> SnapshotJobs::readNow(const QString& path, const Progress& progress, size_t maxEntries)
{
    QElapsedTimer timer;
    timer.start();
    auto out = std::make_shared<LoadedSnapshot>();
    out->path = path;
    auto s = std::make_shared<MemorySnapshot>(readMemorySnapshot(path.toStdString(), progress));
    // the devices `fxlens mem` reports: those with a trace or a segment
    std::set<int64_t> devices;
    for (size_t d = 0; d < s->deviceTraces.size(); ++d)
        if (!s->deviceTraces[d].empty()) devices.insert(static_cast<int64_t>(d));
    for (const SnapshotSegment& g : s->segments) devices.insert(g.device);
    ProgressMeter meter(progress, static_cast<int64_t>(devices.size()) + 1);
    for (int64_t d : devices) {
        meter.report(static_cast<int64_t>(out->devices.size()), "computing the timelines");
        out->devices.push_back(d);
        out->timelines.push_back(std::make_shared<const SnapshotTimeline>(snapshotTimeline(*s, d, false, maxEntries)));
    }
    bool anyPool = false;
    auto isPrivate = [](const auto& p) { return p && !(p->first == 0 && p->second == 0); };
    for (const SnapshotSegment& g : s->segments) anyPool = anyPool || isPrivate(g.poolId);
    for (const auto& trace : s->deviceTraces)
        for (const TraceEntry& e : trace) anyPool = anyPool || isPrivate(e.poolId);
    if (anyPool)
        for (int64_t d : out->devices)
            out->poolTimelines.push_back(
                std::make_shared<const SnapshotTimeline>(snapshotTimeline(*s, d, false, maxEntries, true)));
    meter.finish("computing the timelines");
    out->snapshot = std::move(s);
    out->seconds = static_cast<double>(timer.nsecsElapsed()) / 1e9;
    return out;
}

std::shared_ptr<SnapshotOverlayResult> SnapshotJobs::overlayNow(std::shared_ptr<const LoadedSnapshot> s,
                                                                std::shared_ptr<const Graph> graph,
                                                                const QString& graphName)
{
    auto out = std::make_shared<SnapshotOverlayResult>();
    out->snapshot = s;
    out->graph = graph;
    out->graphName = graphName;
    // the estimate as `fxlens mem GRAPH` makes it (its default options)
    out->estimate = std::make_shared<const MemoryTimeline>(computeMemoryTimeline(*graph));
    for (const auto& t : s->timelines)
        out->overlays.push_back(overlaySnapshot(*graph, *out->estimate, *s->snapshot, *t));
    return out;
}

std::shared_ptr<SnapshotComparisonResult> SnapshotJobs::compareNow(std::shared_ptr<const LoadedSnapshot> a,
                                                                   std::shared_ptr<const LoadedSnapshot> b)
{
    auto out = std::make_shared<SnapshotComparisonResult>();
    out->a = a;
    out->b = b;
    out->devices = a->devices;
    for (size_t i = 0; i < a->devices.size(); ++i) {
        const int j = b->indexOf(a->devices[i]);
        auto tb = j >= 0 ? b->timelines[static_cast<size_t>(j)]
                         : std::make_shared<const SnapshotTimeline>(snapshotTimeline(*b->snapshot, a->devices[i]));
        out->comparisons.push_back(compareSnapshots(*a->snapshot, *a->timelines[i], *b->snapshot, *tb));
        out->timelinesB.push_back(tb);
    }
    return out;
}

quint64 SnapshotJobs::read(const QString& path)
{
    const quint64 id = start(Read);
    auto flag = slots_.flag(Read);
    const Progress p = progressFor(Read, id, flag.get());
    run<LoadedSnapshot>(
        Read, id, [path, p, flag]() -> std::shared_ptr<const LoadedSnapshot> { return readNow(path, p); },
        &SnapshotJobs::snapshotAvailable);
    return id;
}

quint64 SnapshotJobs::overlay(const QString& path, std::shared_ptr<const Graph> graph, const QString& graphName)
{
    const quint64 id = start(Overlay);
    auto flag = slots_.flag(Overlay);
    const Progress p = progressFor(Overlay, id, flag.get());
    run<SnapshotOverlayResult>(
        Overlay, id,
        [path, p, flag, graph, graphName]() -> std::shared_ptr<const SnapshotOverlayResult> {
            auto s = readNow(path, p);
            if (flag->load()) throw CancelledError();
            return overlayNow(s, graph, graphName);
        },
        &SnapshotJobs::overlayAvailable);
    return id;
}

quint64 SnapshotJobs::compare(std::shared_ptr<const LoadedSnapshot> a, const QString& pathB)
{
    const quint64 id = start(Compare);
    auto flag = slots_.flag(Compare);
    const Progress p = progressFor(Compare, id, flag.get());
    run<SnapshotComparisonResult>(
        Compare, id,
        [a, pathB, p, flag]() -> std::shared_ptr<const SnapshotComparisonResult> {
            auto b = readNow(pathB, p);
            if (flag->load()) throw CancelledError();
            return compareNow(a, b);
        },
        &SnapshotJobs::comparisonAvailable);
    return id;
}

}  // namespace fxl::viewer
