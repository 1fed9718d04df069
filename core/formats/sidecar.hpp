// The files that sit beside a traced graph in the corpus convention (corpus/pytorch/README.md):
// for DIR/NAME.<part>.code.py or DIR/NAME.<part>.graph.txt there are DIR/NAME.meta.json (per
// node tensor meta, module path, phase), DIR/NAME.inputs.safetensors (placeholder values),
// DIR/NAME.params.json (data inputs and parameter FQNs) and DIR/NAME.<part>.constants.safetensors
// (get_attr tensors of that very graph).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/ir/diagnostics.hpp"
#include "core/ir/graph.hpp"
#include "core/ir/tensor_meta.hpp"

namespace fxl {

// Paths of the sidecar files that exist; "" for each one that does not.
struct SidecarFiles
{
    std::string meta, inputs, constants, params;
    std::string name;  // NAME ("gpt2_tiny"); the graph file's stem when no sidecar was found
    std::string part;  // "joint", "fw.mincut", ... ("" when the graph file is NAME.code.py)
};

// `graphPath` is a graph file named NAME.<part>.code.py or NAME.<part>.graph.txt (any other
// name is treated as NAME.<part>.<ext>). NAME is the longest dotted prefix of the stem for
// which a meta, inputs or params file exists, so case names with dots work too.
SidecarFiles findSidecars(const std::string& graphPath);

// Where the constants of the graph file `graphPath` are looked for, and written by the writers
// that cannot embed them: DIR/STEM.constants.safetensors, STEM being the file name less
// .code.py, .graph.txt or (any other name) its last extension (04_dce.py: 04_dce).
std::string constantsSidecarPath(const std::string& graphPath);

// NAME.meta.json read once: the node list (in file order) with what could be read of each.
struct SidecarNodeMeta
{
    std::string name;
    std::string op;  // as written: "placeholder", "call_function", ...
    std::string target;  // as written: "aten.mm.default", "<built-in function getitem>"
    bool hasVal = false;  // tensor_meta present (not null) and readable
    ValueMeta val;
    std::optional<std::string> modulePath;  // absent key: nullopt
    std::optional<Phase> phase;  // absent key or unreadable: nullopt
    std::string error;  // tensor_meta / op / module_path unreadable: the node is not attached
    std::string warning;  // e.g. an unknown phase (the rest is attached)
};
struct SidecarMeta
{
    std::string path;
    std::vector<SidecarNodeMeta> nodes;
    std::vector<std::string> duplicateNames;  // names listed twice (the second is dropped)
};
// Throws InputError when the file cannot be read or is not {"nodes": [{name, op, ...}]}.
SidecarMeta readSidecarMeta(const std::string& metaJsonPath);
// The same from the file's text, read as a JSON document (readSidecarMeta reads the common case
// faster with scanSidecarMeta, sidecar_scan.hpp, and falls back to this).
SidecarMeta readSidecarMetaJson(const std::string& text, const std::string& path);
// Attaches a meta read before (several graphs of one case share it), as below.
void attachSidecarMeta(Graph& g, const SidecarMeta& meta, DiagnosticList& diags);
// The same, moving the metas out of `meta` (a meta read for one graph).
void attachSidecarMeta(Graph& g, SidecarMeta&& meta, DiagnosticList& diags);

// Reads NAME.meta.json and sets, for each node of `g` named in it, `val` (a Tensor with
// dtype, sizes, strides, device "cpu"; a Tuple for a list of metas; untouched when the
// tensor_meta is null), `meta.modulePath` and `meta.phase`. Graph nodes absent from the
// JSON and JSON nodes absent from the graph are warnings; a node whose op differs, or whose
// tensor meta cannot be read, is an error in `diags` (that node is left untouched).
// Throws InputError when the file cannot be read or is not {"nodes": [{name, op, ...}]}.
void attachSidecarMeta(Graph& g, const std::string& metaJsonPath, DiagnosticList& diags);

// Placeholder metas from an inputs (or constants) safetensors file, read from its header
// only: dtype, sizes, contiguous strides, device "cpu". Throws InputError.
std::map<std::string, TensorMeta> inputMetasFromSafetensors(const std::string& path);

struct ParamsInfo
{
    int numDataInputs = 0;  // the leading placeholders that are data
    std::vector<std::string> paramFqns;  // the parameters that follow, in order
};
// Reads NAME.params.json: {"data_inputs": N, "parameter_fqns": [...]}. Throws InputError.
ParamsInfo readParamsJson(const std::string& path);

}  // namespace fxl
