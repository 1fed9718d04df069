#include "viewer/widgets/step_session.hpp"

#include <QAction>
#include <QFileInfo>
#include <QKeySequence>
#include <QPointer>
#include <QRegularExpression>
#include <QTabWidget>
#include <QThreadPool>

#include "core/analysis/graph_diff.hpp"
#include "core/analysis/memory_timeline.hpp"
#include "core/formats/source.hpp"
#include "core/ir/diagnostics.hpp"
#include "viewer/jobs/run_jobs.hpp"
#include "viewer/jobs/step_jobs.hpp"
#include "viewer/jobs/view_jobs.hpp"
#include "viewer/model/pipeline_model.hpp"
#include "viewer/model/provenance_trail.hpp"
#include "viewer/model/source_tree_model.hpp"
#include "viewer/model/timeline_model.hpp"
#include "viewer/render/html_report.hpp"
#include "viewer/render/scene_draw.hpp"
#include "viewer/widgets/diff_view.hpp"
#include "viewer/widgets/graph_view.hpp"
#include "viewer/widgets/main_window.hpp"
#include "viewer/widgets/pipeline_editor.hpp"
#include "viewer/widgets/run_panel.hpp"
#include "viewer/widgets/timeline_view.hpp"
#include "viewer/widgets/view_export.hpp"

