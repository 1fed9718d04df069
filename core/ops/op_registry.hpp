// Operator registry built from ops.tsv (compiled into the library): schemas, traits and
// meta (shape) functions per operator overload.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/ir/argument.hpp"
#include "core/ir/tensor_meta.hpp"
#include "core/ops/schema.hpp"

namespace fxl {

class Graph;
struct Node;
struct CustomOp;  // core/ops/custom_ops.hpp

enum OpTrait : uint32_t
{
    kTraitView = 1u << 0,  // result aliases an input (Tensor(a))
    kTraitViewList = 1u << 1,  // list of views
    kTraitAliasNoAnnot = 1u << 2,  // _unsafe_view: shares storage without annotation
    kTraitInplace = 1u << 3,  // mutates an input (Tensor(a!))
    kTraitRandom = 1u << 4,
    kTraitCollective = 1u << 5,  // async collective, result valid after wait
    kTraitWait = 1u << 6,  // wait_tensor
    kTraitSideEffect = 1u << 7,  // never dead-code eliminated
    kTraitFactory = 1u << 8,
    kTraitHigherOrder = 1u << 9,
    kTraitDynamicShape = 1u << 10,  // output size depends on data (nonzero, bincount, ...)
    kTraitSym = 1u << 11,  // symbolic-int ops (sym_size, operator.add on SymInts)
    kTraitBuiltin = 1u << 12,  // operator.getitem and friends
    kTraitPointwise = 1u << 13,
    kTraitReduction = 1u << 14,
    kTraitMatmul = 1u << 15,  // cost class: matmul-like
    kTraitCommunication = 1u << 16,  // any collective, async or synchronous (cost class)
};

// Input for a meta function: the node's bound arguments with the meta of every node
// argument resolved.
struct MetaCall
{
    const Node* node = nullptr;
    const Graph* graph = nullptr;
    const struct OpInfo* op = nullptr;
    // Arguments bound to the schema in schema order (positional + keyword + defaults
    // filled in as Args). bound[i] corresponds to op->schema.args[i].
    std::vector<Arg> bound;
    // Meta of a node referenced by an Arg (Unknown when not computed).
    std::function<const ValueMeta&(NodeId)> metaOf;
    // Creates a new unbacked symbol (u0, u1, ...) with a hint for data-dependent sizes.
    std::function<SymInt(std::optional<int64_t> hint)> newUnbacked;
    // Hint for the data-dependent output of this node when known (recorded meta).
    std::function<std::optional<int64_t>(size_t outputIndex, size_t dim)> recordedSize;

    const Arg& arg(std::string_view name) const;  // throws std::out_of_range if no such arg
    const ValueMeta& tensorArg(std::string_view name) const;  // meta of a Node arg
};

// Meta functions throw MetaError with a message when the inputs do not fit the op.
struct MetaError : std::runtime_error
{
    using std::runtime_error::runtime_error;
};

using MetaFn = std::function<ValueMeta(const MetaCall&)>;

struct OpInfo
{
    std::string qualifiedName;  // "aten.add.Tensor"
    Schema schema;
    std::string kind;  // the kind column of ops.tsv
    std::string notes;
    uint32_t traits = 0;
    MetaFn meta;  // empty when no meta function exists
    std::string schemaIssue;  // why the schema text is informal (empty when it parsed)
    int tsvLine = 0;  // line in ops.tsv (1-based)
    // Declared in an ops file (core/ops/custom_ops.hpp): what the op computes. Null for ops.tsv rows.
    std::shared_ptr<const CustomOp> custom;
    // An in-place variant fxlens made of a pointwise op ("aten.sigmoid_.default" of
    // "aten.sigmoid.default"): the functional op it runs, then writes into self. "" otherwise.
    std::string inplaceOf;

    bool has(OpTrait t) const { return (traits & t) != 0; }
};

class OpRegistry
{
public:
    // The registry built from the embedded ops.tsv plus the meta functions.
    static const OpRegistry& instance();

    // Looks up "aten.mm.default". Also accepts a target printed without overload
    // ("test.baz" resolves to "test.baz.default" when that exists).
    const OpInfo* find(std::string_view qualifiedName) const;
    size_t size() const { return ops_.size(); }
    std::vector<const OpInfo*> all() const;

    // Binds a node's args/kwargs to the schema (fills defaults). Returns an error message
    // on arity/keyword mismatch.
    std::optional<std::string> bind(const OpInfo& op, const Node& n, std::vector<Arg>& bound) const;

    // For tests: builds a registry from TSV text (4 tab-separated columns: target, schema,
    // kind, notes; '#' lines are comments). Throws InputError for a malformed row.
    static OpRegistry fromTsv(std::string_view tsv, const std::string& file = "ops.tsv");

    // Adds an operator declared at run time (an ops file, core/ops/custom_ops.hpp) to the
    // process-wide registry; declaring a custom op again with the same schema replaces its
    // meta and body (the entry keeps its address). Throws std::invalid_argument when the name
    // is an ops.tsv operator or a custom one declared with another schema. Not thread-safe:
    // declare before graphs are analysed or run concurrently.
    static const OpInfo& declareCustom(OpInfo op);

    // Names given to registerMetaFunctions that match no operator (typos, missing rows).
    const std::vector<std::string>& orphanMetaFunctions() const { return orphanMeta_; }

    // Target text as nodes carry it, normalised for lookup: drops "torch.ops.", maps
    // "_operator." to "operator." and "aten::x" to "aten.x".
    static std::string normalizeTarget(std::string_view target);

private:
    std::deque<OpInfo> ops_;  // a deque: declareCustom keeps the addresses find() gave out
    std::unordered_map<std::string, size_t> byName_;
    std::vector<std::string> orphanMeta_;
    void attachMeta(std::unordered_map<std::string, MetaFn>& table);
    // Adds X_ for every pointwise functional X (first argument `Tensor self`, one Tensor
    // returned) that ops.tsv does not list: PyTorch has an in-place variant of each
    // (sigmoid_, tanh_, mul_.Scalar, ...), and traced models use them (nn.LSTM's cells).
    void addInplaceVariants();
    static OpRegistry& mutableInstance();
};

// The ops.tsv text compiled into the library (generated by resources/embed_text.cmake).
std::string_view embeddedOpsTsv();

// Registers the meta functions into a registry under construction (op_meta.cpp).
void registerMetaFunctions(std::unordered_map<std::string, MetaFn>& table);

}  // namespace fxl
