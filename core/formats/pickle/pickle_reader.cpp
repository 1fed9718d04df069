#include "core/formats/pickle/pickle_reader.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bit>
#include <cstring>
#include <unordered_map>

#include "core/ir/diagnostics.hpp"

namespace fxl::pickle {

Document::Document() = default;
Document::~Document() = default;
Document::Document(Document&&) noexcept = default;
Document& Document::operator=(Document&&) noexcept = default;

namespace {

constexpr uint32_t kNoChunk = 0xffffffffu;
constexpr size_t kMaxNodes = 0xfffffff0u;

// What an opcode that is refused is called, for the message.
const char* refusedName(uint8_t op)
{
    switch (op) {
    case 'c': return "GLOBAL";
    case 0x93: return "STACK_GLOBAL";
    case 'R': return "REDUCE";
    case 'b': return "BUILD";
    case 0x81: return "NEWOBJ";
    case 0x92: return "NEWOBJ_EX";
    case 'i': return "INST";
    case 'o': return "OBJ";
    case 'P': return "PERSID";
    case 'Q': return "BINPERSID";
    case 0x82: return "EXT1";
    case 0x83: return "EXT2";
    case 0x84: return "EXT4";
    case 0x97: return "NEXT_BUFFER";
    case 0x98: return "READONLY_BUFFER";
    default: return nullptr;
    }
}

}  // namespace

// The pickle machine: a stack of node ids, marks, the memo; containers gather their children
// in chunks while the pickle runs (APPENDS may come in batches, interleaved with other
// containers' items) and are laid out contiguously at the end.
class Reader
{
public:
    Reader(Document& doc, std::span<const uint8_t> data, const std::string& file, const Progress& progress)
        : d_(doc)
        , data_(data)
        , file_(file)
        , meter_(progress, static_cast<int64_t>(data.size()))
    { }
    // the globals a torch.save pickle may name (none: every global refused)
    void allow(const Globals* g) { allowed_ = g; }

