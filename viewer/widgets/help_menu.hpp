// The Help menu: Keyboard shortcuts (F1), a table built from every menu of the window (so that
// it never goes stale) and the mouse's gestures; Restore the bundled example.
#pragma once

#include <QObject>
#include <QString>

#include <utility>
#include <vector>

class QMenu;
class QMenuBar;

namespace fxl::viewer {

class MainWindow;

class HelpMenu : public QObject
{
    Q_OBJECT

public:
    explicit HelpMenu(MainWindow& window);

    void addActions(QMenu* help);

    // (key, what it does) for every entry with a shortcut in every menu of `bar`, submenus
    // included, then the mouse's gestures.
    static std::vector<std::pair<QString, QString>> shortcuts(const QMenuBar* bar);
    void showShortcuts();

private:
    MainWindow& w_;
};

}  // namespace fxl::viewer
