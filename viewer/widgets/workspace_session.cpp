#include "viewer/widgets/workspace_session.hpp"

#include <QAction>
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QInputDialog>
#include <QKeySequence>
#include <QMessageBox>
#include <QSettings>
#include <QTabWidget>
#include <QTimer>

#include <algorithm>
#include <functional>
#include <nlohmann/json.hpp>

#include "core/ir/diagnostics.hpp"
#include "core/util/content_hash.hpp"
#include "runtime/check/localize.hpp"
#include "viewer/jobs/run_jobs.hpp"
#include "viewer/jobs/step_jobs.hpp"
#include "viewer/model/pipeline_model.hpp"
#include "viewer/widgets/diff_view.hpp"
#include "viewer/widgets/graph_view.hpp"
#include "viewer/widgets/main_window.hpp"
#include "viewer/widgets/marks_panel.hpp"
#include "viewer/widgets/pipeline_editor.hpp"
#include "viewer/widgets/run_panel.hpp"

namespace fxl::viewer {

namespace {

std::vector<StepRecord> stepRecords(const std::vector<std::shared_ptr<const StepState>>& steps)
{
    std::vector<StepRecord> out;
    for (const auto& s : steps) {
        StepRecord r;
        r.index = s->index;
        r.pass = s->pass;
        r.spec = s->spec;
        // the counts the Steps table shows (the diff against the step before)
        const DiffCounts c = s->diffCounts();
        r.added = static_cast<int64_t>(c.added);
        r.removed = static_cast<int64_t>(c.removed);
        r.changed = static_cast<int64_t>(c.changed);
        r.rewired = static_cast<int64_t>(c.rewired);
        r.tags = static_cast<int64_t>(s->log.tags.size());
        r.verifierOk = !s->failed && s->errorCount() == 0;
        r.seconds = s->passSeconds;
        r.error = s->error;
        out.push_back(std::move(r));
    }
    return out;
}

}  // namespace

WorkspaceSession::WorkspaceSession(MainWindow& window)
    : QObject(&window)
    , w_(window)
{
    // each change of the view saved a moment later, in one transaction
    autosave_ = new QTimer(this);
    autosave_->setSingleShot(true);
    autosave_->setInterval(1500);
    connect(autosave_, &QTimer::timeout, this, [this] { autosaveNow(); });
    connect(w_.graphView(), &GraphView::nodeSelected, this, [this] { scheduleAutosave(); });
    connect(w_.graphView(), &GraphView::viewportMoved, this, [this] { scheduleAutosave(); });
    connect(w_.centralTabs(), &QTabWidget::currentChanged, this, [this] { scheduleAutosave(); });

    save_ = new QAction(tr("&Save workspace"), this);
    save_->setShortcut(QKeySequence::Save);
    connect(save_, &QAction::triggered, this, [this] { saveFromMenu(false); });
    saveAs_ = new QAction(tr("Save workspace &as..."), this);
    saveAs_->setShortcut(QKeySequence::SaveAs);
    connect(saveAs_, &QAction::triggered, this, [this] { saveFromMenu(true); });

    bookmark_ = new QAction(tr("&Bookmark the node"), this);
    bookmark_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_B));
    connect(bookmark_, &QAction::triggered, this, [this] {
        if (!ws_) {
            w_.setStatus(tr("bookmarks live in a workspace: save one first (File > Save workspace)"));
            return;
        }
        bookmarkSelected(w_.graphView()->selected());
    });
    note_ = new QAction(tr("&Note on the node..."), this);
    note_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_N));
    connect(note_, &QAction::triggered, this, [this] {
        const QString node = w_.graphView()->selected();
        if (!ws_ || node.isEmpty()) {
            w_.setStatus(tr("notes live in a workspace: select a node and save a workspace first"));
            return;
        }
        bool ok = false;
        const auto old = ws_->note(main_, w_.stepRole(), node.toStdString());
        const QString text = QInputDialog::getMultiLineText(&w_, tr("Note on %1").arg(node), tr("Note:"),
                                                            old ? QString::fromStdString(old->text) : QString(), &ok);
        if (ok) noteOnSelected(text);
    });
}

WorkspaceSession::~WorkspaceSession() = default;

QString WorkspaceSession::path() const { return ws_ ? QString::fromStdString(ws_->path()) : QString(); }

