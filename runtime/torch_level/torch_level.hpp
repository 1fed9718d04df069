// Dynamo-level nodes (call_method "x.view(...)", torch functions "torch.mul",
// "torch.nn.functional.gelu", Python operators on tensors "operator.add", "operator.getitem"
// with slices) translated to the aten kernels of the runtime. The translation (table lookup,
// binding of the node's arguments to the function's Python signature, resolution of the aten
// overloads) happens once, when the executor plans a graph; running a lowered node only picks
// between overloads by the kinds and ranks of its run-time values (Tensor vs Python scalar:
// `x + 2` runs aten.add.Scalar, `2 - x` aten.rsub.Scalar, `2 / x` reciprocal then mul.Scalar as
// Tensor.__rdiv__ does; `x.add_(1)` runs add.Scalar then copy_ into x).
//
// Values: views (view, transpose, getitem with ints/slices/None, ...) share the input's
// storage, in-place methods return their self, contiguous()/to() return self when nothing has
// to change (as PyTorch); the memory timeline classifies tensor methods, augmented-assignment
// operators and torch.X views the same way (core/analysis/memory_timeline.hpp R3). Known gap: a getitem
// with a tensor index copies (index.Tensor) where the timeline counts getitem as an alias.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/ir/graph.hpp"
#include "runtime/base/backend.hpp"
#include "runtime/base/value.hpp"

namespace fxl {

struct OpInfo;

// What a lowering needs from the executor while it runs.
class TorchLevelContext
{
public:
    virtual ~TorchLevelContext() = default;
    // The value of a node argument (lists and tuples resolved element by element; slices and
    // ellipses are not values: lowerings read them from the node's Arg).
    virtual Value resolve(const Arg& a) = 0;
    // Runs the aten kernel of `op` with `args` in schema order (complete: defaults filled).
    virtual Value callAten(const OpInfo& op, std::vector<Value> args) = 0;
    virtual Backend& backend() = 0;
};

// A node translated at plan time.
class TorchLowering
{
public:
    virtual ~TorchLowering() = default;
    virtual Value run(TorchLevelContext& c, const Node& n) const = 0;
    // "call_method view -> aten.view.default | aten.view.dtype", for messages and listings.
    virtual std::string description() const = 0;
};

// The key a node is looked up by: "method:view" for call_method, the normalised target for
// call_function ("torch.mul", "operator.add"). Empty for other node kinds.
std::string torchLevelKey(const Node& n);

// Whether the table has an entry for the node (call_method always counts as Dynamo level).
bool hasTorchLevelLowering(const Node& n);

// Plan-time translation. nullptr with `error` set (a message naming the target and why:
// no lowering, arguments that do not fit the signature, an aten op missing from the registry).
std::unique_ptr<TorchLowering> planTorchLevel(const Node& n, std::string& error);

// Every key of the table, sorted ("method:add_", "operator.add", "torch.mul", ...).
std::vector<std::string> torchLevelKeys();

}  // namespace fxl
