// fxlens JSON: writer, checking reader, and the text helpers that give errors a line and
// column (nlohmann's DOM has no positions, so a failing JSON pointer is looked up again in
// the text).
#include "core/formats/json_io.hpp"

#include <bit>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <random>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "core/ir/diagnostics.hpp"
#include "core/util/strings.hpp"

namespace fxl {

using nlohmann::json;

namespace {

// Readers recurse into args, values and nested graphs: bound the depth so that hostile
// input cannot exhaust the stack.
constexpr int kMaxDepth = 200;

constexpr uint64_t kCanonicalNanBits = 0x7ff8000000000000ULL;

// ------------------------------------------------------------------ small helpers

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

std::string signatureName(SignatureStyle s)
{
    switch (s) {
    case SignatureStyle::Flat: return "flat";
    case SignatureStyle::Expanded: return "expanded";
    case SignatureStyle::Pytree: return "pytree";
    case SignatureStyle::Boxed: return "boxed";
    case SignatureStyle::Plain: return "plain";
    }
    return "flat";
}

std::optional<SignatureStyle> signatureFromName(std::string_view s)
{
    for (SignatureStyle st : {SignatureStyle::Flat, SignatureStyle::Expanded, SignatureStyle::Pytree,
                              SignatureStyle::Boxed, SignatureStyle::Plain})
        if (signatureName(st) == s) return st;
    return std::nullopt;
}

std::string valueKindName(ValueMeta::Kind k)
{
    switch (k) {
    case ValueMeta::Kind::Unknown: return "unknown";
    case ValueMeta::Kind::None: return "none";
    case ValueMeta::Kind::Tensor: return "tensor";
    case ValueMeta::Kind::Tuple: return "tuple";
    case ValueMeta::Kind::SymInt: return "sym_int";
    case ValueMeta::Kind::SymFloat: return "sym_float";
    case ValueMeta::Kind::SymBool: return "sym_bool";
    case ValueMeta::Kind::Opaque: return "opaque";
    }
    return "unknown";
}

std::optional<ValueMeta::Kind> valueKindFromName(std::string_view s)
{
    for (auto k :
         {ValueMeta::Kind::Unknown, ValueMeta::Kind::None, ValueMeta::Kind::Tensor, ValueMeta::Kind::Tuple,
          ValueMeta::Kind::SymInt, ValueMeta::Kind::SymFloat, ValueMeta::Kind::SymBool, ValueMeta::Kind::Opaque})
        if (valueKindName(k) == s) return k;
    return std::nullopt;
}

// Exact text for a double: Python's repr (shortest digits that round-trip), "inf", "-inf",
// "nan"; a NaN other than the canonical quiet NaN keeps its bits: "nan:0x7ff4000000000001".
std::string floatText(double v)
{
    if (std::isnan(v)) {
        uint64_t bits = std::bit_cast<uint64_t>(v);
        if (bits == kCanonicalNanBits) return "nan";
        char buf[40];
        std::snprintf(buf, sizeof buf, "nan:0x%016llx", static_cast<unsigned long long>(bits));
        return buf;
    }
    return pythonFloatRepr(v);
}

std::optional<double> parseFloatText(std::string_view s)
{
    if (s == "inf") return std::numeric_limits<double>::infinity();
    if (s == "-inf") return -std::numeric_limits<double>::infinity();
    if (s == "nan") return std::bit_cast<double>(kCanonicalNanBits);
    if (s.substr(0, 6) == "nan:0x") {
        std::string_view hex = s.substr(6);
        if (hex.size() != 16) return std::nullopt;
        uint64_t bits = 0;
        auto [p, ec] = std::from_chars(hex.data(), hex.data() + hex.size(), bits, 16);
        if (ec != std::errc() || p != hex.data() + hex.size()) return std::nullopt;
        double d = std::bit_cast<double>(bits);
        if (!std::isnan(d)) return std::nullopt;
        return d;
    }
    if (s.empty()) return std::nullopt;
    // decimal only: from_chars would also take "infinity" / "nan(...)" spellings
    for (char c : s)
        if (!((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '-' || c == '+')) return std::nullopt;
    if (s[0] == '+') return std::nullopt;
    double d = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), d, std::chars_format::general);
    if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
    return d;
}

// ------------------------------------------------------------------ writer

json symIntToJson(const SymInt& v)
{
    if (v.isConcrete()) {
        int64_t x = *v.maybeValue();
        if (!v.hint()) return x;
        return json{{"int", x}, {"hint", *v.hint()}};
    }
    json o{{"expr", v.expr().str()}};
    if (v.hint()) o["hint"] = *v.hint();
    return o;
}

json valueMetaToJson(const ValueMeta& m)
{
    json o{{"kind", valueKindName(m.kind)}};
    switch (m.kind) {
    case ValueMeta::Kind::Unknown:
    case ValueMeta::Kind::None: break;
    case ValueMeta::Kind::Tensor: {
        const TensorMeta& t = m.tensor;
        o["dtype"] = std::string(dtypeTorchName(t.dtype));
        json sizes = json::array(), strides = json::array();
        for (const auto& s : t.sizes) sizes.push_back(symIntToJson(s));
        for (const auto& s : t.strides) strides.push_back(symIntToJson(s));
        o["sizes"] = std::move(sizes);
        o["strides"] = std::move(strides);
        if (!t.storageOffset.isConcrete() || t.storageOffset.hint() || *t.storageOffset.maybeValue() != 0)
            o["storage_offset"] = symIntToJson(t.storageOffset);
        o["device"] = t.device;
        break;
    }
    case ValueMeta::Kind::Tuple: {
        json e = json::array();
        for (const auto& x : m.elems) e.push_back(valueMetaToJson(x));
        o["elems"] = std::move(e);
        break;
    }
    case ValueMeta::Kind::SymInt:
    case ValueMeta::Kind::SymFloat:
    case ValueMeta::Kind::SymBool:
        o["expr"] = m.sym.str();
        if (m.symHint) o["hint"] = *m.symHint;
        break;
    case ValueMeta::Kind::Opaque: o["text"] = m.opaqueText; break;
    }
    if (!m.wrapperPrefix.empty()) o["wrapper_prefix"] = m.wrapperPrefix;
    if (!m.wrapperSuffix.empty()) o["wrapper_suffix"] = m.wrapperSuffix;
    return o;
}

json argToJson(const Arg& a, const Graph& g)
{
    switch (a.kind) {
    case Arg::Kind::None: return nullptr;
    case Arg::Kind::Node:
        if (!g.alive(a.node))
            throw std::invalid_argument("graphToJson: an argument refers to removed node id " + std::to_string(a.node));
        return json{{"node", g.node(a.node).name}};
    case Arg::Kind::Int: return a.i;
    case Arg::Kind::Float: return json{{"float", floatText(a.f)}};
    case Arg::Kind::Bool: return a.b;
    case Arg::Kind::Str: return a.s;
    case Arg::Kind::List:
    case Arg::Kind::Tuple:
    case Arg::Kind::Slice: {
        json items = json::array();
        for (const auto& x : a.items) items.push_back(argToJson(x, g));
        const char* key = a.kind == Arg::Kind::List ? "list" : a.kind == Arg::Kind::Tuple ? "tuple" : "slice";
        return json{{key, std::move(items)}};
    }
    case Arg::Kind::Dict: {
        json pairs = json::array();
        for (const auto& [k, v] : a.dict) pairs.push_back(json::array({argToJson(k, g), argToJson(v, g)}));
        return json{{"dict", std::move(pairs)}};
    }
    case Arg::Kind::DType: return json{{"dtype", std::string(dtypeTorchName(a.dtype))}};
    case Arg::Kind::Device: return json{{"device", a.s}};
    case Arg::Kind::Layout: return json{{"layout", a.s}};
    case Arg::Kind::MemoryFormat: return json{{"memory_format", a.s}};
    case Arg::Kind::Op: return json{{"op", a.s}};
    case Arg::Kind::Ellipsis: return json{{"ellipsis", true}};
    case Arg::Kind::Raw: return json{{"raw", a.s}};
    }
    return nullptr;
}

json nodeMetaToJson(const NodeMeta& m)
{
    json o = json::object();
    if (!m.modulePath.empty()) o["module_path"] = m.modulePath;
    const SourceLocation& s = m.source;
    if (!s.file.empty() || s.line != 0 || !s.function.empty() || !s.code.empty())
        o["source"] = json{{"file", s.file}, {"line", s.line}, {"function", s.function}, {"code", s.code}};
    if (m.recompute != Recompute::None) o["recompute"] = std::string(recomputeName(m.recompute));
    if (m.acGraphId) o["ac_graph_id"] = *m.acGraphId;
    if (!m.custom.is_null()) o["custom"] = m.custom;
    if (m.phase != Phase::Unknown) o["phase"] = std::string(phaseName(m.phase));
    if (m.autogradBackward) o["autograd_backward"] = *m.autogradBackward;
    if (!m.desc.empty()) o["desc"] = m.desc;
    if (!m.provenance.empty()) o["provenance"] = m.provenance;
    if (!m.chunk.is_null()) o["chunk"] = m.chunk;
    return o;
}

json nodeToJson(const Node& n, const Graph& g)
{
    json o;
    o["name"] = n.name;
    o["op"] = std::string(nodeOpName(n.op));
    o["target"] = n.target;
    json args = json::array();
    for (const auto& a : n.args) args.push_back(argToJson(a, g));
    o["args"] = std::move(args);
    json kwargs = json::array();
    for (const auto& [k, v] : n.kwargs) kwargs.push_back(json::array({k, argToJson(v, g)}));
    o["kwargs"] = std::move(kwargs);
    if (n.val.kind != ValueMeta::Kind::Unknown || !n.val.wrapperPrefix.empty() || !n.val.wrapperSuffix.empty())
        o["val"] = valueMetaToJson(n.val);
    json meta = nodeMetaToJson(n.meta);
    if (!meta.empty()) o["meta"] = std::move(meta);
    if (n.placeholderDefault) o["default"] = argToJson(*n.placeholderDefault, g);
    if (!n.typeExpr.empty()) o["type_expr"] = n.typeExpr;
    return o;
}

json graphObjToJson(const Graph& g)
{
    json o;
    o["class_name"] = g.className;
    o["signature"] = signatureName(g.signature);
    o["pytree_arg_names"] = g.pytreeArgNames;
    o["output_pytree"] = g.outputPytree;
    o["output_is_list"] = g.outputIsList;
    o["output_descs"] = g.outputDescs;
    json nodes = json::array();
    g.forEachNode([&](const Node& n) { nodes.push_back(nodeToJson(n, g)); });
    o["nodes"] = std::move(nodes);
    json subs = json::object();
    for (const auto& [name, sg] : g.subgraphs) {
        if (!sg) throw std::invalid_argument("graphToJson: nested graph '" + name + "' is null");
        subs[name] = graphObjToJson(*sg);
    }
    o["subgraphs"] = std::move(subs);
    return o;
}

// ------------------------------------------------------------------ text layout

std::string dumpValue(const json& v) { return v.dump(-1, ' ', false, json::error_handler_t::replace); }

// Writes the same document as graphToJson straight to text (no DOM: several times faster
// on 100k-node graphs), one node per line. json::parse of the text equals graphToJson.
class JsonTextWriter
{
public:
    explicit JsonTextWriter(std::string& out)
        : out_(out)
    { }

