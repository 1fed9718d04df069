// The window's workspace (workspace/workspace.hpp): the file it saves to and reopens, with its
// actions (File > Save workspace, Save workspace as; Navigate > Bookmark the node, Note on the
// node), the autosave of the view a moment after each change (in one transaction), the record of
// each run and the restore of a workspace: sources, pipeline, step, groups, selection,
// viewport, tab and the last check, made again only while it is of these very steps. The
// bundled example opens through it as the user's copy. It works through the window's public
// interface (main_window.hpp) and owns nothing else of the window.
#pragma once

#include <QObject>
#include <QString>

#include <functional>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "viewer/layout/graph_layout.hpp"
#include "workspace/workspace.hpp"

class QAction;
class QTimer;

namespace fxl::viewer {

class MainWindow;
struct RunOutcome;

class WorkspaceSession : public QObject
{
    Q_OBJECT

public:
    explicit WorkspaceSession(MainWindow& window);
    ~WorkspaceSession() override;

    QAction* saveAction() const { return save_; }  // Ctrl+S: the workspace, or a new one
    QAction* saveAsAction() const { return saveAs_; }  // Ctrl+Shift+S
    QAction* bookmarkAction() const { return bookmark_; }  // Ctrl+B
    QAction* noteAction() const { return note_; }  // Ctrl+N

    bool open() const { return ws_ != nullptr; }
    QString path() const;
    QString notice() const { return notice_; }  // what opening the workspace found (changed sources, ...)
    bool restoring() const { return restoring_; }

    // Writes a new workspace of what the window shows (refusing an existing file unless
    // `replace`); "" or the error.
    QString save(const QString& path, bool replace = false);
    // Opens a workspace and puts the window back as it was; "" or the error (also shown).
    QString openFile(const QString& path);
    // Saves the view, the pipeline, the steps and the layouts now; false when it could not.
    bool autosaveNow();
    void scheduleAutosave();
    // The window closes: the last view is saved.
    void close();
    // A run finished: recorded with the content hashes of the steps it ran on.
    void recordRun(const RunOutcome& o);
    bool bookmarkSelected(const QString& label);
    bool noteOnSelected(const QString& text);
    // The note and bookmarks of a node, for the inspector ("" when none or no workspace).
    QString inspectorExtra(const QString& node) const;
    // The layouts a reopened workspace keeps, for the cache of the graph it opens (once).
    std::vector<std::pair<std::string, std::shared_ptr<const LayoutCache::Entry>>> takePendingLayouts();

    QString openExample(const QString& examplesDir);
    QString restoreExample(const QString& examplesDir);

private:
    MainWindow& w_;
    std::unique_ptr<Workspace> ws_;
    int64_t main_ = 0;  // the workspace's id of the main source
    QTimer* autosave_ = nullptr;
    bool restoring_ = false;  // openFile is putting the state back: no autosave
    QString notice_;
    std::set<std::string> layoutKeys_;  // layouts the workspace holds
    std::vector<std::pair<std::string, std::shared_ptr<const LayoutCache::Entry>>> pendingLayouts_;
    QAction* save_ = nullptr;
    QAction* saveAs_ = nullptr;
    QAction* bookmark_ = nullptr;
    QAction* note_ = nullptr;

    ViewState captureViewState() const;
    std::string recordedRunStaleness(const RunRecord& rec) const;
    void refreshMarks();  // the Bookmarks and notes dock
    // Applies `mark` to the selected node in the workspace, then shows it; false when there is
    // no workspace or no selection.
    bool markSelected(const std::function<void(const std::string& node)>& mark);
    void saveFromMenu(bool as);
};

}  // namespace fxl::viewer
