// The window's pass stepper and checks: the step shown (its graph in the graph view, its diff from
// the step before in the Diff tab, its memory timeline over the step before's), the Diff tab's
// two graphs when they are not steps (two files, a before/after pair of a log), and the Run
// panel's checks of either, marked stale as soon as they are no longer of the snapshots they ran
// on. It owns the Passes menu's actions and the wiring between the step runner, the Passes dock,
// the Run dock, the Diff tab and the timeline, and the exports that depend on the step shown
// (timeline, report). It works through the window's public interface (main_window.hpp), as the
// workspace session does, and owns nothing else of the window.
#pragma once

#include <QObject>
#include <QString>

#include <memory>
#include <string>
#include <vector>

class QAction;

namespace fxl {
class Source;
struct GraphDiff;
}  // namespace fxl

namespace fxl::viewer {

class MainWindow;
struct PreparedGraph;
struct RunOutcome;
struct StepState;

class StepSession : public QObject
{
    Q_OBJECT

public:
    explicit StepSession(MainWindow& window);

    // The Passes menu, in order: run the pipeline (Ctrl+Return), next and previous step
    // (Ctrl+Right, Ctrl+Left), check the step against the one before (Ctrl+Shift+R), then
    // (after a separator, nullptr) show the graph (Ctrl+1) and the diff (Ctrl+2).
    const std::vector<QAction*>& actions() const { return actions_; }

    // A graph from a file is shown: the stepper starts from it (its input step, with the
    // timeline, is made at once; the pipeline runs when asked) and follows the steps it makes.
    void startFrom(std::shared_ptr<const PreparedGraph> g);
    // Shows step `index` (0 = the input); false when there is no such step or it failed.
    bool showStep(int index);
    int current() const { return step_; }  // -1 when the graph shown is not a step
    std::shared_ptr<const StepState> currentState() const;
    bool showInStep(int step, const QString& role, const QString& node);
    // The graph of a step with several (a partition's "forward" / "backward"); "" the first.
    void setRole(const QString& role);
    std::string role() const { return role_; }
    void setRoleQuietly(const std::string& role) { role_ = role; }  // for the next showStep
    bool diffShowsTwoGraphs() const { return diffOfGraphs_; }
    bool busy() const { return diffJob_ != 0; }  // two graphs being prepared for the Diff tab

    // Sets the pipeline, runs it and waits; the message of a failure, "" when every step ran.
    QString runPipeline(const QString& spec, int timeoutMs);
    // The Run panel's Run (against: RunPanel::Against): false, said in the status bar, when it
    // cannot start.
    bool startRun(int against, int stepIndex = -1);
    std::shared_ptr<const RunOutcome> runCheck(int against, int timeoutMs, int stepIndex);
    // Two graphs in the Diff tab, prepared off the UI thread; waits. The error, "".
    QString diffGraphs(std::shared_ptr<Source> a, const QString& idA, std::shared_ptr<Source> b, const QString& idB);
    // A before_* / after_* artifact against its partner, before on the left.
    QString diffPair(std::shared_ptr<Source> source, const QString& id);
    // The inspector's History of `node` in the step shown ("" when the graph shown is no step).
    QString historyHtml(const QString& node) const;
    QString exportTimeline(const QString& path, bool replace);
    QString exportReport(const QString& path, bool replace);

private:
    MainWindow& w_;
    std::vector<QAction*> actions_;
    int step_ = -1;
    bool followSteps_ = true;  // show each new step as it arrives (until one is chosen)
    std::string role_;
    quint64 diffJob_ = 0;  // the diff of two graphs being prepared (0: none)
    quint64 lastDiffJob_ = 0;
    bool diffOfGraphs_ = false;  // the Diff tab shows two graphs that are not steps

    void onStepAvailable(int index);
    void onRunFinished(std::shared_ptr<const RunOutcome> o);
    // The run panel's result marked stale when it is no longer of what is shown (a check of
    // steps: the pair of snapshots it ran on, by content hash; two graphs: the Diff tab's).
    void refreshRunStaleness();
    void showTwoGraphs(std::shared_ptr<const PreparedGraph> a, std::shared_ptr<const PreparedGraph> b,
                       std::shared_ptr<const GraphDiff> d);
};

}  // namespace fxl::viewer