    void document(const Graph& g)
    {
        out_ += "{\"format\": ";
        str(kJsonFormatName);
        out_ += ", \"version\": " + std::to_string(kJsonFormatVersion) + ",\n\"graph\": ";
        graph(g, "");
        out_ += "}\n";
    }

private:
    std::string& out_;

    void str(std::string_view s)
    {
        bool ascii = true;
        for (unsigned char c : s) ascii = ascii && c < 0x80;
        if (!ascii) {  // let nlohmann check the UTF-8 (invalid bytes become U+FFFD)
            out_ += dumpValue(json(std::string(s)));
            return;
        }
        out_ += '"';
        for (unsigned char c : s) {
            switch (c) {
            case '"': out_ += "\\\""; break;
            case '\\': out_ += "\\\\"; break;
            case '\b': out_ += "\\b"; break;
            case '\f': out_ += "\\f"; break;
            case '\n': out_ += "\\n"; break;
            case '\r': out_ += "\\r"; break;
            case '\t': out_ += "\\t"; break;
            default:
                if (c < 0x20) {
                    char buf[8];
                    std::snprintf(buf, sizeof buf, "\\u%04x", c);
                    out_ += buf;
                } else {
                    out_ += static_cast<char>(c);
                }
            }
        }
        out_ += '"';
    }

