#include "core/formats/sidecar.hpp"

#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <type_traits>
#include <unordered_set>
#include <utility>

#include "core/formats/json_text_position.hpp"
#include "core/formats/safetensors.hpp"
#include "core/formats/sidecar_scan.hpp"

namespace fxl {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

bool isFile(const fs::path& p)
{
    std::error_code ec;
    return fs::is_regular_file(p, ec);
}

std::string readText(const std::string& path)
{
    std::error_code ec;
    if (fs::is_directory(path, ec)) throw InputError(path, 0, 0, "cannot read: is a directory");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path, 0, 0, "cannot open");
    std::string out;
    if (const auto size = fs::file_size(path, ec); !ec) out.reserve(static_cast<size_t>(size));
    char buf[1 << 16];
    while (in.read(buf, sizeof buf) || in.gcount() > 0) out.append(buf, static_cast<size_t>(in.gcount()));
    if (in.bad()) throw InputError(path, 0, 0, "read error");
    return out;
}

// Parses JSON text; a syntax error becomes an InputError at its line and column.
json parseJson(const std::string& text, const std::string& path)
{
    try {
        return json::parse(text);
    } catch (const json::parse_error& e) {
        // e.byte is the 1-based offset of the offending character
        TextPosition at = textPositionAt(text, e.byte > 0 ? e.byte - 1 : 0);
        std::string what = e.what();
        if (auto p = what.find("] "); p != std::string::npos) what = what.substr(p + 2);
        throw InputError(path, at.line, at.column, "not valid JSON: " + what);
    } catch (const json::exception& e) {  // a number out of a double's range, ...
        std::string what = e.what();
        if (auto p = what.find("] "); p != std::string::npos) what = what.substr(p + 2);
        throw InputError(path, 0, 0, "not valid JSON: " + what);
    }
}

std::optional<DType> dtypeFromMeta(std::string_view s)
{
    if (s.starts_with("torch.")) s.remove_prefix(6);
    return dtypeFromTorchName(s);
}

bool readInts(const json& j, std::vector<SymInt>& out, bool allowNegative)
{
    if (!j.is_array()) return false;
    out.clear();
    out.reserve(j.size());
    for (const auto& v : j) {
        if (v.is_number_unsigned()) {
            uint64_t u = v.get<uint64_t>();
            if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return false;
            out.emplace_back(static_cast<int64_t>(u));
        } else if (v.is_number_integer()) {
            int64_t i = v.get<int64_t>();
            if (i < 0 && !allowNegative) return false;
            out.emplace_back(i);
        } else {
            return false;
        }
    }
    return true;
}

// tensor_meta: {dtype, shape, stride} or a list of them (tuple outputs), lists may hold null.
bool valueFromMeta(const json& j, ValueMeta& out, std::string& why, int depth = 0)
{
    if (depth > 32) {
        why = "tensor_meta nested too deeply";
        return false;
    }
    if (j.is_null()) {
        out = ValueMeta{};
        return true;
    }
    if (j.is_array()) {
        out = ValueMeta{};
        out.kind = ValueMeta::Kind::Tuple;
        out.elems.resize(j.size());
        for (size_t i = 0; i < j.size(); ++i)
            if (!valueFromMeta(j[i], out.elems[i], why, depth + 1)) return false;
        return true;
    }
    if (!j.is_object()) {
        why = "tensor_meta must be an object {dtype, shape, stride}, a list of them, or null";
        return false;
    }
    auto dt = j.find("dtype");
    if (dt == j.end() || !dt->is_string()) {
        why = "tensor_meta has no dtype string";
        return false;
    }
    auto dtype = dtypeFromMeta(dt->get_ref<const std::string&>());
    if (!dtype) {
        why = "unknown dtype '" + dt->get<std::string>() + "'";
        return false;
    }
    TensorMeta t;
    t.dtype = *dtype;
    t.device = "cpu";  // the corpus tracer ran on CPU; the files record no device
    auto sh = j.find("shape");
    if (sh == j.end() || !readInts(*sh, t.sizes, false)) {
        why = "tensor_meta shape must be a list of non-negative integers";
        return false;
    }
    auto st = j.find("stride");
    if (st != j.end() && !st->is_null()) {
        if (!readInts(*st, t.strides, true) || t.strides.size() != t.sizes.size()) {
            why = "tensor_meta stride must be a list of integers, one per dimension";
            return false;
        }
    }
    out = ValueMeta{};
    out.kind = ValueMeta::Kind::Tensor;
    out.tensor = std::move(t);
    return true;
}

// Emits at most kMaxListed warnings of one kind, then one that counts the rest.
constexpr size_t kMaxListed = 10;

}  // namespace

namespace {

// The graph file's name less .code.py, .graph.txt or (any other name) its last extension.
std::string graphFileStem(const fs::path& p)
{
    const std::string file = p.filename().string();
    std::string stem = file;
    for (std::string_view suffix : {".code.py", ".graph.txt"}) {
        if (stem.size() > suffix.size() && stem.compare(stem.size() - suffix.size(), suffix.size(), suffix) == 0) {
            stem.resize(stem.size() - suffix.size());
            break;
        }
    }
    if (stem == file) {  // some other extension: drop the last one
        if (auto dot = stem.rfind('.'); dot != std::string::npos && dot > 0) stem.resize(dot);
    }
    return stem;
}

}  // namespace