void WorkspaceSession::saveFromMenu(bool as)
{
    if (ws_ && !as) {
        autosaveNow();
        w_.setStatus(tr("saved %1").arg(path()));
        return;
    }
    QString file = w_.askSavePath(as ? tr("Save the workspace as") : tr("Save the workspace"),
                                  tr("fxlens workspace (*.fxlens)"), w_.suggestedName(QStringLiteral(".fxlens")));
    if (file.isEmpty()) return;
    if (!file.endsWith(QLatin1String(".fxlens"))) file += QStringLiteral(".fxlens");
    if (as) ws_.reset();
    // the dialog asked before replacing an existing file
    const QString err = save(file, QFileInfo::exists(file));
    if (!err.isEmpty()) w_.showError(err);
}

void WorkspaceSession::scheduleAutosave()
{
    if (ws_ && !restoring_) autosave_->start();
}

void WorkspaceSession::close()
{
    autosave_->stop();
    autosaveNow();  // the last view, so that the workspace reopens here
}

ViewState WorkspaceSession::captureViewState() const
{
    const GraphView* view = w_.graphView();
    ViewState v;
    v.currentSource = main_;
    v.stepIndex = std::max(0, w_.currentStep());
    v.selectedGraph = w_.stepRole();
    v.selectedNode = view->selected().toStdString();
    const QRectF r = view->visibleRect();
    v.viewport = {r.center().x(), r.center().y(), view->zoom()};
    if (view->tree())
        for (int k : view->expanded()) v.expandedGroups.push_back(view->tree()->group(k).key);
    v.openTabs = {w_.centralTabs()->currentWidget() == w_.diffView() ? "diff" : "graph"};
    return v;
}

bool WorkspaceSession::autosaveNow()
{
    if (!ws_ || restoring_) return false;
    try {
        Transaction t = ws_->transaction();
        if (main_) {
            ws_->setSourcePipeline(main_, w_.passes()->pipeline()->spec().toStdString());
            ws_->saveSteps(main_, stepRecords(w_.runner()->steps()));
        }
        // the layouts made since (the steps share the input's cache): reopening needs no Graphviz
        if (const auto in = w_.runner()->input())
            for (const auto& [key, entry] : in->cache->entries())
                if (layoutKeys_.insert(key).second) ws_->putLayout(key, LayoutCache::encode(*entry));
        ws_->saveViewState(captureViewState());
        t.commit();
        return true;
    } catch (const std::exception& e) {
        w_.setStatus(tr("the workspace could not be saved: %1").arg(QString::fromUtf8(e.what())));
        return false;
    }
}

QString WorkspaceSession::save(const QString& file, bool replace)
{
    try {
        auto ws = std::make_unique<Workspace>(
            Workspace::create(file.toStdString(),
                              replace ? Workspace::CreateMode::ReplaceWorkspace : Workspace::CreateMode::NewFileOnly));
        Transaction t = ws->transaction();
        int64_t main = 0;
        if (const auto in = w_.runner()->input()) main = ws->addSource(in->source->path, "main", in->artifactId);
        const DiffView* diff = w_.diffView();
        if (w_.diffShowsTwoGraphs() && diff->viewA()->prepared() && diff->viewB()->prepared()) {
            const auto a = diff->viewA()->prepared(), b = diff->viewB()->prepared();
            ws->addSource(a->source->path, "diff-a", a->artifactId);
            ws->addSource(b->source->path, "diff-b", b->artifactId);
        }
        for (const QString& name : w_.passes()->savedPipelines())
            ws->savePipeline(name.toStdString(),
                             QSettings(QStringLiteral("fxlens"), QStringLiteral("fxlens"))
                                 .value(QStringLiteral("pipelines/") + name)
                                 .toString()
                                 .toStdString());
        t.commit();
        ws_ = std::move(ws);
        main_ = main;
        layoutKeys_.clear();
        if (w_.runPanel()->outcome()) recordRun(*w_.runPanel()->outcome());  // the run shown comes back on reopening
        if (!autosaveNow()) return tr("the workspace could not be written");
        w_.setWindowTitle(tr("%1 - fxlens").arg(QFileInfo(file).fileName()));
        w_.rememberRecent(file);
        refreshMarks();
        return {};
    } catch (const InputError& e) {
        return QString::fromStdString(e.diagnostic().format());
    } catch (const std::exception& e) {
        return file + QStringLiteral(": ") + QString::fromUtf8(e.what());
    }
}

