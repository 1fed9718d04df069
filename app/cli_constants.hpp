// A graph's constants (the tensors its get_attr nodes read) for the verbs that run or write a
// graph: where they come from (an option, the graph file itself, the file beside it), a clear
// error when they cannot be found, and writing them beside a written graph file.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/cli_common.hpp"
#include "core/formats/safetensors.hpp"

namespace fxl::cli {

struct GraphConstants
{
    enum class Origin
    {
        None,
        Option,  // --constants FILE
        Embedded,  // fxlens JSON carries them
        Sidecar,  // STEM.constants.safetensors beside the graph file
    };
    Origin origin = Origin::None;
    std::string path;  // the file read; the graph file itself when Embedded
    SafeTensorsFile file;
    std::vector<std::string> needed;  // the tensors the graph reads (constantTensorNames)
    std::string lookedFor;  // the sidecar path looked for; "" when the source has none (a log)
    // tensors no file gave, generated from their get_attr meta (--seed): listed, never silent
    std::vector<std::string> generated;
    uint64_t seed = 0;  // of the generated ones
    bool present() const { return origin != Origin::None || !generated.empty(); }
    // "FILE", "FILE (the graph file's sidecar)", "embedded in FILE", then the generated ones
    std::string describe() const;
    // {"file", "origin": "option" | "embedded" | "sidecar" | "generated", "from_sidecar",
    //  "generated": [names], "seed"}, null when none
    nlohmann::json toJson() const;
};

// The constants of `lg`: the file `given` (an option's value) when not empty, else those the
// graph file embeds, else the graph file's sidecar. Throws InputError for a bad file.
GraphConstants chooseConstants(const LoadedGraph& lg, const std::string& given);

// Generates the tensors the graph reads that `c` lacks from their get_attr node's meta with
// `seed` (normal(0,1) floats, ints in [0, 16), as generated inputs; a tensor's values depend only
// on the seed and its name, so two graphs reading the same constant get the same values), and
// lists them in c.generated. Throws InputError when a constant has no tensor meta or a size
// without a value.
void generateMissingConstants(GraphConstants& c, const LoadedGraph& lg, uint64_t seed);

// chooseConstants, then with --seed generateMissingConstants, then requireConstants.
GraphConstants resolveConstants(const LoadedGraph& lg, const std::string& given, const Args& args,
                                const std::string& how);

// Throws InputError naming the graph file when the graph reads a tensor that `c` does not hold:
// which tensors, where fxlens looked, and `how` to give them ("give one with --constants FILE").
void requireConstants(const GraphConstants& c, const LoadedGraph& lg, const std::string& how);

// For a graph written to `graphPath` by a writer that cannot embed constants (print_readable
// text): writes the tensors of `c` that `g` reads to constantsSidecarPath(graphPath), where
// every verb finds them. Returns the file written ("" when `g` reads none). Tensors `g` reads
// that `c` lacks are appended to `missing` (nothing is written when `c` has none of them).
std::string writeConstantsBeside(const std::string& graphPath, const Graph& g, const GraphConstants& c, bool force,
                                 std::vector<std::string>& missing);

}  // namespace fxl::cli
