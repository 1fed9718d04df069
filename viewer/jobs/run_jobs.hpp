// Running graphs from the window, off the UI thread: execute the graph of a step on a backend,
// or check it against another graph (the step before, the input graph) on the very same input
// tensors, as `fxlens check` does: inputs from the graph's sidecar (NAME.inputs.safetensors)
// or generated with a seed, get_attr constants from the graph file or its sidecar, outputs
// compared bitwise (runtime/check/equivalence.hpp). The measured live bytes of each run are kept so
// the memory timeline can show them beside its estimate. One run at a time: a new one makes
// the old one stale (its result is dropped); cancel stops a run between two nodes.
#pragma once

#include <QObject>
#include <QThreadPool>

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "core/analysis/chunk_spec.hpp"
#include "core/formats/source.hpp"
#include "core/ir/graph.hpp"
#include "runtime/check/equivalence.hpp"
#include "runtime/check/graph_check.hpp"
#include "runtime/check/localize.hpp"
#include "viewer/jobs/step_jobs.hpp"

namespace fxl::viewer {

// A backend the window can run on: compiled in and usable, or not and why.
struct BackendChoice
{
    std::string id;  // "cpu", "cuda:0"
    std::string label;  // "CPU (reference)"
    bool available = false;
    std::string why;  // when not available
};
std::vector<BackendChoice> backendChoices();

struct RunRequest
{
    std::shared_ptr<const Graph> subject;  // the graph run (the current step)
    std::shared_ptr<const Graph> reference;  // compared against (null: run the subject alone)
    std::string subjectLabel, referenceLabel;  // "step 3 (remat)", "step 0 (input)"
    // With a reference: run the reference as eager chunking by this spec
    // (runtime/check/eager_chunking.hpp) instead of as it is: the subject is a chunk pass's step, the
    // reference the graph it was made from. No localization (the graphs differ in structure).
    std::optional<ChunkSpec> eagerChunks;
    // what the window asked, to record and repeat it: the step run, and "previous", "input",
    // "eager" (eager chunking of the step before), "graphs" (the Diff tab's two graphs) or ""
    // (run alone)
    int stepIndex = -1;
    std::string against;
    // The graph role of the step run ("" the first; a partition's "forward" / "backward") and
    // the content hashes (core/formats/json_io graphContentHash) of the subject and the
    // reference as they were run: the check belongs to that pair of snapshots alone.
    std::string role;
    uint64_t subjectHash = 0, referenceHash = 0;
    // A partition step checked against the joint graph before it: `subject` is its forward,
    // this its backward (runtime/check/graph_check.hpp checkPartition).
    std::shared_ptr<const Graph> subjectBackward;
    uint64_t subjectBackwardHash = 0;
    // where the sidecars are: the source and artifact the graphs came from
    std::shared_ptr<Source> source;
    std::string artifactId;
    bool sidecarInputs = true;  // use NAME.inputs.safetensors when there is one
    uint64_t seed = 0;  // generated inputs and random ops
    int threads = 1;
    std::string backend = "cpu";  // the subject's (runtime/backends.hpp names)
    std::string referenceBackend;  // the reference's; "": the subject's (against "cpu": "cpu")
    // With a reference: compare the intermediate values of the nodes both graphs share as they
    // are computed (runtime/check/localize.hpp), to name the first node whose value differs.
    bool localize = true;
    int64_t localizeBudget = int64_t{1} << 30;  // host bytes of the reference's values kept
};

struct RunSideResult
{
    double seconds = 0;
    int64_t peakBytes = 0;  // measured
    std::string peakNode;
    std::vector<int64_t> liveBytesPerStep;  // measured, one per node of the graph's order
    size_t outputs = 0;
};

struct RunOutcome
{
    RunRequest request;
    bool ok = false;  // ran (the outputs may still differ)
    bool cancelled = false;
    std::string error;  // what stopped it (names the node for a kernel error)
    std::string inputsFrom;  // "gpt2_tiny.inputs.safetensors" or "generated with seed 0"
    std::vector<std::string> generatedInputs;
    RunSideResult subject, reference;
    int64_t subjectEstimatePeak = 0;  // the memory timeline's estimate of the subject's peak
    bool compared = false;  // a reference was run and the outputs compared
    // subject (actual) against reference (expected): outputs, then the states either wrote
    EquivalenceReport report;
    Verdict verdict = Verdict::Different;
    std::optional<LocalizeReport> localize;  // a = reference, b = subject
    // Eager chunking: per compared output (report order), how the reference obtained it ("cat
    // along dim 0 of 2 pieces", "sum of 2 chunk values in chunk order") and, for an output not
    // bitwise equal, the chunked graph's own reason (meta.chunk "formula") when it gives one;
    // and the reference's plan (regions, live-ins, live-outs) as text.
    std::vector<std::string> outputNotes;
    std::string eagerPlan;
    bool bitwise() const { return compared && report.allBitwiseEqual(); }
    std::string summary() const;  // one line: "bitwise equal: 3 outputs" / "2 of 3 outputs differ"
};

// Where a check ran, as reports say it: the device's name when both sides ran there ("cpu",
// "cuda-emu:0"), else "SUBJECT on X, REFERENCE on Y" with the request's labels.
std::string checkDevices(const RunOutcome& o);

// Why a check of steps no longer belongs to `steps` (the pipeline changed since, or the step
// is gone): "" while the step it ran on and its reference (the step before, or the input)
// are still the snapshots it ran on, by content hash. A request that ran no check of steps
// (run alone, or two graphs of the Diff tab) is judged by its subject alone. A request
// without hashes (recorded by an older fxlens) is stale: nothing says what it ran on.
std::string checkStaleness(const RunRequest& r, const std::vector<std::shared_ptr<const StepState>>& steps);

// The subject and the reference of a check of step `index` against the step before
// ("previous", "eager"), the input ("input") or nothing (""): null where there is none.
struct StepPair
{
    const StepGraph* subject = nullptr;
    const StepGraph* reference = nullptr;
};
StepPair stepPair(const std::vector<std::shared_ptr<const StepState>>& steps, int index, const std::string& role,
                  const std::string& against);

// The request of a check of step `index` (its graph of `role`) against the step before
// ("previous"), the input ("input"), eager chunking of the step before ("eager": the step's
// chunk_spec) or nothing (""): subject, reference, labels ("step 3 (remat)"), content hashes.
// A partition step (forward and backward) is checked as a pair against the single graph it
// was made from. The caller adds the source, the backend and the inputs. Nothing (and `why`,
// as the window says it) when there is no such step, the input has no step before it, the step
// was not made by a chunk pass, or the graphs do not pair (two partitions).
std::optional<RunRequest> stepRunRequest(const std::vector<std::shared_ptr<const StepState>>& steps, int index,
                                         const std::string& role, const std::string& against, std::string* why);

// Runs a request on the calling thread (the job's body; tests call it directly).
RunOutcome runRequest(const RunRequest& r, std::atomic<bool>* cancel = nullptr,
                      const std::function<void(size_t done, size_t total)>& progress = {});

class RunJobs : public QObject
{
    Q_OBJECT

public:
    explicit RunJobs(QObject* parent = nullptr);
    ~RunJobs() override;

    quint64 start(RunRequest r);
    void cancel();
    bool busy() const { return current_ != 0; }

signals:
    void progress(quint64 id, qint64 done, qint64 total);
    void finished(quint64 id, std::shared_ptr<const fxl::viewer::RunOutcome> outcome);

private:
    QThreadPool pool_;
    quint64 next_ = 0, current_ = 0;
    std::shared_ptr<std::atomic<bool>> cancel_;
};

}  // namespace fxl::viewer
