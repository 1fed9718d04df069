// Format detection and loading of a single file: openSource on arbitrary bytes, then every
// graph it offers parsed and summarized (what `fxlens info` does).
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "core/analysis/graph_stats.hpp"
#include "core/formats/source.hpp"
#include "core/ir/diagnostics.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    // openSource reads a path: the bytes go to a private temporary file.
    static const std::string path = [] {
        char tmpl[] = "/tmp/fxlens-fuzz-open-XXXXXX";
        const int fd = mkstemp(tmpl);
        if (fd >= 0) ::close(fd);
        return std::string(tmpl);
    }();
    FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) return 0;
    if (size > 0) std::fwrite(data, 1, size, f);
    std::fclose(f);
    try {
        auto src = fxl::openSource(path);
        for (const fxl::Artifact* a : src->graphs()) {
            try {
                auto g = src->graph(a->id);
                if (g) (void)fxl::computeGraphStats(*g);
            } catch (const fxl::InputError&) { }
        }
    } catch (const fxl::InputError&) { }
    return 0;
}