QString WorkspaceSession::openFile(const QString& file)
{
    w_.clearLastError();
    notice_.clear();
    std::unique_ptr<Workspace> ws;
    try {
        ws = std::make_unique<Workspace>(Workspace::open(file.toStdString()));
        // sources changed on disk since: say which, and offer to take them as they are now
        const auto changes = ws->changedSources();
        QStringList lines, missing;
        for (const SourceChange& c : changes) {
            const QString line = QString::fromStdString(c.source.path + ": " + c.detail);
            (c.kind == SourceChange::Kind::Modified ? lines : missing) << line;
        }
        if (!missing.isEmpty()) notice_ += tr("missing or unreadable: %1\n").arg(missing.join(QStringLiteral("; ")));
        if (!lines.isEmpty()) {
            notice_ += tr("changed on disk since the workspace was saved: %1").arg(lines.join(QStringLiteral("; ")));
            const bool reload = w_.quietErrors()
                || QMessageBox::question(&w_, tr("fxlens"), notice_ + tr("\n\nReload them as they are now?"))
                    == QMessageBox::Yes;
            if (reload)
                for (const SourceChange& c : changes)
                    if (c.kind == SourceChange::Kind::Modified) ws->refreshSource(c.source.id);
        }
        if (!notice_.isEmpty()) w_.setStatus(notice_);
    } catch (const InputError& e) {
        const QString msg = QString::fromStdString(e.diagnostic().format());
        w_.showError(msg);
        return msg;
    } catch (const std::exception& e) {
        const QString msg = file + QStringLiteral(": ") + QString::fromUtf8(e.what());
        w_.showError(msg);
        return msg;
    }
    restoring_ = true;
    const ViewState state = ws->viewState();
    // the layouts it keeps go into the cache of the graph it opens (a damaged row is left out)
    pendingLayouts_.clear();
    layoutKeys_.clear();
    for (auto& [key, bytes] : ws->layouts())
        if (auto entry = LayoutCache::decode(bytes)) {
            pendingLayouts_.emplace_back(key, std::move(entry));
            layoutKeys_.insert(key);
        }
    const auto sources = ws->sources();
    const SourceRecord* main = nullptr;
    const SourceRecord *diffA = nullptr, *diffB = nullptr;
    for (const SourceRecord& s : sources) {
        if (s.role == "main" && !main) main = &s;
        if (s.role == "diff-a") diffA = &s;
        if (s.role == "diff-b") diffB = &s;
    }
    GraphView* view = w_.graphView();
    QString err;
    if (main) {
        err = w_.openPath(QString::fromStdString(main->path), false);
        const int index = w_.sourceCount() - 1;
        const bool shownAlready = view->prepared() && view->prepared()->artifactId == main->graph;
        if (err.isEmpty() && !main->graph.empty() && !shownAlready
            && !w_.showGraph(index, QString::fromStdString(main->graph)))
            err = w_.lastError().isEmpty()
                ? tr("graph %1 of %2 is gone")
                      .arg(QString::fromStdString(main->graph), QString::fromStdString(main->path))
                : w_.lastError();
        if (err.isEmpty()) {
            w_.waitIdle();
            if (!main->pipeline.empty()) {
                const QString failed = w_.runPipeline(QString::fromStdString(main->pipeline));
                if (!failed.isEmpty()) notice_ += failed;
            }
            w_.setStepRoleQuietly(state.selectedGraph);
            w_.showStep(std::min<int>(state.stepIndex, static_cast<int>(w_.runner()->steps().size()) - 1));
            w_.waitIdle();
            std::set<int> groups;
            if (view->tree())
                for (const std::string& key : state.expandedGroups)
                    if (const int g = view->tree()->find(key); g >= 0) groups.insert(g);
            view->setExpanded(groups);
            w_.waitIdle();
            if (!state.selectedNode.empty()) view->showNode(QString::fromStdString(state.selectedNode));
            w_.waitIdle();
            view->setZoom(state.viewport.zoom);
            view->centreOnPoint(QPointF(state.viewport.centreX, state.viewport.centreY));
        }
    }
    if (err.isEmpty() && diffA && diffB) {
        err = w_.openDiff(QString::fromStdString(diffA->path), QString::fromStdString(diffA->graph),
                          QString::fromStdString(diffB->path), QString::fromStdString(diffB->graph));
    }
    QTabWidget* tabs = w_.centralTabs();
    if (err.isEmpty() && !state.openTabs.empty())
        tabs->setCurrentWidget(state.openTabs.front() == "diff" ? static_cast<QWidget*>(w_.diffView())
                                                                : tabs->widget(0));
    // the last run of the workspace, made again (its tensors are not kept): the run panel shows
    // what it showed
    if (err.isEmpty() && main) {
        const auto runs = ws->runs(main->id);
        if (!runs.empty() && runs.back().step < static_cast<int>(w_.runner()->steps().size())) {
            const RunRecord& last = runs.back();
            const int mode = last.against == "previous" ? static_cast<int>(RunPanel::Against::Previous)
                : last.against == "input"               ? static_cast<int>(RunPanel::Against::Input)
                : last.against == "eager"               ? static_cast<int>(RunPanel::Against::EagerChunking)
                : last.against == "cpu"                 ? static_cast<int>(RunPanel::Against::OnCpu)
                                                        : static_cast<int>(RunPanel::Against::Nothing);
            // made again only while it is of these very steps (by content hash)
            const std::string stale = last.against == "graphs" ? std::string() : recordedRunStaleness(last);
            if (!stale.empty()) {
                const QString why = tr("the workspace's last check (step %1) is stale: %2")
                                        .arg(last.step)
                                        .arg(QString::fromStdString(stale));
                w_.runPanel()->setStale(why);
                notice_ += why;
            } else if (last.against != "graphs") {
                w_.runCheck(mode, 60000, last.step);
            }
        }
    }
    QCoreApplication::processEvents();
    restoring_ = false;
    if (!err.isEmpty()) {
        w_.showError(err);
        return err;
    }
    main_ = main ? main->id : 0;
    ws_ = std::move(ws);
    refreshMarks();
    w_.setWindowTitle(tr("%1 - fxlens").arg(QFileInfo(file).fileName()));
    w_.rememberRecent(file);
    return {};
}

