#include "viewer/jobs/run_jobs.hpp"

#include <QMetaObject>

#include <chrono>
#include <filesystem>

#include "core/analysis/memory_timeline.hpp"
#include "core/formats/graph_constants.hpp"
#include "core/formats/safetensors.hpp"
#include "core/ir/diagnostics.hpp"
#include "runtime/backends.hpp"
#include "runtime/base/backend.hpp"
#include "runtime/base/kernel.hpp"
#include "runtime/check/chunk_check.hpp"
#include "runtime/check/eager_chunking.hpp"
#include "runtime/cpu/cpu_backend.hpp"
#include "runtime/exec/executor.hpp"
#include "runtime/exec/support_check.hpp"

namespace fxl::viewer {

std::vector<BackendChoice> backendChoices()
{
    std::vector<BackendChoice> out;
    out.push_back({"cpu", "CPU (reference)", true, {}});
    const std::string why = whyNoCudaGraphs();
    // where a device is found, the entry says what the backend has been checked by so far
    out.push_back(
        {"cuda:0", why.empty() ? "CUDA device 0 (checked once on one GPU)" : "CUDA device 0", why.empty(), why});
    // the CUDA kernels' own code run by the CPU: a step checked through them without a GPU
    out.push_back({"cuda-emu:0", "CUDA, emulated on the CPU", true, {}});
    return out;
}

StepPair stepPair(const std::vector<std::shared_ptr<const StepState>>& steps, int index, const std::string& role,
                  const std::string& against)
{
    StepPair p;
    if (index < 0 || index >= static_cast<int>(steps.size())) return p;
    const StepState& st = *steps[static_cast<size_t>(index)];
    if (st.failed || st.graphs.empty()) return p;
    p.subject = st.graph(role);
    if (against == "previous" || against == "eager") {
        if (index == 0) return p;
        const StepState& before = *steps[static_cast<size_t>(index - 1)];
        if (!before.failed && !before.graphs.empty()) p.reference = before.graph(p.subject->previousRole);
    } else if (against == "input") {
        if (!steps.front()->failed && !steps.front()->graphs.empty()) p.reference = steps.front()->graph({});
    } else if (against == "cpu") {  // the same graph, on the CPU reference
        p.reference = p.subject;
    }
    return p;
}

std::optional<RunRequest> stepRunRequest(const std::vector<std::shared_ptr<const StepState>>& steps, int index,
                                         const std::string& role, const std::string& against, std::string* why)
{
    auto refuse = [why](std::string text) -> std::optional<RunRequest> {
        if (why) *why = std::move(text);
        return std::nullopt;
    };
    if (index < 0 || index >= static_cast<int>(steps.size())) return refuse("open a graph first");
    const StepState& st = *steps[static_cast<size_t>(index)];
    if (st.failed || st.graphs.empty()) return refuse("open a graph first");
    auto label = [](const StepState& s) {
        return s.index == 0 ? std::string("step 0 (input)") : "step " + std::to_string(s.index) + " (" + s.spec + ")";
    };
    // the graphs compared are the ones checkStaleness later judges: one lookup for both
    const StepPair pair = stepPair(steps, index, role, against);
    const StepGraph* sg = pair.subject;
    RunRequest r;
    r.subject = sg->prepared->graph;
    r.role = sg->role;
    r.subjectHash = sg->contentHash;
    r.subjectLabel = label(st);
    r.stepIndex = st.index;
    r.against = against;
    if (against.empty()) return r;
    if (against == "cpu") {
        if (st.graphs.size() > 1)
            return refuse("the step is a partition: check its forward or its backward on the CPU, one at a time");
        r.reference = r.subject;
        r.referenceHash = r.subjectHash;
        r.referenceLabel = label(st) + " on the CPU";
        r.referenceBackend = "cpu";
        return r;
    }
    if (st.index == 0) return refuse("the input graph has no step before it: run it alone, or show a later step");
    const bool previous = against == "previous" || against == "eager";
    const StepState& rs = *steps[static_cast<size_t>(previous ? st.index - 1 : 0)];
    if (against == "eager") {
        // the chunk passes record the spec eager chunking must follow to be comparable
        const auto spec = st.log.stats.find("chunk_spec");
        if (spec == st.log.stats.end() || !spec->is_string())
            return refuse("step " + std::to_string(st.index) + " (" + st.spec
                          + ") was not made by a chunk pass: eager chunking compares a chunk_region or auto_chunk "
                            "step with the step before");
        try {
            r.eagerChunks = parseChunkSpec(spec->get<std::string>());
        } catch (const InputError& e) {
            return refuse(e.diagnostic().format());
        }
    }
    if (rs.graphs.size() > 1)
        return refuse("the step before is a partition (forward and backward): check a step made from one graph");
    if (st.graphs.size() > 1) {
        // a partition: its forward and backward together against the graph they were cut from
        if (against == "eager") return refuse("eager chunking compares a chunk step, not a partition");
        const StepGraph* fw = st.graph("forward");
        const StepGraph* bw = st.graph("backward");
        if (!fw || !bw || fw == bw) return refuse("the step's graphs are not a forward and a backward");
        r.subject = fw->prepared->graph;
        r.role = fw->role;
        r.subjectHash = fw->contentHash;
        r.subjectBackward = bw->prepared->graph;
        r.subjectBackwardHash = bw->contentHash;
        const StepGraph* joint = rs.graph({});
        if (!joint) return refuse("the step before failed: nothing to check against");
        r.reference = joint->prepared->graph;
        r.referenceHash = joint->contentHash;
        r.referenceLabel = label(rs);
        return r;
    }
    const StepGraph* rg = pair.reference;
    if (!rg) return refuse("the step before failed: nothing to check against");
    r.reference = rg->prepared->graph;
    r.referenceHash = rg->contentHash;
    r.referenceLabel = label(rs);
    return r;
}

std::string checkStaleness(const RunRequest& r, const std::vector<std::shared_ptr<const StepState>>& steps)
{
    const std::string step = "step " + std::to_string(r.stepIndex);
    if (r.stepIndex < 0 || r.against == "graphs") return "it is not a check of a step";
    if (r.subjectHash == 0) return "it was recorded without the steps' content hashes: run it again";
    const StepPair p = stepPair(steps, r.stepIndex, r.role, r.against);
    if (!p.subject) return step + " is not there any more (the pipeline changed)";
    if (p.subject->contentHash != r.subjectHash)
        return "it ran on an earlier version of " + step + " (the pipeline changed since)";
    if (r.subjectBackward) {
        const StepGraph* bw = steps[static_cast<size_t>(r.stepIndex)]->graph("backward");
        if (!bw || bw->contentHash != r.subjectBackwardHash)
            return "it ran on an earlier version of " + step + "'s backward (the pipeline changed since)";
        const StepState& joint = *steps[static_cast<size_t>(r.against == "input" ? 0 : r.stepIndex - 1)];
        const StepGraph* jg = joint.failed || joint.graphs.empty() ? nullptr : joint.graph({});
        if (!jg || jg->contentHash != r.referenceHash) return "the graph it was compared with changed since";
        return {};
    }
    if (r.against.empty()) return {};
    if (!p.reference || r.referenceHash == 0) return "the graph it was compared with is not there any more";
    if (p.reference->contentHash != r.referenceHash)
        return "the graph it was compared with (" + std::string(r.against == "input" ? "the input" : "the step before")
            + ") changed since";
    return {};
}

std::string RunOutcome::summary() const
{
    if (cancelled) return "cancelled";
    if (!ok) return "failed: " + error;
    if (!compared) return "ran: " + std::to_string(subject.outputs) + " outputs";
    size_t differ = 0, statesDiffer = 0;
    for (const TensorDiff& d : report.outputs) differ += d.bitwiseEqual ? 0 : 1;
    for (const StateDiff& d : report.states) statesDiffer += d.bitwiseEqual() ? 0 : 1;
    differ += report.onlyInA.size() + report.onlyInB.size();
    const size_t total = report.outputs.size() + report.onlyInA.size() + report.onlyInB.size();
    const size_t states = report.states.size();
    auto plural = [](size_t n, const char* one, const char* many) { return std::to_string(n) + (n == 1 ? one : many); };
    const std::string stateText = states == 0 ? std::string()
        : statesDiffer == 0                   ? " and " + plural(states, " written state", " written states")
                                              : ", " + std::to_string(statesDiffer) + " of "
            + plural(states, " written state", " written states") + " differ";
    if (differ == 0 && statesDiffer == 0) return "bitwise equal: " + plural(total, " output", " outputs") + stateText;
    return std::to_string(differ) + " of " + plural(total, " output", " outputs") + " differ" + stateText;
}

std::string checkDevices(const RunOutcome& o)
{
    const RunRequest& r = o.request;
    const std::string ref = r.referenceBackend.empty() ? r.backend : r.referenceBackend;
    if (!r.reference || ref == r.backend) return r.backend;
    return r.subjectLabel + " on " + r.backend + ", " + r.referenceLabel + " on " + ref;
}

namespace {

// The backend named (runtime/backends.hpp: cpu, cuda:N, cuda-emu:N).
std::unique_ptr<Backend> makeBackendNamed(const std::string& name, int threads)
{
    std::string why;
    auto b = fxl::makeBackend(name, BackendOptions{std::max(1, threads)}, &why);
    if (!b) throw std::runtime_error("backend " + name + ": " + why);
    return b;
}

std::unique_ptr<Backend> makeBackend(const RunRequest& r) { return makeBackendNamed(r.backend, r.threads); }

// The reference's backend: the subject's unless the request names another (a step checked
// on the CPU against the device).
std::unique_ptr<Backend> makeReferenceBackend(const RunRequest& r)
{
    return makeBackendNamed(r.referenceBackend.empty() ? r.backend : r.referenceBackend, r.threads);
}

// The graph's get_attr constants: embedded in the graph file (fxlens JSON), else the
// artifact's sidecar; null when the graph needs none.
std::optional<SafeTensorsFile> constantsFor(const Graph& g, const RunRequest& r)
{
    if (constantTensorNames(g).empty() || !r.source) return std::nullopt;
    if (auto embedded = embeddedConstants(g, r.source->path)) return embedded;
    const Artifact* a = r.source->find(r.artifactId);
    if (a && !a->constantsPath.empty()) return readSafetensors(a->constantsPath);
    return std::nullopt;
}

RunSideResult sideOf(const ExecResult& e)
{
    RunSideResult s;
    s.seconds = e.seconds;
    s.peakBytes = e.peakBytes;
    s.peakNode = e.peakNode;
    s.liveBytesPerStep = e.liveBytesPerStep;
    s.outputs = e.outputs.size();
    return s;
}

}  // namespace

RunOutcome runRequest(const RunRequest& r, std::atomic<bool>* cancel,
                      const std::function<void(size_t, size_t)>& progress)
{
    RunOutcome out;
    out.request = r;
    try {
        if (!r.subject) throw std::runtime_error("nothing to run");
        out.subjectEstimatePeak = computeMemoryTimeline(*r.subject).peakBytes;
        // planned first: a graph that cannot run is refused at once with every reason, before
        // any input is made or any node runs
        std::string refused;
        for (const auto& [g, label] :
             {std::pair{r.subject.get(), &r.subjectLabel}, std::pair{r.subjectBackward.get(), &r.subjectLabel},
              std::pair{r.reference.get(), &r.referenceLabel}}) {
            if (!g) continue;
            for (const MissingSupport& m : missingSupport(*g)) {
                refused += (refused.empty() ? "" : "; ") + *label + ": " + m.reason + " ("
                    + std::to_string(m.nodes.size()) + (m.nodes.size() == 1 ? " node: " : " nodes: ");
                for (size_t k = 0; k < m.nodes.size() && k < 5; ++k) refused += (k ? ", " : "") + m.nodes[k];
                refused += m.nodes.size() > 5 ? ", ...)" : ")";
            }
        }
        if (!refused.empty()) throw std::runtime_error("cannot run, nothing was run: " + refused);
        std::optional<SafeTensorsFile> sidecar;
        const Artifact* art = r.source ? r.source->find(r.artifactId) : nullptr;
        if (r.sidecarInputs && art && !art->inputsPath.empty()) {
            sidecar = readSafetensors(art->inputsPath);
            out.inputsFrom = std::filesystem::path(art->inputsPath).filename().string();
        } else {
            out.inputsFrom = "generated with seed " + std::to_string(r.seed);
        }
        const auto constantsRef = r.reference ? constantsFor(*r.reference, r) : std::nullopt;
        const auto constantsSub = constantsFor(*r.subject, r);
        const auto constantsBw = r.subjectBackward ? constantsFor(*r.subjectBackward, r) : std::nullopt;
        auto constantsOf = [](const std::optional<SafeTensorsFile>& c) { return c ? &*c : nullptr; };
        if (r.reference && !r.eagerChunks) {
            // the check every front end shares: outputs and written states, subject against reference
            CheckOptions o;
            o.makeBackend = [&r] { return makeReferenceBackend(r); };  // A: the reference
            o.makeBackendB = [&r] { return makeBackend(r); };  // B: the subject
            o.threads = r.threads;
            o.inputs = sidecar ? &*sidecar : nullptr;
            o.seed = r.seed;
            o.localize = r.localize && !r.subjectBackward;
            o.localizeBudget = r.localizeBudget;
            o.reportBAgainstA = true;
            o.cancel = cancel;
            o.progress = progress;
            const CheckGraph ref{r.reference.get(), constantsOf(constantsRef)};
            const CheckGraph sub{r.subject.get(), constantsOf(constantsSub)};
            CheckOutcome c;
            try {
                c = r.subjectBackward
                    ? checkPartition(ref, sub, CheckGraph{r.subjectBackward.get(), constantsOf(constantsBw)}, o)
                    : checkGraphs(ref, sub, o);
            } catch (const CheckRunError& e) {
                const bool refSide = e.stage == "A";
                throw std::runtime_error((refSide ? r.referenceLabel : r.subjectLabel) + ": " + e.what());
            }
            out.generatedInputs = c.generatedInputs;
            out.reference = sideOf(c.a.result);
            out.subject = sideOf(c.b.result);
            out.report = std::move(c.report);
            out.verdict = c.verdict;
            out.localize = std::move(c.localize);
            out.compared = true;
            out.ok = true;
            return out;
        }
        if (r.reference) {
            // eager chunking of the reference (runtime/check/chunk_check.hpp), as fxlens check does it
            CheckOptions o;
            o.makeBackend = [&r] { return makeBackend(r); };
            o.threads = r.threads;
            o.inputs = sidecar ? &*sidecar : nullptr;
            o.seed = r.seed;
            o.cancel = cancel;
            ChunkCheckOutcome c;
            try {
                c = checkAgainstEagerChunking({r.subject.get(), constantsOf(constantsSub)},
                                              {r.reference.get(), constantsOf(constantsRef)}, *r.eagerChunks, o);
            } catch (const CheckRunError& e) {
                const bool subjectSide = e.stage == "CHUNKED";
                throw std::runtime_error((subjectSide ? r.subjectLabel : r.referenceLabel) + ": " + e.what());
            }
            out.generatedInputs = c.generatedInputs;
            out.reference = sideOf(c.original.result);
            out.reference.outputs = c.reference.outputs.size();
            out.subject = sideOf(c.chunked.result);
            out.eagerPlan = eagerChunkingToText(c.reference);
            if (c.departure)
                out.eagerPlan += "values differ from the unchunked graph first at '" + c.departure->node
                    + "' (live-out of " + c.departure->region + ")\n";
            for (const ChunkCheckRow& row : c.rows) {
                if (row.vsReference) out.report.outputs.push_back(*row.vsReference);
                out.outputNotes.push_back(chunkRowNote(row));
            }
            out.verdict = c.verdict;
            out.compared = true;
            out.ok = true;
            return out;
        }
        // one run: the subject on its inputs (file + generated)
        ExecOptions o;
        o.inputs = sidecar ? &*sidecar : nullptr;
        o.inputSeed = r.seed;
        const SafeTensorsFile inputs = resolveInputs(*r.subject, o, &out.generatedInputs);
        const std::unique_ptr<Backend> backend = makeBackend(r);
        o.backend = backend.get();
        o.inputs = &inputs;
        o.rngSeed = r.seed;
        o.cancel = cancel;
        o.constants = constantsOf(constantsSub);
        if (progress) o.progress = [&](size_t done, size_t total, const Node&) { progress(done, total); };
        const ExecResult e = executeGraph(*r.subject, o);
        if (e.cancelled) throw CancelledError();
        out.subject = sideOf(e);
        out.ok = true;
    } catch (const CancelledError&) {
        out.cancelled = true;
        out.error = "cancelled";
    } catch (const InputError& e) {
        out.error = e.diagnostic().format();
    } catch (const std::exception& e) {
        out.error = e.what();
    }
    return out;
}

RunJobs::RunJobs(QObject* parent)
    : QObject(parent)
    , cancel_(std::make_shared<std::atomic<bool>>(false))
{
    pool_.setMaxThreadCount(1);
}

RunJobs::~RunJobs()
{
    cancel_->store(true);
    current_ = 0;
    pool_.waitForDone();
}

void RunJobs::cancel()
{
    cancel_->store(true);
    cancel_ = std::make_shared<std::atomic<bool>>(false);
    if (current_) {
        const quint64 id = current_;
        current_ = 0;
        auto o = std::make_shared<RunOutcome>();
        o->cancelled = true;
        o->error = "cancelled";
        emit finished(id, o);
    }
}

quint64 RunJobs::start(RunRequest r)
{
    cancel();
    const quint64 id = ++next_;
    current_ = id;
    auto flag = cancel_;
    pool_.start([this, id, flag, r] {
        auto last = std::make_shared<size_t>(0);
        auto report = [this, id, last](size_t done, size_t total) {
            // about a hundred reports a run, not one per node
            if (done != total && done - *last < std::max<size_t>(1, total / 100)) return;
            *last = done;
            QMetaObject::invokeMethod(
                this,
                [this, id, done, total] {
                    if (current_ == id) emit progress(id, qint64(done), qint64(total));
                },
                Qt::QueuedConnection);
        };
        auto outcome = std::make_shared<const RunOutcome>(runRequest(r, flag.get(), report));
        QMetaObject::invokeMethod(
            this,
            [this, id, outcome] {
                if (current_ != id) return;  // stale or cancelled
                current_ = 0;
                emit finished(id, outcome);
            },
            Qt::QueuedConnection);
    });
    return id;
}

}  // namespace fxl::viewer