    void run()
    {
        d_.data_ = data_;
        bool stopped = false;
        uint32_t ops = 0;
        while (!stopped) {
            if (pos_ >= data_.size()) fail(pos_, "the pickle ends without STOP");
            if ((++ops & 0xfff) == 0) meter_.update(static_cast<int64_t>(pos_), "reading the pickle");
            const size_t at = pos_;
            const uint8_t op = data_[pos_++];
            switch (op) {
            case 0x80: {  // PROTO
                const int v = u8();
                if (v > 5) fail(at, "pickle protocol " + std::to_string(v) + " is newer than 5, the newest known");
                d_.protocol_ = v;
                break;
            }
            case 0x95: (void)take(8); break;  // FRAME: a length; the opcodes follow inline
            case '.': stopped = true; break;
            case '(': marks_.push_back(stack_.size()); break;
            case '0': pop(at); break;
            case '1': (void)popMark(at); break;
            case '2': push(top(at)); break;
            case 'N': push(leaf(Kind::None, 0)); break;
            case 0x88: push(leaf(Kind::Bool, 1)); break;
            case 0x89: push(leaf(Kind::Bool, 0)); break;
            case 'J': {
                int32_t v;
                std::memcpy(&v, take(4), 4);
                push(intNode(v));
                break;
            }
            case 'K': push(intNode(u8())); break;
            case 'M': {
                const uint8_t* p = take(2);
                push(intNode(p[0] | (p[1] << 8)));
                break;
            }
            case 0x8a: {  // LONG1
                const size_t n = u8();
                push(longNode(take(n), n));
                break;
            }
            case 0x8b: {  // LONG4
                const size_t n = length(4, at);
                push(longNode(take(n), n));
                break;
            }
            case 'G': {  // BINFLOAT: big-endian double
                const uint8_t* p = take(8);
                uint64_t bits = 0;
                for (int k = 0; k < 8; ++k) bits = (bits << 8) | p[k];
                push(leaf(Kind::Float, bits));
                break;
            }
            case 0x8c: push(text(Kind::String, u8())); break;  // SHORT_BINUNICODE
            case 'X': push(text(Kind::String, length(4, at))); break;  // BINUNICODE
            case 0x8d: push(text(Kind::String, length(8, at))); break;  // BINUNICODE8
            case 'U': push(text(Kind::String, u8())); break;  // SHORT_BINSTRING (protocol 1 str)
            case 'T': push(text(Kind::String, length(4, at))); break;  // BINSTRING
            case 'C': push(text(Kind::Bytes, u8())); break;  // SHORT_BINBYTES
            case 'B': push(text(Kind::Bytes, length(4, at))); break;  // BINBYTES
            case 0x8e: push(text(Kind::Bytes, length(8, at))); break;  // BINBYTES8
            case 0x96: push(text(Kind::Bytes, length(8, at))); break;  // BYTEARRAY8
            case ']': push(container(Kind::List)); break;
            case ')': push(container(Kind::Tuple)); break;
            case '}': push(container(Kind::Dict)); break;
            case 0x8f: push(container(Kind::Set)); break;  // EMPTY_SET
            case 'l': push(fromMark(Kind::List, at)); break;
            case 't': push(fromMark(Kind::Tuple, at)); break;
            case 'd': {
                const size_t m = popMark(at);
                if ((stack_.size() - m) % 2) fail(at, "DICT with an odd number of items (a key without a value)");
                push(fromRange(Kind::Dict, m));
                break;
            }
            case 0x91: push(fromMark(Kind::Set, at)); break;  // FROZENSET
            case 0x85:
            case 0x86:
            case 0x87: {  // TUPLE1-3
                const size_t n = op - 0x84u;
                if (stack_.size() < n + base(at)) fail(at, "TUPLE" + std::to_string(n) + " with too few items");
                push(fromRange(Kind::Tuple, stack_.size() - n));
                break;
            }
            case 'a': {  // APPEND
                const NodeId v = pop(at);
                add(top(at), {Kind::List}, &v, 1, at, "APPEND");
                break;
            }
            case 'e': {  // APPENDS
                const size_t m = popMark(at);
                addFrom(m, Kind::List, at, "APPENDS");
                break;
            }
            case 0x90: {  // ADDITEMS
                const size_t m = popMark(at);
                addFrom(m, Kind::Set, at, "ADDITEMS");
                break;
            }
            case 's': {  // SETITEM
                const NodeId v = pop(at), k = pop(at);
                const NodeId kv[2] = {k, v};
                add(top(at), {Kind::Dict}, kv, 2, at, "SETITEM");
                break;
            }
            case 'u': {  // SETITEMS
                const size_t m = popMark(at);
                if ((stack_.size() - m) % 2) fail(at, "SETITEMS with an odd number of items (a key without a value)");
                addFrom(m, Kind::Dict, at, "SETITEMS");
                break;
            }
            case 0x94: memo_[static_cast<uint32_t>(memo_.size())] = top(at); break;  // MEMOIZE
            case 'q': memo_[u8()] = top(at); break;  // BINPUT
            case 'r': memo_[static_cast<uint32_t>(length(4, at))] = top(at); break;  // LONG_BINPUT
            case 'h': push(memoGet(u8(), at)); break;  // BINGET
            case 'j': push(memoGet(static_cast<uint32_t>(length(4, at)), at)); break;  // LONG_BINGET
            case 'c': {  // GLOBAL: "module\nname\n"
                if (!allowed_) refuse(op, at);
                const std::string module = line(at), name = line(at);
                push(global(module, name, at));
                break;
            }
            case 0x93: {  // STACK_GLOBAL
                if (!allowed_) refuse(op, at);
                const NodeId name = pop(at), module = pop(at);
                if (d_.kind(name) != Kind::String || d_.kind(module) != Kind::String)
                    fail(at, "STACK_GLOBAL on " + d_.describe(module) + " and " + d_.describe(name));
                push(global(std::string(d_.str(module)), std::string(d_.str(name)), at));
                break;
            }
            case 'R': {  // REDUCE: recorded, never called
                if (!allowed_) refuse(op, at);
                const NodeId args = pop(at), callable = pop(at);
                if (d_.kind(callable) != Kind::Global || d_.kind(args) != Kind::Tuple)
                    fail(at, "REDUCE of " + d_.describe(callable) + " with " + d_.describe(args));
                if (d_.str(callable) == "collections.OrderedDict" && d_.nodes_[args].count == 0) {
                    push(container(Kind::Dict));  // filled by SETITEMS like a dict
                } else {
                    const NodeId call = container(Kind::Call);
                    const NodeId parts[2] = {callable, args};
                    appendChunk(call, parts, 2);
                    push(call);
                }
                break;
            }
            case 'b': {  // BUILD: only an OrderedDict's attributes (state_dict's _metadata), dropped
                if (!allowed_) refuse(op, at);
                const NodeId state = pop(at);
                if (d_.kind(top(at)) != Kind::Dict)
                    fail(at,
                         "BUILD of " + d_.describe(top(at)) + " with " + d_.describe(state)
                             + " refused: object state is not read");
                break;
            }
            case 'Q': {  // BINPERSID
                if (!allowed_) refuse(op, at);
                const NodeId id = pop(at);
                const NodeId v = container(Kind::PersistentId);
                appendChunk(v, &id, 1);
                push(v);
                break;
            }
            default: {
                if (refusedName(op)) refuse(op, at);
                char hex[8];
                std::snprintf(hex, sizeof hex, "0x%02x", op);
                fail(at,
                     std::string("opcode ") + hex
                         + " is not read (a protocol-0 text opcode, or not a pickle opcode; fxlens reads "
                           "protocols 2 to 5)");
            }
            }
        }
        if (stack_.size() != 1 || !marks_.empty())
            fail(pos_ - 1, "STOP with " + std::to_string(stack_.size()) + " values on the stack (one expected)");
        d_.root_ = stack_.back();
        layOut();
    }

private:
    [[noreturn]] void refuse(uint8_t op, size_t at) const
    {
        fail(at,
             std::string("opcode ") + refusedName(op)
                 + " refused: it names or calls Python code, which a data pickle (a memory "
                   "snapshot) never needs and a hostile one uses to attack its reader");
    }
    // GLOBAL's argument lines
    std::string line(size_t at)
    {
        const size_t from = pos_;
        while (pos_ < data_.size() && data_[pos_] != '\n') ++pos_;
        if (pos_ >= data_.size()) fail(at, "GLOBAL's name runs to the end of the pickle");
        return std::string(reinterpret_cast<const char*>(data_.data() + from), pos_++ - from);
    }
    NodeId global(const std::string& module, const std::string& name, size_t at)
    {
        const std::string full = module + "." + name;
        bool ok = false;
        for (const std::string& n : allowed_->names) ok = ok || n == full;
        if (!ok)
            fail(at,
                 "global " + full + " refused: not one of " + allowed_->what
                     + " (a pickle that names other code is not read)");
        d_.globals_.push_back(full);
        return leaf(Kind::Global, d_.globals_.size() - 1);
    }
    [[noreturn]] void fail(size_t at, const std::string& what) const
    {
        throw InputError(file_, 0, 0, "at byte " + std::to_string(at) + ": " + what);
    }
    const uint8_t* take(size_t n)
    {
        if (n > data_.size() - pos_)
            fail(pos_,
                 "the pickle ends inside an opcode's argument (" + std::to_string(n) + " bytes wanted, "
                     + std::to_string(data_.size() - pos_) + " left)");
        const uint8_t* p = data_.data() + pos_;
        pos_ += n;
        return p;
    }
    uint8_t u8() { return *take(1); }
    size_t length(int bytes, size_t at)
    {
        const uint8_t* p = take(static_cast<size_t>(bytes));
        uint64_t v = 0;
        for (int k = bytes - 1; k >= 0; --k) v = (v << 8) | p[k];
        if (v > data_.size()) fail(at, "a length of " + std::to_string(v) + " bytes, more than the file holds");
        return static_cast<size_t>(v);
    }
    NodeId newNode(Kind k, uint32_t count, uint64_t payload)
    {
        if (d_.nodes_.size() >= kMaxNodes) fail(pos_, "more than 2^32 values");
        d_.nodes_.push_back({k, count, payload});
        return static_cast<NodeId>(d_.nodes_.size() - 1);
    }
    NodeId leaf(Kind k, uint64_t payload) { return newNode(k, 0, payload); }
    NodeId intNode(int64_t v) { return leaf(Kind::Int, static_cast<uint64_t>(v)); }
    // LONG1 / LONG4: little-endian two's complement of n bytes
    NodeId longNode(const uint8_t* p, size_t n)
    {
        if (n == 0) return intNode(0);
        const bool negative = p[n - 1] & 0x80;
        const uint8_t ext = negative ? 0xff : 0x00;
        size_t used = n;  // without the sign-extension bytes that repeat the sign of the byte below
        while (used > 1 && p[used - 1] == ext && ((p[used - 2] & 0x80) != 0) == negative) --used;
        if (used <= 8) {
            uint64_t v = negative ? ~uint64_t{0} : 0;
            for (size_t k = used; k-- > 0;) v = (v << 8) | p[k];
            return intNode(static_cast<int64_t>(v));
        }
        if (used == 9 && !negative && p[8] == 0) {
            uint64_t v = 0;
            for (size_t k = 8; k-- > 0;) v = (v << 8) | p[k];
            return leaf(Kind::UInt, v);
        }
        return text(Kind::BigInt, p, n);
    }
    NodeId text(Kind k, size_t n)
    {
        const uint8_t* p = take(n);
        return text(k, p, n);
    }
    NodeId text(Kind k, const uint8_t* p, size_t n)
    {
        if (n > 0xffffffffu) fail(pos_, "a string of more than 4 GiB");
        return newNode(k, static_cast<uint32_t>(n), static_cast<uint64_t>(p - data_.data()));
    }
    NodeId container(Kind k)
    {
        const NodeId v = newNode(k, 0, 0);
        building_.push_back(v);
        // payload while reading: head chunk (low 32 bits) and tail chunk (high 32)
        d_.nodes_[v].payload = (uint64_t{kNoChunk} << 32) | kNoChunk;
        return v;
    }
    NodeId fromRange(Kind k, size_t from)
    {
        const NodeId v = container(k);
        appendChunk(v, stack_.data() + from, stack_.size() - from);
        stack_.resize(from);
        return v;
    }
    NodeId fromMark(Kind k, size_t at) { return fromRange(k, popMark(at)); }
    void addFrom(size_t mark, Kind k, size_t at, const char* what)
    {
        if (mark == 0 || mark > stack_.size()) fail(at, std::string(what) + " with nothing to add to");
        const NodeId target = stack_[mark - 1];
        add(target, {k}, stack_.data() + mark, stack_.size() - mark, at, what);
        stack_.resize(mark);
    }
    void add(NodeId target, std::initializer_list<Kind> kinds, const NodeId* items, size_t n, size_t at,
             const char* what)
    {
        const Kind k = d_.nodes_[target].kind;
        bool ok = false;
        for (Kind want : kinds) ok = ok || k == want;
        if (!ok) fail(at, std::string(what) + " on " + d_.describe(target));
        appendChunk(target, items, n);
    }
    void appendChunk(NodeId v, const NodeId* items, size_t n)
    {
        if (n == 0) return;
        Document::Node& node = d_.nodes_[v];
        if (static_cast<uint64_t>(node.count) + n > 0xffffffffu) fail(pos_, "a container of more than 2^32 items");
        uint32_t head = static_cast<uint32_t>(node.payload), tail = static_cast<uint32_t>(node.payload >> 32);
        // the tail chunk ends at the pool's end: extend it
        if (tail != kNoChunk && chunks_[tail].start + chunks_[tail].count == pool_.size()) {
            chunks_[tail].count += static_cast<uint32_t>(n);
        } else {
            if (pool_.size() + n > 0xffffffffu) fail(pos_, "more than 2^32 container items");
            chunks_.push_back({static_cast<uint32_t>(pool_.size()), static_cast<uint32_t>(n), kNoChunk});
            const uint32_t c = static_cast<uint32_t>(chunks_.size() - 1);
            if (tail == kNoChunk)
                head = c;
            else
                chunks_[tail].next = c;
            tail = c;
        }
        pool_.insert(pool_.end(), items, items + n);
        node.count += static_cast<uint32_t>(n);
        node.payload = (uint64_t{tail} << 32) | head;
    }
    // every container's children in one contiguous run of children_
    void layOut()
    {
        d_.children_.reserve(pool_.size());
        for (NodeId v : building_) {
            Document::Node& node = d_.nodes_[v];
            const uint64_t start = d_.children_.size();
            for (uint32_t c = static_cast<uint32_t>(node.payload); c != kNoChunk; c = chunks_[c].next)
                d_.children_.insert(d_.children_.end(), pool_.begin() + chunks_[c].start,
                                    pool_.begin() + chunks_[c].start + chunks_[c].count);
            node.payload = start;
        }
    }
    void push(NodeId v) { stack_.push_back(v); }
    size_t base(size_t) const { return marks_.empty() ? 0 : marks_.back(); }
    NodeId top(size_t at) const
    {
        if (stack_.size() <= base(at)) fail(at, "an opcode that needs a value on an empty stack");
        return stack_.back();
    }
    NodeId pop(size_t at)
    {
        const NodeId v = top(at);
        stack_.pop_back();
        return v;
    }
    size_t popMark(size_t at)
    {
        if (marks_.empty()) fail(at, "an opcode that needs a MARK, with none");
        const size_t m = marks_.back();
        marks_.pop_back();
        return m;
    }
    NodeId memoGet(uint32_t key, size_t at) const
    {
        const auto it = memo_.find(key);
        if (it == memo_.end()) fail(at, "a memo reference to " + std::to_string(key) + ", which was never stored");
        return it->second;
    }