std::string WorkspaceSession::recordedRunStaleness(const RunRecord& rec) const
{
    RunRequest r;
    r.stepIndex = rec.step;
    r.against = rec.against;
    try {
        const auto j = nlohmann::json::parse(rec.reportJson);
        auto hash = [&j](const char* key) -> uint64_t {
            const auto it = j.find(key);
            return it != j.end() && it->is_string() ? std::stoull(it->get<std::string>(), nullptr, 16) : 0;
        };
        r.role = j.value("role", std::string());
        r.subjectHash = hash("subject_hash");
        r.referenceHash = hash("reference_hash");
    } catch (const std::exception&) {
        return "its record cannot be read";
    }
    return checkStaleness(r, w_.runner()->steps());
}

void WorkspaceSession::recordRun(const RunOutcome& o)
{
    if (!ws_ || !main_ || !o.ok) return;
    RunRecord rec;
    rec.source = main_;
    rec.step = std::max(0, o.request.stepIndex);
    rec.against = o.request.against;
    rec.backend = o.request.backend;
    nlohmann::json j = {{"summary", o.summary()},
                        {"inputs", o.inputsFrom},
                        {"peak_bytes", o.subject.peakBytes},
                        {"role", o.request.role},
                        {"subject_hash", formatHash(o.request.subjectHash)},
                        {"reference_hash", formatHash(o.request.referenceHash)}};
    if (o.compared) j["report"] = reportToJson(o.report);
    if (o.localize) j["localize"] = localizeToJson(*o.localize);
    rec.reportJson = j.dump();
    try {
        ws_->addRun(rec);
    } catch (const std::exception& e) {
        w_.setStatus(tr("the run could not be saved in the workspace: %1").arg(QString::fromUtf8(e.what())));
    }
}

bool WorkspaceSession::markSelected(const std::function<void(const std::string& node)>& mark)
{
    const QString node = w_.graphView()->selected();
    if (!ws_ || !main_ || node.isEmpty()) return false;
    mark(node.toStdString());
    w_.refreshInspector();
    refreshMarks();
    return true;
}

