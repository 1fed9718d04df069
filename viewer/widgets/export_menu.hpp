// File > Export: its actions (the graph view, the diff view, the memory timeline, the pipeline
// report). Each asks for a path in a save dialog (a name for what is shown, in the folder saved
// in last; the dialog asks before replacing a file) and writes through the window's export
// functions (main_window.hpp, viewer/widgets/view_export.hpp), saying in the status bar what it
// wrote or showing the error.
#pragma once

#include <QObject>
#include <QString>

#include <vector>

class QAction;

namespace fxl::viewer {

class MainWindow;

class ExportMenu : public QObject
{
    Q_OBJECT

public:
    explicit ExportMenu(MainWindow& window);

    // The graph view (Ctrl+Shift+E), the diff view, the memory timeline, the pipeline report.
    const std::vector<QAction*>& actions() const { return actions_; }

private:
    MainWindow& w_;
    std::vector<QAction*> actions_;
};

}  // namespace fxl::viewer
