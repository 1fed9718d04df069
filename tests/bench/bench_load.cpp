// Benchmark: load a graph file into the IR with shapes propagated from its inputs, and
// compare with the time Python's own ast.parse takes on the same file.
// Usage: bench_load [FILE.code.py] [repeats]   (default: the 100k-node large corpus case)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/formats/fx/fx_text_parser.hpp"
#include "core/formats/sidecar.hpp"
#include "core/ops/shape_prop.hpp"
#include "test_util.hpp"

namespace {

double seconds(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b)
{
    return std::chrono::duration<double>(b - a).count();
}

// Best of `repeats` runs of Python's ast.parse on the file (nullopt-like -1 when python3 fails).
double pythonAstParse(const std::string& path, int repeats)
{
    std::string cmd = "python3 -c \"import ast,sys,time\ns=open(sys.argv[1]).read()\nb=1e9\nfor _ in range("
        + std::to_string(repeats)
        + "):\n t=time.perf_counter();ast.parse(s);b=min(b,time.perf_counter()-t)\nprint(b)\" '" + path + "'";
    FILE* p = popen(cmd.c_str(), "r");
    if (!p) return -1;
    char buf[128] = {0};
    double v = -1;
    if (std::fgets(buf, sizeof buf, p)) v = std::atof(buf);
    if (pclose(p) != 0) return -1;
    return v;
}

}  // namespace

int main(int argc, char** argv)
{
    std::string path = argc > 1 ? argv[1] : fxltest::corpusPath("pytorch/large/gpt2_deep640.joint.code.py").string();
    int repeats = argc > 2 ? std::max(1, std::atoi(argv[2])) : 5;
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        std::fprintf(stderr, "cannot read %s\n", path.c_str());
        return 1;
    }
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string text = ss.str();
    fxl::SidecarFiles side = fxl::findSidecars(path);

    double bestParse = 1e9, bestProp = 1e9, bestTotal = 1e9;
    size_t nodes = 0;
    int computed = 0;
    size_t problems = 0;
    for (int r = 0; r < repeats; ++r) {
        auto t0 = std::chrono::steady_clock::now();
        std::ifstream f(path, std::ios::binary);  // include reading the file in the total
        std::stringstream s2;
        s2 << f.rdbuf();
        fxl::Graph g = fxl::parseFxText(s2.str(), path);
        auto t1 = std::chrono::steady_clock::now();
        fxl::ShapePropOptions opts;
        if (!side.inputs.empty()) opts.inputs = fxl::inputMetasFromSafetensors(side.inputs);
        if (!side.constants.empty()) opts.constants = fxl::inputMetasFromSafetensors(side.constants);
        fxl::ShapePropResult res = fxl::propagateShapes(g, opts);
        auto t2 = std::chrono::steady_clock::now();
        bestParse = std::min(bestParse, seconds(t0, t1));
        bestProp = std::min(bestProp, seconds(t1, t2));
        bestTotal = std::min(bestTotal, seconds(t0, t2));
        nodes = g.size();
        computed = res.nodesComputed;
        problems = res.problems.size();
    }
    double py = pythonAstParse(path, repeats);
    std::printf("file: %s (%.1f MB, %zu nodes)\n", path.c_str(), text.size() / 1e6, nodes);
    std::printf("fxlens parse:            %.3f s (best of %d)\n", bestParse, repeats);
    std::printf("fxlens shape propagation: %.3f s (%d nodes computed, %zu problems)\n", bestProp, computed, problems);
    std::printf("fxlens total load:        %.3f s\n", bestTotal);
    if (py > 0)
        std::printf("python3 ast.parse:        %.3f s (best of %d)  ->  fxlens is %.1fx faster\n", py, repeats,
                    py / bestTotal);
    else
        std::printf("python3 ast.parse:        unavailable\n");
    return problems == 0 ? 0 : 1;
}