bool WorkspaceSession::bookmarkSelected(const QString& label)
{
    return markSelected(
        [&](const std::string& node) { ws_->addBookmark(main_, w_.stepRole(), node, label.toStdString()); });
}

bool WorkspaceSession::noteOnSelected(const QString& text)
{
    return markSelected([&](const std::string& node) { ws_->setNote(main_, w_.stepRole(), node, text.toStdString()); });
}

QString WorkspaceSession::inspectorExtra(const QString& node) const
{
    QString extra;
    if (!ws_ || !main_) return extra;
    if (const auto note = ws_->note(main_, w_.stepRole(), node.toStdString()))
        extra += tr("<h4>Note</h4><p>%1</p>").arg(QString::fromStdString(note->text).toHtmlEscaped());
    for (const BookmarkRecord& b : ws_->bookmarks(main_))
        if (b.node == node.toStdString() && b.graph == w_.stepRole())
            extra += tr("<p>Bookmarked: %1</p>").arg(QString::fromStdString(b.label).toHtmlEscaped());
    return extra;
}

void WorkspaceSession::refreshMarks()
{
    MarksPanel* marks = w_.marksPanel();
    if (!ws_ || !main_) {
        marks->setEntries({}, {}, ws_ != nullptr);
        return;
    }
    try {
        marks->setEntries(ws_->bookmarks(main_), ws_->notes(main_), true);
    } catch (const std::exception& e) {
        w_.setStatus(tr("bookmarks and notes could not be read: %1").arg(QString::fromUtf8(e.what())));
    }
}

std::vector<std::pair<std::string, std::shared_ptr<const LayoutCache::Entry>>> WorkspaceSession::takePendingLayouts()
{
    return std::exchange(pendingLayouts_, {});
}

QString WorkspaceSession::openExample(const QString& examplesDir)
{
    const QString dir = exampleCopyDir();
    QDir().mkpath(dir);
    // the user's copy of the bundled files: what they change in it never changes the original
    // (Help > Restore the bundled example goes back to it)
    const QDir from(examplesDir);
    const QStringList files = from.entryList({QStringLiteral("gpt2_tiny.*")}, QDir::Files);
    if (!files.contains(QStringLiteral("gpt2_tiny.joint.code.py")))
        return tr("the bundled example is not in %1 (is fxlens installed completely?)").arg(examplesDir);
    for (const QString& f : files)
        if (!QFileInfo::exists(dir + QLatin1Char('/') + f)
            && !QFile::copy(from.filePath(f), dir + QLatin1Char('/') + f))
            return tr("the bundled example could not be copied to %1").arg(dir);
    const QString file = dir + QStringLiteral("/gpt2_tiny.fxlens");
    if (QFileInfo::exists(file)) {
        const bool quiet = w_.quietErrors();
        w_.setQuietErrors(true);  // a stale example is made anew, not reported
        const QString err = openFile(file);
        w_.setQuietErrors(quiet);
        if (err.isEmpty()) return {};
        w_.clearLastError();
    }
    const QString graph = dir + QStringLiteral("/gpt2_tiny.joint.code.py");
    QString err = w_.openPath(graph);
    if (!err.isEmpty()) return err;
    err = w_.runPipeline(QStringLiteral("remove_detach,sac(policy=alternate_mm),remat,dce"));
    if (!err.isEmpty()) return err;
    const int last = static_cast<int>(w_.runner()->steps().size()) - 1;
    if (!w_.runCheck(static_cast<int>(RunPanel::Against::Input), 120000, last))
        return tr("the example's check did not run");
    w_.showStep(3);  // remat
    w_.centralTabs()->setCurrentWidget(w_.diffView());
    w_.waitIdle();
    ws_.reset();
    // our own file in our data folder: replaced when it no longer opens (an older fxlens made it)
    return save(file, true);
}

QString WorkspaceSession::restoreExample(const QString& examplesDir)
{
    // the user's copy and its workspace go; the example is made again from the bundled files
    const QString dir = exampleCopyDir();
    if (ws_ && QFileInfo(path()).absolutePath() == QFileInfo(dir).absoluteFilePath()) ws_.reset();
    QDir(dir).removeRecursively();
    const QString err = openExample(examplesDir);
    if (err.isEmpty()) w_.setStatus(tr("the example is as it was bundled again"));
    return err;
}

}  // namespace fxl::viewer
