#include "viewer/jobs/view_jobs.hpp"

#include <QElapsedTimer>
#include <QMetaObject>
#include <QPointer>

namespace fxl::viewer {

namespace {

QString messageOf(const std::exception_ptr& e, const QString& path)
{
    try {
        std::rethrow_exception(e);
    } catch (const InputError& err) {
        return QString::fromStdString(err.diagnostic().format());
    } catch (const std::exception& err) {
        return path + QStringLiteral(": ") + QString::fromUtf8(err.what());
    }
    return path + QStringLiteral(": unknown error");
}

}  // namespace

ViewJobs::ViewJobs(QObject* parent)
    : QObject(parent)
{
    // opening, preparing and laying out may overlap (a layout of the shown graph while a log
    // is indexed); more threads than that would only compete for the same cores
    pool_.setMaxThreadCount(3);
}

ViewJobs::~ViewJobs()
{
    slots_.stopAll();
    pool_.waitForDone();
}

bool ViewJobs::busy() const { return slots_.busy(); }

QString ViewJobs::kindName(Kind kind)
{
    switch (kind) {
    case Open: return tr("opening");
    case Prepare: return tr("reading the graph");
    case LayoutJob: return tr("laying out");
    case KindCount: break;
    }
    return {};
}

quint64 ViewJobs::start(Kind kind) { return slots_.start(kind); }

void ViewJobs::cancel(Kind kind)
{
    const quint64 id = slots_.stop(kind);
    if (!id) return;
    emit cancelled(id, kind);
    emit finished(id, kind);
}

void ViewJobs::deliver(Kind kind, quint64 id, const std::function<void()>& emitResult)
{
    if (!slots_.take(kind, id)) return;  // stale: a newer job of this kind started, or this one was cancelled
    emitResult();
    emit finished(id, kind);
}

Progress ViewJobs::progressFor(Kind kind, quint64 id, std::atomic<bool>* flag)
{
    return slots_.progress(this, kind, id, flag, [this, kind, id](qint64 done, qint64 total, const QString& w) {
        emit progress(id, kind, done, total, w);
    });
}

quint64 ViewJobs::open(const QString& path)
{
    const quint64 id = start(Open);
    auto flag = slots_.flag(Open);
    Progress p = progressFor(Open, id, flag.get());
    pool_.start([this, id, path, flag, p] {
        std::shared_ptr<Source> src;
        std::exception_ptr error;
        bool stopped = false;
        try {
            src = openSource(path.toStdString(), p);
        } catch (const CancelledError&) {
            stopped = true;
        } catch (...) {
            error = std::current_exception();
        }
        if (stopped) return;  // cancel() already said so
        QMetaObject::invokeMethod(
            this,
            [this, id, src, error, path] {
                deliver(Open, id, [&] {
                    if (error)
                        emit failed(id, Open, messageOf(error, path));
                    else
                        emit sourceAvailable(id, src, path);
                });
            },
            Qt::QueuedConnection);
    });
    return id;
}

std::shared_ptr<PreparedGraph> ViewJobs::prepareNow(std::shared_ptr<Source> source, const std::string& artifactId)
{
    QElapsedTimer timer;
    timer.start();
    auto out = std::make_shared<PreparedGraph>();
    out->source = source;
    out->artifactId = artifactId;
    // as the CLI: a graph that came with error-level diagnostics (a broken meta.json, ...) is
    // not shown, since what it shows would silently lack what the input meant to give
    const size_t from = source->diagnostics.items.size();
    std::shared_ptr<Graph> g = source->graph(artifactId);
    const auto& items = source->diagnostics.items;
    for (size_t i = from; i < items.size(); ++i)
        if (items[i].severity == Severity::Error) throw InputError(Diagnostic(items[i]));
    if (!g) throw std::runtime_error("graph " + artifactId + " could not be read");
    for (const Diagnostic& d : items)
        if (d.severity == Severity::Warning) {
            if (out->warningCount++ < 50) out->warnings += QString::fromStdString(d.format()) + QLatin1Char('\n');
        }
    out->graph = g;
    out->tree = std::make_unique<GroupTree>(*g);
    if (const Artifact* a = source->find(artifactId); a && source->readPayload) {
        try {
            out->text = source->readPayload(*a);
        } catch (const std::exception& e) {
            out->textError = e.what();
        }
    }
    out->seconds = static_cast<double>(timer.nsecsElapsed()) / 1e9;
    return out;
}

quint64 ViewJobs::prepare(std::shared_ptr<Source> source, const QString& artifactId)
{
    const quint64 id = start(Prepare);
    pool_.start([this, id, source, artifactId] {
        std::shared_ptr<const PreparedGraph> out;
        std::exception_ptr error;
        try {
            out = prepareNow(source, artifactId.toStdString());
        } catch (...) {
            error = std::current_exception();
        }
        const QString where = QString::fromStdString(source->path) + QStringLiteral(", graph ") + artifactId;
        QMetaObject::invokeMethod(
            this,
            [this, id, out, error, where] {
                deliver(Prepare, id, [&] {
                    if (error)
                        emit failed(id, Prepare, messageOf(error, where));
                    else
                        emit graphAvailable(id, out);
                });
            },
            Qt::QueuedConnection);
    });
    return id;
}

std::shared_ptr<PreparedView> ViewJobs::layoutNow(std::shared_ptr<const PreparedGraph> graph, std::set<int> expanded,
                                                  const Progress& progress, ViewOptions options)
{
    QElapsedTimer timer;
    timer.start();
    auto out = std::make_shared<PreparedView>();
    out->graph = graph;
    out->expanded = std::move(expanded);
    out->options = options;
    out->view = buildViewGraph(*graph->tree, out->expanded, options);
    out->layout = layoutView(out->view, *graph->tree, {}, graph->cache.get(), progress);
    out->seconds = static_cast<double>(timer.nsecsElapsed()) / 1e9;
    return out;
}

quint64 ViewJobs::layout(std::shared_ptr<const PreparedGraph> graph, std::set<int> expanded, ViewOptions options)
{
    const quint64 id = start(LayoutJob);
    auto flag = slots_.flag(LayoutJob);
    Progress p = progressFor(LayoutJob, id, flag.get());
    pool_.start([this, id, graph, expanded, flag, p, options] {
        std::shared_ptr<const PreparedView> out;
        std::exception_ptr error;
        try {
            out = layoutNow(graph, expanded, p, options);
        } catch (const CancelledError&) {
            return;
        } catch (...) {
            error = std::current_exception();
        }
        QMetaObject::invokeMethod(
            this,
            [this, id, out, error] {
                deliver(LayoutJob, id, [&] {
                    if (error)
                        emit failed(id, LayoutJob, messageOf(error, tr("layout")));
                    else
                        emit viewAvailable(id, out);
                });
            },
            Qt::QueuedConnection);
    });
    return id;
}

}  // namespace fxl::viewer
