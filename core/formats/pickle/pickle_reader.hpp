// A restricted unpickler: reads Python pickles (protocols 2 to 5, and the protocol-1 string
// opcodes) of plain data only: None, bools, integers (up to 64 bits as numbers; wider ones kept
// as their bytes), floats, strings, bytes, lists, tuples, dicts and sets, with the memo kept as
// sharing (a value pickled once and referenced many times is one node, however many lists hold
// it). Every opcode that names or calls Python code (GLOBAL, STACK_GLOBAL, REDUCE, BUILD,
// NEWOBJ, INST, OBJ, PERSID, EXT*, out-of-band buffers) is refused, with its name and offset:
// executing them is how a pickle attacks its reader, and CUDA memory snapshots never need them.
//
// A torch.save pickle (tensors in a .pt file) needs a few: the reader given a list of allowed
// globals (Globals) reads GLOBAL / STACK_GLOBAL of those names only, as Global values, REDUCE
// as a Call value (callable, argument tuple) that nothing executes, BINPERSID as a
// PersistentId value, and BUILD on a dict (an OrderedDict's attributes, dropped). Any other
// global is refused by name. Interpreting the calls is the caller's business (torch_save.hpp).
//
// The values live in one arena (a Document): nodes addressed by index, containers' children
// stored contiguously once the pickle is read, strings as views into the file's bytes (mapped,
// not copied). Nothing is recursive: neither reading nor freeing a document walks its nesting.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/util/progress.hpp"

namespace fxl::pickle {

enum class Kind : uint8_t
{
    None,
    Bool,
    Int,  // fits int64
    UInt,  // above INT64_MAX, fits uint64 (a 9-byte LONG1, as PyTorch writes large addresses)
    BigInt,  // wider: str() gives its little-endian two's-complement bytes
    Float,
    String,  // UTF-8 as the pickle holds it
    Bytes,
    List,
    Tuple,
    Dict,  // children: key, value, key, value, ... in insertion order
    Set,
    Global,  // "module.name" (str()), read only when allowed
    Call,  // REDUCE: children callable, argument tuple
    PersistentId,  // BINPERSID: child the id
};

// The globals a pickle may name, for the torch.save reader; `what` says in a refusal which
// names these are ("the globals torch.save uses for tensors").
struct Globals
{
    std::vector<std::string> names;  // "torch._utils._rebuild_tensor_v2", ...
    std::string what;
};

using NodeId = uint32_t;

class Document
{
public:
    Document();
    ~Document();
    Document(Document&&) noexcept;
    Document& operator=(Document&&) noexcept;

    // Reads the pickle at `path` (mapped). Throws InputError(path, 0, byte offset, message).
    // `progress` counts the bytes read; a cancelled read throws CancelledError.
    static Document read(const std::string& path, const Progress& progress = {});
    // Parses bytes that stay alive as long as the document. `file` names them in errors.
    static Document parse(std::span<const uint8_t> data, const std::string& file = "<memory>",
                          const Progress& progress = {});
    // Parses a pickle that may name the `allowed` globals (alive while parsing): torch.save's.
    static Document parseAllowing(std::span<const uint8_t> data, const std::string& file, const Globals& allowed);

    NodeId root() const { return root_; }
    Kind kind(NodeId v) const { return nodes_[v].kind; }
    size_t nodeCount() const { return nodes_.size(); }
    int protocol() const { return protocol_; }

    bool isNumber(NodeId v) const;
    bool toBool(NodeId v) const;  // Bool, or Int 0/1
    int64_t toInt(NodeId v) const;  // Int, Bool; UInt throws (above INT64_MAX)
    uint64_t toUInt(NodeId v) const;  // Int >= 0, UInt
    double toDouble(NodeId v) const;  // Float, Int, UInt
    std::string_view str(NodeId v) const;  // String, Bytes, BigInt; Global: "module.name"
    // children of a List / Tuple / Set; of a Dict: key, value, key, value, ...; of a Call: the
    // callable and the argument tuple; of a PersistentId: the id
    std::span<const NodeId> children(NodeId v) const;
    // a Dict's value for a string key (nullopt: not a dict, or no such key)
    std::optional<NodeId> get(NodeId dict, std::string_view key) const;
    // "a list of 3", "the string 'abc'", "the integer 5": for messages
    std::string describe(NodeId v) const;

private:
    struct Node
    {
        Kind kind = Kind::None;
        uint32_t count = 0;  // children, or string bytes
        uint64_t payload = 0;  // number bits, string offset in the data, or first child's index
    };
    friend class Reader;
    std::vector<Node> nodes_;
    std::vector<NodeId> children_;
    std::span<const uint8_t> data_;
    std::shared_ptr<void> mapping_;  // the mapped file, when read()
    std::vector<std::string> globals_;  // Global names (payload: index)
    NodeId root_ = 0;
    int protocol_ = 0;
};

}  // namespace fxl::pickle
