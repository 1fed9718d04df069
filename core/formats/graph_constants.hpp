// A graph's constants, the tensors its get_attr nodes read: which ones it reads, picking them
// out of a constants file, and carrying them inside the graph (fxlens JSON embeds them, the
// other writers put them in a file beside the graph, see constantsSidecarPath in sidecar.hpp).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/formats/safetensors.hpp"
#include "core/ir/graph.hpp"

namespace fxl {

// The get_attr targets of `g` and of its nested graphs that name tensors (not nested graphs),
// in order of first use, each once.
std::vector<std::string> constantTensorNames(const Graph& g);

// The tensors of `from` that `g` reads, in the order of constantTensorNames. The names it reads
// that `from` lacks go to `missing` when given.
SafeTensorsFile selectConstants(const Graph& g, const SafeTensorsFile& from,
                                std::vector<std::string>* missing = nullptr);

// Stores `constants` in `g` (Graph::embeddedConstants, as safetensors bytes in the given
// order); an empty set clears it.
void embedConstants(Graph& g, const SafeTensorsFile& constants);

// The constants embedded in `g`, parsed; nullopt when there are none. Throws InputError naming
// `file` when the bytes are not a valid safetensors file.
std::optional<SafeTensorsFile> embeddedConstants(const Graph& g, const std::string& file);

}  // namespace fxl
