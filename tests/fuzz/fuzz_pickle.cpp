// libFuzzer target for the restricted unpickler and the memory snapshot built on it: any bytes
// give a document or an InputError; a document gives a snapshot or an InputError; every value
// of a document can be described and every container's children are in range.
#include <cstdint>
#include <cstdlib>

#include "core/formats/memory_snapshot.hpp"
#include "core/formats/pickle/pickle_reader.hpp"
#include "core/ir/diagnostics.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    using fxl::pickle::Document;
    Document d;
    try {
        d = Document::parse({data, size}, "<fuzz>");
    } catch (const fxl::InputError&) {
        return 0;
    }
    for (fxl::pickle::NodeId v = 0; v < d.nodeCount(); ++v) {
        (void)d.describe(v);
        for (fxl::pickle::NodeId c : d.children(v))
            if (c >= d.nodeCount()) std::abort();
    }
    try {
        (void)fxl::memorySnapshotFrom(d, "<fuzz>");
    } catch (const fxl::InputError&) {
    }
    return 0;
}
