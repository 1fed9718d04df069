// A CUDA memory snapshot of the size users say breaks the browser (1 GB and more), generated
// here, then read as `fxlens mem` reads it: the restricted unpickler, the snapshot's structure,
// the active-memory timeline. Prints the file's size, each phase's time and the process's
// peak resident memory.
//
//   bench_snapshot [MB] [FILE]   (default 1024 MB, /tmp/fxlens_bench_snapshot.pickle)
//
// The trace is a training loop's: allocations and frees of 64 KiB to 64 MiB tensors, each with
// a stack of 12 frames drawn from 4000 distinct stacks (shared, as Python's pickle shares them),
// about 1 in 8 allocations still live; `free_requested` before each `free_completed`.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "core/analysis/snapshot_timeline.hpp"
#include "core/formats/memory_snapshot.hpp"
#include "core/formats/pickle/pickle_reader.hpp"
#include "core/formats/pickle/pickle_writer.hpp"

using namespace fxl;

namespace {

double since(std::chrono::steady_clock::time_point t)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

long peakRssMiB()
{
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return u.ru_maxrss / 1024;
}

}  // namespace

int main(int argc, char** argv)
{
    const long mb = argc > 1 ? std::atol(argv[1]) : 1024;
    const std::string path = argc > 2 ? argv[2] : "/tmp/fxlens_bench_snapshot.pickle";
    const size_t target = static_cast<size_t>(mb) << 20;

    // generate, streamed to the file in pieces
    auto t0 = std::chrono::steady_clock::now();
    std::mt19937_64 rng(1);
    std::ofstream out(path, std::ios::binary);
    size_t written = 0, events = 0;
    {
        // the writer builds the whole pickle in memory; write the trace in chunks of one
        // device's entries instead: a pickle of {segments: [], device_traces: [[...]]} whose list
        // body is produced piece by piece with the same opcodes
        pickle::Writer head;
        head.beginDict();
        head.string("segments");
        head.beginList();
        head.endList();
        head.string("device_traces");
        head.beginList();
        head.beginList();
        std::string h = head.finish();
        h.pop_back();  // no STOP yet
        out << h;
        written += h.size();
        // 4000 distinct stacks of 12 frames, written out once each in the first entries that
        // use them and referenced by memo afterwards; strings memoized by the writer
        const int kStacks = 4000;
        std::vector<long> stackMemo(kStacks, -1);
        pickle::Writer w(false);  // one writer for the body: its memo ids continue
        std::string body;
        std::vector<std::pair<uint64_t, uint64_t>> live;  // addr, size
        uint64_t nextAddr = 0x7f0000000000;
        while (written < target) {
            const bool doFree = !live.empty() && (rng() % 8 != 0) && live.size() > 16;
            auto emit = [&](const char* action, uint64_t addr, uint64_t size) {
                const int st = static_cast<int>(rng() % kStacks);
                w.beginDict();
                w.string("action");
                w.string(action);
                w.string("addr");
                w.unsignedInteger(addr);
                w.string("size");
                w.unsignedInteger(size);
                w.string("stream");
                w.integer(0);
                w.string("time_us");
                w.integer(static_cast<int64_t>(events) * 3);
                w.string("frames");
                if (stackMemo[static_cast<size_t>(st)] >= 0) {
                    w.reference(static_cast<uint32_t>(stackMemo[static_cast<size_t>(st)]));
                } else {
                    w.beginList();
                    for (int f = 0; f < 12; ++f) {
                        w.beginDict();
                        w.string("filename");
                        w.string("/home/user/project/model/layer_" + std::to_string((st * 7 + f) % 300) + ".py");
                        w.string("line");
                        w.integer((st * 13 + f * 31) % 2000);
                        w.string("name");
                        w.string("forward_" + std::to_string((st + f) % 500));
                        w.endDict();
                    }
                    w.endList();
                    stackMemo[static_cast<size_t>(st)] = w.memoize();
                }
                w.string("compile_context");
                w.string("N/A");
                w.endDict();
                ++events;
            };
            if (doFree) {
                const size_t k = rng() % live.size();
                emit("free_requested", live[k].first, live[k].second);
                emit("free_completed", live[k].first, live[k].second);
                live[k] = live.back();
                live.pop_back();
            } else {
                const uint64_t size = (64ull << 10) << (rng() % 11);
                emit("alloc", nextAddr, size);
                live.emplace_back(nextAddr, size);
                nextAddr += size;
            }
            if (events % 4096 == 0) {
                body = w.take();
                out << body;
                written += body.size();
            }
        }
        w.endList();
        w.endList();
        w.endDict();
        body = w.finish();
        out << body;
        written += body.size();
    }
    out.close();
    std::printf("generated %s: %.1f MB, %zu trace events, %.1f s\n", path.c_str(), static_cast<double>(written) / 1e6,
                events, since(t0));

    t0 = std::chrono::steady_clock::now();
    const pickle::Document doc = pickle::Document::read(path);
    const double tPickle = since(t0);
    std::printf("unpickle:   %6.2f s  (%zu values; peak RSS %ld MiB)\n", tPickle, doc.nodeCount(), peakRssMiB());
    t0 = std::chrono::steady_clock::now();
    const MemorySnapshot s = memorySnapshotFrom(doc, path);
    const double tSnap = since(t0);
    std::printf("snapshot:   %6.2f s  (%zu entries, %zu frames, %zu stacks; peak RSS %ld MiB)\n", tSnap,
                s.deviceTraces.at(0).size(), s.frames.size(), s.stacks.size() - 1, peakRssMiB());
    t0 = std::chrono::steady_clock::now();
    const SnapshotTimeline t = snapshotTimeline(s, 0);
    const double tLine = since(t0);
    std::printf("timeline:   %6.2f s  (%zu allocations, %zu steps, peak %.1f GiB; peak RSS %ld MiB)\n", tLine,
                t.elements.size(), t.maxAtTime.size(), static_cast<double>(t.peakBytes) / (1 << 30), peakRssMiB());
    std::printf("total:      %6.2f s\n", tPickle + tSnap + tLine);
    return 0;
}
