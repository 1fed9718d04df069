#include "core/formats/json_graph_reader.hpp"

#include <limits>
#include <optional>
#include <unordered_map>

#include "core/formats/json_graph_spelling.hpp"
#include "core/formats/json_io.hpp"
#include "core/ir/diagnostics.hpp"

namespace fxl {

using nlohmann::json;

namespace {

std::string escapePointerToken(std::string_view key)
{
    std::string out;
    for (char c : key) {
        if (c == '~')
            out += "~0";
        else if (c == '/')
            out += "~1";
        else
            out += c;
    }
    return out;
}

// A JSON pointer under construction: a chain of parent links, turned into text only when an
// error is reported (building strings for every value read costs more than the reading).
struct Path
{
    const Path* parent = nullptr;
    std::string_view key;
    size_t index = 0;
    bool isIndex = false;

    std::string str() const
    {
        if (!parent) return "";
        return parent->str() + "/" + (isIndex ? std::to_string(index) : escapePointerToken(key));
    }
};

Path child(const Path& p, std::string_view key) { return Path{&p, key, 0, false}; }
Path child(const Path& p, size_t index) { return Path{&p, {}, index, true}; }

class JsonGraphReader
{
public:
    Graph readDocument(const json& j)
    {
        const Path root;
        requireObject(j, root, "an fxlens graph document");
        const json& format = require(j, root, "format");
        if (!format.is_string() || format.get_ref<const std::string&>() != kJsonFormatName)
            fail("/format", "expected \"" + std::string(kJsonFormatName) + "\", got " + shortDump(format));
        const json& version = require(j, root, "version");
        if (!version.is_number_integer()) fail("/version", "expected an integer version, got " + shortDump(version));
        if (version.get<int64_t>() != kJsonFormatVersion)
            fail("/version",
                 "unsupported version " + shortDump(version) + " (this fxlens reads version "
                     + std::to_string(kJsonFormatVersion) + ")");
        checkKeys(j, root, {"format", "version", "graph"});
        return readGraph(require(j, root, "graph"), child(root, "graph"), 0);
    }

private:
    [[noreturn]] static void fail(const Path& ptr, const std::string& msg) { throw JsonContentError{ptr.str(), msg}; }
    [[noreturn]] static void fail(const char* pointer, const std::string& msg) { throw JsonContentError{pointer, msg}; }

    static std::string shortDump(const json& v)
    {
        std::string s = compactJson(v);
        if (s.size() > 60) s = s.substr(0, 57) + "...";
        return s;
    }

    static std::string typeDesc(const json& v)
    {
        if (v.is_number_float()) return "a float number";
        if (v.is_number()) return "an integer";
        if (v.is_string()) return "a string";
        if (v.is_boolean()) return "a boolean";
        if (v.is_null()) return "null";
        if (v.is_array()) return "an array";
        if (v.is_object()) return "an object";
        return v.type_name();
    }

    static void requireObject(const json& v, const Path& ptr, const std::string& what)
    {
        if (!v.is_object()) fail(ptr, "expected " + what + " (a JSON object), got " + typeDesc(v));
    }

    static const json& require(const json& obj, const Path& ptr, const char* key)
    {
        auto it = obj.find(key);
        if (it == obj.end()) fail(ptr, std::string("missing required field \"") + key + "\"");
        return *it;
    }

    static void checkKeys(const json& obj, const Path& ptr, std::initializer_list<const char*> allowed)
    {
        for (auto it = obj.begin(); it != obj.end(); ++it) {
            bool ok = false;
            for (const char* a : allowed) ok = ok || it.key() == a;
            if (!ok) {
                std::string list;
                for (const char* a : allowed) list += std::string(list.empty() ? "" : ", ") + a;
                fail(child(ptr, it.key()), "unknown field \"" + it.key() + "\" (expected one of: " + list + ")");
            }
        }
    }

    static const std::string& getString(const json& v, const Path& ptr)
    {
        if (!v.is_string()) fail(ptr, "expected a string, got " + typeDesc(v));
        return v.get_ref<const std::string&>();
    }