    struct Chunk
    {
        uint32_t start, count, next;
    };
    Document& d_;
    std::span<const uint8_t> data_;
    const std::string& file_;
    const Globals* allowed_ = nullptr;
    size_t pos_ = 0;
    std::vector<NodeId> stack_;
    std::vector<size_t> marks_;
    std::unordered_map<uint32_t, NodeId> memo_;
    std::vector<NodeId> building_;  // containers, in creation order
    std::vector<Chunk> chunks_;
    std::vector<NodeId> pool_;
    ProgressMeter meter_;
};

Document Document::parse(std::span<const uint8_t> data, const std::string& file, const Progress& progress)
{
    Document d;
    Reader r(d, data, file, progress);
    r.run();
    return d;
}

Document Document::parseAllowing(std::span<const uint8_t> data, const std::string& file, const Globals& allowed)
{
    Document d;
    Reader r(d, data, file, {});
    r.allow(&allowed);
    r.run();
    return d;
}

Document Document::read(const std::string& path, const Progress& progress)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw InputError(path, 0, 0, std::string("cannot open: ") + std::strerror(errno));
    struct stat st
    { };
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        throw InputError(path, 0, 0, "not a regular file");
    }
    const size_t size = static_cast<size_t>(st.st_size);
    if (size == 0) {
        ::close(fd);
        throw InputError(path, 0, 0, "empty file (a pickle starts with PROTO)");
    }
    void* p = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    ::close(fd);
    if (p == MAP_FAILED) throw InputError(path, 0, 0, std::string("cannot map: ") + std::strerror(errno));
    std::shared_ptr<void> mapping(p, [size](void* q) { munmap(q, size); });
    Document d = parse({static_cast<const uint8_t*>(p), size}, path, progress);
    d.mapping_ = std::move(mapping);
    return d;
}

