// What the window-as-a-user tests share (test_window_actions.cpp): the dialogs a user answers
// (file dialogs, message boxes, input dialogs, popup menus) answered from a script, and the
// window's menu actions found by their text. Header-only.
#pragma once

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QFileDialog>
#include <QInputDialog>
#include <QLineEdit>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QMouseEvent>
#include <QPushButton>
#include <QTimer>
#include <QtTest>

#include <deque>
#include <functional>
#include <vector>

namespace guitest {

// Answers the modal dialogs and popup menus the window opens, as a user would: a file dialog
// takes the next path queued (or is cancelled when none is), a message box is read and
// closed with its default button, an input dialog takes the next text queued (or is
// cancelled), a popup menu has the queued entry picked (or is closed). What each showed is
// recorded, so a test can check that the dialog was the one it expected.
class DialogDriver : public QObject
{
public:
    explicit DialogDriver(QObject* parent = nullptr)
        : QObject(parent)
    {
        timer_.setInterval(10);
        connect(&timer_, &QTimer::timeout, this, [this] { poll(); });
        timer_.start();
    }

    void answerFile(const QString& path) { files_.push_back(path); }
    void answerText(const QString& text) { texts_.push_back(text); }
    void pickMenuEntry(const QString& textPart) { menuPicks_.push_back(textPart); }
    void clearAnswers()
    {
        files_.clear();
        texts_.clear();
        menuPicks_.clear();
    }
    // "file: TITLE" then "file at: FOLDER/SUGGESTED NAME", "box: TEXT", "input: TITLE", "menu:
    // ENTRY, ENTRY" in the order shown.
    const QStringList& seen() const { return seen_; }
    void clearSeen() { seen_.clear(); }

private:
    QTimer timer_;
    std::deque<QString> files_, texts_, menuPicks_;
    QStringList seen_;

    void poll()
    {
        if (QWidget* popup = QApplication::activePopupWidget()) {
            if (auto* m = qobject_cast<QMenu*>(popup)) {
                QStringList entries;
                QAction* pick = nullptr;
                for (QAction* a : m->actions()) {
                    if (a->isSeparator()) continue;
                    entries << a->text();
                    if (!menuPicks_.empty() && a->isEnabled() && a->text().contains(menuPicks_.front())) pick = a;
                }
                seen_ << QStringLiteral("menu: ") + entries.join(QStringLiteral(", "));
                if (!menuPicks_.empty()) menuPicks_.pop_front();
                m->close();
                if (pick) pick->trigger();
                return;
            }
            popup->close();
            return;
        }
        QWidget* modal = QApplication::activeModalWidget();
        if (!modal) return;
        if (auto* f = qobject_cast<QFileDialog*>(modal)) {
            seen_ << QStringLiteral("file: ") + f->windowTitle();
            // where it opened and the name it suggested
            const auto* name = f->findChild<QLineEdit*>(QStringLiteral("fileNameEdit"));
            seen_ << QStringLiteral("file at: ") + QDir(f->directory()).filePath(name ? name->text() : QString());
            if (files_.empty()) {
                f->reject();
                return;
            }
            const QString path = files_.front();
            files_.pop_front();
            // typed into the name field as a user would (selectFile of a path in another
            // folder fills the field only once that folder is read)
            if (auto* name = f->findChild<QLineEdit*>(QStringLiteral("fileNameEdit"))) name->setText(path);
            f->selectFile(path);
            QMetaObject::invokeMethod(f, "accept");  // the slot Open / Save calls
            return;
        }
        if (auto* b = qobject_cast<QMessageBox*>(modal)) {
            seen_ << QStringLiteral("box: ") + b->text();
            if (QAbstractButton* d = b->defaultButton())
                d->click();
            else
                b->close();
            return;
        }
        if (auto* in = qobject_cast<QInputDialog*>(modal)) {
            seen_ << QStringLiteral("input: ") + in->windowTitle();
            if (texts_.empty()) {
                in->reject();
                return;
            }
            in->setTextValue(texts_.front());
            texts_.pop_front();
            in->accept();
            return;
        }
        seen_ << QStringLiteral("dialog: ") + modal->windowTitle();
        modal->close();
    }
};

// A double click as the window system delivers it: press, release, double click, release
// (QTest::mouseDClick sends no release before the double click, and an item view still
// selecting by drag then ignores it).
inline void userDoubleClick(QWidget* w, const QPoint& at)
{
    QTest::mouseClick(w, Qt::LeftButton, Qt::NoModifier, at);
    const QPointF local(at), global(w->mapToGlobal(at));
    QMouseEvent dbl(QEvent::MouseButtonDblClick, local, global, Qt::LeftButton, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(w, &dbl);
    QMouseEvent release(QEvent::MouseButtonRelease, local, global, Qt::LeftButton, Qt::NoButton, Qt::NoModifier);
    QApplication::sendEvent(w, &release);
}

// The text of an action as a user reads it: no '&', no trailing "...".
inline QString plainText(const QAction* a)
{
    QString t = a->text();
    t.remove(QLatin1Char('&'));
    if (t.endsWith(QLatin1String("..."))) t.chop(3);
    return t;
}

// Every action reachable from the menu bar, submenus included (not the submenus' own entries
// and not separators), with the path of menus that leads to it ("File > Export > Graph view").
struct MenuAction
{
    QAction* action = nullptr;
    QString path;
};

inline void collectActions(QMenu* menu, const QString& prefix, std::vector<MenuAction>& out)
{
    for (QAction* a : menu->actions()) {
        if (a->isSeparator()) continue;
        const QString path = prefix + QStringLiteral(" > ") + plainText(a);
        if (a->menu())
            collectActions(a->menu(), path, out);
        else
            out.push_back({a, path});
    }
}

inline std::vector<MenuAction> menuActions(QMainWindow& w)
{
    std::vector<MenuAction> out;
    for (QAction* top : w.menuBar()->actions())
        if (top->menu()) collectActions(top->menu(), plainText(top), out);
    return out;
}

inline QAction* findAction(QMainWindow& w, const QString& path)
{
    for (const MenuAction& m : menuActions(w))
        if (m.path == path) return m.action;
    return nullptr;
}

}  // namespace guitest
