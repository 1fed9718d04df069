#include "viewer/widgets/open_queue.hpp"

#include <QFileDialog>
#include <QFileInfo>
#include <QKeySequence>
#include <QMenu>
#include <QSettings>
#include <QTimer>

#include "core/formats/memory_snapshot.hpp"
#include "viewer/jobs/view_jobs.hpp"
#include "viewer/widgets/main_window.hpp"

namespace fxl::viewer {

OpenQueue::OpenQueue(MainWindow& window, ViewJobs* jobs)
    : QObject(&window)
    , w_(window)
    , jobs_(jobs)
{
    connect(jobs_, &ViewJobs::finished, this, [this](quint64, int kind) {
        if (kind != ViewJobs::Open) return;
        opening_.clear();
        startNext();
    });
}

void OpenQueue::addActions(QMenu* file)
{
    file->addAction(tr("&Open..."), QKeySequence::Open, this, [this] {
        const QString path =
            QFileDialog::getOpenFileName(&w_, tr("Open a graph, a TORCH_TRACE log or a CUDA memory snapshot"));
        if (!path.isEmpty()) open(path);
    });
    file->addAction(tr("Open &folder (per-rank logs, tlparse output)..."),
                    QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O), this, [this] {
                        const QString path = QFileDialog::getExistingDirectory(&w_, tr("Open a folder"));
                        if (!path.isEmpty()) open(path);
                    });
    recentMenu_ = file->addMenu(tr("Open &recent"));
    connect(recentMenu_, &QMenu::aboutToShow, this, [this] {
        recentMenu_->clear();
        const QStringList paths = recent();
        for (const QString& p : paths) recentMenu_->addAction(p, this, [this, p] { open(p); });
        if (paths.isEmpty()) recentMenu_->addAction(tr("(none yet)"))->setEnabled(false);
    });
}

void OpenQueue::open(const QString& path, Show show)
{
    if (path.endsWith(QLatin1String(".fxlens"))) {
        // after what is being opened now
        QTimer::singleShot(0, this, [this, path] {
            w_.waitIdle();
            const QString err = w_.openWorkspace(path);
            if (!err.isEmpty()) w_.showError(err);
        });
        return;
    }
    if (looksLikePickle(path.toStdString())) {  // a CUDA memory snapshot: the Memory snapshot tab
        w_.openSnapshot(path);
        return;
    }
    queue_.emplace_back(path, show);
    startNext();
}

QString OpenQueue::openAndWait(const QString& path, Show show)
{
    w_.clearLastError();
    if (looksLikePickle(path.toStdString()))
        w_.openSnapshot(path);
    else
        queue_.emplace_back(path, show);
    startNext();
    w_.waitIdle();
    return w_.lastError();
}

void OpenQueue::startNext()
{
    if (!opening_.isEmpty() || queue_.empty()) return;
    opening_ = queue_.front().first;
    showing_ = queue_.front().second;
    queue_.pop_front();
    w_.setStatus(tr("opening %1...").arg(QFileInfo(opening_).fileName()));
    jobs_->open(opening_);
    w_.updateBusy();
}

void OpenQueue::remember(const QString& path)
{
    QSettings settings(QStringLiteral("fxlens"), QStringLiteral("fxlens"));
    QStringList paths = settings.value(QStringLiteral("recent")).toStringList();
    const QString abs = QFileInfo(path).absoluteFilePath();
    paths.removeAll(abs);
    paths.prepend(abs);
    settings.setValue(QStringLiteral("recent"), paths.mid(0, 10));
}

QStringList OpenQueue::recent()
{
    return QSettings(QStringLiteral("fxlens"), QStringLiteral("fxlens")).value(QStringLiteral("recent")).toStringList();
}

}  // namespace fxl::viewer
