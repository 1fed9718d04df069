// The fxlens window: the source tree of the opened files (viewer/model/source_tree_model), the
// graph view of the selected graph with its breadcrumbs, and docks: inspector, find (with its
// results list), original text, overview (minimap) and legend. Files open from the command line
// (`fxlens FILE...`), File > Open (Ctrl+O), File > Open recent and drag and drop. Opening,
// reading a graph and laying it out run off the UI thread (viewer/jobs) with a progress bar and
// a Cancel button in the status bar; the tree appears first, a graph is read when first shown.
// Window state, recent files and the theme (follow the desktop, light, dark) are remembered
// (QSettings). Every frequent action has a shortcut; Help > Keyboard shortcuts lists them,
// built from the menus so that it never goes stale.
#pragma once

#include <QMainWindow>

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/analysis/graph_diff.hpp"
#include "core/analysis/memory_timeline.hpp"
#include "core/formats/source.hpp"
#include "viewer/jobs/view_jobs.hpp"
#include "viewer/widgets/view_menu.hpp"
#include "workspace/workspace.hpp"

class QDockWidget;
class QAction;
class QLabel;
class QLineEdit;
class QMenu;
class QPlainTextEdit;
class QProgressBar;
class QTabWidget;
class QTimer;
class QTableView;
class QTextBrowser;
class QToolButton;
class QTreeView;

namespace fxl::viewer {

class DiffView;
class FindPanel;
class GraphView;
class HelpMenu;
class InspectorPanel;
class MarksPanel;
class NodeNavigator;
class OpenQueue;
class SnapshotPanel;
class SourcesPanel;
class TextPanel;
class Overview;
class PipelineEditor;
class RunPanel;
struct RunOutcome;
class StepRunner;
class TimelineModel;
class TimelineView;
class StepSession;
class WorkspaceSession;
struct StepState;
class SearchResultsModel;
class SourceTreeModel;

class MainWindow : public QMainWindow
{
    Q_OBJECT

public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // Starts opening a file (a graph, a log, a folder of logs) in the background; files open in
    // the order asked. The first graph of the first file shows when none is shown yet.
    void open(const QString& path);
    // open(), then waits (the event loop runs) until it and the graph it shows are done.
    // Returns the error message, "" when it opened.
    // Opens a file and waits; showFirst false keeps the graph shown when there is one.
    QString openPath(const QString& path, bool showFirst = true);
    int sourceCount() const { return static_cast<int>(sources_.size()); }
    // Shows graph `id` of source `source` (SourceTreeModel order) and waits until it is on
    // screen; false (and the message) when it cannot be shown.
    bool showGraph(int source, const QString& id);
    // Starts showing a graph without waiting.
    void requestGraph(int source, const QString& id);
    // Runs the event loop until no job is running (false on timeout).
    bool waitIdle(int timeoutMs = 60000);

    GraphView* graphView() const { return view_; }
    TextPanel* textPanel() const { return text_; }
    SourceTreeModel* sourceModel() const { return model_; }
    QTreeView* sourceView() const;
    QToolButton* cancelButton() const { return cancel_; }
    QProgressBar* progressBar() const { return progress_; }
    Overview* overview() const { return overview_; }
    SearchResultsModel* searchModel() const;
    ViewJobs* jobs() const { return jobs_; }
    QString inspectorText() const;
    QString inspectorHtml() const;
    QString statusText() const;
    QString breadcrumbText() const;
    QString findStatus() const;
    // The original text dock: its text and the file line of its highlighted line (0 when none).
    QString originalText() const;
    int originalLine() const;
    QString lastError() const { return lastError_; }
    void clearLastError() { lastError_.clear(); }
    // When set, errors are only recorded (tests), not shown in a modal box.
    void setQuietErrors(bool quiet) { quietErrors_ = quiet; }
    bool quietErrors() const { return quietErrors_; }
    void setStatus(const QString& text);  // the status bar's message
    // Starts reading a CUDA memory snapshot (a pickle: File > Open and the command line send
    // one here); it shows in the Memory snapshot tab (viewer/widgets/snapshot_panel.hpp).
    void openSnapshot(const QString& path);
    SnapshotPanel* snapshotPanel() const { return snapshots_; }
    void updateBusy();  // the progress bar and Cancel, after a job started or ended
    void raiseDock(QWidget* panel);  // the dock holding `panel` shown and in front
    void scheduleAutosave();  // the workspace saves the view a moment later
    void showError(const QString& text);  // the status bar, and a message box unless quiet
    void refreshInspector();  // the selected node again (its notes and bookmarks changed)
    void rememberRecent(const QString& path);  // File > Open recent
    // Save dialogs: a name for what is shown, in the folder the user saved in last.
    QString suggestedName(const QString& suffix) const;
    QString askSavePath(const QString& title, const QString& filter, const QString& name);
    QString shortcutList() const;  // "KEY\tWHAT\n" per line, every menu and the mouse