    void key(std::string_view k)
    {
        str(k);
        out_ += ": ";
    }

    void integer(int64_t v) { out_ += std::to_string(v); }

    template<class F>
    void tagged(const char* kind, F&& body)
    {
        out_ += "{\"";
        out_ += kind;
        out_ += "\": ";
        body();
        out_ += '}';
    }

    void arg(const Arg& a, const Graph& g)
    {
        switch (a.kind) {
        case Arg::Kind::None: out_ += "null"; return;
        case Arg::Kind::Node:
            if (!g.alive(a.node))
                throw std::invalid_argument("graphToJson: an argument refers to removed node id "
                                            + std::to_string(a.node));
            tagged("node", [&] { str(g.node(a.node).name); });
            return;
        case Arg::Kind::Int: integer(a.i); return;
        case Arg::Kind::Float: tagged("float", [&] { str(floatText(a.f)); }); return;
        case Arg::Kind::Bool: out_ += a.b ? "true" : "false"; return;
        case Arg::Kind::Str: str(a.s); return;
        case Arg::Kind::List:
        case Arg::Kind::Tuple:
        case Arg::Kind::Slice:
            tagged(a.kind == Arg::Kind::List        ? "list"
                       : a.kind == Arg::Kind::Tuple ? "tuple"
                                                    : "slice",
                   [&] {
                       out_ += '[';
                       for (size_t i = 0; i < a.items.size(); ++i) {
                           if (i) out_ += ", ";
                           arg(a.items[i], g);
                       }
                       out_ += ']';
                   });
            return;
        case Arg::Kind::Dict:
            tagged("dict", [&] {
                out_ += '[';
                for (size_t i = 0; i < a.dict.size(); ++i) {
                    if (i) out_ += ", ";
                    out_ += '[';
                    arg(a.dict[i].first, g);
                    out_ += ", ";
                    arg(a.dict[i].second, g);
                    out_ += ']';
                }
                out_ += ']';
            });
            return;
        case Arg::Kind::DType: tagged("dtype", [&] { str(dtypeTorchName(a.dtype)); }); return;
        case Arg::Kind::Device: tagged("device", [&] { str(a.s); }); return;
        case Arg::Kind::Layout: tagged("layout", [&] { str(a.s); }); return;
        case Arg::Kind::MemoryFormat: tagged("memory_format", [&] { str(a.s); }); return;
        case Arg::Kind::Op: tagged("op", [&] { str(a.s); }); return;
        case Arg::Kind::Ellipsis: out_ += "{\"ellipsis\": true}"; return;
        case Arg::Kind::Raw: tagged("raw", [&] { str(a.s); }); return;
        }
    }

