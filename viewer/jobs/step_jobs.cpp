#include "viewer/jobs/step_jobs.hpp"

#include <QElapsedTimer>
#include <QMetaObject>
#include <QThreadPool>

#include <algorithm>
#include <iterator>

#include "core/formats/fx/fx_text_writer.hpp"
#include "core/formats/json_io.hpp"
#include "core/ir/diagnostics.hpp"

namespace fxl::viewer {

const StepGraph* StepState::graph(const std::string& role) const
{
    // passes/pass.hpp previousGraph's rule: the graph of that role, else the first
    return graphOfRole(graphs, role, [](const StepGraph& g) -> const std::string& { return g.role; });
}

size_t StepState::errorCount() const
{
    size_t n = 0;
    for (const Problem& p : problems)
        if (p.severity == Severity::Error) ++n;
    return n;
}

DiffCounts StepState::diffCounts() const
{
    DiffCounts c;
    for (const StepGraph& g : graphs)
        if (g.diff) c += g.diff->totalCounts();
    return c;
}

std::shared_ptr<StepState> prepareStep(const Step& step, const StepState* before, std::shared_ptr<Source> source,
                                       const std::string& artifactId, std::shared_ptr<LayoutCache> cache)
{
    QElapsedTimer timer;
    timer.start();
    auto out = std::make_shared<StepState>();
    out->index = step.index;
    out->pass = step.pass;
    out->spec = step.spec;
    out->log = step.log;
    out->problems = step.problems;
    out->passSeconds = step.wallSeconds;
    for (const auto& rg : step.graphs) {
        StepGraph sg;
        sg.role = rg->role;
        std::shared_ptr<const Graph> graph(rg, &rg->graph);
        const StepGraph* prev = before ? before->graph(rg->role) : nullptr;
        if (prev && prev->prepared && prev->prepared->graph.get() == graph.get()) {
            // the pass left this graph untouched: the same snapshot, the same views
            sg.prepared = prev->prepared;
            sg.contentHash = prev->contentHash;
            sg.timeline = prev->timeline;
        } else {
            auto p = std::make_shared<PreparedGraph>();
            p->source = source;
            p->artifactId = artifactId;
            p->graph = graph;
            p->tree = std::make_unique<GroupTree>(*graph);
            if (cache) p->cache = cache;
            p->text = printReadable(*graph);
            sg.prepared = std::move(p);
            sg.contentHash = graphContentHash(*graph);
            sg.timeline = std::make_shared<MemoryTimeline>(computeMemoryTimeline(*graph));
        }
        if (prev) {
            sg.previous = prev->prepared->graph;
            sg.previousTimeline = prev->timeline;
            sg.previousRole = prev->role;
            sg.diff = std::make_shared<GraphDiff>(diffGraphs(*sg.previous, *graph));
        }
        out->graphs.push_back(std::move(sg));
    }
    out->prepareSeconds = static_cast<double>(timer.nsecsElapsed()) / 1e9;
    return out;
}

StepRunner::StepRunner(QObject* parent)
    : QObject(parent)
{
    pool_.setMaxThreadCount(1);  // one run at a time; a stale one stops at its next stage
    cancel_ = std::make_shared<std::atomic<bool>>(false);
}

StepRunner::~StepRunner()
{
    cancel_->store(true);
    current_ = 0;
    pool_.waitForDone();
}

void StepRunner::truncate(size_t keep)
{
    if (steps_.size() <= keep && rawSteps_.size() <= keep) return;
    // the dropped steps are freed on a worker: the steps of a 100k-node graph took the UI thread
    // 0.1-0.2 s to free when another file was opened
    auto dropped = std::make_shared<std::pair<decltype(steps_), decltype(rawSteps_)>>();
    auto tail = [keep](auto& from, auto& to) {
        const size_t k = std::min(keep, from.size());
        to.assign(std::make_move_iterator(from.begin() + static_cast<std::ptrdiff_t>(k)),
                  std::make_move_iterator(from.end()));
        from.resize(k);
    };
    tail(steps_, dropped->first);
    tail(rawSteps_, dropped->second);
    QThreadPool::globalInstance()->start([dropped] {
        dropped->first.clear();
        dropped->second.clear();
    });
    emit stepsReset(static_cast<int>(keep));
}

void StepRunner::setInput(std::shared_ptr<const PreparedGraph> input)
{
    cancel();
    input_ = std::move(input);
    spec_.clear();
    stages_.clear();
    kept_ = 0;
    truncate(0);
}

void StepRunner::cancel()
{
    cancel_->store(true);
    cancel_ = std::make_shared<std::atomic<bool>>(false);
    if (current_) {
        const quint64 id = current_;
        current_ = 0;
        emit finished(id, false,
                      tr("cancelled with %1 of %2 stages done")
                          .arg(std::max<int>(0, static_cast<int>(steps_.size()) - 1))
                          .arg(stages_.size()));
    }
}

quint64 StepRunner::run(const QString& spec)
{
    // throws before anything changes; an empty spec is the input alone
    std::vector<PipelineStage> stages;
    if (!spec.trimmed().isEmpty()) stages = parsePipelineSpec(spec.toStdString());
    if (!input_) throw std::logic_error("StepRunner::run without an input");
    cancel();
    // keep the input and the steps of the common prefix (a failed step is made again)
    size_t keep = std::min<size_t>(1, rawSteps_.size());
    while (keep < rawSteps_.size() && keep - 1 < stages.size() && keep < steps_.size() && !steps_[keep]->failed
           && steps_[keep]->spec == stages[keep - 1].text)
        ++keep;
    truncate(keep);
    stages_ = std::move(stages);
    spec_ = spec;
    kept_ = static_cast<int>(keep);

    const quint64 id = ++next_;
    current_ = id;
    auto flag = cancel_;
    auto input = input_;
    auto stages2 = stages_;
    std::shared_ptr<const Step> last = rawSteps_.empty() ? nullptr : rawSteps_.back();
    std::shared_ptr<const StepState> lastState = steps_.empty() ? nullptr : steps_.back();
    const int total = static_cast<int>(stages_.size());
    pool_.start([this, id, flag, input, stages2, last, lastState, keep, total] {
        auto post = [this, id](std::function<void()> f) {
            QMetaObject::invokeMethod(
                this,
                [this, id, f] {
                    if (current_ == id) f();
                },
                Qt::QueuedConnection);
        };
        auto report = [&](int done, const std::string& what) {
            const QString w = QString::fromStdString(what);
            post([this, id, done, total, w] { emit progress(id, done, total, w); });
        };
        std::shared_ptr<const Step> prev = last;
        std::shared_ptr<const StepState> prevState = lastState;
        try {
            if (!prev) {
                // the input step: the input's own prepared graph, its timeline
                report(0, "input");
                auto s = std::make_shared<Step>();
                s->graphs.push_back(std::make_shared<RoleGraph>(RoleGraph{"", input->graph->clone()}));
                s->problems = verifyGraph(s->graphs.front()->graph);
                auto st = prepareStep(*s, nullptr, input->source, input->artifactId);
                // show the input as it was read (its original text, its layout cache)
                st->graphs.front().prepared = input;
                prev = s;
                prevState = st;
                post([this, id, s, st] {
                    rawSteps_.push_back(s);
                    steps_.push_back(st);
                    emit stepAvailable(id, static_cast<int>(steps_.size()) - 1);
                });
            }
            for (size_t k = keep == 0 ? 0 : keep - 1; k < stages2.size(); ++k) {
                if (flag->load()) return;
                report(static_cast<int>(k), stages2[k].text);
                std::vector<RoleGraph> graphs;
                for (const auto& g : prev->graphs) graphs.push_back(RoleGraph{g->role, g->graph.clone()});
                PipelineOptions po;
                PipelineRun r = runPipeline(std::move(graphs), {stages2[k]}, po);
                if (flag->load()) return;
                const int index = static_cast<int>(k) + 1;
                if (!r.ok || r.steps.size() < 2) {
                    auto st = std::make_shared<StepState>();
                    st->index = index;
                    st->pass = stages2[k].pass;
                    st->spec = stages2[k].text;
                    st->failed = true;
                    // "stage 1 (remat): ..." names the stage of a one-stage run: say the step
                    std::string msg = r.error;
                    const std::string head = "stage 1 (" + stages2[k].pass + "): ";
                    if (msg.rfind(head, 0) == 0) msg = msg.substr(head.size());
                    st->error = msg;
                    const QString text =
                        QString::fromStdString("step " + std::to_string(index) + " (" + stages2[k].text + "): " + msg);
                    post([this, id, st, text] {
                        steps_.push_back(st);
                        emit stepAvailable(id, static_cast<int>(steps_.size()) - 1);
                        current_ = 0;
                        emit finished(id, false, text);
                    });
                    return;
                }
                auto s = std::make_shared<Step>(std::move(r.steps[1]));
                s->index = index;
                // graphs the pass left untouched are the very snapshots of the step before (the
                // input step of the one-stage run holds copies of them, in the same order)
                for (auto& g : s->graphs)
                    for (size_t j = 0; j < r.steps[0].graphs.size() && j < prev->graphs.size(); ++j)
                        if (r.steps[0].graphs[j] == g) g = prev->graphs[j];
                auto st = prepareStep(*s, prevState.get(), input->source, input->artifactId, input->cache);
                prev = s;
                prevState = st;
                post([this, id, s, st] {
                    rawSteps_.push_back(s);
                    steps_.push_back(st);
                    emit stepAvailable(id, static_cast<int>(steps_.size()) - 1);
                });
            }
            report(total, "done");
            post([this, id] {
                current_ = 0;
                emit finished(id, true, {});
            });
        } catch (const std::exception& e) {
            const QString text = QString::fromUtf8(e.what());
            post([this, id, text] {
                current_ = 0;
                emit finished(id, false, text);
            });
        }
    });
    return id;
}

}  // namespace fxl::viewer
