// Benchmark: open a torch.export archive as fxlens opens it (ZIP directory, weights, the
// ExportedProgram JSON into the graph, the weights embedded), phase by phase, best of N; and,
// for scale, Python's json.loads of the same program entry (the first thing torch.export.load
// does, before building its graph in Python).
// Usage: bench_pt2 FILE.pt2 [repeats]   (make one: tests/data/pt2/make_pt2.py --large 2000 deep.pt2)
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <set>
#include <string>

#include "core/formats/graph_constants.hpp"
#include "core/formats/pt2/exported_program.hpp"
#include "core/formats/pt2/pt2_archive.hpp"
#include "core/formats/zip/zip_archive.hpp"

namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point a) { return std::chrono::duration<double>(Clock::now() - a).count(); }

double pythonJsonLoads(const std::string& path, const std::string& entry, int repeats)
{
    const std::string cmd =
        "python3 -c \"import json,sys,time,zipfile\nz=zipfile.ZipFile(sys.argv[1])\ns=z.read(sys.argv[2])\n"
        "b=1e9\nfor _ in range("
        + std::to_string(repeats)
        + "):\n t=time.perf_counter();json.loads(s);b=min(b,time.perf_counter()-t)\nprint(b)\" '" + path + "' '" + entry
        + "'";
    FILE* p = popen(cmd.c_str(), "r");
    if (!p) return -1;
    double v = -1;
    if (std::fscanf(p, "%lf", &v) != 1) v = -1;
    pclose(p);
    return v;
}

}  // namespace

int main(int argc, char** argv)
{
    if (argc < 2) {
        std::fprintf(stderr, "usage: bench_pt2 FILE.pt2 [repeats]\n");
        return 2;
    }
    const std::string path = argv[1];
    const int repeats = argc > 2 ? std::max(1, std::atoi(argv[2])) : 5;
    double tZip = 1e9, tWeights = 1e9, tProgram = 1e9, tEmbed = 1e9, tAll = 1e9;
    size_t nodes = 0, tensors = 0, jsonBytes = 0;
    std::string entry;
    for (int r = 0; r < repeats; ++r) {
        const auto t0 = Clock::now();
        auto t = Clock::now();
        const fxl::zip::Archive zip = fxl::zip::Archive::open(path);
        const fxl::Pt2Archive a = fxl::scanPt2(zip);
        tZip = std::min(tZip, since(t));
        for (const fxl::Pt2Model& m : a.models) {
            fxl::DiagnosticList diags;
            t = Clock::now();
            const fxl::SafeTensorsFile w = fxl::readPt2Weights(zip, a, m, diags);
            tWeights = std::min(tWeights, since(t));
            std::set<std::string> names;
            for (const auto& x : w.tensors) names.insert(x.name);
            t = Clock::now();
            const std::string text = zip.readText(*zip.find(m.program));
            const fxl::ExportedProgram ep = fxl::readExportedProgram(text, path, names, diags);
            tProgram = std::min(tProgram, since(t));
            t = Clock::now();
            fxl::embedConstants(*ep.graph, fxl::selectConstants(*ep.graph, w));
            tEmbed = std::min(tEmbed, since(t));
            nodes = ep.graph->size();
            tensors = w.tensors.size();
            jsonBytes = text.size();
            entry = m.program;
            break;  // the first model
        }
        tAll = std::min(tAll, since(t0));
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    std::printf("%s: %zu nodes, %zu weights, program JSON %.1f MB\n", path.c_str(), nodes, tensors, jsonBytes / 1e6);
    std::printf("best of %d: zip directory %.3f s, weights %.3f s, program (JSON to graph) %.3f s, embed %.3f s; "
                "all %.3f s\n",
                repeats, tZip, tWeights, tProgram, tEmbed, tAll);
    std::printf("peak resident %.0f MB\n", ru.ru_maxrss / 1024.0);
    const double py = pythonJsonLoads(path, entry, repeats);
    if (py >= 0) std::printf("python3 json.loads of the same entry (best of %d): %.3f s\n", repeats, py);
    return 0;
}
