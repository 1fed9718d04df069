#include "viewer/widgets/help_menu.hpp"

#include <QAction>
#include <QKeySequence>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>

#include <functional>

#include "viewer/widgets/main_window.hpp"

namespace fxl::viewer {

HelpMenu::HelpMenu(MainWindow& window)
    : QObject(&window)
    , w_(window)
{ }

void HelpMenu::addActions(QMenu* help)
{
    help->addAction(tr("&Keyboard shortcuts"), QKeySequence::HelpContents, this, &HelpMenu::showShortcuts);
    help->addAction(tr("&Restore the bundled example"), this, [this] {
        const QString err = w_.restoreExample(bundledExamplesDir());
        if (!err.isEmpty()) w_.showError(err);
    });
}

std::vector<std::pair<QString, QString>> HelpMenu::shortcuts(const QMenuBar* bar)
{
    // every entry of every menu, submenus included (File > Export's keys were missing)
    std::vector<std::pair<QString, QString>> out;
    std::function<void(const QMenu*)> walk = [&](const QMenu* m) {
        for (QAction* a : m->actions()) {
            if (a->menu()) walk(a->menu());
            if (!a->shortcut().isEmpty())
                out.emplace_back(a->shortcut().toString(QKeySequence::NativeText), a->text().remove(QLatin1Char('&')));
        }
    };
    for (QAction* menu : bar->actions())
        if (menu->menu()) walk(menu->menu());
    for (const auto& [key, what] :
         {std::pair{tr("Wheel"), tr("zoom at the cursor")}, std::pair{tr("Drag"), tr("pan")},
          std::pair{tr("Double click"), tr("expand or collapse a group")},
          std::pair{tr("+ / -"), tr("expand down to the selected node / collapse its group")},
          std::pair{tr("Click a stub"), tr("jump to the node it names (a menu when it names several)")},
          std::pair{tr("Click the overview"), tr("move the view there")}})
        out.emplace_back(key, what);
    return out;
}

void HelpMenu::showShortcuts()
{
    // a table: keys of any length line up with what they do
    QString html = QStringLiteral("<table cellspacing=\"2\" cellpadding=\"2\">");
    for (const auto& [key, what] : shortcuts(w_.menuBar()))
        html += QStringLiteral("<tr><td><b>%1</b></td><td>%2</td></tr>").arg(key.toHtmlEscaped(), what.toHtmlEscaped());
    html += QStringLiteral("</table>");
    QMessageBox box(QMessageBox::Information, tr("Keyboard shortcuts"), html, QMessageBox::Ok, &w_);
    box.setTextFormat(Qt::RichText);
    box.exec();
}

}  // namespace fxl::viewer
