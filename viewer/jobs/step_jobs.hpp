// Stepping through a pipeline of passes off the UI thread. A run takes an input graph and a
// pipeline spec ("remove_detach,sac(policy=alternate_mm),remat,dce") and makes its steps one
// stage at a time, each delivered as soon as it is ready with everything the window shows for
// it, computed on the worker: the graph's group tree, its memory timeline and its diff from the
// step before (per graph role: a partition's "forward" and "backward" are diffed against the
// graph they came from). So showing a step on the UI thread is only swapping models.
//
// A new spec keeps the steps of the longest common prefix of stages (same stage text) and runs
// the rest; a failing pass ends the run with its message on a failed step, the earlier steps
// intact; cancel stops between two passes (a pass is not interrupted) and keeps what was made.
// Like ViewJobs, every run has an id, and the results of a stale run are dropped.
#pragma once

#include <QObject>
#include <QString>
#include <QThreadPool>

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "core/analysis/graph_diff.hpp"
#include "core/analysis/memory_timeline.hpp"
#include "passes/pass.hpp"
#include "viewer/jobs/view_jobs.hpp"

namespace fxl::viewer {

// One graph of a step, ready to be shown.
struct StepGraph
{
    std::string role;  // "" for the single graph of most steps, "forward" / "backward" after partition
    std::shared_ptr<const PreparedGraph> prepared;
    // core/formats/json_io graphContentHash of the graph: a check belongs to the exact pair of
    // snapshots it ran on (viewer/jobs/run_jobs.hpp checkStaleness)
    uint64_t contentHash = 0;
    std::shared_ptr<const MemoryTimeline> timeline;
    // The graph of the step before that this one is compared with (null on the input step), the
    // diff from it, and the role it had there.
    std::shared_ptr<const Graph> previous;
    std::shared_ptr<const MemoryTimeline> previousTimeline;
    std::shared_ptr<const GraphDiff> diff;
    std::string previousRole;
};

struct StepState
{
    int index = 0;  // 0 = the input
    std::string pass;  // "" for the input
    std::string spec;  // stage text as written
    bool failed = false;  // the pass failed: `error` says why, and there are no graphs
    std::string error;
    ChangeLog log;
    std::vector<Problem> problems;
    double passSeconds = 0;  // the pass alone
    double prepareSeconds = 0;  // grouping, timeline and diff
    std::vector<StepGraph> graphs;

    const StepGraph* graph(const std::string& role) const;  // by role; the first when role is not there
    size_t errorCount() const;  // verifier errors
    DiffCounts diffCounts() const;  // summed over the graphs
};

// Builds a step's StepGraphs (group tree, timeline, diff from `before`); used by the runner and
// by tests that check what it shows. Their layouts go into `cache` when given (the runner gives
// the input's: the cache is keyed by what goes into the layout, so the groups a pass left as
// they were are not laid out again in the next step), else into a cache of their own.
std::shared_ptr<StepState> prepareStep(const Step& step, const StepState* before, std::shared_ptr<Source> source,
                                       const std::string& artifactId, std::shared_ptr<LayoutCache> cache = nullptr);

class StepRunner : public QObject
{
    Q_OBJECT

public:
    explicit StepRunner(QObject* parent = nullptr);
    ~StepRunner() override;  // cancels and waits

    // The input of every run: a prepared graph (from ViewJobs). Forgets the steps.
    void setInput(std::shared_ptr<const PreparedGraph> input);
    std::shared_ptr<const PreparedGraph> input() const { return input_; }

    // Starts running `spec` on the input: the steps whose stages match the previous spec's are
    // kept (stepsKept() says how many, the input included) and the rest are made anew. Throws
    // InputError for a bad spec (nothing changes then). Returns the run id.
    quint64 run(const QString& spec);
    void cancel();
    bool busy() const { return current_ != 0; }
    quint64 current() const { return current_; }

    const std::vector<std::shared_ptr<const StepState>>& steps() const { return steps_; }
    QString spec() const { return spec_; }
    // The stages of the current spec (what the run will make).
    int stageCount() const { return static_cast<int>(stages_.size()); }
    int stepsKept() const { return kept_; }

signals:
    // A step is ready (steps() already holds it).
    void stepAvailable(quint64 id, int index);
    // Steps from `from` on were dropped (a new spec, a new input).
    void stepsReset(int from);
    void progress(quint64 id, qint64 done, qint64 total, const QString& what);
    // The run ended: all stages made, a pass failed (the failed step is the last one) or it was
    // cancelled.
    void finished(quint64 id, bool ok, const QString& message);

private:
    QThreadPool pool_;
    std::shared_ptr<const PreparedGraph> input_;
    std::vector<std::shared_ptr<const StepState>> steps_;
    std::vector<std::shared_ptr<const Step>> rawSteps_;  // the passes' steps (for running on)
    std::vector<PipelineStage> stages_;
    QString spec_;
    int kept_ = 0;
    quint64 next_ = 0, current_ = 0;
    std::shared_ptr<std::atomic<bool>> cancel_;

    void truncate(size_t keep);
};

}  // namespace fxl::viewer
