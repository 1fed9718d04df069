// Opening files in the window: File > Open (Ctrl+O), Open folder (Ctrl+Shift+O), Open recent,
// the command line and drag and drop. Files open one after the other in the order asked, each
// in the background (viewer/jobs/view_jobs.hpp); a workspace (*.fxlens) opens once the files
// asked before it are open. What a finished file shows is decided by how it was asked for: the
// file the user opened comes to the front, one opened to be compared (or by a workspace) shows
// only when nothing else is shown. Recent files are remembered (QSettings "recent", ten). A CUDA
// memory snapshot (a file that starts as a pickle does) is read by the Memory snapshot tab
// instead (viewer/widgets/snapshot_panel.hpp), beside the queue.
#pragma once

#include <QObject>
#include <QString>

#include <deque>
#include <utility>
#include <vector>

class QAction;
class QMenu;

namespace fxl::viewer {

class MainWindow;
class ViewJobs;

class OpenQueue : public QObject
{
    Q_OBJECT

public:
    // What a file shows once open: its first graph, or that only when nothing is shown.
    enum class Show
    {
        First,
        IfNone
    };

    OpenQueue(MainWindow& window, ViewJobs* jobs);

    // Open..., Open folder..., Open recent (added to the File menu by the window).
    void addActions(QMenu* file);

    // Queues `path` (a graph, a log, a folder of logs; a workspace after what is queued).
    void open(const QString& path, Show show = Show::First);
    // open(), then waits (the event loop runs) until it is open and what it shows is shown.
    // Returns the error message, "" when it opened.
    QString openAndWait(const QString& path, Show show);
    // A file is being opened or waits to be.
    bool busy() const { return !opening_.isEmpty() || !queue_.empty(); }
    // How the file being opened asked to be shown.
    Show showing() const { return showing_; }
    // Cancel: the files still waiting are dropped (the one being opened is cancelled by its job).
    void dropWaiting() { queue_.clear(); }
    // File > Open recent: `path` first.
    static void remember(const QString& path);
    static QStringList recent();

private:
    MainWindow& w_;
    ViewJobs* jobs_;
    std::deque<std::pair<QString, Show>> queue_;
    QString opening_;
    Show showing_ = Show::First;
    QMenu* recentMenu_ = nullptr;
    void startNext();
};

}  // namespace fxl::viewer
