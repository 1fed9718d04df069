// The window's CUDA memory snapshot jobs, off the UI thread (core/formats/memory_snapshot.hpp,
// core/analysis/snapshot_*): reading a snapshot with its active-memory timeline for each device,
// laying a snapshot over a graph's estimated timeline, and comparing two snapshots. As
// viewer/jobs/view_jobs.hpp: each job has an id, reports progress (the pickle's bytes read), can
// be cancelled (reading stops at its next progress check), and only the current job of a kind
// delivers its result; a stale or cancelled one is dropped. QtCore only.
#pragma once

#include <QObject>
#include <QString>
#include <QThreadPool>

#include <atomic>
#include <memory>
#include <vector>

#include "core/analysis/memory_timeline.hpp"
#include "core/analysis/snapshot_compare.hpp"
#include "core/analysis/snapshot_overlay.hpp"
#include "core/analysis/snapshot_timeline.hpp"
#include "core/formats/memory_snapshot.hpp"
#include "core/util/progress.hpp"
#include "viewer/jobs/job_slots.hpp"

namespace fxl::viewer {

// A snapshot read, with the active-memory timeline of each device it traces or has segments on.
struct LoadedSnapshot
{
    QString path;
    std::shared_ptr<const MemorySnapshot> snapshot;
    std::vector<int64_t> devices;  // ascending
    std::vector<std::shared_ptr<const SnapshotTimeline>> timelines;  // one per entry of devices
    // the same with private pools' envelopes (memory_viz's view incl. private pools); empty when
    // no segment or trace event of the snapshot is in a private pool
    std::vector<std::shared_ptr<const SnapshotTimeline>> poolTimelines;
    bool privatePools = false;  // `timelines` are the private-pool view
    double seconds = 0;  // read + timelines
    // the index into devices of `device`, -1 when the snapshot has no such device
    int indexOf(int64_t device) const;
};

// A snapshot laid over a graph's estimate, for each device of the snapshot (the CLI's
// `fxlens mem GRAPH --snapshot SNAP --device N`).
struct SnapshotOverlayResult
{
    std::shared_ptr<const LoadedSnapshot> snapshot;
    std::shared_ptr<const Graph> graph;
    QString graphName;  // what the window calls the graph
    std::shared_ptr<const MemoryTimeline> estimate;
    std::vector<SnapshotOverlay> overlays;  // one per snapshot->devices
};

// Two snapshots compared, for each device of A (the CLI's `fxlens mem A --compare B --device N`).
struct SnapshotComparisonResult
{
    std::shared_ptr<const LoadedSnapshot> a, b;
    std::vector<int64_t> devices;  // A's devices
    std::vector<SnapshotComparison> comparisons;  // one per device
    std::vector<std::shared_ptr<const SnapshotTimeline>> timelinesB;  // B's timeline on each device
};

class SnapshotJobs : public QObject
{
    Q_OBJECT

public:
    enum Kind
    {
        Read,
        Overlay,
        Compare,
        KindCount
    };

    explicit SnapshotJobs(QObject* parent = nullptr);
    ~SnapshotJobs() override;  // cancels every job and waits for the worker

    // Each returns the job id (never 0).
    quint64 read(const QString& path);
    quint64 overlay(const QString& path, std::shared_ptr<const Graph> graph, const QString& graphName);
    quint64 compare(std::shared_ptr<const LoadedSnapshot> a, const QString& pathB);

    void cancel(Kind kind);
    void cancelAll();
    bool busy(Kind kind) const { return slots_.current(kind) != 0; }
    bool busy() const;
    static QString kindName(Kind kind);  // "reading the snapshot", ...

    // The same work synchronously (tests; callers already on a worker thread).
    static std::shared_ptr<LoadedSnapshot> readNow(const QString& path, const Progress& progress = {},
                                                   size_t maxEntries = kMemoryVizMaxEntries);
    static std::shared_ptr<SnapshotOverlayResult>
    overlayNow(std::shared_ptr<const LoadedSnapshot> s, std::shared_ptr<const Graph> graph, const QString& graphName);
    static std::shared_ptr<SnapshotComparisonResult> compareNow(std::shared_ptr<const LoadedSnapshot> a,
                                                                std::shared_ptr<const LoadedSnapshot> b);

signals:
    void progress(quint64 id, int kind, qint64 done, qint64 total, const QString& what);
    void snapshotAvailable(quint64 id, std::shared_ptr<const fxl::viewer::LoadedSnapshot> snapshot);
    void overlayAvailable(quint64 id, std::shared_ptr<const fxl::viewer::SnapshotOverlayResult> overlay);
    void comparisonAvailable(quint64 id, std::shared_ptr<const fxl::viewer::SnapshotComparisonResult> comparison);
    void failed(quint64 id, int kind, const QString& message);
    void cancelled(quint64 id, int kind);
    void finished(quint64 id, int kind);  // after any of the above (not for stale jobs)

private:
    QThreadPool pool_;
    JobSlots<KindCount> slots_;

    quint64 start(Kind kind);
    void deliver(Kind kind, quint64 id, const std::function<void()>& emitResult);
    Progress progressFor(Kind kind, quint64 id, std::atomic<bool>* flag);
    // runs `work` on the worker; its result (or error) delivered by `emitResult`
    template<typename Result>
    void run(Kind kind, quint64 id, std::function<std::shared_ptr<const Result>()> work,
             void (SnapshotJobs::*signal)(quint64, std::shared_ptr<const Result>));
};

}  // namespace fxl::viewer