    // Any JSON value, spaced like the rest of the file (custom / chunk meta, symbolic sizes).
    void value(const json& v)
    {
        switch (v.type()) {
        case json::value_t::string: str(v.get_ref<const std::string&>()); return;
        case json::value_t::array:
            out_ += '[';
            for (size_t i = 0; i < v.size(); ++i) {
                if (i) out_ += ", ";
                value(v[i]);
            }
            out_ += ']';
            return;
        case json::value_t::object: {
            out_ += '{';
            bool first = true;
            for (auto it = v.begin(); it != v.end(); ++it) {
                if (!first) out_ += ", ";
                first = false;
                key(it.key());
                value(it.value());
            }
            out_ += '}';
            return;
        }
        default: out_ += dumpValue(v);  // numbers, booleans, null
        }
    }

    void symInt(const SymInt& v) { value(symIntToJson(v)); }

    void symInts(const std::vector<SymInt>& v)
    {
        out_ += '[';
        for (size_t i = 0; i < v.size(); ++i) {
            if (i) out_ += ", ";
            if (v[i].isConcrete() && !v[i].hint())
                integer(*v[i].maybeValue());
            else
                symInt(v[i]);
        }
        out_ += ']';
    }

    void valueMeta(const ValueMeta& m)
    {
        out_ += "{\"kind\": ";
        str(valueKindName(m.kind));
        switch (m.kind) {
        case ValueMeta::Kind::Unknown:
        case ValueMeta::Kind::None: break;
        case ValueMeta::Kind::Tensor: {
            const TensorMeta& t = m.tensor;
            out_ += ", \"dtype\": ";
            str(dtypeTorchName(t.dtype));
            out_ += ", \"sizes\": ";
            symInts(t.sizes);
            out_ += ", \"strides\": ";
            symInts(t.strides);
            if (!t.storageOffset.isConcrete() || t.storageOffset.hint() || *t.storageOffset.maybeValue() != 0) {
                out_ += ", \"storage_offset\": ";
                symInt(t.storageOffset);
            }
            out_ += ", \"device\": ";
            str(t.device);
            break;
        }
        case ValueMeta::Kind::Tuple:
            out_ += ", \"elems\": [";
            for (size_t i = 0; i < m.elems.size(); ++i) {
                if (i) out_ += ", ";
                valueMeta(m.elems[i]);
            }
            out_ += ']';
            break;
        case ValueMeta::Kind::SymInt:
        case ValueMeta::Kind::SymFloat:
        case ValueMeta::Kind::SymBool:
            out_ += ", \"expr\": ";
            str(m.sym.str());
            if (m.symHint) out_ += ", \"hint\": " + std::to_string(*m.symHint);
            break;
        case ValueMeta::Kind::Opaque:
            out_ += ", \"text\": ";
            str(m.opaqueText);
            break;
        }
        if (!m.wrapperPrefix.empty()) {
            out_ += ", \"wrapper_prefix\": ";
            str(m.wrapperPrefix);
        }
        if (!m.wrapperSuffix.empty()) {
            out_ += ", \"wrapper_suffix\": ";
            str(m.wrapperSuffix);
        }
        out_ += '}';
    }

