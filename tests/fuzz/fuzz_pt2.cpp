// libFuzzer target for torch.export archives: any bytes give a Source (every program read, its
// weights embedded) or an InputError, whether they are a ZIP archive, a damaged one, or a
// torch.save file (read by the restricted unpickler with torch.save's globals).
#include <cstdint>
#include <memory>
#include <vector>

#include "core/formats/pt2/pt2_source.hpp"
#include "core/formats/pt2/torch_save.hpp"
#include "core/formats/zip/zip_archive.hpp"
#include "core/ir/diagnostics.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    auto bytes = std::make_shared<const std::vector<uint8_t>>(data, data + size);
    try {
        const fxl::zip::Archive zip = fxl::zip::Archive::fromBytes(bytes, "<fuzz>");
        auto src = fxl::openPt2Archive(zip, "<fuzz>");
        for (const auto* a : src->graphs()) (void)src->graph(a->id);
    } catch (const fxl::InputError&) { }
    try {
        (void)fxl::readTorchSave(bytes, "<fuzz>");
    } catch (const fxl::InputError&) { }
    return 0;
}
