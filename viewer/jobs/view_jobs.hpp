// The viewer's long jobs, off the UI thread: opening a file (indexing a log), preparing a graph
// (parsing it, grouping it), laying out a view. Each job has an id, reports progress, can be
// cancelled, and its result is delivered on the UI thread only while it is the current job of
// its kind: starting a job of a kind makes the previous one of that kind stale, and a stale
// result is dropped (never emitted), so a slow layout of an old expansion never replaces the
// view of a newer one. QtCore only (the tests and the benchmark drive it without widgets).
//
// Cancel: an open stops at its next progress check (openSource leaves nothing behind); a
// layout stops between containers; parsing a graph runs to its end in the background, and its
// result is dropped.
#pragma once

#include <QObject>
#include <QString>
#include <QThreadPool>

#include <atomic>
#include <memory>
#include <set>

#include "core/formats/source.hpp"
#include "viewer/jobs/job_slots.hpp"
#include "viewer/layout/graph_layout.hpp"
#include "viewer/model/view_graph.hpp"

namespace fxl::viewer {

// A graph ready to be shown: the graph, its group tree and the layout cache of its views.
struct PreparedGraph
{
    std::shared_ptr<Source> source;
    std::string artifactId;
    std::shared_ptr<const Graph> graph;
    std::unique_ptr<GroupTree> tree;
    std::shared_ptr<LayoutCache> cache = std::make_shared<LayoutCache>();
    std::string text;  // the graph's original text (the file, or the artifact's payload in a log)
    std::string textError;  // why there is no text, when it could not be read
    QString warnings;  // diagnostics of the file and of this graph (warning level), one per line
    int warningCount = 0;
    double seconds = 0;  // parse + group
};

// One laid-out view of a prepared graph.
struct PreparedView
{
    std::shared_ptr<const PreparedGraph> graph;
    std::set<int> expanded;
    ViewOptions options;
    ViewGraph view;
    Layout layout;
    double seconds = 0;  // build + layout
};

class ViewJobs : public QObject
{
    Q_OBJECT

public:
    enum Kind
    {
        Open,
        Prepare,
        LayoutJob,
        KindCount
    };

    explicit ViewJobs(QObject* parent = nullptr);
    ~ViewJobs() override;  // cancels every job and waits for the workers

    // Each returns the job id (never 0).
    quint64 open(const QString& path);
    quint64 prepare(std::shared_ptr<Source> source, const QString& artifactId);
    quint64 layout(std::shared_ptr<const PreparedGraph> graph, std::set<int> expanded, ViewOptions options = {});

    void cancel(Kind kind);  // the current job of that kind: stopped where it can be, result dropped
    bool busy(Kind kind) const { return slots_.current(kind) != 0; }
    bool busy() const;
    quint64 current(Kind kind) const { return slots_.current(kind); }
    static QString kindName(Kind kind);  // "opening", "preparing", "laying out"

    // Work synchronously (the CLI's way), for callers that already are on a worker thread.
    static std::shared_ptr<PreparedGraph> prepareNow(std::shared_ptr<Source> source, const std::string& artifactId);
    static std::shared_ptr<PreparedView> layoutNow(std::shared_ptr<const PreparedGraph> graph, std::set<int> expanded,
                                                   const Progress& progress = {}, ViewOptions options = {});

signals:
    void progress(quint64 id, int kind, qint64 done, qint64 total, const QString& what);
    void sourceAvailable(quint64 id, std::shared_ptr<fxl::Source> source, const QString& path);
    void graphAvailable(quint64 id, std::shared_ptr<const fxl::viewer::PreparedGraph> graph);
    void viewAvailable(quint64 id, std::shared_ptr<const fxl::viewer::PreparedView> view);
    void failed(quint64 id, int kind, const QString& message);  // the message names file, line, column
    void cancelled(quint64 id, int kind);
    void finished(quint64 id, int kind);  // after any of the four above (not for stale jobs)

private:
    QThreadPool pool_;
    JobSlots<KindCount> slots_;

    quint64 start(Kind kind);
    // Runs on the UI thread: delivers when `id` is still current, else drops.
    void deliver(Kind kind, quint64 id, const std::function<void()>& emitResult);
    Progress progressFor(Kind kind, quint64 id, std::atomic<bool>* flag);
};

}  // namespace fxl::viewer