    void node(const Node& n, const Graph& g)
    {
        out_ += "{\"name\": ";
        str(n.name);
        out_ += ", \"op\": ";
        str(nodeOpName(n.op));
        out_ += ", \"target\": ";
        str(n.target);
        out_ += ", \"args\": [";
        for (size_t i = 0; i < n.args.size(); ++i) {
            if (i) out_ += ", ";
            arg(n.args[i], g);
        }
        out_ += "], \"kwargs\": [";
        for (size_t i = 0; i < n.kwargs.size(); ++i) {
            if (i) out_ += ", ";
            out_ += '[';
            str(n.kwargs[i].first);
            out_ += ", ";
            arg(n.kwargs[i].second, g);
            out_ += ']';
        }
        out_ += ']';
        if (n.val.kind != ValueMeta::Kind::Unknown || !n.val.wrapperPrefix.empty() || !n.val.wrapperSuffix.empty()) {
            out_ += ", \"val\": ";
            valueMeta(n.val);
        }
        const json meta = nodeMetaToJson(n.meta);
        if (!meta.empty()) {
            out_ += ", \"meta\": ";
            value(meta);
        }
        if (n.placeholderDefault) {
            out_ += ", \"default\": ";
            arg(*n.placeholderDefault, g);
        }
        if (!n.typeExpr.empty()) {
            out_ += ", \"type_expr\": ";
            str(n.typeExpr);
        }
        out_ += '}';
    }

    void strings(const std::vector<std::string>& v)
    {
        out_ += '[';
        for (size_t i = 0; i < v.size(); ++i) {
            if (i) out_ += ", ";
            str(v[i]);
        }
        out_ += ']';
    }

    void graph(const Graph& g, const std::string& indent)
    {
        const std::string in = indent + "  ";
        out_ += "{\n" + in + "\"class_name\": ";
        str(g.className);
        out_ += ",\n" + in + "\"signature\": ";
        str(signatureName(g.signature));
        out_ += ",\n" + in + "\"pytree_arg_names\": ";
        strings(g.pytreeArgNames);
        out_ += ",\n" + in + "\"output_pytree\": " + (g.outputPytree ? "true" : "false");
        out_ += ",\n" + in + "\"output_is_list\": " + (g.outputIsList ? "true" : "false");
        out_ += ",\n" + in + "\"output_descs\": ";
        strings(g.outputDescs);
        out_ += ",\n" + in + "\"nodes\": [";
        bool first = true;
        g.forEachNode([&](const Node& n) {
            out_ += first ? "\n" : ",\n";
            first = false;
            out_ += in + "  ";
            node(n, g);
        });
        out_ += first ? "]" : "\n" + in + "]";
        out_ += ",\n" + in + "\"subgraphs\": {";
        first = true;
        for (const auto& [name, sg] : g.subgraphs) {
            if (!sg) throw std::invalid_argument("graphToJson: nested graph '" + name + "' is null");
            out_ += first ? "\n" : ",\n";
            first = false;
            out_ += in + "  ";
            key(name);
            graph(*sg, in + "  ");
        }
        out_ += first ? "}" : "\n" + in + "}";
        out_ += "\n" + indent + "}";
    }
};

// ------------------------------------------------------------------ reader

// A content error before it gets a file position.
struct ContentError
{
    std::string pointer;
    std::string message;
};

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
    [[noreturn]] static void fail(const Path& ptr, const std::string& msg) { throw ContentError{ptr.str(), msg}; }
    [[noreturn]] static void fail(const char* pointer, const std::string& msg) { throw ContentError{pointer, msg}; }

