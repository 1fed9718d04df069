// Benchmark: the graph passes and analyses on one graph (issue 3): dce, cse, remove_detach,
// sac, remat (each alone and chained), partition (mincut, save_all), the diff of the input vs
// the sac+remat result, the memory timeline of both, and the verifier for reference.
// Each row is the best of `repeats` runs of the pass alone (Pass::runAll on a fresh clone:
// the clone, the pipeline's snapshot bookkeeping and the verifier are not counted), wall
// time by std::chrono::steady_clock and CPU time by clock() (a step over 5 s runs once).
// A pass that is not registered (yet) prints "n/a (not registered)" and the rest goes on.
// Usage: bench_passes [FILE] [repeats]   (default: the 100k-node large corpus case, 3)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <exception>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/analysis/graph_diff.hpp"
#include "core/analysis/memory_timeline.hpp"
#include "core/analysis/verify.hpp"
#include "core/formats/source.hpp"
#include "core/ir/diagnostics.hpp"
#include "passes/pass.hpp"
#include "test_util.hpp"

namespace {

using Clock = std::chrono::steady_clock;

struct Timing
{
    double wall = 1e30, cpu = 1e30;
};

// Runs `fn` `repeats` times, `prepare` (untimed) before each; keeps the best wall and CPU.
Timing timeBest(int repeats, const std::function<void()>& prepare, const std::function<void()>& fn)
{
    Timing t;
    for (int r = 0; r < repeats; ++r) {
        if (prepare) prepare();
        const std::clock_t c0 = std::clock();
        const auto w0 = Clock::now();
        fn();
        const auto w1 = Clock::now();
        const std::clock_t c1 = std::clock();
        t.wall = std::min(t.wall, std::chrono::duration<double>(w1 - w0).count());
        t.cpu = std::min(t.cpu, double(c1 - c0) / CLOCKS_PER_SEC);
        if (t.wall > 5.0) break;  // far over the 1 s target: more runs would say nothing new
    }
    return t;
}

size_t totalNodes(const std::vector<fxl::RoleGraph>& gs)
{
    size_t n = 0;
    for (const auto& g : gs) n += g.graph.size();
    return n;
}

std::string outCount(const std::vector<fxl::RoleGraph>& gs)
{
    if (gs.size() == 1) return std::to_string(gs[0].graph.size());
    std::string s;
    for (const auto& g : gs) s += (s.empty() ? "" : "+") + std::to_string(g.graph.size());
    return s;  // "fw+bw" for partition
}

void printHeader()
{
    std::printf("%-40s %9s %13s %9s %9s %9s\n", "step", "nodes in", "nodes out", "wall s", "cpu s", "ns/node");
}

void printRow(const std::string& step, size_t in, const std::string& out, const Timing& t)
{
    std::printf("%-40s %9zu %13s %9.4f %9.4f %9.0f\n", step.c_str(), in, out.c_str(), t.wall, t.cpu,
                in ? t.wall * 1e9 / double(in) : 0.0);
    std::fflush(stdout);
}

void printNa(const std::string& step, size_t in, const std::string& why)
{
    std::printf("%-40s %9zu %13s  %s\n", step.c_str(), in, "-", why.c_str());
    std::fflush(stdout);
}

// One pass with its options resolved from a spec stage, or why it cannot run.
struct ResolvedPass
{
    const fxl::Pass* pass = nullptr;
    fxl::PassOptions options;
    std::string why;  // non-empty: not runnable
};

ResolvedPass resolve(const std::string& spec)
{
    ResolvedPass r;
    const std::string name = spec.substr(0, spec.find('('));
    r.pass = fxl::PassRegistry::instance().find(name);
    if (!r.pass) {
        r.why = "n/a (not registered)";
        return r;
    }
    try {
        auto stages = fxl::parsePipelineSpec(spec);
        r.options = fxl::resolveOptions(r.pass->options(), stages.at(0).raw);
    } catch (const std::exception& e) {
        r.pass = nullptr;
        r.why = std::string("n/a (") + e.what() + ")";
    }
    return r;
}

std::vector<fxl::RoleGraph> cloneAll(const std::vector<fxl::RoleGraph>& gs)
{
    std::vector<fxl::RoleGraph> out;
    out.reserve(gs.size());
    for (const auto& g : gs) out.push_back(fxl::RoleGraph{g.role, g.graph.clone()});
    return out;
}

// Times one pass on `input`; returns its result (from the last run), or nullopt when the pass
// is missing or fails (the row says why).
std::optional<std::vector<fxl::RoleGraph>> benchPass(const std::string& label, const std::string& spec,
                                                     const std::vector<fxl::RoleGraph>& input, int repeats)
{
    const size_t in = totalNodes(input);
    ResolvedPass rp = resolve(spec);
    if (!rp.pass) {
        printNa(label, in, rp.why);
        return std::nullopt;
    }
    std::vector<fxl::RoleGraph> work, result;
    try {
        Timing t = timeBest(
            repeats, [&] { work = cloneAll(input); },
            [&] {
                fxl::PassContext ctx;
                result = rp.pass->runAll(std::move(work), rp.options, ctx);
            });
        for (auto& g : result) g.graph.rebuildUsers();  // as runPipeline does before the next step
        printRow(label, in, outCount(result), t);
        return result;
    } catch (const fxl::PassError& e) {
        printNa(label, in, std::string("failed: ") + e.what());
    } catch (const std::exception& e) {
        printNa(label, in, std::string("threw: ") + e.what());
    }
    return std::nullopt;
}

}  // namespace

