// torch.save files (the ZIP form PyTorch writes since 1.6: ROOT/data.pkl, ROOT/data/KEY,
// ROOT/byteorder) read without Python: the pickle through the restricted unpickler, with only
// the globals torch.save uses for plain tensors (the rebuild functions, the storage types,
// OrderedDict); a tensor subclass, a quantized tensor or any other object is refused by name.
// Tensors come out contiguous (a strided view is copied out of its storage), named by where
// they sit in the saved object: dict keys, list and tuple indices, joined by '.'.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/formats/safetensors.hpp"
#include "core/ir/dtype.hpp"

namespace fxl {

struct TorchSaveContents
{
    SafeTensorsFile tensors;
    std::vector<std::string> skipped;  // "name: why" for leaves that are not tensors (ints, None)
};

// `bytes`: the whole torch.save file; `name` names it in errors ("m.pt2:serialized_state_dict.pt").
// Throws InputError(name, 0, 0, message) for a damaged or refused file.
TorchSaveContents readTorchSave(std::shared_ptr<const std::vector<uint8_t>> bytes, const std::string& name);

// Copies a tensor out of its storage: `sizes` / `strides` in elements, `offset` in elements.
// Throws std::invalid_argument when an element lies outside the storage.
std::vector<uint8_t> gatherStrided(const uint8_t* storage, size_t storageBytes, int itemSize,
                                   const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides,
                                   int64_t offset);

}  // namespace fxl