    static std::string shortDump(const json& v)
    {
        std::string s = dumpValue(v);
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
            if (d > kMaxDepth) fail(ptr, "nested deeper than " + std::to_string(kMaxDepth) + " levels");
            if (x->is_structured())
                for (const auto& c : *x) stack.emplace_back(&c, d + 1);
        }
    }

    static void checkDepth(int depth, const Path& ptr)
    {
        if (depth > kMaxDepth) fail(ptr, "nested deeper than " + std::to_string(kMaxDepth) + " levels");
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
            auto d = parseFloatText(text);
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

// ------------------------------------------------------------------ positions in the text

struct LineCol
{
    int line = 0, column = 0;
};

LineCol lineColAt(std::string_view text, size_t offset)
{
    offset = std::min(offset, text.size());
    LineCol lc{1, 1};
    size_t lineStart = 0;
    for (size_t i = 0; i < offset; ++i)
        if (text[i] == '\n') {
            ++lc.line;
            lineStart = i + 1;
        }
    lc.column = static_cast<int>(offset - lineStart) + 1;
    return lc;
}

// The keys of one JSON object: a short list, or a hash set once it grows.
struct ObjectKeys
{
    std::vector<std::string_view> few;
    std::unordered_set<std::string_view> many;
    bool insert(std::string_view k)
    {
        if (few.size() < 16) {
            for (auto x : few)
                if (x == k) return false;
            few.push_back(k);
            return true;
        }
        if (many.empty()) many.insert(few.begin(), few.end());
        return many.insert(k).second;
    }
};

// Walks JSON text that nlohmann has already accepted (so it is well formed).
class JsonTextWalker
{
public:
    explicit JsonTextWalker(std::string_view t)
        : text_(t)
    { }

    // Offset of the value a JSON pointer names (as far as it exists).
    size_t locate(const std::string& pointer)
    {
        std::vector<std::string> tokens;
        size_t i = 0;
        while (i < pointer.size()) {
            size_t j = pointer.find('/', i + 1);
            if (j == std::string::npos) j = pointer.size();
            std::string tok;
            for (size_t k = i + 1; k < j; ++k) {
                if (pointer[k] == '~' && k + 1 < j) {
                    tok += pointer[k + 1] == '1' ? '/' : '~';
                    ++k;
                } else {
                    tok += pointer[k];
                }
            }
            tokens.push_back(std::move(tok));
            i = j;
        }
        size_t pos = skipWs(0);
        for (const auto& tok : tokens) {
            if (pos >= text_.size()) break;
            if (text_[pos] == '{') {
                size_t p = skipWs(pos + 1);
                bool found = false;
                while (p < text_.size() && text_[p] == '"') {
                    size_t keyStart = p;
                    std::string key = readString(p);
                    p = skipWs(p);
                    if (p < text_.size() && text_[p] == ':') p = skipWs(p + 1);
                    if (key == tok) {
                        pos = p;
                        found = true;
                        break;
                    }
                    (void)keyStart;
                    p = skipWs(skipValue(p));
                    if (p < text_.size() && text_[p] == ',') p = skipWs(p + 1);
                }
                if (!found) return pos;
            } else if (text_[pos] == '[') {
                size_t idx = 0;
                auto [ptr, ec] = std::from_chars(tok.data(), tok.data() + tok.size(), idx);
                if (ec != std::errc() || ptr != tok.data() + tok.size()) return pos;
                size_t p = skipWs(pos + 1);
                size_t k = 0;
                while (k < idx && p < text_.size() && text_[p] != ']') {
                    p = skipWs(skipValue(p));
                    if (p < text_.size() && text_[p] == ',') p = skipWs(p + 1);
                    ++k;
                }
                if (k != idx || p >= text_.size() || text_[p] == ']') return pos;
                pos = p;
            } else {
                return pos;
            }
        }
        return pos;
    }

    // Offset of the first key repeated in an object, if any (nlohmann keeps one of them
    // silently). Iterative, so deep nesting is fine.
    std::optional<std::pair<size_t, std::string>> findDuplicateKey()
    {
        std::vector<ObjectKeys> objects;  // one per open object
        std::vector<char> stack;
        std::deque<std::string> decoded;  // stable storage for keys written with escapes
        size_t p = 0;
        bool expectKey = false;
        while (p < text_.size()) {
            char c = text_[p];
            if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',' || c == ':') {
                if (c == ',' && !stack.empty() && stack.back() == '{') expectKey = true;
                ++p;
                continue;
            }
            if (c == '{') {
                stack.push_back('{');
                objects.emplace_back();
                expectKey = true;
                ++p;
            } else if (c == '[') {
                stack.push_back('[');
                expectKey = false;
                ++p;
            } else if (c == '}' || c == ']') {
                if (!stack.empty()) {
                    if (stack.back() == '{') objects.pop_back();
                    stack.pop_back();
                }
                expectKey = false;
                ++p;
            } else if (c == '"') {
                const size_t start = p;
                skipString(p);
                if (expectKey && !objects.empty()) {
                    std::string_view key = text_.substr(start + 1, p - start - 2);
                    if (key.find('\\') != std::string_view::npos) {
                        size_t q = start;
                        decoded.push_back(readString(q));
                        key = decoded.back();
                    }
                    if (!objects.back().insert(key)) {
                        size_t q = start;
                        return std::make_pair(start, readString(q));
                    }
                    expectKey = false;
                }
            } else {
                p = skipScalar(p);
            }
        }
        return std::nullopt;
    }

private:
    size_t skipWs(size_t p) const
    {
        while (p < text_.size() && (text_[p] == ' ' || text_[p] == '\t' || text_[p] == '\n' || text_[p] == '\r')) ++p;
        return p;
    }

    size_t skipScalar(size_t p) const
    {
        while (p < text_.size() && text_[p] != ',' && text_[p] != '}' && text_[p] != ']' && text_[p] != ' '
               && text_[p] != '\n' && text_[p] != '\t' && text_[p] != '\r' && text_[p] != ':')
            ++p;
        return p;
    }

    // Skips a string at p (on the opening quote); p ends after the closing quote.
    void skipString(size_t& p) const
    {
        ++p;
        while (p < text_.size() && text_[p] != '"') p += text_[p] == '\\' ? 2 : 1;
        ++p;
    }

    // Reads a string at p (on the opening quote); p ends after the closing quote.
    std::string readString(size_t& p) const
    {
        std::string out;
        ++p;
        while (p < text_.size() && text_[p] != '"') {
            if (text_[p] == '\\' && p + 1 < text_.size()) {
                char e = text_[p + 1];
                p += 2;
                switch (e) {
                case 'n': out += '\n'; break;
                case 't': out += '\t'; break;
                case 'r': out += '\r'; break;
                case 'b': out += '\b'; break;
                case 'f': out += '\f'; break;
                case 'u': {
                    unsigned cp = 0;
                    if (p + 4 <= text_.size()) std::from_chars(text_.data() + p, text_.data() + p + 4, cp, 16);
                    p += 4;
                    if (cp >= 0xD800 && cp <= 0xDBFF && p + 6 <= text_.size() && text_[p] == '\\'
                        && text_[p + 1] == 'u') {
                        unsigned lo = 0;
                        std::from_chars(text_.data() + p + 2, text_.data() + p + 6, lo, 16);
                        if (lo >= 0xDC00 && lo <= 0xDFFF) {  // a pair; otherwise the lone half is replaced
                            p += 6;
                            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                        }
                    }
                    appendUtf8(out, cp);
                    break;
                }
                default: out += e;
                }
            } else {
                out += text_[p++];
            }
        }
        ++p;
        return out;
    }

    // Skips one value starting at p (no leading whitespace). Iterative over brackets.
    size_t skipValue(size_t p) const
    {
        if (p >= text_.size()) return p;
        char c = text_[p];
        if (c == '"') {
            skipString(p);
            return p;
        }
        if (c != '{' && c != '[') return skipScalar(p);
        int depth = 0;
        while (p < text_.size()) {
            c = text_[p];
            if (c == '"') {
                skipString(p);
                continue;
            }
            if (c == '{' || c == '[')
                ++depth;
            else if (c == '}' || c == ']') {
                --depth;
                if (depth == 0) return p + 1;
            }
            ++p;
        }
        return p;
    }

    std::string_view text_;
};

