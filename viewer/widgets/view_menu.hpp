// The View menu: on the view in front (the graph, or the diff's two panes) fit (F), zoom in and
// out, collapse all (Ctrl+0); fold identical siblings (Ctrl+I, remembered); the theme (follow
// the desktop, light, dark: the application's palette, remembered); focus mode (F11: every dock
// hidden, the graph alone; off brings back the docks it hid); and each dock's toggle.
#pragma once

#include <QObject>
#include <QPalette>

#include <vector>

class QAction;
class QDockWidget;
class QMenu;

namespace fxl::viewer {

class GraphView;
class MainWindow;

class ViewMenu : public QObject
{
    Q_OBJECT

public:
    enum class Theme
    {
        FollowDesktop,
        Light,
        Dark
    };

    // `docks`: the window's docks, in the order their toggles are listed.
    ViewMenu(MainWindow& window, std::vector<QDockWidget*> docks);

    void addActions(QMenu* view);

    // Sets the application's palette and remembers the choice; themeChanged tells the window.
    void setTheme(Theme t);
    static Theme savedTheme();
    void setFocusMode(bool on);
    bool focusMode() const { return focusMode_; }

signals:
    void themeChanged(bool dark);

private:
    MainWindow& w_;
    std::vector<QDockWidget*> docks_;
    QPalette desktopPalette_;  // the desktop's, for "follow the desktop" after another theme
    bool focusMode_ = false;
    QAction* focusAction_ = nullptr;
    std::vector<QDockWidget*> focusHidden_;  // the docks focus mode hid
    std::vector<GraphView*> frontViews() const;  // the graph view, or the diff's two panes
};

}  // namespace fxl::viewer