    // Find (the find dock does the same): runs the query, shows the first result.
    int find(const QString& query);
    void findNext(int step = 1);
    // Walks from the selected node: to its first producer / consumer, then through the others.
    bool walkProducer();
    bool walkConsumer();
    bool walkNext(int step = 1);
    // Highlights the selected node's upstream / downstream cone (and itself); clear with Esc.
    size_t traceUpstream();
    size_t traceDownstream();
    void clearTrace();
    using Theme = ViewMenu::Theme;
    void setTheme(Theme t);
    // Focus mode (View > Focus on the graph, F11): every dock hidden, the graph (or the diff)
    // alone in the window; off brings back the docks it hid.
    void setFocusMode(bool on);
    bool focusMode() const;

    // --- the pass stepper (the Passes dock, the Diff tab, the Memory timeline dock)
    PipelineEditor* passes() const { return passes_; }
    StepRunner* runner() const { return runner_; }
    DiffView* diffView() const { return diff_; }
    TimelineView* timelineView() const { return timeline_; }
    TimelineModel* timelineModel() const { return timelineModel_; }
    QTabWidget* centralTabs() const { return tabs_; }
    RunPanel* runPanel() const { return run_; }
    MarksPanel* marksPanel() const { return marks_; }
    // The run panel's Run: the step shown checked against the step before (against = 0), the
    // input graph (1), or run alone (2), with the panel's backend, inputs and seed; waits for
    // the outcome (null when it could not start: the message is in the panel). When the Diff
    // tab shows two graphs that are not steps (two files, a before/after pair), the right one
    // is checked against the left one. A check also finds where the two runs diverge and
    // colours the diff's graphs by each node's ULP distance.
    // stepIndex >= 0 checks that step instead of the one shown.
    std::shared_ptr<const RunOutcome> runCheck(int against, int timeoutMs = 120000, int stepIndex = -1);
    // `fxlens` alone: the bundled example as a workspace (gpt2_tiny of `examplesDir` with
    // remove_detach,sac(policy=alternate_mm),remat,dce stepped, the remat step's diff and
    // timeline shown, the last step checked bitwise against the input in the run panel). Made
    // on first use in the user's data folder, reopened as left after that. Returns the error.
    QString openExample(const QString& examplesDir);
    // Help > Restore the bundled example: the user's copy and its workspace removed, the
    // example made again from `examplesDir`. Returns the error.
    QString restoreExample(const QString& examplesDir);
    // Sets the pipeline and runs it on the graph shown, then waits (the event loop runs) until
    // every step is made or one failed. Returns the message of a failure ("" when all ran).
    QString runPipeline(const QString& spec, int timeoutMs = 120000);
    // Shows step `index` (0 = the input): its graph in the graph view (the same groups open,
    // selection and viewport kept), its diff from the step before in the Diff tab, its memory
    // timeline over the step before's. False when there is no such step or it failed.
    bool showStep(int index);
    bool stepForward();
    bool stepBack();
    int currentStep() const;
    std::shared_ptr<const StepState> currentStepState() const;
    // Shows `node` of step `step` (graph `role`) in the graph view: the inspector's History
    // links ("show in step N") do this. False when there is no such step or node.
    bool showInStep(int step, const QString& role, const QString& node);
    // Which graph of a step with several (a partition's "forward" / "backward"); "" the first.
    void setStepRole(const QString& role);
    std::string stepRole() const;  // the graph of a step shown ("" the first)
    void setStepRoleQuietly(const std::string& role);  // for the next showStep
    bool diffShowsTwoGraphs() const;  // not two steps
    StepSession* stepSession() const { return steps_; }
    // Opens two graphs as a diff (two files: `fxlens A B`; two artifacts of a log) and waits
    // until it shows. Returns the error message, "" when it shows.
    QString openDiff(const QString& pathA, const QString& idA, const QString& pathB, const QString& idB);
    // The same for two graphs of open sources (SourceTreeModel order).
    QString diffGraphs(int sourceA, const QString& idA, int sourceB, const QString& idB);
    // A before_* / after_* artifact of a TORCH_TRACE log against its partner (before on the left).
    QString diffPair(int source, const QString& id);