int main(int argc, char** argv)
{
    const std::string path =
        argc > 1 ? argv[1] : fxltest::corpusPath("pytorch/large/gpt2_deep640.joint.code.py").string();
    const int repeats = argc > 2 ? std::max(1, std::atoi(argv[2])) : 3;

    std::shared_ptr<fxl::Graph> loaded;
    Timing load;
    try {
        load = timeBest(1, nullptr, [&] {
            auto src = fxl::openSource(path);
            if (src->artifacts.empty()) throw std::runtime_error("no graph in the file");
            loaded = src->graph(src->artifacts[0].id);
        });
    } catch (const fxl::InputError& e) {
        std::fprintf(stderr, "cannot load %s: %s\n", path.c_str(), e.what());
        return 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "cannot load %s: %s\n", path.c_str(), e.what());
        return 1;
    }
    std::vector<fxl::RoleGraph> input;
    input.push_back(fxl::RoleGraph{"", loaded->clone()});
    input[0].graph.rebuildUsers();
    const fxl::Graph& g0 = input[0].graph;
    const size_t n0 = g0.size();

    std::printf("file: %s\nnodes: %zu, best of %d\n\n", path.c_str(), n0, repeats);
    printHeader();
    printRow("load (openSource + meta + shapes, 1 run)", n0, std::to_string(n0), load);

    // Reference: copying the graph (every pass works on a copy).
    {
        fxl::Graph c;
        printRow("clone (reference)", n0, std::to_string(n0), timeBest(repeats, nullptr, [&] { c = g0.clone(); }));
    }

    benchPass("dce", "dce", input, repeats);
    benchPass("cse", "cse", input, repeats);

    // remove_detach, sac, remat separately (each on the previous one's result), then chained.
    auto rd = benchPass("remove_detach", "remove_detach", input, repeats);
    const std::vector<fxl::RoleGraph>& sacIn = rd ? *rd : input;
    auto sac = benchPass(rd ? "sac(policy=alternate_mm)" : "sac(policy=alternate_mm) [on input]",
                         "sac(policy=alternate_mm)", sacIn, repeats);
    std::optional<std::vector<fxl::RoleGraph>> remat;
    if (sac)
        remat = benchPass("remat", "remat", *sac, repeats);
    else
        printNa("remat", totalNodes(sacIn), "n/a (needs sac)");

    // The three chained, as `runAll` calls back to back (no clones between, no verifier).
    {
        const char* label = "remove_detach,sac,remat (chained)";
        ResolvedPass a = resolve("remove_detach"), b = resolve("sac(policy=alternate_mm)"), c = resolve("remat");
        if (!a.pass || !b.pass || !c.pass) {
            printNa(label, n0, !a.pass ? a.why : !b.pass ? b.why : c.why);
        } else {
            std::vector<fxl::RoleGraph> work, result;
            try {
                Timing t = timeBest(
                    repeats, [&] { work = cloneAll(input); },
                    [&] {
                        fxl::PassContext ctx;
                        auto r1 = a.pass->runAll(std::move(work), a.options, ctx);
                        for (auto& g : r1) g.graph.rebuildUsers();
                        auto r2 = b.pass->runAll(std::move(r1), b.options, ctx);
                        for (auto& g : r2) g.graph.rebuildUsers();
                        result = c.pass->runAll(std::move(r2), c.options, ctx);
                    });
                printRow(label, n0, outCount(result), t);
            } catch (const std::exception& e) {
                printNa(label, n0, std::string("failed: ") + e.what());
            }
        }
    }
    // The same through runPipeline without the verifier: adds the per-step clone, users
    // rebuild and the "unchanged?" structural comparison a pipeline makes.
    {
        const char* label = "runPipeline(rd,sac,remat, no verify)";
        ResolvedPass a = resolve("remove_detach"), b = resolve("sac(policy=alternate_mm)"), c = resolve("remat");
        if (!a.pass || !b.pass || !c.pass) {
            printNa(label, n0, !a.pass ? a.why : !b.pass ? b.why : c.why);
        } else {
            fxl::PipelineOptions po;
            po.verify = false;
            fxl::PipelineRun run;
            Timing t = timeBest(repeats, nullptr, [&] {
                run = fxl::runPipeline(g0, "remove_detach,sac(policy=alternate_mm),remat", po);
            });
            if (run.ok)
                printRow(label, n0, std::to_string(run.steps.back().graph().size()), t);
            else
                printNa(label, n0, "failed: " + run.error);
        }
    }

    benchPass("partition(mode=mincut)", "partition(mode=mincut)", input, repeats);
    benchPass("partition(mode=save_all)", "partition(mode=save_all)", input, repeats);

    // Analyses: input vs the sac+remat result (the input itself when those passes are missing).
    const fxl::Graph& after = remat ? (*remat)[0].graph : g0;
    const std::string afterName = remat ? "sac+remat result" : "input (no sac+remat yet)";
    {
        fxl::GraphDiff d;
        Timing t = timeBest(repeats, nullptr, [&] { d = fxl::diffGraphs(g0, after); });
        printRow("diffGraphs(input, " + afterName + ")", n0, std::to_string(after.size()), t);
        std::printf("    diff: %zu added, %zu removed, %zu changed, %zu unchanged, %zu rewired\n", d.counts.added,
                    d.counts.removed, d.counts.changed, d.counts.unchanged, d.counts.rewired);
    }
    {
        fxl::MemoryTimeline m;
        Timing t = timeBest(repeats, nullptr, [&] { m = fxl::computeMemoryTimeline(g0); });
        printRow("memory timeline (input)", n0, std::to_string(n0), t);
        std::printf("    %s\n", fxl::timelineSummary(m).c_str());
        if (remat) {
            t = timeBest(repeats, nullptr, [&] { m = fxl::computeMemoryTimeline(after); });
            printRow("memory timeline (" + afterName + ")", after.size(), std::to_string(after.size()), t);
            std::printf("    %s\n", fxl::timelineSummary(m).c_str());
        }
    }
    {
        std::vector<fxl::Problem> p;
        Timing t = timeBest(repeats, nullptr, [&] { p = fxl::verifyGraph(g0); });
        printRow("verifier (input, reference)", n0, std::to_string(n0), t);
        if (remat) {
            t = timeBest(repeats, nullptr, [&] { p = fxl::verifyGraph(after); });
            printRow("verifier (" + afterName + ")", after.size(), std::to_string(after.size()), t);
            std::printf("    %zu problems%s\n", p.size(), fxl::hasErrors(p) ? " (errors)" : "");
        }
    }
    return 0;
}
