// Whole train steps (the corpus joint graphs: forward + backward) run by executeGraph on the
// CPU backend, best of N, on 2 and 1 threads; the reference is PyTorch's CPU eager on the
// same graphs (tests/bench/torch_eager_step.py, whose --json output --torch reads to print
// the ratio). Also checks the outputs against PyTorch's NAME.outputs.safetensors (allclose
// 1e-6 + 1e-5|e|) so a fast wrong run cannot pass, and lists where the time goes: per
// operator (summed over its nodes) and the slowest nodes of a run timed per node. Times: wall time
// and process CPU time (all threads; the steadier number on a loaded machine) of a step run
// by a GraphRunner made once (what a training loop's steps cost: planning and the views'
// layouts paid by its first run), and of a whole executeGraph call (one-shot: planning
// included). The prepared runs' outputs must equal the one-shot run's bit for bit.
//
//   bench_train_step [--reps N] [--threads 2,1] [--torch TORCH.json] [--top N] [--one-shot-reps N] [CASE...]
//   --one-shot-reps: how many timed executeGraph calls (default: as --reps; 0 for a profile of
//   the prepared runs alone: the one warm-up call still runs, for the outputs' check).
//   CASE: a corpus/pytorch name (default gpt2_tiny llama_tiny).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/formats/safetensors.hpp"
#include "core/formats/source.hpp"
#include "core/ir/diagnostics.hpp"
#include "runtime/base/backend.hpp"
#include "runtime/base/kernel.hpp"
#include "runtime/check/equivalence.hpp"
#include "runtime/cpu/cpu_backend.hpp"
#include "runtime/exec/executor.hpp"
#include "test_util.hpp"

using namespace fxl;