// "[json.exception.parse_error.101] parse error at line 1, column 2: syntax error ..." ->
// "syntax error ..." (we give the position ourselves).
std::string parseErrorText(const std::string& what)
{
    static constexpr std::string_view kMarker = "column ";
    size_t m = what.find(kMarker);
    if (m != std::string::npos) {
        size_t colon = what.find(": ", m);
        if (colon != std::string::npos) return what.substr(colon + 2);
    }
    size_t b = what.find("] ");
    return b == std::string::npos ? what : what.substr(b + 2);
}

}  // namespace

// ------------------------------------------------------------------ public API

json graphToJson(const Graph& g)
{
    json doc;
    doc["format"] = kJsonFormatName;
    doc["version"] = kJsonFormatVersion;
    doc["graph"] = graphObjToJson(g);
    return doc;
}

Graph graphFromJson(const json& j, const std::string& file)
{
    try {
        return JsonGraphReader().readDocument(j);
    } catch (const ContentError& e) {
        throw InputError(file, 0, 0, (e.pointer.empty() ? std::string("(document)") : e.pointer) + ": " + e.message);
    }
}

std::string formatGraphJson(const Graph& g)
{
    std::string out;
    JsonTextWriter(out).document(g);
    return out;
}

void writeGraphJson(const std::string& path, const Graph& g)
{
    namespace fs = std::filesystem;
    const std::string text = formatGraphJson(g);
    std::random_device rd;
    const fs::path target(path);
    const fs::path tmp =
        target.parent_path() / (target.filename().string() + ".tmp" + std::to_string(rd()) + std::to_string(rd()));
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out) throw std::runtime_error("cannot write " + tmp.string() + ": " + std::strerror(errno));
        out.write(text.data(), static_cast<std::streamsize>(text.size()));
        out.flush();
        if (!out) {
            std::error_code ec;
            fs::remove(tmp, ec);
            throw std::runtime_error("cannot write " + tmp.string() + ": " + std::strerror(errno));
        }
    }
    std::error_code ec;
    fs::rename(tmp, target, ec);
    if (ec) {
        std::error_code ignored;
        fs::remove(tmp, ignored);
        throw std::runtime_error("cannot replace " + path + ": " + ec.message());
    }
}