std::string constantsSidecarPath(const std::string& graphPath)
{
    const fs::path p(graphPath);
    return (p.parent_path() / (graphFileStem(p) + ".constants.safetensors")).string();
}

SidecarFiles findSidecars(const std::string& graphPath)
{
    SidecarFiles out;
    fs::path p(graphPath);
    fs::path dir = p.parent_path();
    const std::string stem = graphFileStem(p);

    // NAME: the longest dotted prefix of the stem that has a sidecar.
    auto at = [&](const std::string& name, const char* suffix) { return (dir / (name + suffix)).string(); };
    out.name = stem;
    for (size_t end = stem.size(); end != std::string::npos && end > 0;) {
        std::string name = stem.substr(0, end);
        if (isFile(at(name, ".meta.json")) || isFile(at(name, ".inputs.safetensors"))
            || isFile(at(name, ".params.json"))) {
            out.name = name;
            break;
        }
        end = end > 0 ? stem.rfind('.', end - 1) : std::string::npos;
    }
    out.part = out.name.size() < stem.size() ? stem.substr(out.name.size() + 1) : std::string();

    if (isFile(at(out.name, ".meta.json"))) out.meta = at(out.name, ".meta.json");
    if (isFile(at(out.name, ".inputs.safetensors"))) out.inputs = at(out.name, ".inputs.safetensors");
    if (isFile(at(out.name, ".params.json"))) out.params = at(out.name, ".params.json");
    // constants belong to this very graph file (joint, fw.mincut, ...)
    if (const std::string constants = constantsSidecarPath(graphPath); isFile(constants)) out.constants = constants;
    return out;
}

SidecarMeta readSidecarMeta(const std::string& path)
{
    const std::string text = readText(path);
    if (std::optional<SidecarMeta> fast = scanSidecarMeta(text, path)) return std::move(*fast);
    return readSidecarMetaJson(text, path);
}

SidecarMeta readSidecarMetaJson(const std::string& text, const std::string& path)
{
    json root = parseJson(text, path);
    if (!root.is_object()) throw InputError(path, 1, 1, "expected a JSON object with a \"nodes\" list");
    auto nodesIt = root.find("nodes");
    if (nodesIt == root.end() || !nodesIt->is_array())
        throw InputError(path, 1, 1, "expected a \"nodes\" list of {name, op, target, tensor_meta, ...}");
    const json& nodes = *nodesIt;

    SidecarMeta out;
    out.path = path;
    out.nodes.reserve(nodes.size());
    std::unordered_set<std::string> seen;
    seen.reserve(nodes.size());
    for (size_t i = 0; i < nodes.size(); ++i) {
        const json& jn = nodes[i];
        std::string where = "nodes[" + std::to_string(i) + "]";
        if (!jn.is_object()) throw InputError(path, 0, 0, where + " must be an object {name, op, ...}");
        auto nameIt = jn.find("name");
        auto opIt = jn.find("op");
        if (nameIt == jn.end() || !nameIt->is_string()) throw InputError(path, 0, 0, where + " has no \"name\" string");
        if (opIt == jn.end() || !opIt->is_string()) throw InputError(path, 0, 0, where + " has no \"op\" string");
        SidecarNodeMeta m;
        m.name = nameIt->get<std::string>();
        if (!seen.insert(m.name).second) {
            out.duplicateNames.push_back(m.name);
            continue;
        }
        m.op = opIt->get<std::string>();
        if (auto t = jn.find("target"); t != jn.end() && t->is_string()) m.target = t->get<std::string>();
        if (!nodeOpFromName(m.op)) m.error = "unknown op '" + m.op + "'";

        auto tm = jn.find("tensor_meta");
        if (m.error.empty() && tm != jn.end() && !tm->is_null()) {
            std::string why;
            if (valueFromMeta(*tm, m.val, why))
                m.hasVal = true;
            else
                m.error = why;
        }
        auto mp = jn.find("module_path");
        if (mp != jn.end() && !mp->is_null()) {
            if (mp->is_string())
                m.modulePath = mp->get<std::string>();
            else if (m.error.empty())
                m.error = "module_path must be a string";
        }
        auto ph = jn.find("phase");
        if (ph != jn.end() && !ph->is_null()) {
            if (ph->is_string() && ph->get_ref<const std::string&>().empty())
                m.phase = Phase::Unknown;
            else if (ph->is_string())
                m.phase = phaseFromName(ph->get_ref<const std::string&>());
            if (!m.phase) m.warning = "unknown phase " + ph->dump() + " ignored";
        }
        out.nodes.push_back(std::move(m));
    }
    return out;
}