namespace {

using Clock = std::chrono::steady_clock;

double processCpuSeconds()
{
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

struct Step
{
    double seconds = 1e30;
    double cpuSeconds = 1e30;  // best process CPU time of a run (all threads)
    std::map<std::string, double> perOp;  // of the best run
    std::vector<NodeTiming> slowest;  // of the best run
    double worstRatio = 0;  // vs PyTorch's outputs
    bool outputsOk = false;
    bool preparedDiffers = false;  // a GraphRunner run gave other bytes than executeGraph
};

std::vector<int> parseList(const std::string& s)
{
    std::vector<int> v;
    size_t p = 0;
    while (p <= s.size()) {
        const size_t c = s.find(',', p);
        v.push_back(std::atoi(s.substr(p, c - p).c_str()));
        if (c == std::string::npos) break;
        p = c + 1;
    }
    return v;
}

double loadAverage()
{
    std::ifstream f("/proc/loadavg");
    double l = -1;
    f >> l;
    return l;
}

}  // namespace

int main(int argc, char** argv)
{
    int reps = 20, top = 10, oneShotReps = -1;
    std::vector<int> threads = {2, 1};
    std::string torchJson;
    std::vector<std::string> cases;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto next = [&]() -> std::string {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "%s needs a value\n", a.c_str());
                std::exit(2);
            }
            return argv[++i];
        };
        if (a == "--reps")
            reps = std::max(1, std::atoi(next().c_str()));
        else if (a == "--threads")
            threads = parseList(next());
        else if (a == "--torch")
            torchJson = next();
        else if (a == "--top")
            top = std::atoi(next().c_str());
        else if (a == "--one-shot-reps")
            oneShotReps = std::max(0, std::atoi(next().c_str()));
        else if (!a.empty() && a[0] == '-') {
            std::fprintf(stderr,
                         "usage: bench_train_step [--reps N] [--threads 2,1] [--torch J] [--top N] [--one-shot-reps N] "
                         "[CASE...]\n");
            return 2;
        } else
            cases.push_back(a);
    }
    if (cases.empty()) cases = {"gpt2_tiny", "llama_tiny"};
    if (oneShotReps < 0) oneShotReps = reps;

    // PyTorch's numbers: case -> threads -> best seconds
    std::map<std::string, std::map<int, std::pair<double, double>>> torchBest;  // wall, CPU
    if (!torchJson.empty()) {
        std::ifstream f(torchJson);
        const auto j = nlohmann::json::parse(f, nullptr, false);
        if (j.is_discarded()) {
            std::fprintf(stderr, "%s: not JSON\n", torchJson.c_str());
            return 1;
        }
        for (const auto& r : j["results"])
            torchBest[r["case"].get<std::string>()][r["threads"].get<int>()] = {r["best_s"].get<double>(),
                                                                                r.value("best_cpu_s", 0.0)};
    }

    const std::string dir = fxltest::corpusPath("pytorch").string() + "/";
    std::printf("bench_train_step: best of %d runs after 1 warm-up, load average %.2f at start\n", reps, loadAverage());
    int rc = 0;
    for (const std::string& name : cases) {
        try {
            auto src = openSource(dir + name + ".joint.code.py");
            const Artifact& art = *src->graphs().front();
            auto g = src->graph(art.id);
            const SafeTensorsFile inputs = readSafetensors(art.inputsPath);
            SafeTensorsFile constants;
            if (!art.constantsPath.empty()) constants = readSafetensors(art.constantsPath);
            const SafeTensorsFile expected = readSafetensors(dir + name + ".outputs.safetensors");
            for (int t : threads) {
                auto backend = makeCpuBackend(CpuBackendOptions{t});
                ExecOptions opts;
                opts.backend = backend.get();
                opts.inputs = &inputs;
                opts.requireAllInputs = true;
                opts.constants = &constants;
                ExecOptions plain = opts;  // the timed runs: no callback, no clock read per node
                plain.timeSteps = false;
                // per-node wall time between progress callbacks (kept per step, summed per
                // operator after the run: a map update per node would be 9 % of a 100k-node step)
                std::vector<double> stepTime(g->size(), 0.0);
                Clock::time_point last;
                opts.progress = [&](size_t done, size_t, const Node&) {
                    const auto now = Clock::now();
                    if (done >= 1 && done <= stepTime.size())
                        stepTime[done - 1] = std::chrono::duration<double>(now - last).count();
                    last = now;
                };
                auto perOpOf = [&] {
                    std::map<std::string, double> perOp;
                    const auto& order = g->order();
                    for (size_t k = 0; k < order.size() && k < stepTime.size(); ++k)
                        perOp[g->node(order[k]).target] += stepTime[k];
                    return perOp;
                };
                Step best;
                double oneShot = 1e30;
                SafeTensorsFile oneShotOut;
                for (int r = 0; r <= oneShotReps; ++r) {  // r == 0: warm-up
                    const auto w0 = Clock::now();
                    ExecResult res = executeGraph(*g, plain);
                    const double wall = std::chrono::duration<double>(Clock::now() - w0).count();
                    if (r == 0) {
                        oneShotOut = outputsToSafetensors(res, *backend);
                        const EquivalenceReport rep = compareOutputs(oneShotOut, expected, Tolerance{1e-6, 1e-5});
                        best.outputsOk = rep.allWithinTolerance();
                        for (const auto& d : rep.outputs)
                            best.worstRatio = std::max(best.worstRatio, d.worstToleranceRatio);
                    } else {
                        oneShot = std::min(oneShot, wall);
                    }
                }
                const auto p0 = Clock::now();
                GraphRunner prepared(*g, *backend);
                const double planning = std::chrono::duration<double>(Clock::now() - p0).count();
                for (int r = 0; r <= reps; ++r) {  // r == 0: the first run (learns the views)
                    const double c0 = processCpuSeconds();
                    const auto w0 = Clock::now();
                    ExecResult res = prepared.run(plain);
                    const double cpu = processCpuSeconds() - c0;
                    const double wall = std::chrono::duration<double>(Clock::now() - w0).count();
                    if (r <= 1) {  // the learning run and the first run that uses what it learnt
                        const SafeTensorsFile out = outputsToSafetensors(res, *backend);
                        bool same = out.tensors.size() == oneShotOut.tensors.size();
                        for (size_t k = 0; same && k < out.tensors.size(); ++k)
                            same = out.tensors[k].data == oneShotOut.tensors[k].data;
                        if (!same) best.outputsOk = false, best.preparedDiffers = true;
                        if (r == 0) continue;
                    }
                    best.cpuSeconds = std::min(best.cpuSeconds, cpu);
                    best.seconds = std::min(best.seconds, wall);
                }
                // where the time goes: one more run with a clock read per node (the timed runs
                // have none: they cost about 0.05 us per node)
                std::fill(stepTime.begin(), stepTime.end(), 0.0);
                last = Clock::now();
                {
                    ExecResult res = prepared.run(opts);
                    best.perOp = perOpOf();
                    best.slowest = res.slowest;
                }
                std::printf("\n%-12s %d thread%s  fxlens best %8.3f ms, CPU %8.3f ms  (%zu nodes; outputs vs PyTorch: "
                            "%s, worst %.3f of the bound)",
                            name.c_str(), t, t == 1 ? " " : "s", best.seconds * 1e3, best.cpuSeconds * 1e3, g->size(),
                            best.outputsOk ? "allclose" : "NOT allclose", best.worstRatio);
                if (best.preparedDiffers) std::printf("\n  PREPARED RUNS' OUTPUTS DIFFER FROM THE ONE-SHOT RUN'S");
                std::printf("\n%-12s            one-shot (executeGraph, planning included) %8.3f ms; planning "
                            "(GraphRunner made) %.3f ms",
                            "", oneShot * 1e3, planning * 1e3);
                auto tb = torchBest.find(name);
                if (tb != torchBest.end() && tb->second.count(t)) {
                    const auto& [pt, pc] = tb->second.at(t);
                    std::printf(
                        "\n%-12s            torch eager %8.3f ms, CPU %8.3f ms  -> fxlens/torch = %.2f (CPU %.2f; "
                        "one-shot %.2f)",
                        "", pt * 1e3, pc * 1e3, best.seconds / pt, best.cpuSeconds / pc, oneShot / pt);
                }
                std::printf("\n");
                if (!best.outputsOk) rc = 1;
                std::vector<std::pair<double, std::string>> ops;
                double total = 0;
                for (const auto& [op, s] : best.perOp) {
                    ops.push_back({s, op});
                    total += s;
                }
                std::sort(ops.rbegin(), ops.rend());
                std::printf("  time by operator (a run timed per node, %.3f ms in all):\n", total * 1e3);
                for (int k = 0; k < top && k < static_cast<int>(ops.size()); ++k)
                    std::printf("    %8.3f ms %5.1f%%  %s\n", ops[k].first * 1e3, 100.0 * ops[k].first / total,
                                ops[k].second.c_str());
                std::printf("  slowest nodes:");
                for (int k = 0; k < top && k < static_cast<int>(best.slowest.size()); ++k)
                    std::printf("%s %s %.3f ms", k ? "," : "", best.slowest[k].node.c_str(),
                                best.slowest[k].seconds * 1e3);
                std::printf("\n");
            }
        } catch (const InputError& e) {
            std::fprintf(stderr, "%s: %s\n", name.c_str(), e.diagnostic().format().c_str());
            rc = 1;
        } catch (const std::exception& e) {
            std::fprintf(stderr, "%s: %s\n", name.c_str(), e.what());
            rc = 1;
        }
    }
    std::printf("\nload average %.2f at the end\n", loadAverage());
    return rc;
}