Graph parseGraphJson(std::string_view text, const std::string& file)
{
    json doc;
    try {
        doc = json::parse(text.begin(), text.end());
    } catch (const json::parse_error& e) {
        // e.byte is 1-based: the offset just past the character that failed.
        size_t off = e.byte > 0 ? e.byte - 1 : 0;
        LineCol lc = lineColAt(text, off);
        throw InputError(file, lc.line, lc.column, "invalid JSON: " + parseErrorText(e.what()));
    } catch (const json::exception& e) {
        // e.g. out_of_range 406 "number overflow parsing '1e999'": no offset given, so find
        // the quoted text in the input
        std::string what = e.what();
        size_t q1 = what.find('\''), q2 = what.rfind('\'');
        size_t at = std::string::npos;
        if (q1 != std::string::npos && q2 > q1 + 1) at = text.find(what.substr(q1 + 1, q2 - q1 - 1));
        LineCol lc = at == std::string::npos ? LineCol{1, 1} : lineColAt(text, at);
        throw InputError(file, lc.line, lc.column, "invalid JSON: " + parseErrorText(what));
    }
    JsonTextWalker walker(text);
    if (auto dup = walker.findDuplicateKey()) {
        LineCol lc = lineColAt(text, dup->first);
        throw InputError(file, lc.line, lc.column, "duplicate key \"" + dup->second + "\" in a JSON object");
    }
    try {
        return JsonGraphReader().readDocument(doc);
    } catch (const ContentError& e) {
        LineCol lc = lineColAt(text, walker.locate(e.pointer));
        throw InputError(file, lc.line, lc.column,
                         (e.pointer.empty() ? std::string("(document)") : e.pointer) + ": " + e.message);
    }
}

Graph readGraphJson(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path, 0, 0, std::string("cannot open the file: ") + std::strerror(errno));
    std::ostringstream ss;
    ss << in.rdbuf();
    if (in.bad()) throw InputError(path, 0, 0, "cannot read the file");
    return parseGraphJson(ss.str(), path);
}

bool looksLikeGraphJson(std::string_view head)
{
    size_t i = head.find_first_not_of(" \t\r\n");
    if (i == std::string_view::npos || head[i] != '{') return false;
    return head.find("\"fxlens-graph\"") != std::string_view::npos;
}

}  // namespace fxl
