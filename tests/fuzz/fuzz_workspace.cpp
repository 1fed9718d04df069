// Opening arbitrary bytes as a workspace: refused with a WorkspaceError, or opened and read
// whole (what reopening a workspace does), never a crash. Seeds: a real workspace
// (seeds/workspace/), whose pages the fuzzer mutates.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <string>

#include "workspace/workspace.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    // open() reads a path: the bytes go to a private temporary file (and SQLite may leave a
    // journal (or, for a file in WAL mode, -wal and -shm) beside it, removed each time so that one input does not leak
    // into the next)
    static const std::string path = [] {
        char tmpl[] = "/tmp/fxlens-fuzz-workspace-XXXXXX";
        const int fd = mkstemp(tmpl);
        if (fd >= 0) ::close(fd);
        return std::string(tmpl);
    }();
    std::error_code ec;
    for (const char* suffix : {"-journal", "-wal", "-shm"}) std::filesystem::remove(path + suffix, ec);
    FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) return 0;
    if (size > 0) std::fwrite(data, 1, size, f);
    std::fclose(f);
    try {
        fxl::Workspace ws = fxl::Workspace::open(path);
        for (const fxl::SourceRecord& s : ws.sources()) {
            (void)ws.steps(s.id);
            (void)ws.runs(s.id);
            (void)ws.bookmarks(s.id);
            (void)ws.notes(s.id);
        }
        (void)ws.pipelines();
        (void)ws.viewState();
        (void)ws.layout("x");
    } catch (const fxl::WorkspaceError&) { }
    return 0;
}