    // --- the workspace (*.fxlens, workspace/workspace.hpp)
    // Writes the window's state into a workspace file in one transaction: the sources, the
    // pipeline and its steps, the named pipelines, the view (step, selection, viewport, open
    // groups, tab). A new path never overwrites an existing file unless `replace` and it is a
    // workspace. Later changes are saved there automatically (autosave). Returns the error, "".
    QString saveWorkspace(const QString& path, bool replace = false);
    // Opens a workspace and restores it: sources, pipeline and steps, the step shown, the
    // selection, the viewport; waits until it shows. A source changed on disk since is named
    // (workspaceNotice) and offered for reload (reloaded when errors are quiet). Returns the
    // error ("" when it opened); a truncated, foreign or newer file is refused with a message.
    QString openWorkspace(const QString& path);
    QString workspacePath() const;
    QString workspaceNotice() const;
    // Saves the view state now (what the autosave timer does after each change).
    bool autosaveNow();
    // --- export (File > Export): what is on screen, to files. Each returns the error ("" when
    // written); an existing file is replaced only with `replace` (the dialog asks first).
    // The graph view as it is shown (open groups, marks, selection) to .svg or .png.
    QString exportGraph(const QString& path, bool replace = false);
    // The diff view's two sides, side by side with their titles, to .svg or .png.
    QString exportDiff(const QString& path, bool replace = false);
    // The memory timeline of the step shown (with the step before): .png, or .csv (one row per
    // node: core/analysis/memory_timeline.hpp timelineToCsv).
    QString exportTimeline(const QString& path, bool replace = false);
    // The pipeline run as one self-contained HTML page (viewer/render/html_report.hpp), with
    // the run panel's last check of a step.
    QString exportReport(const QString& path, bool replace = false);
    // Bookmarks and notes on the selected node, in the workspace (false when none is open).
    bool bookmarkSelected(const QString& label);
    bool noteOnSelected(const QString& text);

protected:
    void closeEvent(QCloseEvent* e) override;
    void dragEnterEvent(QDragEnterEvent* e) override;
    void dropEvent(QDropEvent* e) override;

private:
    ViewJobs* jobs_ = nullptr;
    SourceTreeModel* model_ = nullptr;
    std::vector<std::shared_ptr<Source>> sources_;
    // the panels, each owning its behaviour and actions
    SourcesPanel* sourcesPanel_ = nullptr;
    FindPanel* find_ = nullptr;
    InspectorPanel* inspector_ = nullptr;
    MarksPanel* marks_ = nullptr;
    TextPanel* text_ = nullptr;
    NodeNavigator* nav_ = nullptr;
    GraphView* view_ = nullptr;
    QLabel* crumbs_ = nullptr;
    QWidget* legend_ = nullptr;  // the Legend dock's drawing
    Overview* overview_ = nullptr;
    QLabel* status_ = nullptr;
    QProgressBar* progress_ = nullptr;
    QToolButton* cancel_ = nullptr;
    OpenQueue* opens_ = nullptr;  // File > Open, recent files, the order files open in
    ViewMenu* viewMenu_ = nullptr;  // View: zoom, fold, theme, focus mode, the docks
    HelpMenu* help_ = nullptr;
    int showingSource_ = -1;
    QString showingId_;
    QString lastError_;
    bool quietErrors_ = false;
    QTabWidget* tabs_ = nullptr;
    StepRunner* runner_ = nullptr;
    PipelineEditor* passes_ = nullptr;
    DiffView* diff_ = nullptr;
    TimelineModel* timelineModel_ = nullptr;
    TimelineView* timeline_ = nullptr;
    RunPanel* run_ = nullptr;
    StepSession* steps_ = nullptr;  // the steps shown, the Diff tab's two graphs, the checks
    WorkspaceSession* session_ = nullptr;  // the workspace: file, actions, autosave, restore
    SnapshotPanel* snapshots_ = nullptr;  // the Memory snapshot tab and the Memory menu

    std::vector<QDockWidget*> docks_;  // in the View menu's order
    void buildMenus();
    QRect availableScreen() const;
    void fitInto(const QRect& area);
    void applyTheme(bool dark);  // the views and rich texts in the theme's colours
    void onSourceAvailable(std::shared_ptr<Source> source, const QString& path);
    void onGraphAvailable(std::shared_ptr<const PreparedGraph> graph);
    void onProgress(quint64 id, int kind, qint64 done, qint64 total, const QString& what);
    void inspect(const QString& node);
    void updateCrumbs(const QString& node);
};

// Where the bundled example is: <prefix>/share/fxlens/examples beside an installed fxlens,
// else the source tree's resources/examples. exampleCopyDir(): the user's copy of it (in the
// user's data folder), which the window opens.
QString bundledExamplesDir();
QString exampleCopyDir();

// Whether a window can be seen: DISPLAY or WAYLAND_DISPLAY set (or another Qt platform asked
// for), and the platform is not offscreen or minimal.
bool hasDisplay();

// `fxlens` without a verb: the window on `files` (or the bundled example); exactly two graph
// files open as a diff of the two (heaptrack's -d), two CUDA memory snapshots as the first
// compared with the second. Returns the exit code; without a display
// it says so and returns 1.
int runMainWindow(int argc, char** argv, const std::vector<std::string>& files);

}  // namespace fxl::viewer
