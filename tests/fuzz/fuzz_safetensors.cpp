// libFuzzer target for the safetensors reader: any bytes give a file or an InputError.
// A parsed file is serialised again and must read back to the same tensors.
#include <cstdint>
#include <cstdlib>

#include "core/formats/safetensors.hpp"
#include "core/ir/diagnostics.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    fxl::SafeTensorsFile f;
    try {
        f = fxl::parseSafetensors(data, size, "<fuzz>");
    } catch (const fxl::InputError&) {
        return 0;
    }
    // What was read is valid, so writing it cannot fail and must round-trip.
    for (auto order : {fxl::TensorOrder::AsGiven, fxl::TensorOrder::Library}) {
        std::vector<uint8_t> out = fxl::serializeSafetensors(f, order);
        fxl::SafeTensorsFile back = fxl::parseSafetensors(out.data(), out.size(), "<fuzz-roundtrip>");
        if (back.tensors.size() != f.tensors.size() || back.metadata != f.metadata) std::abort();
        for (const auto& t : back.tensors) {
            const fxl::SafeTensor* o = f.find(t.name);
            if (!o || o->data != t.data || o->shape != t.shape || o->dtype != t.dtype) std::abort();
        }
    }
    return 0;
}