    static int64_t getInt(const json& v, const Path& ptr)
    {
        if (v.is_number_unsigned()) {
            if (v.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
                fail(ptr, "integer " + v.dump() + " does not fit in 64 bits");
            return static_cast<int64_t>(v.get<uint64_t>());
        }
        if (!v.is_number_integer()) fail(ptr, "expected an integer, got " + typeDesc(v));
        return v.get<int64_t>();
    }

    static int getInt32(const json& v, const Path& ptr)
    {
        int64_t x = getInt(v, ptr);
        if (x < std::numeric_limits<int>::min() || x > std::numeric_limits<int>::max())
            fail(ptr, "integer " + std::to_string(x) + " is out of range");
        return static_cast<int>(x);
    }

    static bool getBool(const json& v, const Path& ptr)
    {
        if (!v.is_boolean()) fail(ptr, "expected true or false, got " + typeDesc(v));
        return v.get<bool>();
    }

    static const json& getArray(const json& v, const Path& ptr)
    {
        if (!v.is_array()) fail(ptr, "expected an array, got " + typeDesc(v));
        return v;
    }

    // custom / chunk meta are free-form JSON: bound their nesting too (checked without
    // recursion), since copying and printing them recurses.
    static void checkJsonDepth(const json& v, const Path& ptr)
    {
        std::vector<std::pair<const json*, int>> stack{{&v, 0}};
        while (!stack.empty()) {
            auto [x, d] = stack.back();
            stack.pop_back();
            if (d > kJsonMaxDepth) fail(ptr, "nested deeper than " + std::to_string(kJsonMaxDepth) + " levels");
            if (x->is_structured())
                for (const auto& c : *x) stack.emplace_back(&c, d + 1);
        }
    }

    static void checkDepth(int depth, const Path& ptr)
    {
        if (depth > kJsonMaxDepth) fail(ptr, "nested deeper than " + std::to_string(kJsonMaxDepth) + " levels");
    }

    // --- graph

    Graph readGraph(const json& j, const Path& ptr, int depth)
    {
        checkDepth(depth, ptr);
        requireObject(j, ptr, "a graph");
        checkKeys(j, ptr,
                  {"class_name", "signature", "pytree_arg_names", "output_pytree", "output_is_list", "output_descs",
                   "nodes", "subgraphs"});
        Graph g;
        g.className = getString(require(j, ptr, "class_name"), child(ptr, "class_name"));
        const std::string& sig = getString(require(j, ptr, "signature"), child(ptr, "signature"));
        auto style = signatureFromName(sig);
        if (!style)
            fail(child(ptr, "signature"),
                 "unknown signature style \"" + sig + "\" (expected flat, expanded, pytree, boxed or plain)");
        g.signature = *style;
        if (auto it = j.find("pytree_arg_names"); it != j.end()) {
            const Path p = child(ptr, "pytree_arg_names");
            getArray(*it, p);
            for (size_t i = 0; i < it->size(); ++i) g.pytreeArgNames.push_back(getString((*it)[i], child(p, i)));
        }
        if (auto it = j.find("output_pytree"); it != j.end())
            g.outputPytree = getBool(*it, child(ptr, "output_pytree"));
        if (auto it = j.find("output_is_list"); it != j.end())
            g.outputIsList = getBool(*it, child(ptr, "output_is_list"));
        if (auto it = j.find("output_descs"); it != j.end()) {
            const Path p = child(ptr, "output_descs");
            getArray(*it, p);
            for (size_t i = 0; i < it->size(); ++i) g.outputDescs.push_back(getString((*it)[i], child(p, i)));
        }

        const Path nodesPtr = child(ptr, "nodes");
        const json& nodes = getArray(require(j, ptr, "nodes"), nodesPtr);
        // Pass 1: names, so that args may name any node of this graph. A fresh Graph gives
        // ids 0, 1, 2, ... in the order of addNode.
        std::unordered_map<std::string, NodeId> ids;
        ids.reserve(nodes.size());
        for (size_t i = 0; i < nodes.size(); ++i) {
            const Path np = child(nodesPtr, i);
            requireObject(nodes[i], np, "a node");
            const std::string& name = getString(require(nodes[i], np, "name"), child(np, "name"));
            if (name.empty()) fail(child(np, "name"), "empty node name");
            auto [it, inserted] = ids.emplace(name, static_cast<NodeId>(i));
            if (!inserted)
                fail(child(np, "name"),
                     "duplicate node name \"" + name + "\" (first defined at "
                         + child(nodesPtr, static_cast<size_t>(it->second)).str() + ")");
        }
        names_ = &ids;
        g.reserveNodes(nodes.size());
        for (size_t i = 0; i < nodes.size(); ++i) g.addNode(readNode(nodes[i], child(nodesPtr, i), depth));
        names_ = nullptr;

        if (auto it = j.find("subgraphs"); it != j.end()) {
            const Path sp = child(ptr, "subgraphs");
            requireObject(*it, sp, "an object of nested graphs by attribute name");
            for (auto s = it->begin(); s != it->end(); ++s) {
                if (s.key().empty()) fail(sp, "nested graph with an empty attribute name");
                g.subgraphs[s.key()] = std::make_shared<Graph>(readGraph(s.value(), child(sp, s.key()), depth + 1));
            }
        }
        g.rebuildUsers();
        return g;
    }

    Node readNode(const json& j, const Path& ptr, int depth)
    {
        checkKeys(j, ptr, {"name", "op", "target", "args", "kwargs", "val", "meta", "default", "type_expr"});
        Node n;
        n.name = j.at("name").get<std::string>();
        const std::string& op = getString(require(j, ptr, "op"), child(ptr, "op"));
        auto nodeOp = nodeOpFromName(op);
        if (!nodeOp)
            fail(child(ptr, "op"),
                 "unknown node op \"" + op
                     + "\" (expected placeholder, call_function, call_method, call_module, "
                       "get_attr or output)");
        n.op = *nodeOp;
        n.target = getString(require(j, ptr, "target"), child(ptr, "target"));
        const Path ap = child(ptr, "args");
        const json& args = getArray(require(j, ptr, "args"), ap);
        for (size_t i = 0; i < args.size(); ++i) n.args.push_back(readArg(args[i], child(ap, i), depth + 1));
        const Path kp = child(ptr, "kwargs");
        const json& kwargs = getArray(require(j, ptr, "kwargs"), kp);
        for (size_t i = 0; i < kwargs.size(); ++i) {
            const Path p = child(kp, i);
            const json& pair = kwargs[i];
            if (!pair.is_array() || pair.size() != 2)
                fail(p, "expected a [\"name\", value] pair, got " + shortDump(pair));
            const std::string& key = getString(pair[0], child(p, 0));
            if (key.empty()) fail(child(p, 0), "empty keyword argument name");
            for (const auto& kv : n.kwargs)
                if (kv.first == key) fail(child(p, 0), "duplicate keyword argument \"" + key + "\"");
            n.kwargs.emplace_back(key, readArg(pair[1], child(p, 1), depth + 1));
        }
        if (auto it = j.find("val"); it != j.end()) n.val = readValueMeta(*it, child(ptr, "val"), depth + 1);
        if (auto it = j.find("meta"); it != j.end()) n.meta = readNodeMeta(*it, child(ptr, "meta"));
        if (auto it = j.find("default"); it != j.end())
            n.placeholderDefault = readArg(*it, child(ptr, "default"), depth + 1);
        if (auto it = j.find("type_expr"); it != j.end()) n.typeExpr = getString(*it, child(ptr, "type_expr"));
        return n;
    }

    // --- arguments

    Arg readArg(const json& j, const Path& ptr, int depth)
    {
        checkDepth(depth, ptr);
        switch (j.type()) {
        case json::value_t::null: return Arg::none();
        case json::value_t::boolean: return Arg::ofBool(j.get<bool>());
        case json::value_t::number_integer:
        case json::value_t::number_unsigned: return Arg::ofInt(getInt(j, ptr));
        case json::value_t::number_float:
            fail(ptr, "a float argument is written as {\"float\": \"<repr>\"}, got the JSON number " + j.dump());
        case json::value_t::string: return Arg::ofStr(j.get<std::string>());
        case json::value_t::array:
            fail(ptr,
                 "a list argument is written as {\"list\": [...]} and a tuple as {\"tuple\": [...]}, got a bare "
                 "array");
        case json::value_t::object: break;
        default: fail(ptr, "expected an argument value, got " + typeDesc(j));
        }
        if (j.size() != 1)
            fail(ptr, "an argument object has exactly one key (its kind), got " + std::to_string(j.size()) + " keys");
        const std::string& kind = j.begin().key();
        const json& v = j.begin().value();
        const Path vp = child(ptr, kind);
        if (kind == "node") {
            const std::string& name = getString(v, vp);
            auto it = names_->find(name);
            if (it == names_->end()) fail(vp, "undefined node \"" + name + "\"");
            return Arg::ofNode(it->second);
        }
        if (kind == "float") {
            const std::string& text = getString(v, vp);
            auto d = floatFromText(text);
            if (!d)
                fail(vp,
                     "expected a float as Python prints it (\"1e-05\", \"3.0\", \"inf\", \"-inf\", \"nan\", "
                     "\"nan:0x<16 hex digits>\"), got \""
                         + text + "\"");
            return Arg::ofFloat(*d);
        }
        if (kind == "list" || kind == "tuple" || kind == "slice") {
            getArray(v, vp);
            std::vector<Arg> items;
            items.reserve(v.size());
            for (size_t i = 0; i < v.size(); ++i) items.push_back(readArg(v[i], child(vp, i), depth + 1));
            if (kind == "slice") {
                if (items.size() != 3)
                    fail(vp, "a slice has 3 items (start, stop, step), got " + std::to_string(items.size()));
                Arg a;
                a.kind = Arg::Kind::Slice;
                a.items = std::move(items);
                return a;
            }
            return kind == "list" ? Arg::ofList(std::move(items)) : Arg::ofTuple(std::move(items));
        }
        if (kind == "dict") {
            getArray(v, vp);
            Arg a;
            a.kind = Arg::Kind::Dict;
            for (size_t i = 0; i < v.size(); ++i) {
                const Path p = child(vp, i);
                if (!v[i].is_array() || v[i].size() != 2)
                    fail(p, "expected a [key, value] pair, got " + shortDump(v[i]));
                a.dict.emplace_back(readArg(v[i][0], child(p, 0), depth + 1), readArg(v[i][1], child(p, 1), depth + 1));
            }
            return a;
        }
        if (kind == "dtype") {
            const std::string& name = getString(v, vp);
            if (name == "undefined") return Arg::ofDType(DType::Undefined);
            auto t = dtypeFromTorchName(name);
            if (!t) fail(vp, "unknown dtype \"" + name + "\" (expected a torch name: float32, bfloat16, int64, ...)");
            return Arg::ofDType(*t);
        }
        if (kind == "device") return Arg::ofDevice(getString(v, vp));
        if (kind == "layout") return Arg::ofLayout(getString(v, vp));
        if (kind == "memory_format") return Arg::ofMemoryFormat(getString(v, vp));
        if (kind == "op") return Arg::ofOp(getString(v, vp));
        if (kind == "raw") return Arg::ofRaw(getString(v, vp));
        if (kind == "ellipsis") {
            if (!v.is_boolean() || !v.get<bool>()) fail(vp, "expected true");
            Arg a;
            a.kind = Arg::Kind::Ellipsis;
            return a;
        }
        fail(vp,
             "unknown argument kind \"" + kind
                 + "\" (expected node, float, list, tuple, dict, slice, dtype, device, layout, memory_format, op, "
                   "ellipsis or raw)");
    }

    // --- value meta

    static SymExpr readExpr(const json& v, const Path& ptr)
    {
        const std::string& text = getString(v, ptr);
        try {
            return SymExpr::parse(text);
        } catch (const InputError& e) {
            fail(ptr, "malformed symbolic expression \"" + text + "\": " + e.diagnostic().message);
        } catch (const std::exception& e) {
            fail(ptr, "malformed symbolic expression \"" + text + "\": " + e.what());
        }
    }

    static SymInt readSymInt(const json& v, const Path& ptr)
    {
        if (v.is_number_integer()) return SymInt(getInt(v, ptr));
        if (!v.is_object()) fail(ptr, "expected an integer or {\"expr\": \"s0\", \"hint\": 8}, got " + typeDesc(v));
        checkKeys(v, ptr, {"expr", "int", "hint"});
        std::optional<int64_t> hint;
        if (auto it = v.find("hint"); it != v.end()) hint = getInt(*it, child(ptr, "hint"));
        if (auto it = v.find("int"); it != v.end()) {
            if (v.contains("expr")) fail(ptr, "a size has either \"int\" or \"expr\", not both");
            SymInt s(getInt(*it, child(ptr, "int")));
            s.setHint(hint);
            return s;
        }
        if (!v.contains("expr")) fail(ptr, "missing required field \"expr\"");
        return SymInt(readExpr(v.at("expr"), child(ptr, "expr")), hint);
    }

    static std::vector<SymInt> readSymInts(const json& v, const Path& ptr)
    {
        getArray(v, ptr);
        std::vector<SymInt> out;
        out.reserve(v.size());
        for (size_t i = 0; i < v.size(); ++i) out.push_back(readSymInt(v[i], child(ptr, i)));
        return out;
    }

    static ValueMeta readValueMeta(const json& j, const Path& ptr, int depth)
    {
        checkDepth(depth, ptr);
        requireObject(j, ptr, "a value meta");
        const std::string& kindName = getString(require(j, ptr, "kind"), child(ptr, "kind"));
        auto kind = valueKindFromName(kindName);
        if (!kind)
            fail(child(ptr, "kind"),
                 "unknown value kind \"" + kindName
                     + "\" (expected unknown, none, tensor, tuple, sym_int, sym_float, sym_bool "
                       "or opaque)");
        ValueMeta m;
        m.kind = *kind;
        switch (m.kind) {
        case ValueMeta::Kind::Unknown:
        case ValueMeta::Kind::None: checkKeys(j, ptr, {"kind", "wrapper_prefix", "wrapper_suffix"}); break;
        case ValueMeta::Kind::Tensor: {
            checkKeys(
                j, ptr,
                {"kind", "dtype", "sizes", "strides", "storage_offset", "device", "wrapper_prefix", "wrapper_suffix"});
            const std::string& dt = getString(require(j, ptr, "dtype"), child(ptr, "dtype"));
            if (dt == "undefined")
                m.tensor.dtype = DType::Undefined;
            else if (auto t = dtypeFromTorchName(dt))
                m.tensor.dtype = *t;
            else
                fail(child(ptr, "dtype"), "unknown dtype \"" + dt + "\" (expected a torch name: float32, ...)");
            m.tensor.sizes = readSymInts(require(j, ptr, "sizes"), child(ptr, "sizes"));
            if (auto it = j.find("strides"); it != j.end()) m.tensor.strides = readSymInts(*it, child(ptr, "strides"));
            if (auto it = j.find("storage_offset"); it != j.end())
                m.tensor.storageOffset = readSymInt(*it, child(ptr, "storage_offset"));
            if (auto it = j.find("device"); it != j.end()) m.tensor.device = getString(*it, child(ptr, "device"));
            break;
        }
        case ValueMeta::Kind::Tuple: {
            checkKeys(j, ptr, {"kind", "elems", "wrapper_prefix", "wrapper_suffix"});
            const Path ep = child(ptr, "elems");
            const json& elems = getArray(require(j, ptr, "elems"), ep);
            for (size_t i = 0; i < elems.size(); ++i)
                m.elems.push_back(readValueMeta(elems[i], child(ep, i), depth + 1));
            break;
        }
        case ValueMeta::Kind::SymInt:
        case ValueMeta::Kind::SymFloat:
        case ValueMeta::Kind::SymBool:
            checkKeys(j, ptr, {"kind", "expr", "hint", "wrapper_prefix", "wrapper_suffix"});
            m.sym = readExpr(require(j, ptr, "expr"), child(ptr, "expr"));
            if (auto it = j.find("hint"); it != j.end()) m.symHint = getInt(*it, child(ptr, "hint"));
            break;
        case ValueMeta::Kind::Opaque:
            checkKeys(j, ptr, {"kind", "text", "wrapper_prefix", "wrapper_suffix"});
            m.opaqueText = getString(require(j, ptr, "text"), child(ptr, "text"));
            break;
        }
        if (auto it = j.find("wrapper_prefix"); it != j.end())
            m.wrapperPrefix = getString(*it, child(ptr, "wrapper_prefix"));
        if (auto it = j.find("wrapper_suffix"); it != j.end())
            m.wrapperSuffix = getString(*it, child(ptr, "wrapper_suffix"));
        return m;
    }

    // --- node meta

    static NodeMeta readNodeMeta(const json& j, const Path& ptr)
    {
        requireObject(j, ptr, "node meta");
        checkKeys(j, ptr,
                  {"module_path", "source", "recompute", "ac_graph_id", "custom", "phase", "autograd_backward", "desc",
                   "provenance", "chunk"});
        NodeMeta m;
        if (auto it = j.find("module_path"); it != j.end()) m.modulePath = getString(*it, child(ptr, "module_path"));
        if (auto it = j.find("source"); it != j.end()) {
            const Path sp = child(ptr, "source");
            requireObject(*it, sp, "a source location");
            checkKeys(*it, sp, {"file", "line", "function", "code"});
            if (auto f = it->find("file"); f != it->end()) m.source.file = getString(*f, child(sp, "file"));
            if (auto f = it->find("line"); f != it->end()) m.source.line = getInt32(*f, child(sp, "line"));
            if (auto f = it->find("function"); f != it->end()) m.source.function = getString(*f, child(sp, "function"));
            if (auto f = it->find("code"); f != it->end()) m.source.code = getString(*f, child(sp, "code"));
        }
        if (auto it = j.find("recompute"); it != j.end()) {
            const std::string& r = getString(*it, child(ptr, "recompute"));
            auto rc = recomputeFromName(r);
            if (!rc)
                fail(child(ptr, "recompute"),
                     "unknown recompute policy \"" + r
                         + "\" (expected MUST_SAVE, PREFER_SAVE, MUST_RECOMPUTE or "
                           "PREFER_RECOMPUTE)");
            m.recompute = *rc;
        }
        if (auto it = j.find("ac_graph_id"); it != j.end()) m.acGraphId = getInt32(*it, child(ptr, "ac_graph_id"));
        if (auto it = j.find("custom"); it != j.end()) {
            checkJsonDepth(*it, child(ptr, "custom"));
            m.custom = *it;
        }
        if (auto it = j.find("phase"); it != j.end()) {
            const std::string& p = getString(*it, child(ptr, "phase"));
            auto ph = phaseFromName(p);
            if (!ph) fail(child(ptr, "phase"), "unknown phase \"" + p + "\" (expected forward, backward or loss)");
            m.phase = *ph;
        }
        if (auto it = j.find("autograd_backward"); it != j.end())
            m.autogradBackward = getBool(*it, child(ptr, "autograd_backward"));
        if (auto it = j.find("desc"); it != j.end()) m.desc = getString(*it, child(ptr, "desc"));
        if (auto it = j.find("provenance"); it != j.end()) m.provenance = getString(*it, child(ptr, "provenance"));
        if (auto it = j.find("chunk"); it != j.end()) {
            checkJsonDepth(*it, child(ptr, "chunk"));
            m.chunk = *it;
        }
        return m;
    }

    const std::unordered_map<std::string, NodeId>* names_ = nullptr;
};

}  // namespace

Graph readGraphDocument(const json& document) { return JsonGraphReader().readDocument(document); }

}  // namespace fxl
