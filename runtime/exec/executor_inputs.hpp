// The executor's graph inputs: tensors of an inputs / constants file found by name, uploaded
// to the backend and checked against the placeholder's meta, or generated from the meta with
// a seed when the file does not have them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "core/formats/safetensors.hpp"
#include "core/ir/graph.hpp"
#include "runtime/base/backend.hpp"
#include "runtime/base/value.hpp"

namespace fxl::exec {

// The tensor of a file on the backend; errors name it "KIND 'NAME'" ("input 'x'").
Tensor uploadSafeTensor(const SafeTensor& st, Backend& b, std::string_view kind, std::string_view name);

// A bad inputs file must fail at its placeholder, not somewhere downstream in a kernel:
// the file's dtype and concrete sizes must be the ones the graph recorded (symbolic sizes
// are free: a dynamic graph may run on other sizes than its hints).
void checkInputAgainstMeta(const Node& n, const SafeTensor& st);

// Tensors of an inputs/constants file by name: SafeTensorsFile::find is a linear scan, which
// made feeding a graph with thousands of placeholders quadratic.
class TensorIndex
{
public:
    explicit TensorIndex(const SafeTensorsFile* f);
    const SafeTensor* find(const std::string& name) const
    {
        auto it = tensorsByName_.find(name);
        return it == tensorsByName_.end() ? nullptr : it->second;
    }

private:
    std::unordered_map<std::string_view, const SafeTensor*> tensorsByName_;
};

// The file's tensor of a placeholder: by its name, else by its target.
const SafeTensor* findInput(const Node& n, const TensorIndex& inputs);

// A placeholder with no value given: generated from its meta (Philox, seeded per input:
// normal(0, 1) floats, bools and ints in [0, 16), or [0, indexBound) when the graph's
// consumers index with it and need less: core/analysis/index_bounds.hpp); a SymInt placeholder
// is its hint.
Value generateInput(const Node& n, uint64_t seed, uint64_t index, Backend& b,
                    std::optional<int64_t> indexBound = std::nullopt);

// The index bound of placeholder `n` in `bounds` (indexUpperBounds of its graph), if any.
std::optional<int64_t> boundOf(const std::unordered_map<NodeId, int64_t>& bounds, const Node& n);

}  // namespace fxl::exec