bool Document::isNumber(NodeId v) const
{
    const Kind k = kind(v);
    return k == Kind::Int || k == Kind::UInt || k == Kind::Float || k == Kind::Bool;
}

bool Document::toBool(NodeId v) const
{
    const Kind k = kind(v);
    if (k == Kind::Bool || k == Kind::Int) return nodes_[v].payload != 0;
    throw std::invalid_argument(describe(v) + " is not a bool");
}

int64_t Document::toInt(NodeId v) const
{
    const Kind k = kind(v);
    if (k == Kind::Int || k == Kind::Bool) return static_cast<int64_t>(nodes_[v].payload);
    throw std::invalid_argument(describe(v) + " is not an integer of 64 bits");
}

uint64_t Document::toUInt(NodeId v) const
{
    const Kind k = kind(v);
    if (k == Kind::UInt || (k == Kind::Int && static_cast<int64_t>(nodes_[v].payload) >= 0)) return nodes_[v].payload;
    throw std::invalid_argument(describe(v) + " is not an unsigned integer of 64 bits");
}

double Document::toDouble(NodeId v) const
{
    switch (kind(v)) {
    case Kind::Float: return std::bit_cast<double>(nodes_[v].payload);
    case Kind::Int: return static_cast<double>(static_cast<int64_t>(nodes_[v].payload));
    case Kind::UInt: return static_cast<double>(nodes_[v].payload);
    default: throw std::invalid_argument(describe(v) + " is not a number");
    }
}

