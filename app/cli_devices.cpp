#include "app/cli_devices.hpp"

#include <nlohmann/json.hpp>

#include <iomanip>
#include <ostream>
#include <sstream>

#include "runtime/backends.hpp"

namespace fxl::cli {
namespace {

std::string gib(uint64_t bytes)
{
    std::ostringstream s;
    s << std::fixed << std::setprecision(1) << static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0) << " GiB";
    return s.str();
}

nlohmann::json libraryJson(const cuda::LibraryProbe& l)
{
    nlohmann::json j = {{"found", l.found}};
    if (l.found) {
        j["path"] = l.path;
        j["version"] = l.version;
    } else {
        j["why"] = l.why;
    }
    return j;
}

std::string libraryText(const cuda::LibraryProbe& l)
{
    if (!l.found) return "not found (" + l.why + ")";
    return "found, version " + (l.version.empty() ? std::string("unknown") : l.version) + " (" + l.path + ")";
}

}  // namespace

int runDevices(const Args& args, Io& io)
{
    const DevicesReport r = probeDevices();
    std::string isas;
    for (const std::string& i : r.isaSupported) isas += (isas.empty() ? "" : ", ") + i;
    if (args.has("json")) {
        nlohmann::json devices = nlohmann::json::array();
        for (const cuda::CudaDeviceInfo& d : r.cuda.devices)
            devices.push_back({{"index", d.index},
                               {"name", d.name},
                               {"memory_bytes", d.memoryBytes},
                               {"compute_capability", std::to_string(d.ccMajor) + "." + std::to_string(d.ccMinor)},
                               {"multiprocessors", d.multiprocessors}});
        nlohmann::json cudaJson = {
            {"built_with_cuda", r.builtWithCuda},
            {"toolkit_version", r.builtWithCuda ? nlohmann::json(r.cudaToolkitVersion) : nullptr},
            {"driver", libraryJson(r.cuda.driver)},
            {"driver_version", r.cuda.driverVersion ? nlohmann::json(r.cuda.driver.version) : nlohmann::json(nullptr)},
            {"devices", devices},
            {"backend", r.cudaBackend},
            {"fast_mode", {{"available", r.fastMode}, {"text", r.fastModeText}}}};
        if (r.cuda.devices.empty()) cudaJson["why_none"] = r.cuda.why;
        const nlohmann::json doc = {
            {"fxlens", "devices"},
            {"cpu", {{"cores", r.cpuCores}, {"gemm_path", r.gemmIsa}, {"isa_supported", r.isaSupported}}},
            {"cuda", cudaJson},
            {"nccl", libraryJson(r.cuda.nccl)},
            {"cublas", libraryJson(r.cuda.cublas)}};
        io.out << doc.dump(1) << "\n";
        return kExitOk;
    }
    io.out << "cpu: " << r.cpuCores << " cores, GEMM path " << r.gemmIsa
           << (isas.empty() ? std::string(" (no AVX2)") : " (supported: " + isas + ")")
           << "; the reference backend: results never depend on the thread count\n";
    io.out << "cuda: "
           << (r.builtWithCuda ? "built with the CUDA Toolkit " + r.cudaToolkitVersion : "built without CUDA")
           << "; driver "
           << (!r.cuda.driver.found                ? std::string("none")
                   : r.cuda.driver.version.empty() ? "of unknown version (" + r.cuda.driver.path + ")"
                                                   : r.cuda.driver.version + " (" + r.cuda.driver.path + ")")
           << "\n";
    if (r.cuda.devices.empty()) io.out << "  no CUDA device: " << r.cuda.why << "\n";
    for (const cuda::CudaDeviceInfo& d : r.cuda.devices)
        io.out << "  cuda:" << d.index << "  " << d.name << ", " << gib(d.memoryBytes) << ", compute capability "
               << d.ccMajor << "." << d.ccMinor << ", " << d.multiprocessors << " multiprocessors\n";
    io.out << "  graphs on CUDA: " << r.cudaBackend << "\n";
    io.out << "  fast mode (--fast): " << r.fastModeText << "\n";
    io.out << "nccl: " << libraryText(r.cuda.nccl) << "\n";
    io.out << "cublas: " << libraryText(r.cuda.cublas) << "\n";
    return kExitOk;
}

}  // namespace fxl::cli