namespace {

// attachSidecarMeta with the metas copied (a meta shared by several graphs) or moved.
template<typename Meta>
void attachMeta(Graph& g, Meta&& meta, DiagnosticList& diags)
{
    constexpr bool kMove = std::is_rvalue_reference_v<Meta&&>;
    const std::string path = meta.path;
    for (const auto& d : meta.duplicateNames)
        diags.error(path, 0, 0, "node '" + d + "' appears twice in the meta file; the second is ignored");

    // the graph's nodes the meta names (names are unique in both)
    std::vector<bool> inMeta;
    std::vector<std::string_view> notInGraph;
    for (auto& m : meta.nodes) {
        NodeId id = g.findByName(m.name);
        if (id == kNoNode) {
            notInGraph.push_back(m.name);
            continue;
        }
        if (inMeta.size() <= static_cast<size_t>(id)) inMeta.resize(static_cast<size_t>(id) + 1 + inMeta.size() / 2);
        inMeta[static_cast<size_t>(id)] = true;
        Node& n = g.node(id);
        if (!m.error.empty()) {
            diags.error(path, 0, 0, "node '" + m.name + "': " + m.error);
            continue;
        }
        if (*nodeOpFromName(m.op) != n.op) {
            diags.error(path, 0, 0,
                        "node '" + m.name + "' is a " + m.op + " in the meta file but a "
                            + std::string(nodeOpName(n.op)) + " in the graph");
            continue;
        }
        if (!m.warning.empty()) diags.warn(path, 0, 0, "node '" + m.name + "': " + m.warning);
        if (m.hasVal) {
            if constexpr (kMove)
                n.val = std::move(m.val);
            else
                n.val = m.val;
        }
        if (m.modulePath) n.meta.modulePath = *m.modulePath;
        if (m.phase) n.meta.phase = *m.phase;
    }

    for (size_t i = 0; i < notInGraph.size() && i < kMaxListed; ++i)
        diags.warn(path, 0, 0, "node '" + std::string(notInGraph[i]) + "' of the meta file is not in the graph");
    if (notInGraph.size() > kMaxListed)
        diags.warn(path, 0, 0,
                   "... and " + std::to_string(notInGraph.size() - kMaxListed)
                       + " more nodes of the meta file are not in the graph");

    size_t missing = 0;
    g.forEachNode([&](const Node& n) {
        if (static_cast<size_t>(n.id) < inMeta.size() && inMeta[static_cast<size_t>(n.id)]) return;
        if (missing < kMaxListed) diags.warn(path, 0, 0, "graph node '" + n.name + "' has no entry in the meta file");
        ++missing;
    });
    if (missing > kMaxListed)
        diags.warn(path, 0, 0,
                   "... and " + std::to_string(missing - kMaxListed)
                       + " more graph nodes have no entry in the meta file");
}

}  // namespace

void attachSidecarMeta(Graph& g, const SidecarMeta& meta, DiagnosticList& diags) { attachMeta(g, meta, diags); }

void attachSidecarMeta(Graph& g, SidecarMeta&& meta, DiagnosticList& diags) { attachMeta(g, std::move(meta), diags); }

void attachSidecarMeta(Graph& g, const std::string& metaJsonPath, DiagnosticList& diags)
{
    attachSidecarMeta(g, readSidecarMeta(metaJsonPath), diags);
}

std::map<std::string, TensorMeta> inputMetasFromSafetensors(const std::string& path)
{
    SafeTensorsFile f = readSafetensorsHeader(path);
    std::map<std::string, TensorMeta> out;
    for (const auto& t : f.tensors) {
        TensorMeta m;
        m.dtype = t.dtype;
        m.device = "cpu";
        m.sizes.assign(t.shape.begin(), t.shape.end());
        // safetensors data are C-contiguous
        m.strides.resize(t.shape.size());
        int64_t s = 1;
        for (size_t i = t.shape.size(); i-- > 0;) {
            m.strides[i] = s;
            // PyTorch treats a 0 dimension as 1 here; a 0-element tensor can have huge dims
            if (t.shape[i] > 1 && __builtin_mul_overflow(s, t.shape[i], &s)) s = std::numeric_limits<int64_t>::max();
        }
        out.emplace(t.name, std::move(m));
    }
    return out;
}

ParamsInfo readParamsJson(const std::string& path)
{
    json j = parseJson(readText(path), path);
    if (!j.is_object()) throw InputError(path, 1, 1, "expected {\"data_inputs\": N, \"parameter_fqns\": [...]}");
    ParamsInfo out;
    auto di = j.find("data_inputs");
    if (di == j.end() || !di->is_number_integer() || di->get<int64_t>() < 0
        || di->get<int64_t>() > std::numeric_limits<int>::max())
        throw InputError(path, 0, 0, "\"data_inputs\" must be a non-negative integer");
    out.numDataInputs = static_cast<int>(di->get<int64_t>());
    auto fq = j.find("parameter_fqns");
    if (fq == j.end() || !fq->is_array()) throw InputError(path, 0, 0, "\"parameter_fqns\" must be a list of strings");
    for (const auto& s : *fq) {
        if (!s.is_string()) throw InputError(path, 0, 0, "\"parameter_fqns\" must be a list of strings");
        out.paramFqns.push_back(s.get<std::string>());
    }
    return out;
}

}  // namespace fxl