std::string_view Document::str(NodeId v) const
{
    const Kind k = kind(v);
    if (k == Kind::Global) return globals_[nodes_[v].payload];
    if (k != Kind::String && k != Kind::Bytes && k != Kind::BigInt)
        throw std::invalid_argument(describe(v) + " is not a string");
    return {reinterpret_cast<const char*>(data_.data() + nodes_[v].payload), nodes_[v].count};
}

std::span<const NodeId> Document::children(NodeId v) const
{
    const Kind k = kind(v);
    if (k != Kind::List && k != Kind::Tuple && k != Kind::Dict && k != Kind::Set && k != Kind::Call
        && k != Kind::PersistentId)
        return {};
    return {children_.data() + nodes_[v].payload, nodes_[v].count};
}

std::optional<NodeId> Document::get(NodeId dict, std::string_view key) const
{
    if (kind(dict) != Kind::Dict) return std::nullopt;
    const auto c = children(dict);
    for (size_t i = 0; i + 1 < c.size(); i += 2)
        if (kind(c[i]) == Kind::String && str(c[i]) == key) return c[i + 1];
    return std::nullopt;
}

std::string Document::describe(NodeId v) const
{
    const Node& n = nodes_[v];
    switch (n.kind) {
    case Kind::None: return "None";
    case Kind::Bool: return n.payload ? "True" : "False";
    case Kind::Int: return "the integer " + std::to_string(static_cast<int64_t>(n.payload));
    case Kind::UInt: return "the integer " + std::to_string(n.payload);
    case Kind::BigInt: return "an integer of " + std::to_string(n.count) + " bytes";
    case Kind::Float: return "the float " + std::to_string(std::bit_cast<double>(n.payload));
    case Kind::String: {
        std::string s(str(v).substr(0, 40));
        return "the string '" + s + (n.count > 40 ? "...'" : "'");
    }
    case Kind::Bytes: return "bytes (" + std::to_string(n.count) + ")";
    case Kind::List: return "a list of " + std::to_string(n.count);
    case Kind::Tuple: return "a tuple of " + std::to_string(n.count);
    case Kind::Dict: return "a dict of " + std::to_string(n.count / 2);
    case Kind::Set: return "a set of " + std::to_string(n.count);
    case Kind::Global: return "the global " + globals_[n.payload];
    case Kind::Call: return "the result of a call";
    case Kind::PersistentId: return "a persistent id";
    }
    return "a value";
}

}  // namespace fxl::pickle
