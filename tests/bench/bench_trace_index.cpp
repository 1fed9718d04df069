// Indexing speed of TORCH_TRACE logs: builds a ~150 MB log by concatenating the corpus logs
// (tlparse/) repeatedly into a temp file, indexes it and prints
//   index 150.2 MB: 1.23 s (122 MB/s), N events, M graphs
// Usage: bench_trace_index [size_mb=150] [existing.log]   (an existing log is used as is)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/formats/source.hpp"
#include "core/formats/torch_trace/torch_trace.hpp"
#include "core/ir/diagnostics.hpp"
#include "test_util.hpp"

namespace fs = std::filesystem;

namespace {

double seconds(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::string buildLog(double sizeMb)
{
    const fs::path out = fs::temp_directory_path()
        / ("fxlens_bench_trace_" + std::to_string(std::chrono::steady_clock::now().time_since_epoch().count())
           + ".log");
    if (!fxltest::writeConcatenatedCorpusLogs(out, sizeMb)) std::exit(2);
    return out.string();
}

}  // namespace

int main(int argc, char** argv)
{
    double sizeMb = argc > 1 ? std::atof(argv[1]) : 150.0;
    bool temp = argc <= 2;
    std::string path = temp ? buildLog(sizeMb > 0 ? sizeMb : 150.0) : argv[2];
    try {
        const double mb = double(fs::file_size(path)) / 1e6;
        // Read once so that the timed runs measure the parser, not the disk.
        {
            fxl::DiagnosticList d;
            (void)fxl::indexTorchTrace(path, d);
        }
        double best = 1e9, bestCpu = 1e9;
        size_t events = 0, graphs = 0, diags = 0;
        for (int run = 0; run < 3; ++run) {
            fxl::DiagnosticList d;
            auto t0 = std::chrono::steady_clock::now();
            std::clock_t c0 = std::clock();
            fxl::TraceIndex ix = fxl::indexTorchTrace(path, d);
            best = std::min(best, seconds(t0));
            // CPU time too: on a shared machine the wall time depends on the neighbours.
            bestCpu = std::min(bestCpu, double(std::clock() - c0) / CLOCKS_PER_SEC);
            events = ix.events.size();
            graphs = ix.graphCount();
            diags = d.items.size();
        }
        std::printf("index %.1f MB: %.2f s (%.0f MB/s), %zu events, %zu graphs (cpu %.2f s)\n", mb, best, mb / best,
                    events, graphs, bestCpu);
        auto t0 = std::chrono::steady_clock::now();
        auto src = fxl::loadTorchTrace(path);
        std::printf("load as Source: %.2f s, %zu artifacts, %zu diagnostics\n", seconds(t0), src->artifacts.size(),
                    diags);
    } catch (const fxl::InputError& e) {
        std::fprintf(stderr, "%s\n", e.what());
        if (temp) fs::remove(path);
        return 1;
    }
    if (temp) fs::remove(path);
    return 0;
}
