// The `run` verbs of the command line.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>

#include "app/cli.hpp"
#include "runtime/base/backend.hpp"

namespace fxl::cli {

// fxlens run: executes a graph on a device (the CPU by default).
int runExec(const Args& args, Io& io);
// fxlens check: two graphs (or a graph and expected outputs) on the same inputs.
int runCheck(const Args& args, Io& io);
// check's thread count: --threads, else chosen from the graph (`rule` says which and why).
int checkThreads(const Args& args, const Graph& g, std::string& rule);

// A --device value: where a graph runs. The backend itself is made when the run starts
// (deviceBackend); a name no backend has is a usage error, before anything is loaded.
struct DeviceChoice
{
    std::string name = "cpu";
    DeviceKind kind = DeviceKind::Cpu;
    bool fast = false;  // --fast on a CUDA device: the labelled fast mode (Backend::fastMath)
};
// The option `key` (device, device-a, device-b), or `fallback` when it is not given; --fast
// marks a CUDA choice fast.
DeviceChoice deviceOption(const Args& args, const char* key, const DeviceChoice& fallback);
// Raised when the device cannot be used here (no such device, no CUDA in this build).
struct DeviceUnavailable : std::runtime_error
{
    using std::runtime_error::runtime_error;
};
std::unique_ptr<Backend> deviceBackend(const DeviceChoice& d, int threads);
// How a report names the device a graph ran on: the emulated one says what it is, a fast run
// that it is not comparable bitwise.
std::string deviceLabel(const Backend& b);
// The label of fast mode in every output that shows a fast run.
extern const char* const kFastModeLabel;

}  // namespace fxl::cli
