// The fxlens window (early): a source tree of the opened files (viewer/model/source_tree_model),
// the graph view of the selected graph, and an inspector of the selected node. Files open from
// the command line (`fxlens FILE...`), the File menu (Ctrl+O) and drag and drop; the window's
// geometry and the recent files are remembered (QSettings). Still to come (README): find,
// walks to producers and consumers, background loading with progress and cancel, the minimap,
// dark palettes, the layout cache.
#pragma once

#include <QMainWindow>

#include <memory>
#include <string>

#include "core/formats/source.hpp"

class QTreeView;
class QTextBrowser;
class QLabel;

namespace fxl::viewer {

class GraphView;
class SourceTreeModel;

class MainWindow : public QMainWindow
{
    Q_OBJECT

public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // Opens a file (a graph, a log, a folder of logs); shows its first graph when none is
    // shown yet. Errors go to a message box (and are returned), the window stays usable.
    QString openPath(const QString& path);
    // Shows graph `id` of source `source` (SourceTreeModel order).
    bool showGraph(int source, const QString& id);

    GraphView* graphView() const { return view_; }
    SourceTreeModel* sourceModel() const { return model_; }
    QString inspectorText() const;
    QString statusText() const;
    QString lastError() const { return lastError_; }
    // When set, errors are only recorded (tests), not shown in a modal box.
    void setQuietErrors(bool quiet) { quietErrors_ = quiet; }

protected:
    void closeEvent(QCloseEvent* e) override;
    void dragEnterEvent(QDragEnterEvent* e) override;
    void dropEvent(QDropEvent* e) override;

private:
    SourceTreeModel* model_ = nullptr;
    QTreeView* tree_ = nullptr;
    GraphView* view_ = nullptr;
    QTextBrowser* inspector_ = nullptr;
    QLabel* status_ = nullptr;
    std::shared_ptr<const Graph> graph_;
    QString lastError_;
    bool quietErrors_ = false;

    void inspect(const QString& node);
    void showError(const QString& text);
    void showShortcuts();
};

// Whether a window can be seen: DISPLAY or WAYLAND_DISPLAY set (or another Qt platform asked
// for), and the platform is not offscreen or minimal.
bool hasDisplay();

// `fxlens` without a verb: the window on `files` (or the bundled example). Returns the exit
// code; without a display it says so and returns 1.
int runMainWindow(int argc, char** argv, const std::vector<std::string>& files);

}  // namespace fxl::viewer