namespace fxl::viewer {

namespace {

QString qs(const std::string& s) { return QString::fromStdString(s); }

QString plain(QString html) { return html.remove(QRegularExpression(QStringLiteral("<[^>]*>"))); }

QString stepLabel(const StepState& s)
{
    return s.index == 0 ? QObject::tr("step 0 (input)") : QObject::tr("step %1 (%2)").arg(s.index).arg(qs(s.spec));
}

}  // namespace

StepSession::StepSession(MainWindow& window)
    : QObject(&window)
    , w_(window)
{
    StepRunner* runner = w_.runner();
    RunPanel* run = w_.runPanel();
    connect(run, &RunPanel::runRequested, this, [this](RunPanel::Against a) { startRun(static_cast<int>(a)); });
    connect(run, &RunPanel::showNodeRequested, this, [this](const QString& name) {
        if (w_.centralTabs()->currentWidget() == w_.diffView())
            w_.diffView()->selectB(name);
        else
            w_.graphView()->showNode(name);
    });
    connect(run, &RunPanel::finished, this, &StepSession::onRunFinished);
    connect(runner, &StepRunner::stepAvailable, this, [this](quint64, int index) {
        onStepAvailable(index);
        refreshRunStaleness();
    });
    connect(runner, &StepRunner::stepsReset, this, [this](int from) {
        if (step_ >= from) step_ = -1;
        refreshRunStaleness();
    });
    connect(runner, &StepRunner::progress, this, [this](quint64, qint64 done, qint64 total, const QString& what) {
        if (total == 0 || done >= total) return;  // the input step alone, or the end
        w_.setStatus(tr("running the pipeline: stage %1 of %2 (%3)").arg(done + 1).arg(total).arg(what));
    });
    connect(runner, &StepRunner::finished, this, [this](quint64, bool ok, const QString& message) {
        if (!ok && !message.isEmpty()) w_.setStatus(message);
        w_.updateBusy();
    });
    connect(w_.passes(), &PipelineEditor::stepChosen, this, [this](int index) {
        followSteps_ = false;
        showStep(index);
    });

    auto add = [this](const QString& text, const QKeySequence& key, auto slot) {
        auto* a = new QAction(text, this);
        a->setShortcut(key);
        connect(a, &QAction::triggered, this, slot);
        actions_.push_back(a);
    };
    add(tr("&Run the pipeline"), QKeySequence(Qt::CTRL | Qt::Key_Return), [this] {
        w_.raiseDock(w_.passes());
        followSteps_ = true;
        w_.passes()->run();
        w_.updateBusy();
    });
    add(tr("&Next step"), QKeySequence(Qt::CTRL | Qt::Key_Right), [this] {
        followSteps_ = false;
        showStep(step_ + 1);
    });
    add(tr("&Previous step"), QKeySequence(Qt::CTRL | Qt::Key_Left), [this] {
        followSteps_ = false;
        showStep(step_ - 1);
    });
    add(tr("&Check the step against the one before"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_R), [this] {
        w_.raiseDock(w_.runPanel());
        startRun(static_cast<int>(RunPanel::Against::Previous));
    });
    actions_.push_back(nullptr);
    add(tr("Show the &graph"), QKeySequence(Qt::CTRL | Qt::Key_1), [this] { w_.centralTabs()->setCurrentIndex(0); });
    add(tr("Show the &diff"), QKeySequence(Qt::CTRL | Qt::Key_2), [this] { w_.centralTabs()->setCurrentIndex(1); });
}

void StepSession::startFrom(std::shared_ptr<const PreparedGraph> g)
{
    step_ = -1;
    followSteps_ = true;
    w_.runner()->setInput(std::move(g));
    w_.runner()->run(QString());
}

void StepSession::onStepAvailable(int index)
{
    const auto& steps = w_.runner()->steps();
    if (index < 0 || index >= static_cast<int>(steps.size())) return;
    const auto& st = steps[static_cast<size_t>(index)];
    if (st->failed) {
        w_.setStatus(tr("step %1 (%2) failed: %3").arg(index).arg(qs(st->spec), qs(st->error)));
        return;  // the step shown stays
    }
    // follow the run while the user has not picked a step, and always show the input first
    if (step_ < 0 || (followSteps_ && index == step_ + 1)) showStep(index);
}

void StepSession::onRunFinished(std::shared_ptr<const RunOutcome> o)
{
    TimelineModel* timeline = w_.timelineModel();
    DiffView* diff = w_.diffView();
    GraphView* view = w_.graphView();
    // the measured live bytes beside the estimate, when the run was of the graph shown
    const auto st = currentState();
    if (o->ok && st && !st->graphs.empty() && st->graph(role_)->prepared->graph == o->request.subject)
        timeline->setMeasured(o->subject.liveBytesPerStep, o->subject.peakBytes);
    // the values of the run on the graphs: each node by its ULP distance
    if (o->ok && o->localize) {
        const auto& l = *o->localize;
        if (diff->viewA()->graph() == o->request.reference.get() && diff->viewB()->graph() == o->request.subject.get())
            diff->setUlp(l.ulpByNameA, l.ulpByNameB);
        if (view->graph() == o->request.subject.get())
            view->setMarks(ulpMarks(*o->request.subject, l.ulpByNameB), ulpMarkColours());
    }
    w_.timelineView()->update();
    w_.setStatus(qs(o->summary()));
    refreshRunStaleness();  // a step remade while it ran
    w_.updateBusy();
}

std::shared_ptr<const StepState> StepSession::currentState() const
{
    const auto& steps = w_.runner()->steps();
    return step_ >= 0 && step_ < static_cast<int>(steps.size()) ? steps[static_cast<size_t>(step_)] : nullptr;
}

void StepSession::setRole(const QString& role)
{
    role_ = role.toStdString();
    if (step_ >= 0) showStep(step_);
}

bool StepSession::showStep(int index)
{
    const auto& steps = w_.runner()->steps();
    if (index < 0 || index >= static_cast<int>(steps.size())) return false;
    const auto st = steps[static_cast<size_t>(index)];
    if (st->failed || st->graphs.empty()) return false;
    const StepGraph* sg = st->graph(role_);
    const bool sameStep = step_ == index;
    step_ = index;
    w_.scheduleAutosave();
    w_.passes()->setCurrentStep(index);
    GraphView* view = w_.graphView();
    DiffView* diff = w_.diffView();
    TimelineModel* timeline = w_.timelineModel();
    if (view->prepared() != sg->prepared) view->setGraph(sg->prepared, true);
    // the step before: the graph this one was made from
    std::shared_ptr<const PreparedGraph> before;
    if (index > 0 && sg->previous)
        if (const StepGraph* pg = steps[static_cast<size_t>(index - 1)]->graph(sg->previousRole)) before = pg->prepared;
    diffOfGraphs_ = false;
    if (before && !sameStep)
        diff->setGraphs(before, sg->prepared, sg->diff, stepLabel(*steps[static_cast<size_t>(index - 1)]),
                        stepLabel(*st), true);
    else if (!before)
        diff->clear();
    timeline->setTimelines(sg->timeline, sg->prepared->graph, sg->previousTimeline, sg->previous, sg->diff);
    // a run of this very graph (a step that left it untouched shares it) shows beside the estimate
    if (const auto o = w_.runPanel()->outcome(); o && o->ok && o->request.subject == sg->prepared->graph)
        timeline->setMeasured(o->subject.liveBytesPerStep, o->subject.peakBytes);
    w_.timelineView()->setSelectedNode(view->selected());
    if (index == 0) return true;  // the status line keeps what opening the graph said
    QString text = stepLabel(*st) + QStringLiteral(": ") + QString::number(sg->prepared->graph->size()) + tr(" nodes");
    text += QStringLiteral("; ") + plain(diff->countsText());
    if (sg->timeline) text += QStringLiteral("; ") + timeline->peakLabel();
    w_.setStatus(text);
    return true;
}

QString StepSession::historyHtml(const QString& name) const
{
    const auto st = currentState();
    if (!st || st->graphs.empty() || st->graph(role_)->prepared != w_.graphView()->prepared()) return {};
    const StepGraph* sg = st->graph(role_);
    const auto& steps = w_.runner()->steps();
    const auto trail = provenanceTrail(steps, step_, sg->role, name.toStdString());
    if (trail.empty()) return {};
    QString html = tr("<h4>History</h4><table cellspacing=\"3\">");
    for (const TrailEntry& e : trail) {
        const auto& s = *steps[static_cast<size_t>(e.step)];
        const QString stepName = e.step == 0 ? tr("input") : qs(s.spec);
        const QString link = QStringLiteral("step:%1:%2:%3").arg(e.step).arg(qs(e.role), qs(e.node));
        html += QStringLiteral("<tr><td valign=\"top\">%1&nbsp;%2</td><td><a href=\"%3\">%4</a> %5</td></tr>")
                    .arg(e.step)
                    .arg(stepName.toHtmlEscaped(), link.toHtmlEscaped(), qs(e.node).toHtmlEscaped(),
                         qs(e.change).toHtmlEscaped());
        if (!e.source.empty())
            html += QStringLiteral("<tr><td></td><td>%1:%2</td></tr>")
                        .arg(qs(e.source.file).toHtmlEscaped())
                        .arg(e.source.line);
    }
    return html + QStringLiteral("</table>");
}

bool StepSession::showInStep(int step, const QString& role, const QString& node)
{
    role_ = role.toStdString();
    if (!showStep(step)) return false;
    w_.centralTabs()->setCurrentIndex(0);
    return w_.graphView()->showNode(node);
}

bool StepSession::startRun(int against, int stepIndex)
{
    DiffView* diff = w_.diffView();
    RunPanel* run = w_.runPanel();
    const auto mode = static_cast<RunPanel::Against>(against);
    // the Diff tab showing two graphs that are not steps (two files, a before/after pair): the
    // right one checked against the left one
    if (w_.centralTabs()->currentWidget() == diff && diffOfGraphs_ && diff->viewA()->prepared()
        && diff->viewB()->prepared() && mode != RunPanel::Against::Nothing) {
        const auto a = diff->viewA()->prepared(), b = diff->viewB()->prepared();
        RunRequest r;
        r.reference = a->graph;
        r.subject = b->graph;
        r.referenceLabel = graphTitle(*a->source, a->artifactId).toStdString();
        r.subjectLabel = graphTitle(*b->source, b->artifactId).toStdString();
        r.source = a->source;  // the inputs of the left graph feed both
        r.artifactId = a->artifactId;
        r.against = "graphs";
        run->start(std::move(r));
        w_.updateBusy();
        return true;
    }
    const char* modes[] = {"previous", "input", "", "eager", "cpu"};
    std::string why;
    StepRunner* runner = w_.runner();
    auto req =
        stepRunRequest(runner->steps(), stepIndex < 0 ? step_ : stepIndex, role_, modes[static_cast<int>(mode)], &why);
    if (!req) {
        w_.setStatus(qs(why));
        return false;
    }
    RunRequest r = std::move(*req);
    r.source = runner->input()->source;
    r.artifactId = runner->input()->artifactId;
    run->setAgainst(mode);
    run->start(std::move(r));
    w_.updateBusy();
    return true;
}

std::shared_ptr<const RunOutcome> StepSession::runCheck(int against, int timeoutMs, int stepIndex)
{
    if (!startRun(against, stepIndex)) return nullptr;
    w_.waitIdle(timeoutMs);
    return w_.runPanel()->outcome();
}

void StepSession::refreshRunStaleness()
{
    RunPanel* run = w_.runPanel();
    const auto o = run->outcome();
    if (!o) return;  // a workspace's stale record stays said until a run
    const RunRequest& r = o->request;
    QString why;
    if (r.against == "graphs") {
        DiffView* diff = w_.diffView();
        if (diff->viewA()->graph() != r.reference.get() || diff->viewB()->graph() != r.subject.get())
            why = tr("the Diff tab no longer shows the two graphs it compared");
    } else if (r.stepIndex >= 0) {
        why = qs(checkStaleness(r, w_.runner()->steps()));
    }
    run->setStale(why);
}

QString StepSession::runPipeline(const QString& spec, int timeoutMs)
{
    PipelineEditor* passes = w_.passes();
    if (!passes->setSpec(spec)) return passes->message();
    followSteps_ = true;
    QString failure;
    auto c = connect(w_.runner(), &StepRunner::finished, this,
                     [&failure](quint64, bool ok, const QString& message) { failure = ok ? QString() : message; });
    if (!passes->run()) {
        disconnect(c);
        return passes->message();
    }
    w_.waitIdle(timeoutMs);
    disconnect(c);
    return failure;
}

QString StepSession::diffGraphs(std::shared_ptr<Source> srcA, const QString& idA, std::shared_ptr<Source> srcB,
                                const QString& idB)
{
    w_.clearLastError();
    const quint64 id = ++lastDiffJob_;  // a newer diff makes this one stale
    diffJob_ = id;
    w_.setStatus(tr("comparing %1 with %2...").arg(idA, idB));
    QPointer<StepSession> self(this);
    const std::string a = idA.toStdString(), b = idB.toStdString();
    QThreadPool::globalInstance()->start([self, id, srcA, srcB, a, b] {
        std::shared_ptr<const PreparedGraph> ga, gb;
        std::shared_ptr<const GraphDiff> d;
        std::shared_ptr<const MemoryTimeline> ta, tb;
        QString error;
        try {
            ga = ViewJobs::prepareNow(srcA, a);
            gb = ViewJobs::prepareNow(srcB, b);
            d = std::make_shared<GraphDiff>(fxl::diffGraphs(*ga->graph, *gb->graph));
            // the two memory timelines, laid over each other while the diff shows
            ta = std::make_shared<MemoryTimeline>(computeMemoryTimeline(*ga->graph));
            tb = std::make_shared<MemoryTimeline>(computeMemoryTimeline(*gb->graph));
        } catch (const InputError& e) {
            error = QString::fromStdString(e.diagnostic().format());
        } catch (const std::exception& e) {
            error = QString::fromUtf8(e.what());
        }
        QMetaObject::invokeMethod(
            self,
            [self, id, ga, gb, d, ta, tb, error] {
                if (!self || self->diffJob_ != id) return;  // stale
                self->diffJob_ = 0;
                if (!error.isEmpty()) {
                    self->w_.showError(error);
                } else {
                    self->showTwoGraphs(ga, gb, d);
                    self->w_.timelineModel()->setTimelines(tb, gb->graph, ta, ga->graph, d);
                    self->w_.timelineView()->update();
                }
            },
            Qt::QueuedConnection);
    });
    w_.waitIdle();
    return w_.lastError();
}

void StepSession::showTwoGraphs(std::shared_ptr<const PreparedGraph> a, std::shared_ptr<const PreparedGraph> b,
                                std::shared_ptr<const GraphDiff> d)
{
    DiffView* diff = w_.diffView();
    auto label = [](const PreparedGraph& g) { return graphTitle(*g.source, g.artifactId); };
    diff->setGraphs(a, b, d, label(*a), label(*b));
    diffOfGraphs_ = true;
    refreshRunStaleness();
    w_.centralTabs()->setCurrentWidget(diff);
    w_.setStatus(label(*a) + QStringLiteral(" → ") + label(*b) + QStringLiteral(": ") + plain(diff->countsText()));
}

QString StepSession::diffPair(std::shared_ptr<Source> source, const QString& id)
{
    const Artifact* a = source->find(id.toStdString());
    if (!a || a->pairedWith.empty()) return tr("graph %1 has no before_/after_ partner").arg(id);
    const QString partner = qs(a->pairedWith);
    // before on the left, after on the right
    if (a->kind.rfind("after_", 0) == 0) return diffGraphs(source, partner, source, id);
    return diffGraphs(source, id, source, partner);
}

QString StepSession::exportTimeline(const QString& path, bool replace)
{
    const auto st = currentState();
    TimelineModel* timeline = w_.timelineModel();
    if (!timeline->current() || !st || st->graphs.empty()) return tr("no memory timeline is shown");
    return exportTimelineView(*timeline, *st->graph(role_)->prepared->graph, w_.timelineView()->dark(), path, replace);
}

QString StepSession::exportReport(const QString& path, bool replace)
{
    StepRunner* runner = w_.runner();
    const auto in = runner->input();
    if (!in || runner->steps().empty()) return tr("no pipeline has run");
    const auto* pipeline = w_.passes()->pipeline();
    HtmlReportInput r;
    r.title = QFileInfo(qs(in->source->path)).fileName().toStdString() + ": " + pipeline->spec().toStdString();
    r.sourcePath = in->source->path;
    r.graphId = in->artifactId;
    r.pipeline = pipeline->spec().toStdString();
    for (int k = 0; k < pipeline->count(); ++k) r.stages.push_back(pipeline->stageText(k).toStdString());
    r.steps = runner->steps();
    // the run panel's last check, on its step, when it was a check against the step before and
    // is still of these very steps (a check belongs to the pair of snapshots it ran on)
    if (const auto o = w_.runPanel()->outcome();
        o && o->ok && o->request.against == "previous" && o->request.stepIndex >= 0) {
        r.checks.resize(r.steps.size());
        for (auto& c : r.checks) c.skipped = "not checked in the window";
        if (o->request.stepIndex < static_cast<int>(r.checks.size())) {
            auto& c = r.checks[static_cast<size_t>(o->request.stepIndex)];
            const std::string stale = checkStaleness(o->request, r.steps);
            if (stale.empty()) {
                c.outcome = o;
                c.skipped.clear();
            } else {
                c.skipped = "the window's check is stale: " + stale;
            }
        }
    }
    r.generator = "fxlens window";
    return writeExport(path, QByteArray::fromStdString(buildHtmlReport(r)), replace);
}

}  // namespace fxl::viewer
