// The ExportedProgram JSON of a torch.export archive (torch/_export/serde/schema.py, schema
// versions 1 to 8.x) read into fxlens' graph: the graph and its nested graphs (higher-order
// ops' as_graph arguments), value meta from tensor_values (symbolic sizes as expressions with
// their hints), module paths from nn_module_stack, source lines from stack_trace, and the
// signature. Inputs that are parameters, buffers or tensor constants whose weights the archive
// holds become get_attr reads of those weights (so that a run uses them); the others stay
// placeholders. Every output is described the way AOT graphs describe theirs
// ("GradAOTOutput(grad_of=ParamAOTInput(target='fc.weight'))").
//
// Unknown struct fields are ignored and missing ones take their defaults; an unknown union
// member or a newer major schema is refused. Errors name the entry, the JSON path, and the
// line and column in the entry's text.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/ir/diagnostics.hpp"
#include "core/ir/graph.hpp"

namespace fxl {

inline constexpr int kNewestPt2SchemaMajor = 8;

struct ExportSignature
{
    struct Input
    {
        std::string
            kind;  // "user_input", "parameter", "buffer", "tensor_constant", "custom_obj", "token", "constant_input"
        std::string name;  // the graph input's value name
        std::string target;  // the FQN of a parameter / buffer / constant
        bool persistent = true;  // buffers
        bool read = false;  // became a get_attr read of the archive's weight
    };
    struct Output
    {
        std::string kind;  // "user_output", "loss_output", "buffer_mutation", "gradient_to_parameter", ...
        std::string name;  // the value name ("" for a constant output)
        std::string target;  // the parameter / buffer / user input it concerns
    };
    std::vector<Input> inputs;
    std::vector<Output> outputs;
};

struct ExportedProgramInfo
{
    int schemaMajor = 0, schemaMinor = 0;
    std::string torchVersion;
    std::vector<std::string> verifiers;  // "ATEN", "TRAINING", ... (or the dialect of older schemas)
    std::map<std::string, std::pair<std::string, std::string>> rangeConstraints;  // symbol -> min, max
    ExportSignature signature;
};

struct ExportedProgram
{
    std::shared_ptr<Graph> graph;
    ExportedProgramInfo info;
};

// `text`: the JSON; `file`: the entry as errors name it ("m.pt2:m/models/m.json");
// `weights`: the FQNs the archive holds weights for. Throws InputError.
ExportedProgram readExportedProgram(std::string_view text, const std::string& file,
                                    const std::set<std::string>& weights, DiagnosticList& diags);

// One entry of a raw-weights config (data/weights/NAME_weights_config.json, PyTorch 2.9 and
// later): the file holding the storage bytes and how the tensor views them.
struct RawWeight
{
    std::string pathName;  // "weight_0", relative to the config's folder
    bool isParam = false;
    bool usePickle = false;  // a tensor subclass pickled whole (not read)
    std::optional<TensorMeta> meta;
};
// The config's entries by FQN. Throws InputError naming `file`, the JSON path, line and column.
std::map<std::string, RawWeight> readRawWeightsConfig(std::string_view text, const std::string& file);

// A sympy srepr ("Mul(Integer(2), Symbol('s0', integer=True))") as the expression text fxlens
// parses ("(2*s0)"); other text comes back as it is. Throws std::invalid_argument.
std::string sympyReprToText(std::string_view srepr);

}  // namespace fxl
