// libFuzzer target: meta.json sidecar files. The fast reader (core/formats/sidecar_scan.hpp)
// and the full JSON reader must agree: where the fast one reads a text, the full one reads it
// too, to the same nodes; bad input ends in InputError, never a crash.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "core/formats/sidecar.hpp"
#include "core/formats/sidecar_scan.hpp"
#include "core/ir/diagnostics.hpp"

namespace {

bool same(const fxl::SidecarMeta& a, const fxl::SidecarMeta& b)
{
    if (a.duplicateNames != b.duplicateNames || a.nodes.size() != b.nodes.size()) return false;
    for (size_t i = 0; i < a.nodes.size(); ++i) {
        const fxl::SidecarNodeMeta& x = a.nodes[i];
        const fxl::SidecarNodeMeta& y = b.nodes[i];
        if (x.name != y.name || x.op != y.op || x.target != y.target || x.hasVal != y.hasVal || x.val != y.val
            || x.modulePath != y.modulePath || x.phase != y.phase || x.error != y.error || x.warning != y.warning)
            return false;
    }
    return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string text(reinterpret_cast<const char*>(data), size);
    const std::optional<fxl::SidecarMeta> fast = fxl::scanSidecarMeta(text, "<fuzz>");
    std::optional<fxl::SidecarMeta> full;
    try {
        full = fxl::readSidecarMetaJson(text, "<fuzz>");
    } catch (const fxl::InputError&) { }
    if (fast && (!full || !same(*fast, *full))) __builtin_trap();
    return 0;
}
