#include "viewer/widgets/export_menu.hpp"

#include <QAction>
#include <QKeySequence>

#include "viewer/widgets/main_window.hpp"

namespace fxl::viewer {

ExportMenu::ExportMenu(MainWindow& window)
    : QObject(&window)
    , w_(window)
{
    using Write = QString (MainWindow::*)(const QString&, bool);
    auto add = [this](const QString& text, const QString& title, const QString& filter, Write write,
                      const QString& what) {
        auto* a = new QAction(text, this);
        connect(a, &QAction::triggered, this, [this, title, filter, write, what] {
            const QString suffix = filter.section(QLatin1String("(*"), 1, 1).section(QLatin1Char(')'), 0, 0);
            const QString path = w_.askSavePath(title, filter, w_.suggestedName(what + suffix));
            if (path.isEmpty()) return;
            const QString err = (w_.*write)(path, true);  // the dialog asked before replacing
            if (!err.isEmpty())
                w_.showError(err);
            else
                w_.setStatus(tr("wrote %1").arg(path));
        });
        actions_.push_back(a);
        return a;
    };
    add(tr("&Graph view (SVG, PNG)..."), tr("Export the graph view"), tr("SVG (*.svg);;PNG (*.png)"),
        &MainWindow::exportGraph, QString())
        ->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E));
    add(tr("&Diff view (SVG, PNG)..."), tr("Export the diff view"), tr("SVG (*.svg);;PNG (*.png)"),
        &MainWindow::exportDiff, QStringLiteral("_diff"));
    add(tr("Memory &timeline (PNG, CSV)..."), tr("Export the memory timeline"), tr("PNG (*.png);;CSV (*.csv)"),
        &MainWindow::exportTimeline, QStringLiteral("_memory"));
    add(tr("Pipeline &report (HTML)..."), tr("Export the pipeline report"), tr("HTML (*.html)"),
        &MainWindow::exportReport, QStringLiteral("_report"));
}

}  // namespace fxl::viewer
