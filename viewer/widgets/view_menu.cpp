#include "viewer/widgets/view_menu.hpp"

#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QKeySequence>
#include <QMenu>
#include <QSettings>
#include <QStyle>
#include <QTabWidget>

#include "viewer/widgets/diff_view.hpp"
#include "viewer/widgets/graph_view.hpp"
#include "viewer/widgets/main_window.hpp"

namespace fxl::viewer {

namespace {

QPalette darkPalette()
{
    QPalette p;
    const QColor window(45, 46, 50), base(30, 31, 34), text(230, 230, 230), button(55, 56, 60);
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, window);
    p.setColor(QPalette::ToolTipBase, window);
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, button);
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, Qt::red);
    p.setColor(QPalette::Link, QColor(100, 170, 255));
    p.setColor(QPalette::Highlight, QColor(42, 110, 190));
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::PlaceholderText, QColor(140, 140, 140));
    p.setColor(QPalette::Disabled, QPalette::Text, QColor(120, 120, 120));
    p.setColor(QPalette::Disabled, QPalette::ButtonText, QColor(120, 120, 120));
    return p;
}

QSettings settings() { return QSettings(QStringLiteral("fxlens"), QStringLiteral("fxlens")); }

}  // namespace

ViewMenu::ViewMenu(MainWindow& window, std::vector<QDockWidget*> docks)
    : QObject(&window)
    , w_(window)
    , docks_(std::move(docks))
    , desktopPalette_(QApplication::palette())
{ }

std::vector<GraphView*> ViewMenu::frontViews() const
{
    if (w_.centralTabs()->currentWidget() == w_.diffView()) return {w_.diffView()->viewA(), w_.diffView()->viewB()};
    return {w_.graphView()};
}

void ViewMenu::addActions(QMenu* view)
{
    // on the view in front: the graph, or the diff (its right pane, which the left one follows
    // at the same zoom; collapsing closes both)
    view->addAction(tr("&Fit"), QKeySequence(Qt::Key_F), this, [this] { frontViews().back()->fit(); });
    view->addAction(tr("Zoom &in"), QKeySequence::ZoomIn, this, [this] {
        GraphView* v = frontViews().back();
        v->setZoom(v->zoom() * 1.25);
    });
    view->addAction(tr("Zoom &out"), QKeySequence::ZoomOut, this, [this] {
        GraphView* v = frontViews().back();
        v->setZoom(v->zoom() / 1.25);
    });
    view->addAction(tr("&Collapse all"), QKeySequence(Qt::CTRL | Qt::Key_0), this, [this] {
        for (GraphView* v : frontViews()) v->collapseAll();
    });
    QAction* fold = view->addAction(tr("Fold &identical siblings"));
    fold->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_I));
    fold->setCheckable(true);
    fold->setChecked(w_.graphView()->foldIdentical());
    connect(fold, &QAction::toggled, this, [this](bool on) {
        w_.graphView()->setFoldIdentical(on);
        settings().setValue(QStringLiteral("view/fold"), on);
    });
    QMenu* themes = view->addMenu(tr("&Theme"));
    themes->addAction(tr("Follow the &desktop"), this, [this] { setTheme(Theme::FollowDesktop); });
    themes->addAction(tr("&Light"), this, [this] { setTheme(Theme::Light); });
    themes->addAction(tr("&Dark"), this, [this] { setTheme(Theme::Dark); });
    focusAction_ = view->addAction(tr("F&ocus on the graph (hide the docks)"));
    focusAction_->setShortcut(QKeySequence(Qt::Key_F11));
    focusAction_->setCheckable(true);
    connect(focusAction_, &QAction::toggled, this, &ViewMenu::setFocusMode);
    view->addSeparator();
    for (QDockWidget* d : docks_) view->addAction(d->toggleViewAction());
}

void ViewMenu::setTheme(Theme t)
{
    settings().setValue(QStringLiteral("theme"), static_cast<int>(t));
    bool dark = false;
    switch (t) {
    case Theme::FollowDesktop:
        QApplication::setPalette(desktopPalette_);
        dark = desktopPalette_.color(QPalette::Window).lightness() < 128;
        break;
    case Theme::Light: QApplication::setPalette(QApplication::style()->standardPalette()); break;
    case Theme::Dark:
        QApplication::setPalette(darkPalette());
        dark = true;
        break;
    }
    emit themeChanged(dark);
}

ViewMenu::Theme ViewMenu::savedTheme()
{
    return static_cast<Theme>(settings().value(QStringLiteral("theme"), 0).toInt());
}

void ViewMenu::setFocusMode(bool on)
{
    if (on == focusMode_) return;
    focusMode_ = on;
    if (on) {
        // the docks shown now come back when it ends
        focusHidden_.clear();
        for (QDockWidget* d : docks_)
            if (!d->isHidden()) {
                focusHidden_.push_back(d);
                d->hide();
            }
    } else {
        for (QDockWidget* d : focusHidden_) d->show();
        focusHidden_.clear();
    }
    if (focusAction_ && focusAction_->isChecked() != on) focusAction_->setChecked(on);
    w_.setStatus(on ? tr("focus mode: the docks are hidden (F11 brings them back)") : QString());
}

}  // namespace fxl::viewer
