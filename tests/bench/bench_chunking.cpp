// Chunking at work: for each case and chunk count, the chunked train step's estimated peak
// (memory timeline, bodies of invoke_subgraph included, rule R10), its measured peak (the
// executor's live bytes by the same rules) and its wall time, best of N, against the unchunked
// step. The outputs of every chunked run are checked against the unchunked run's (allclose
// 1e-6 + 1e-5|e|; the bitwise checks are the tests' business) so a broken rewrite cannot post
// a number.
//
//   bench_chunking [--reps N] [--threads N] [CASE...]
//   CASE: linear_ce (auto_chunk, chunks 2 4 8 16), gpt2_tiny (chunk_region of every block along
//   batch, and of every MLP along the sequence, chunks 2 4) or llama_tiny (every layer along
//   batch, chunks 2; every feed-forward along the sequence, chunks 2 4). Default: linear_ce gpt2_tiny.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "core/analysis/memory_timeline.hpp"
#include "core/formats/safetensors.hpp"
#include "core/formats/source.hpp"
#include "core/ir/diagnostics.hpp"
#include "core/util/format.hpp"
#include "passes/pass.hpp"
#include "runtime/base/backend.hpp"
#include "runtime/check/equivalence.hpp"
#include "runtime/cpu/cpu_backend.hpp"
#include "runtime/exec/executor.hpp"
#include "test_util.hpp"

using namespace fxl;

namespace {

using Clock = std::chrono::steady_clock;

double loadAverage()
{
    std::ifstream f("/proc/loadavg");
    double l = -1;
    f >> l;
    return l;
}

struct Measured
{
    int64_t estimated = 0, measured = 0;
    double best = 1e30;
    SafeTensorsFile outputs;
};

Measured measure(const Graph& g, const SafeTensorsFile& inputs, const SafeTensorsFile& constants, int threads, int reps)
{
    Measured m;
    m.estimated = computeMemoryTimeline(g).peakBytes;
    auto backend = makeCpuBackend(CpuBackendOptions{threads});
    for (int r = 0; r <= reps; ++r) {  // run 0 warms up
        ExecOptions o;
        o.backend = backend.get();
        o.inputs = &inputs;
        o.requireAllInputs = true;
        o.constants = &constants;
        const auto t0 = Clock::now();
        ExecResult res = executeGraph(g, o);
        const double s = std::chrono::duration<double>(Clock::now() - t0).count();
        if (r > 0) m.best = std::min(m.best, s);
        m.measured = res.peakBytes;
        if (r == reps) m.outputs = outputsToSafetensors(res, *backend);
    }
    return m;
}

}  // namespace

int main(int argc, char** argv)
{
    int reps = 10, threads = 2;
    std::vector<std::string> cases;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if ((a == "--reps" || a == "--threads") && i + 1 < argc) {
            (a == "--reps" ? reps : threads) = std::max(1, std::atoi(argv[++i]));
        } else if (!a.empty() && a[0] == '-') {
            std::fprintf(stderr, "usage: bench_chunking [--reps N] [--threads N] [CASE...]\n");
            return 2;
        } else {
            cases.push_back(a);
        }
    }
    if (cases.empty()) cases = {"linear_ce", "gpt2_tiny"};
    std::printf("bench_chunking: best of %d runs after 1 warm-up, %d thread(s), load average %.2f at start\n", reps,
                threads, loadAverage());
    const std::string dir = fxltest::corpusPath("pytorch").string() + "/";
    int rc = 0;
    for (const std::string& name : cases) {
        try {
            auto src = openSource(dir + name + ".joint.code.py");
            const Artifact& art = *src->graphs().front();
            auto g = src->graph(art.id);
            const SafeTensorsFile inputs = readSafetensors(art.inputsPath);
            SafeTensorsFile constants;
            if (!art.constantsPath.empty()) constants = readSafetensors(art.constantsPath);
            // (pipeline with K for the chunk count, chunk counts) per case
            std::vector<std::pair<std::string, std::vector<int>>> variants;
            if (name == "linear_ce") {
                variants.push_back({"auto_chunk(amplify_ratio=1,min_output_bytes=0,chunks=K)", {2, 4, 8, 16}});
            } else if (name == "llama_tiny") {  // batch 2
                variants.push_back({"chunk_region(regions=layers.*,dim=batch,chunks=K)", {2}});
                variants.push_back({"chunk_region(regions=layers.*.feed_forward,dim=seq,chunks=K)", {2, 4}});
            } else {
                variants.push_back({"chunk_region(regions=blocks.*,dim=batch,chunks=K)", {2, 4}});
                variants.push_back({"chunk_region(regions=blocks.*.mlp,dim=seq,chunks=K)", {2, 4}});
            }
            const Measured base = measure(*g, inputs, constants, threads, reps);
            for (const auto& [pattern, counts] : variants) {
                std::printf("\n%s: %s\n", name.c_str(), pattern.c_str());
                std::printf("  %-9s %14s %14s %12s %10s\n", "chunks", "est. peak", "measured peak", "wall (ms)",
                            "time");
                std::printf("  %-9s %14s %14s %12.3f %10s\n", "none", formatByteSize(base.estimated).c_str(),
                            formatByteSize(base.measured).c_str(), base.best * 1e3, "1.00x");
                for (int k : counts) {
                    std::string spec = pattern;
                    spec.replace(spec.find("=K"), 2, "=" + std::to_string(k));
                    const PipelineRun run = runPipeline(*g, spec);
                    if (!run.ok) {
                        std::printf("  %-9d %s\n", k, run.error.c_str());
                        rc = 1;
                        continue;
                    }
                    const Measured m = measure(run.steps.back().graph(), inputs, constants, threads, reps);
                    const EquivalenceReport rep = compareOutputs(m.outputs, base.outputs, Tolerance{1e-6, 1e-5});
                    std::printf("  %-9d %14s %14s %12.3f %9.2fx%s\n", k, formatByteSize(m.estimated).c_str(),
                                formatByteSize(m.measured).c_str(), m.best * 1e3, m.best / base.best,
                                rep.allWithinTolerance() ? "" : "  OUTPUTS DIFFER");
                    if (!rep.allWithinTolerance()) rc = 1;
                }
            }
        } catch (const std::exception& e) {
            std::fprintf(stderr, "%s: %s\n", name.c_str(), e.what());
            rc = 1;
        }
    }
    return rc;
}
