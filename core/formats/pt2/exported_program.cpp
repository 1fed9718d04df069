#include "core/formats/pt2/exported_program.hpp"

#include <cctype>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "core/formats/json_text_position.hpp"
#include "core/ops/op_registry.hpp"

namespace fxl {

namespace {

using json = nlohmann::json;

std::string childPtr(const std::string& ptr, std::string_view key)
{
    std::string out = ptr + "/";
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
std::string childPtr(const std::string& ptr, size_t i) { return ptr + "/" + std::to_string(i); }

// torch/_export/serde/schema.py ScalarType (the schema's own numbers, not c10's)
std::optional<DType> scalarType(int64_t v)
{
    switch (v) {
    case 1: return DType::U8;
    case 2: return DType::I8;
    case 3: return DType::I16;
    case 4: return DType::I32;
    case 5: return DType::I64;
    case 6: return DType::F16;
    case 7: return DType::F32;
    case 8: return DType::F64;
    case 10: return DType::C64;
    case 11: return DType::C128;
    case 12: return DType::Bool;
    case 13: return DType::BF16;
    case 28: return DType::U16;
    case 29: return DType::F8E4M3FN;
    case 30: return DType::F8E5M2;
    case 31: return DType::F8E4M3FNUZ;
    case 32: return DType::F8E5M2FNUZ;
    default: return std::nullopt;
    }
}

std::optional<std::string> memoryFormat(int64_t v)
{
    switch (v) {
    case 1: return "contiguous_format";
    case 2: return "channels_last";
    case 3: return "channels_last_3d";
    case 4: return "preserve_format";
    default: return std::nullopt;
    }
}

std::optional<std::string> layout(int64_t v)
{
    switch (v) {
    case 1: return "sparse_coo";
    case 2: return "sparse_csr";
    case 3: return "sparse_csc";
    case 4: return "sparse_bsr";
    case 5: return "sparse_bsc";
    case 6: return "_mkldnn";
    case 7: return "strided";
    default: return std::nullopt;
    }
}

// "L['self'].layers[0].attn", "getattr(L['self'].layers, '0')", "layers.0" -> "layers.0.attn"
std::string modulePathOf(std::string p)
{
    // getattr(X, 'n') -> X.n
    for (size_t at; (at = p.find("getattr(")) != std::string::npos;) {
        const size_t comma = p.find(", '", at), close = p.find("')", at);
        if (comma == std::string::npos || close == std::string::npos || close < comma) break;
        p = p.substr(0, at) + p.substr(at + 8, comma - at - 8) + "." + p.substr(comma + 3, close - comma - 3)
            + p.substr(close + 2);
    }
    std::string out;
    for (size_t i = 0; i < p.size();) {
        if (p.compare(i, 9, "L['self']") == 0) {
            i += 9;
        } else if (p.compare(i, 10, "._modules[") == 0) {
            i += 9;
        } else if (p[i] == '[') {
            size_t close = p.find(']', i);
            if (close == std::string::npos) close = p.size();
            std::string key = p.substr(i + 1, close - i - 1);
            if (key.size() >= 2 && (key.front() == '\'' || key.front() == '"')) key = key.substr(1, key.size() - 2);
            out += "." + key;
            i = close + 1;
        } else {
            out += p[i++];
        }
    }
    while (!out.empty() && out.front() == '.') out.erase(0, 1);
    return out;
}

// The innermost module of "key,path,type;key,path,type" (a path may hold commas).
std::string innermostModule(const std::string& stack)
{
    std::string last = stack;
    if (const size_t semi = stack.rfind(';'); semi != std::string::npos) last = stack.substr(semi + 1);
    const size_t first = last.find(','), lastComma = last.rfind(',');
    if (first == std::string::npos || lastComma == first) return "";
    return modulePathOf(last.substr(first + 1, lastComma - first - 1));
}

// The last frame of a Python traceback: File "f.py", line 12, in forward \n    code
SourceLocation lastFrame(const std::string& trace)
{
    SourceLocation s;
    const size_t at = trace.rfind("File \"");
    if (at == std::string::npos) return s;
    const size_t q = trace.find('"', at + 6);
    if (q == std::string::npos) return s;
    s.file = trace.substr(at + 6, q - at - 6);
    size_t pos = q + 1;
    if (trace.compare(pos, 7, ", line ") == 0) {
        pos += 7;
        while (pos < trace.size() && std::isdigit(static_cast<unsigned char>(trace[pos])))
            s.line = s.line * 10 + (trace[pos++] - '0');
    }
    if (trace.compare(pos, 5, ", in ") == 0) {
        const size_t eol = trace.find('\n', pos);
        s.function = trace.substr(pos + 5, (eol == std::string::npos ? trace.size() : eol) - pos - 5);
        pos = eol == std::string::npos ? trace.size() : eol + 1;
        const size_t end = trace.find('\n', pos);
        std::string code = trace.substr(pos, (end == std::string::npos ? trace.size() : end) - pos);
        const size_t b = code.find_first_not_of(" \t");
        s.code = b == std::string::npos ? "" : code.substr(b);
    }
    return s;
}

struct Member
{
    std::string name;
    const json* value = nullptr;
    std::string ptr;
};

class ProgramReader
{
public:
    ProgramReader(std::string_view text, const std::string& file, const std::set<std::string>& weights,
                  DiagnosticList& diags)
        : text_(text)
        , file_(file)
        , weights_(weights)
        , diags_(diags)
    { }

    ExportedProgram read()
    {
        json doc;
        try {
            doc = json::parse(text_);
        } catch (const json::parse_error& e) {
            const TextPosition p = textPositionAt(text_, e.byte > 0 ? e.byte - 1 : 0);
            throw InputError(file_, p.line, p.column, "invalid JSON: " + jsonParseErrorText(e.what()));
        }
        if (!doc.is_object()) fail("", "expected an ExportedProgram (a JSON object)");
        ExportedProgram ep;
        readVersion(doc, ep.info);
        if (const json* v = field(doc, "torch_version"); v && v->is_string())
            ep.info.torchVersion = v->get<std::string>();
        if (const json* v = field(doc, "verifiers"); v && v->is_array()) {
            for (const json& s : *v)
                if (s.is_string()) ep.info.verifiers.push_back(s.get<std::string>());
        } else if (const json* d = field(doc, "dialect"); d && d->is_string()) {
            ep.info.verifiers.push_back(d->get<std::string>());
        }
        if (const json* rc = field(doc, "range_constraints"); rc && rc->is_object())
            for (const auto& [sym, r] : rc->items()) {
                const std::string p = childPtr("/range_constraints", sym);
                if (!r.is_object()) fail(p, "expected {min_val, max_val}");
                ep.info.rangeConstraints[sym] = {bound(r, "min_val", p), bound(r, "max_val", p)};
            }
        const json& gm = need(doc, "graph_module", "");
        const json& sig = need(gm, "signature", "/graph_module");
        ep.info.signature = readSignature(sig, "/graph_module/signature");
        ep.graph = buildGraph(need(gm, "graph", "/graph_module"), "/graph_module/graph", &ep.info.signature);
        return ep;
    }

    std::map<std::string, RawWeight> readWeightsConfig()
    {
        json doc;
        try {
            doc = json::parse(text_);
        } catch (const json::parse_error& e) {
            const TextPosition p = textPositionAt(text_, e.byte > 0 ? e.byte - 1 : 0);
            throw InputError(file_, p.line, p.column, "invalid JSON: " + jsonParseErrorText(e.what()));
        }
        if (!doc.is_object()) fail("", "expected a weights config (a JSON object)");
        std::string ptr;
        const json* config = &doc;
        if (const json* c = field(doc, "config"); c && c->is_object()) {
            config = c;
            ptr = "/config";
        }
        std::map<std::string, RawWeight> out;
        for (const auto& [fqn, e] : config->items()) {
            const std::string p = childPtr(ptr, fqn);
            RawWeight w;
            w.pathName = str(need(e, "path_name", p), childPtr(p, "path_name"));
            if (const json* v = field(e, "is_param")) w.isParam = boolean(*v, childPtr(p, "is_param"));
            if (const json* v = field(e, "use_pickle")) w.usePickle = boolean(*v, childPtr(p, "use_pickle"));
            if (const json* v = field(e, "tensor_meta")) w.meta = tensorMeta(*v, childPtr(p, "tensor_meta"));
            out[fqn] = std::move(w);
        }
        return out;
    }

private:
    [[noreturn]] void fail(const std::string& ptr, const std::string& what) const
    {
        const TextPosition p = textPositionAt(text_, locateJsonPointer(text_, ptr));
        throw InputError(file_, p.line, p.column, "at " + (ptr.empty() ? std::string("/") : ptr) + ": " + what);
    }
    static const char* typeName(const json& v)
    {
        return v.is_object() ? "an object"
            : v.is_array()   ? "an array"
            : v.is_string()  ? "a string"
            : v.is_boolean() ? "a bool"
            : v.is_number()  ? "a number"
                             : "null";
    }
    // a field's value; null when absent or null (a missing field takes its default)
    static const json* field(const json& obj, std::string_view key)
    {
        if (!obj.is_object()) return nullptr;
        const auto it = obj.find(key);
        return it == obj.end() || it->is_null() ? nullptr : &*it;
    }
    const json& need(const json& obj, std::string_view key, const std::string& ptr) const
    {
        if (!obj.is_object()) fail(ptr, std::string("expected an object, found ") + typeName(obj));
        const json* v = field(obj, key);
        if (!v) fail(ptr, "missing field '" + std::string(key) + "'");
        return *v;
    }
    std::string str(const json& v, const std::string& ptr) const
    {
        if (!v.is_string()) fail(ptr, std::string("expected a string, found ") + typeName(v));
        return v.get<std::string>();
    }
    int64_t integer(const json& v, const std::string& ptr) const
    {
        if (!v.is_number_integer()) fail(ptr, std::string("expected an integer, found ") + typeName(v));
        return v.get<int64_t>();
    }
    double number(const json& v, const std::string& ptr) const
    {
        if (v.is_number()) return v.get<double>();
        if (v.is_string()) {
            const std::string s = v.get<std::string>();
            if (s == "Infinity") return std::numeric_limits<double>::infinity();
            if (s == "-Infinity") return -std::numeric_limits<double>::infinity();
            if (s == "NaN") return std::numeric_limits<double>::quiet_NaN();
        }
        fail(ptr, std::string("expected a number, found ") + typeName(v));
    }
    bool boolean(const json& v, const std::string& ptr) const
    {
        if (!v.is_boolean()) fail(ptr, std::string("expected a bool, found ") + typeName(v));
        return v.get<bool>();
    }
    const json& array(const json& v, const std::string& ptr) const
    {
        if (!v.is_array()) fail(ptr, std::string("expected an array, found ") + typeName(v));
        return v;
    }
    std::string bound(const json& r, std::string_view key, const std::string& ptr) const
    {
        const json* v = field(r, key);
        if (!v) return "";
        if (v->is_number_integer()) return std::to_string(v->get<int64_t>());
        if (v->is_string()) return v->get<std::string>();  // "Infinity", "-Infinity"
        fail(childPtr(ptr, key), std::string("expected an integer or Infinity, found ") + typeName(*v));
    }
    // A union: {"member": value} (schema 5.1 and later) or {"$type": "member", "$value": value}.
    Member member(const json& u, const std::string& ptr) const
    {
        if (!u.is_object())
            fail(ptr, std::string("expected a union (an object with one member), found ") + typeName(u));
        if (const auto t = u.find("$type"); t != u.end()) {
            const auto v = u.find("$value");
            if (v == u.end()) fail(ptr, "a union with $type and no $value");
            return {str(*t, childPtr(ptr, "$type")), &*v, childPtr(ptr, "$value")};
        }
        if (u.size() != 1)
            fail(ptr, "expected a union with one member, found " + std::to_string(u.size()) + " members");
        return {u.begin().key(), &u.begin().value(), childPtr(ptr, u.begin().key())};
    }

    void readVersion(const json& doc, ExportedProgramInfo& info) const
    {
        const json* v = field(doc, "schema_version");
        if (!v) return;
        if (v->is_number_integer()) {
            info.schemaMajor = static_cast<int>(v->get<int64_t>());
        } else if (v->is_object()) {
            if (const json* m = field(*v, "major"))
                info.schemaMajor = static_cast<int>(integer(*m, "/schema_version/major"));
            if (const json* m = field(*v, "minor"))
                info.schemaMinor = static_cast<int>(integer(*m, "/schema_version/minor"));
        } else {
            fail("/schema_version", std::string("expected {major, minor}, found ") + typeName(*v));
        }
        if (info.schemaMajor > kNewestPt2SchemaMajor)
            fail("/schema_version",
                 "schema version " + std::to_string(info.schemaMajor) + "." + std::to_string(info.schemaMinor)
                     + " is newer than this fxlens reads (1 to " + std::to_string(kNewestPt2SchemaMajor)
                     + ".x): export the program with an older PyTorch, or update fxlens");
    }

    // The value name an Argument union carries ("" for a constant).
    std::string valueName(const json& u, const std::string& ptr) const
    {
        const Member m = member(u, ptr);
        if (m.name == "as_tensor" || m.name == "as_custom_obj" || m.name == "as_token")
            return str(need(*m.value, "name", m.ptr), childPtr(m.ptr, "name"));
        if (m.name == "as_sym_int" || m.name == "as_sym_bool" || m.name == "as_sym_float") {
            const Member s = member(*m.value, m.ptr);
            return s.name == "as_name" ? str(*s.value, s.ptr) : std::string();
        }
        return "";
    }

    ExportSignature readSignature(const json& sig, const std::string& ptr) const
    {
        ExportSignature s;
        if (!field(sig, "input_specs") && (field(sig, "user_inputs") || field(sig, "inputs_to_parameters")))
            return readOldSignature(sig, ptr);
        const std::string ip = childPtr(ptr, "input_specs");
        const json& ins = array(need(sig, "input_specs", ptr), ip);
        for (size_t i = 0; i < ins.size(); ++i) {
            const Member m = member(ins[i], childPtr(ip, i));
            ExportSignature::Input in;
            in.kind = m.name;
            const json& spec = *m.value;
            if (m.name == "constant_input") {
                in.name = str(need(spec, "name", m.ptr), childPtr(m.ptr, "name"));
                s.inputs.push_back(std::move(in));
                continue;
            }
            const std::string ap = childPtr(m.ptr, "arg");
            const json& arg = need(spec, "arg", m.ptr);
            if (m.name == "user_input") {
                in.name = valueName(arg, ap);
            } else if (m.name == "parameter" || m.name == "buffer" || m.name == "tensor_constant"
                       || m.name == "custom_obj" || m.name == "token") {
                in.name = str(need(arg, "name", ap), childPtr(ap, "name"));
                const char* key = m.name == "parameter" ? "parameter_name"
                    : m.name == "buffer"                ? "buffer_name"
                    : m.name == "tensor_constant"       ? "tensor_constant_name"
                    : m.name == "custom_obj"            ? "custom_obj_name"
                                                        : nullptr;
                if (key) in.target = str(need(spec, key, m.ptr), childPtr(m.ptr, key));
                if (const json* p = field(spec, "persistent"))
                    in.persistent = boolean(*p, childPtr(m.ptr, "persistent"));
            } else {
                fail(m.ptr,
                     "unknown InputSpec member '" + m.name
                         + "' (known: user_input, parameter, buffer, tensor_constant, custom_obj, token, "
                           "constant_input)");
            }
            s.inputs.push_back(std::move(in));
        }
        const std::string op = childPtr(ptr, "output_specs");
        const json& outs = array(need(sig, "output_specs", ptr), op);
        for (size_t i = 0; i < outs.size(); ++i) {
            const Member m = member(outs[i], childPtr(op, i));
            ExportSignature::Output out;
            out.kind = m.name;
            const std::string ap = childPtr(m.ptr, "arg");
            const json& arg = need(*m.value, "arg", m.ptr);
            static const std::map<std::string, const char*> targets = {
                {"user_output", nullptr},
                {"loss_output", nullptr},
                {"token", nullptr},
                {"buffer_mutation", "buffer_name"},
                {"gradient_to_parameter", "parameter_name"},
                {"gradient_to_user_input", "user_input_name"},
                {"user_input_mutation", "user_input_name"},
                {"parameter_mutation", "parameter_name"},
            };
            const auto t = targets.find(m.name);
            if (t == targets.end())
                fail(m.ptr,
                     "unknown OutputSpec member '" + m.name
                         + "' (known: user_output, loss_output, buffer_mutation, gradient_to_parameter, "
                           "gradient_to_user_input, user_input_mutation, token, parameter_mutation)");
            out.name = m.name == "user_output" ? valueName(arg, ap) : str(need(arg, "name", ap), childPtr(ap, "name"));
            if (t->second) out.target = str(need(*m.value, t->second, m.ptr), childPtr(m.ptr, t->second));
            s.outputs.push_back(std::move(out));
        }
        return s;
    }

    // Schema 1 (PyTorch 2.1): names and maps instead of specs.
    ExportSignature readOldSignature(const json& sig, const std::string& ptr) const
    {
        auto names = [&](std::string_view key) {
            std::map<std::string, std::string> m;
            if (const json* v = field(sig, key)) {
                if (!v->is_object()) fail(childPtr(ptr, key), std::string("expected an object, found ") + typeName(*v));
                for (const auto& [k, x] : v->items()) m[k] = str(x, childPtr(childPtr(ptr, key), k));
            }
            return m;
        };
        const auto toParam = names("inputs_to_parameters"), toBuffer = names("inputs_to_buffers"),
                   mutated = names("buffers_to_mutate");
        std::map<std::string, std::string> gradParam, gradUser;
        std::string loss;
        if (const json* b = field(sig, "backward_signature")) {
            const std::string bp = childPtr(ptr, "backward_signature");
            for (const auto& [key, dest] :
                 {std::pair<const char*, std::map<std::string, std::string>*>{"gradients_to_parameters", &gradParam},
                  {"gradients_to_user_inputs", &gradUser}})
                if (const json* v = field(*b, key); v && v->is_object())
                    for (const auto& [k, x] : v->items()) (*dest)[k] = str(x, childPtr(childPtr(bp, key), k));
            if (const json* l = field(*b, "loss_output")) loss = str(*l, childPtr(bp, "loss_output"));
        }
        ExportSignature s;
        old_ = true;
        oldInputs_ = [&] {
            std::vector<std::pair<std::string, std::string>> v;
            for (const auto& [k, x] : toParam) v.emplace_back(k, "parameter:" + x);
            for (const auto& [k, x] : toBuffer) v.emplace_back(k, "buffer:" + x);
            return v;
        }();
        // inputs pair by name with the graph's inputs (buildGraph completes the list)
        for (const auto& [name, target] : toParam) s.inputs.push_back({"parameter", name, target, true, false});
        for (const auto& [name, target] : toBuffer) s.inputs.push_back({"buffer", name, target, true, false});
        if (const json* u = field(sig, "user_outputs"); u && u->is_array())
            for (size_t i = 0; i < u->size(); ++i)
                oldUserOutputs_.insert(str((*u)[i], childPtr(childPtr(ptr, "user_outputs"), i)));
        for (const auto& [name, target] : mutated) s.outputs.push_back({"buffer_mutation", name, target});
        for (const auto& [name, target] : gradParam) s.outputs.push_back({"gradient_to_parameter", name, target});
        for (const auto& [name, target] : gradUser) s.outputs.push_back({"gradient_to_user_input", name, target});
        if (!loss.empty()) s.outputs.push_back({"loss_output", loss, ""});
        return s;
    }

    // Schema 1: order the specs as the graph's inputs and outputs.
    void alignOldSignature(ExportSignature& sig, const json& gj, const std::string& ptr) const
    {
        std::map<std::string, ExportSignature::Input> byName;
        for (auto& in : sig.inputs) byName[in.name] = in;
        std::vector<ExportSignature::Input> ins;
        const json& inputs = array(need(gj, "inputs", ptr), childPtr(ptr, "inputs"));
        for (size_t i = 0; i < inputs.size(); ++i) {
            const std::string name = valueName(inputs[i], childPtr(childPtr(ptr, "inputs"), i));
            if (auto it = byName.find(name); it != byName.end())
                ins.push_back(it->second);
            else
                ins.push_back({"user_input", name, "", true, false});
        }
        std::map<std::string, ExportSignature::Output> outByName;
        for (auto& o : sig.outputs) outByName[o.name] = o;
        std::vector<ExportSignature::Output> outs;
        const json& outputs = array(need(gj, "outputs", ptr), childPtr(ptr, "outputs"));
        for (size_t i = 0; i < outputs.size(); ++i) {
            const std::string name = valueName(outputs[i], childPtr(childPtr(ptr, "outputs"), i));
            if (auto it = outByName.find(name); it != outByName.end())
                outs.push_back(it->second);
            else
                outs.push_back({"user_output", name, ""});
        }
        sig.inputs = std::move(ins);
        sig.outputs = std::move(outs);
    }

    SymInt symInt(const json& u, const std::string& ptr) const
    {
        if (u.is_number_integer()) return SymInt(u.get<int64_t>());  // storage_offset of old schemas
        const Member m = member(u, ptr);
        if (m.name == "as_int") return SymInt(integer(*m.value, m.ptr));
        if (m.name != "as_expr") fail(m.ptr, "unknown SymInt member '" + m.name + "' (known: as_int, as_expr)");
        std::string text;
        std::optional<int64_t> hint;
        if (m.value->is_string()) {  // old schemas: the expression itself
            text = m.value->get<std::string>();
        } else {
            text = str(need(*m.value, "expr_str", m.ptr), childPtr(m.ptr, "expr_str"));
            if (const json* h = field(*m.value, "hint")) {
                const std::string hp = childPtr(m.ptr, "hint");
                if (h->is_number_integer()) {
                    hint = h->get<int64_t>();
                } else {
                    const Member hm = member(*h, hp);
                    if (hm.name == "as_int") hint = integer(*hm.value, hm.ptr);
                }
            }
        }
        try {
            const SymExpr e = SymExpr::parse(sympyReprToText(text));
            if (auto c = e.constantValue()) return SymInt(*c);
            return SymInt(e, hint);
        } catch (const std::exception& ex) {
            fail(m.ptr, "symbolic size '" + text + "': " + ex.what());
        }
    }

    TensorMeta tensorMeta(const json& t, const std::string& ptr) const
    {
        TensorMeta m;
        const int64_t code = integer(need(t, "dtype", ptr), childPtr(ptr, "dtype"));
        const auto dt = scalarType(code);
        if (!dt) fail(childPtr(ptr, "dtype"), "ScalarType " + std::to_string(code) + " is not read");
        m.dtype = *dt;
        const std::string sp = childPtr(ptr, "sizes");
        const json& sizes = array(need(t, "sizes", ptr), sp);
        for (size_t i = 0; i < sizes.size(); ++i) m.sizes.push_back(symInt(sizes[i], childPtr(sp, i)));
        if (const json* st = field(t, "strides")) {
            const std::string stp = childPtr(ptr, "strides");
            for (size_t i = 0; i < array(*st, stp).size(); ++i) m.strides.push_back(symInt((*st)[i], childPtr(stp, i)));
        }
        if (const json* off = field(t, "storage_offset"))
            m.storageOffset = symInt(*off, childPtr(ptr, "storage_offset"));
        if (const json* d = field(t, "device")) m.device = device(*d, childPtr(ptr, "device"));
        return m;
    }

    std::string device(const json& d, const std::string& ptr) const
    {
        std::string s = str(need(d, "type", ptr), childPtr(ptr, "type"));
        if (const json* i = field(d, "index")) s += ":" + std::to_string(integer(*i, childPtr(ptr, "index")));
        return s;
    }

    // --- graphs
    struct Scope
    {
        Graph* g = nullptr;
        const json* tensors = nullptr;
        const json* symInts = nullptr;
        const json* symBools = nullptr;
        const json* symFloats = nullptr;
        std::string ptr;
        std::set<std::string> reserved;  // every value name the graph defines
    };

    ValueMeta metaOf(const Scope& s, const std::string& name) const
    {
        if (s.tensors && s.tensors->contains(name))
            return ValueMeta::ofTensor(
                tensorMeta((*s.tensors)[name], childPtr(childPtr(s.ptr, "tensor_values"), name)));
        if (s.symInts && s.symInts->contains(name)) {
            const SymInt v = symInt((*s.symInts)[name], childPtr(childPtr(s.ptr, "sym_int_values"), name));
            ValueMeta m;
            m.kind = ValueMeta::Kind::SymInt;
            m.sym = v.expr();
            m.symHint = v.isConcrete() ? v.maybeValue() : v.hint();
            return m;
        }
        if (s.symBools && s.symBools->contains(name)) {
            ValueMeta m;
            m.kind = ValueMeta::Kind::SymBool;
            return m;
        }
        if (s.symFloats && s.symFloats->contains(name)) {
            ValueMeta m;
            m.kind = ValueMeta::Kind::SymFloat;
            return m;
        }
        return ValueMeta::unknown();
    }

    NodeId ref(const Scope& s, const std::string& name, const std::string& ptr) const
    {
        const NodeId id = s.g->findByName(name);
        if (id == kNoNode) fail(ptr, "value '" + name + "' is used before a node or an input defines it");
        return id;
    }

    Arg symArg(Scope& s, const json& u, const std::string& ptr, const char* constant) const
    {
        const Member m = member(u, ptr);
        if (m.name == "as_name") return Arg::ofNode(ref(s, str(*m.value, m.ptr), m.ptr));
        if (m.name == constant) {
            if (m.value->is_boolean()) return Arg::ofBool(m.value->get<bool>());
            if (m.value->is_number_integer()) return Arg::ofInt(m.value->get<int64_t>());
            return Arg::ofFloat(number(*m.value, m.ptr));
        }
        fail(m.ptr, "unknown member '" + m.name + "' (known: as_name, " + constant + ")");
    }

    template<class F>
    Arg listOf(const json& v, const std::string& ptr, F&& each) const
    {
        std::vector<Arg> items;
        const json& a = array(v, ptr);
        for (size_t i = 0; i < a.size(); ++i) items.push_back(each(a[i], childPtr(ptr, i)));
        return Arg::ofList(std::move(items));
    }

    Arg argument(Scope& s, const json& u, const std::string& ptr)
    {
        const Member m = member(u, ptr);
        const json& v = *m.value;
        const std::string& p = m.ptr;
        const std::string& k = m.name;
        auto tensorRef = [&](const json& t, const std::string& tp) {
            return Arg::ofNode(ref(s, str(need(t, "name", tp), childPtr(tp, "name")), tp));
        };
        auto optionalTensor = [&](const json& t, const std::string& tp) {
            const Member o = member(t, tp);
            if (o.name == "as_none") return Arg::none();
            if (o.name == "as_tensor") return tensorRef(*o.value, o.ptr);
            fail(o.ptr, "unknown OptionalTensorArgument member '" + o.name + "' (known: as_tensor, as_none)");
        };
        if (k == "as_none") return Arg::none();
        if (k == "as_tensor") return tensorRef(v, p);
        if (k == "as_tensors") return listOf(v, p, tensorRef);
        if (k == "as_int") return Arg::ofInt(integer(v, p));
        if (k == "as_ints")
            return listOf(v, p, [&](const json& x, const std::string& xp) { return Arg::ofInt(integer(x, xp)); });
        if (k == "as_float") return Arg::ofFloat(number(v, p));
        if (k == "as_floats")
            return listOf(v, p, [&](const json& x, const std::string& xp) { return Arg::ofFloat(number(x, xp)); });
        if (k == "as_string") return Arg::ofStr(str(v, p));
        if (k == "as_strings")
            return listOf(v, p, [&](const json& x, const std::string& xp) { return Arg::ofStr(str(x, xp)); });
        if (k == "as_bool") return Arg::ofBool(boolean(v, p));
        if (k == "as_bools")
            return listOf(v, p, [&](const json& x, const std::string& xp) { return Arg::ofBool(boolean(x, xp)); });
        if (k == "as_sym_int") return symArg(s, v, p, "as_int");
        if (k == "as_sym_ints")
            return listOf(v, p, [&](const json& x, const std::string& xp) { return symArg(s, x, xp, "as_int"); });
        if (k == "as_sym_bool") return symArg(s, v, p, "as_bool");
        if (k == "as_sym_bools")
            return listOf(v, p, [&](const json& x, const std::string& xp) { return symArg(s, x, xp, "as_bool"); });
        if (k == "as_sym_float") return symArg(s, v, p, "as_float");
        if (k == "as_sym_floats")
            return listOf(v, p, [&](const json& x, const std::string& xp) { return symArg(s, x, xp, "as_float"); });
        if (k == "as_scalar_type") {
            const auto t = scalarType(integer(v, p));
            if (!t) fail(p, "ScalarType " + std::to_string(integer(v, p)) + " is not read");
            return Arg::ofDType(*t);
        }
        if (k == "as_memory_format") {
            const auto f = memoryFormat(integer(v, p));
            if (!f) fail(p, "MemoryFormat " + std::to_string(integer(v, p)) + " is not read");
            return Arg::ofMemoryFormat(*f);
        }
        if (k == "as_layout") {
            const auto l = layout(integer(v, p));
            if (!l) fail(p, "Layout " + std::to_string(integer(v, p)) + " is not read");
            return Arg::ofLayout(*l);
        }
        if (k == "as_device") return Arg::ofDevice(device(v, p));
        if (k == "as_optional_tensor") return optionalTensor(v, p);
        if (k == "as_optional_tensors") return listOf(v, p, optionalTensor);
        if (k == "as_graph") return graphArg(s, v, p);
        if (k == "as_custom_obj") {
            const std::string name = str(need(v, "name", p), childPtr(p, "name"));
            const NodeId id = s.g->findByName(name);
            return id == kNoNode ? Arg::ofRaw(name) : Arg::ofNode(id);
        }
        if (k == "as_operator") return Arg::ofOp(OpRegistry::normalizeTarget(str(v, p)));
        if (k == "as_complex") {
            return Arg::ofRaw("complex(" + pythonFloatRepr(number(need(v, "real", p), childPtr(p, "real"))) + ", "
                              + pythonFloatRepr(number(need(v, "imag", p), childPtr(p, "imag"))) + ")");
        }
        if (k == "as_int_lists")
            return listOf(v, p, [&](const json& x, const std::string& xp) {
                return listOf(x, xp, [&](const json& y, const std::string& yp) { return Arg::ofInt(integer(y, yp)); });
            });
        if (k == "as_string_to_argument") {
            if (!v.is_object()) fail(p, std::string("expected an object, found ") + typeName(v));
            Arg d;
            d.kind = Arg::Kind::Dict;
            for (const auto& [key, x] : v.items())
                d.dict.emplace_back(Arg::ofStr(key), argument(s, x, childPtr(p, key)));
            return d;
        }
        fail(p,
             "unknown Argument member '" + k
                 + "' (this fxlens reads the members of schema 1 to 8.x: as_none, as_tensor(s), as_int(s), "
                   "as_float(s), as_string(s), as_bool(s), as_sym_int(s), as_sym_bool(s), as_sym_float(s), "
                   "as_scalar_type, as_memory_format, as_layout, as_device, as_optional_tensor(s), as_graph, "
                   "as_custom_obj, as_operator, as_complex, as_int_lists, as_string_to_argument)");
    }

    // A sub-graph of a higher-order op: a nested graph read by an attribute node of that name.
    Arg graphArg(Scope& s, const json& v, const std::string& ptr)
    {
        const std::string name = str(need(v, "name", ptr), childPtr(ptr, "name"));
        if (s.g->subgraphs.count(name)) fail(childPtr(ptr, "name"), "a second sub-graph named '" + name + "'");
        if (s.g->findByName(name) != kNoNode)
            fail(childPtr(ptr, "name"), "a sub-graph named like a value: '" + name + "'");
        s.g->subgraphs[name] = buildGraph(need(v, "graph", ptr), childPtr(ptr, "graph"), nullptr);
        Node n;
        n.name = name;
        n.op = NodeOp::GetAttr;
        n.target = name;
        return Arg::ofNode(s.g->addNode(std::move(n)));
    }

    std::shared_ptr<Graph> buildGraph(const json& gj, const std::string& ptr, ExportSignature* sig)
    {
        auto g = std::make_shared<Graph>();
        Scope s;
        s.g = g.get();
        s.ptr = ptr;
        s.tensors = field(gj, "tensor_values");
        s.symInts = field(gj, "sym_int_values");
        s.symBools = field(gj, "sym_bool_values");
        s.symFloats = field(gj, "sym_float_values");
        if (sig && old_) alignOldSignature(*sig, gj, ptr);
        const std::string ip = childPtr(ptr, "inputs"), np = childPtr(ptr, "nodes"), op = childPtr(ptr, "outputs");
        const json& inputs = array(need(gj, "inputs", ptr), ip);
        const json* nodes = field(gj, "nodes");
        if (nodes) array(*nodes, np);
        const json& outputs = array(need(gj, "outputs", ptr), op);
        // every name the graph defines, so that made-up names (a multi-output op's) avoid them
        for (size_t i = 0; i < inputs.size(); ++i) s.reserved.insert(valueName(inputs[i], childPtr(ip, i)));
        if (nodes)
            for (const json& n : *nodes)
                if (const json* outs = field(n, "outputs"); outs && outs->is_array())
                    for (const json& o : *outs) collectNames(o, s.reserved);
        if (sig && sig->inputs.size() != inputs.size())
            fail(ip,
                 "the graph has " + std::to_string(inputs.size()) + " inputs and the signature "
                     + std::to_string(sig->inputs.size()) + " input specs");
        int userIndex = 0;
        for (size_t i = 0; i < inputs.size(); ++i) {
            const std::string p = childPtr(ip, i);
            std::string name = valueName(inputs[i], p);
            Node n;
            n.op = NodeOp::Placeholder;
            ExportSignature::Input* spec = sig ? &sig->inputs[i] : nullptr;
            if (name.empty()) {  // a constant input
                name = spec && !spec->name.empty() ? spec->name : "arg" + std::to_string(i);
                n.placeholderDefault = argument(s, inputs[i], p);
            }
            if (s.g->findByName(name) != kNoNode) fail(p, "a second input named '" + name + "'");
            n.name = name;
            n.target = name;
            n.val = metaOf(s, name);
            if (spec) {
                const std::string& kind = spec->kind;
                if (kind == "parameter") {
                    n.meta.desc = "ParamAOTInput(target='" + spec->target + "')";
                } else if (kind == "buffer" || kind == "tensor_constant") {
                    n.meta.desc = "BufferAOTInput(target='" + spec->target + "')";
                } else if (kind == "user_input") {
                    n.meta.desc = "PlainAOTInput(idx=" + std::to_string(userIndex) + ")";
                }
                if ((kind == "parameter" || kind == "buffer" || kind == "tensor_constant")
                    && weights_.count(spec->target)) {
                    n.op = NodeOp::GetAttr;  // described still, so that it counts as a parameter / buffer
                    n.target = spec->target;
                    spec->read = true;
                }
                if (kind == "user_input") ++userIndex;
                if ((kind == "parameter" || kind == "buffer" || kind == "tensor_constant") && !spec->read)
                    diags_.warn(file_, 0, 0,
                                kind + " " + spec->target + " (input " + name
                                    + ") has no weight in the archive: it stays an input (fxlens run makes it up "
                                      "with --seed, or reads it from --inputs)");
            }
            s.g->addNode(std::move(n));
        }
        if (nodes)
            for (size_t i = 0; i < nodes->size(); ++i) readNode(s, (*nodes)[i], childPtr(np, i));
        Node out;
        out.name = s.g->uniqueName("output");
        out.op = NodeOp::Output;
        out.target = "output";
        std::vector<Arg> items;
        for (size_t i = 0; i < outputs.size(); ++i) items.push_back(argument(s, outputs[i], childPtr(op, i)));
        out.args.push_back(Arg::ofTuple(std::move(items)));
        s.g->addNode(std::move(out));
        if (sig) {
            if (sig->outputs.size() != outputs.size())
                fail(op,
                     "the graph has " + std::to_string(outputs.size()) + " outputs and the signature "
                         + std::to_string(sig->outputs.size()) + " output specs");
            g->outputDescs = outputDescs(*sig);
        }
        g->rebuildUsers();
        return g;
    }

    void collectNames(const json& u, std::set<std::string>& into) const
    {
        if (!u.is_object() || u.size() != 1) return;
        const std::string& k = u.begin().key();
        const json& v = u.begin().value();
        auto named = [&](const json& t, const char* key) {
            if (t.is_object() && t.contains(key) && t[key].is_string()) into.insert(t[key].get<std::string>());
        };
        if (k == "as_tensor" || k == "as_custom_obj" || k == "as_token") {
            named(v, "name");
        } else if (k == "as_tensors" && v.is_array()) {
            for (const json& t : v) named(t, "name");
        } else if (k == "as_sym_int" || k == "as_sym_bool" || k == "as_sym_float") {
            named(v, "as_name");
        } else if (k == "as_optional_tensors" && v.is_array()) {
            for (const json& t : v) collectNames(t, into);
        }
    }

    std::vector<std::string> outputDescs(const ExportSignature& sig) const
    {
        std::map<std::string, size_t> userIndex;
        size_t k = 0;
        for (const auto& in : sig.inputs)
            if (in.kind == "user_input") userIndex[in.name] = k++;
        auto inputDesc = [&](const std::string& kind, const std::string& target) -> std::string {
            if (kind == "parameter") return "ParamAOTInput(target='" + target + "')";
            if (kind == "buffer") return "BufferAOTInput(target='" + target + "')";
            const auto it = userIndex.find(target);
            return "PlainAOTInput(idx=" + (it == userIndex.end() ? target : std::to_string(it->second)) + ")";
        };
        std::vector<std::string> d;
        size_t plain = 0;
        for (const auto& o : sig.outputs) {
            if (o.kind == "user_output" || o.kind == "loss_output")
                d.push_back("PlainAOTOutput(idx=" + std::to_string(plain++) + ")");
            else if (o.kind == "gradient_to_parameter")
                d.push_back("GradAOTOutput(grad_of=" + inputDesc("parameter", o.target) + ")");
            else if (o.kind == "gradient_to_user_input")
                d.push_back("GradAOTOutput(grad_of=" + inputDesc("user_input", o.target) + ")");
            else if (o.kind == "buffer_mutation")
                d.push_back("InputMutationAOTOutput(mutated_input=" + inputDesc("buffer", o.target) + ")");
            else if (o.kind == "parameter_mutation")
                d.push_back("InputMutationAOTOutput(mutated_input=" + inputDesc("parameter", o.target) + ")");
            else if (o.kind == "user_input_mutation")
                d.push_back("InputMutationAOTOutput(mutated_input=" + inputDesc("user_input", o.target) + ")");
            else
                d.push_back("");
        }
        return d;
    }

    static std::string normalizedTarget(const std::string& t)
    {
        if (t.starts_with("torch.ops.")) return t.substr(10);
        if (t.starts_with("_operator.")) return "operator." + t.substr(10);
        return t;
    }

    void readNode(Scope& s, const json& nj, const std::string& ptr)
    {
        const std::string target = normalizedTarget(str(need(nj, "target", ptr), childPtr(ptr, "target")));
        const OpInfo* info = OpRegistry::instance().find(target);
        Node n;
        n.op = NodeOp::CallFunction;
        n.target = target;
        if (const json* ins = field(nj, "inputs")) {
            const std::string ip = childPtr(ptr, "inputs");
            array(*ins, ip);
            for (size_t i = 0; i < ins->size(); ++i) {
                const std::string p = childPtr(ip, i);
                const json& na = (*ins)[i];
                const std::string argName = field(na, "name") ? str(na["name"], childPtr(p, "name")) : std::string();
                Arg a = argument(s, need(na, "arg", p), childPtr(p, "arg"));
                int64_t kind = 0;  // ArgumentKind: 1 positional, 2 keyword (absent before schema 8)
                if (const json* kd = field(na, "kind")) kind = integer(*kd, childPtr(p, "kind"));
                bool keyword = kind == 2;
                if (kind == 0 && info && !argName.empty()) {
                    const int at = info->schema.argIndex(argName);
                    keyword = at >= 0 && info->schema.args[static_cast<size_t>(at)].kwargOnly;
                }
                if (keyword)
                    n.kwargs.emplace_back(argName, std::move(a));
                else
                    n.args.push_back(std::move(a));
            }
        }
        if (const json* md = field(nj, "metadata"); md && md->is_object()) {
            if (const json* st = field(*md, "stack_trace"); st && st->is_string())
                n.meta.source = lastFrame(st->get<std::string>());
            if (const json* ms = field(*md, "nn_module_stack"); ms && ms->is_string())
                n.meta.modulePath = innermostModule(ms->get<std::string>());
            if (const json* c = field(*md, "custom"); c && c->is_string()) {
                try {
                    n.meta.custom = json::parse(c->get<std::string>());
                } catch (const json::exception&) {
                    n.meta.custom = c->get<std::string>();
                }
            }
        }
        // outputs: one named value, several (a multi-output op: read through getitem nodes as FX
        // graphs do), or none
        std::vector<std::string> names;
        bool multi = false;
        if (const json* outs = field(nj, "outputs")) {
            const std::string op = childPtr(ptr, "outputs");
            array(*outs, op);
            for (size_t i = 0; i < outs->size(); ++i) {
                const Member m = member((*outs)[i], childPtr(op, i));
                if (m.name == "as_tensors" || m.name == "as_optional_tensors") {
                    const json& list = array(*m.value, m.ptr);
                    for (size_t j = 0; j < list.size(); ++j) {
                        const std::string jp = childPtr(m.ptr, j);
                        names.push_back(m.name == "as_tensors" ? str(need(list[j], "name", jp), childPtr(jp, "name"))
                                                               : valueName(list[j], jp));
                    }
                    multi = true;
                } else if (m.name == "as_none") {
                    names.emplace_back();
                } else {
                    names.push_back(valueName((*outs)[i], childPtr(op, i)));
                }
            }
            multi = multi || names.size() > 1;
        }
        if (!multi && names.size() == 1 && !names[0].empty()) {
            if (s.g->findByName(names[0]) != kNoNode)
                fail(childPtr(ptr, "outputs"), "a second value named '" + names[0] + "'");
            n.name = names[0];
            n.val = metaOf(s, names[0]);
            s.g->addNode(std::move(n));
            return;
        }
        n.name = freshName(s, target);
        if (!multi) {
            n.val = ValueMeta::none();
            s.g->addNode(std::move(n));
            return;
        }
        std::vector<ValueMeta> elems;
        for (const std::string& nm : names) elems.push_back(nm.empty() ? ValueMeta::none() : metaOf(s, nm));
        n.val = ValueMeta::ofTuple(elems);
        const NodeId id = s.g->addNode(std::move(n));
        for (size_t j = 0; j < names.size(); ++j) {
            if (names[j].empty()) continue;
            if (s.g->findByName(names[j]) != kNoNode)
                fail(childPtr(ptr, "outputs"), "a second value named '" + names[j] + "'");
            Node gi;
            gi.name = names[j];
            gi.op = NodeOp::CallFunction;
            gi.target = "operator.getitem";
            gi.args = {Arg::ofNode(id), Arg::ofInt(static_cast<int64_t>(j))};
            gi.val = elems[j];
            gi.meta.modulePath = s.g->node(id).meta.modulePath;
            gi.meta.source = s.g->node(id).meta.source;
            s.g->addNode(std::move(gi));
        }
    }

    // A name for a node the file leaves unnamed: the op's name, unique in the graph and among
    // the names the file uses later.
    static std::string freshName(const Scope& s, const std::string& target)
    {
        std::string base = target;
        if (const size_t dot = base.find('.'); dot != std::string::npos) {
            base = base.substr(dot + 1);
            if (const size_t d2 = base.find('.'); d2 != std::string::npos) base = base.substr(0, d2);
        }
        for (char& c : base)
            if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
        if (base.empty() || std::isdigit(static_cast<unsigned char>(base[0]))) base = "node_" + base;
        std::string name = base;
        for (int k = 1; s.g->findByName(name) != kNoNode || s.reserved.count(name); ++k)
            name = base + "_" + std::to_string(k);
        return name;
    }

    std::string_view text_;
    const std::string& file_;
    const std::set<std::string>& weights_;
    DiagnosticList& diags_;
    mutable bool old_ = false;
    mutable std::vector<std::pair<std::string, std::string>> oldInputs_;
    mutable std::set<std::string> oldUserOutputs_;
};

// --- sympy srepr
class ReprParser
{
public:
    explicit ReprParser(std::string_view t)
        : t_(t)
    { }
    std::string parse()
    {
        std::string e = expr();
        skip();
        if (pos_ != t_.size()) fail("text after the expression");
        return e;
    }

private:
    [[noreturn]] void fail(const std::string& what) const
    {
        throw std::invalid_argument("sympy expression at character " + std::to_string(pos_) + ": " + what);
    }
    void skip()
    {
        while (pos_ < t_.size() && t_[pos_] == ' ') ++pos_;
    }
    bool eat(char c)
    {
        skip();
        if (pos_ < t_.size() && t_[pos_] == c) {
            ++pos_;
            return true;
        }
        return false;
    }
    std::string word()
    {
        skip();
        const size_t from = pos_;
        while (pos_ < t_.size() && (std::isalnum(static_cast<unsigned char>(t_[pos_])) || t_[pos_] == '_')) ++pos_;
        return std::string(t_.substr(from, pos_ - from));
    }
    std::string quoted()
    {
        skip();
        if (pos_ >= t_.size() || (t_[pos_] != '\'' && t_[pos_] != '"')) fail("expected a quoted name");
        const char q = t_[pos_++];
        const size_t from = pos_;
        while (pos_ < t_.size() && t_[pos_] != q) ++pos_;
        if (pos_ >= t_.size()) fail("an unclosed quote");
        return std::string(t_.substr(from, pos_++ - from));
    }
    std::string expr()
    {
        if (++depth_ > 200) fail("nested too deep");
        skip();
        if (pos_ < t_.size() && (t_[pos_] == '-' || std::isdigit(static_cast<unsigned char>(t_[pos_])))) {
            const size_t from = pos_++;
            while (pos_ < t_.size() && std::isdigit(static_cast<unsigned char>(t_[pos_]))) ++pos_;
            --depth_;
            return std::string(t_.substr(from, pos_ - from));
        }
        const std::string name = word();
        if (name.empty()) fail("expected a name");
        if (!eat('(')) fail("expected '(' after " + name);
        std::vector<std::string> args;
        if (name == "Symbol") {
            args.push_back(quoted());
            while (eat(','))  // assumptions: integer=True, positive=True
                word(), eat('='), word();
        } else {
            if (!eat(')')) {
                do {
                    args.push_back(expr());
                } while (eat(','));
                if (!eat(')')) fail("expected ')' after the arguments of " + name);
                --pos_;  // the ')' below
            }
        }
        if (!eat(')')) fail("expected ')' to close " + name);
        --depth_;
        if (name == "Symbol") return args[0];
        if (name == "Integer") {
            if (args.size() != 1) fail("Integer of " + std::to_string(args.size()) + " arguments");
            return args[0].starts_with("-") ? "(" + args[0] + ")" : args[0];
        }
        auto joined = [&](const char* op) {
            std::string s = "(";
            for (size_t i = 0; i < args.size(); ++i) s += (i ? op : "") + args[i];
            return s + ")";
        };
        if (name == "Add") return joined(" + ");
        if (name == "Mul") return joined("*");
        if (name == "Pow") {
            if (args.size() != 2) fail("Pow of " + std::to_string(args.size()) + " arguments");
            std::string e = args[1];
            if (e.starts_with("(")) e = e.substr(1, e.size() - 2);
            int k = 0;
            try {
                k = std::stoi(e);
            } catch (const std::exception&) {
                fail("Pow with the exponent " + args[1] + " (only small whole exponents are read)");
            }
            if (k < 0 || k > 8) fail("Pow with the exponent " + args[1] + " (only whole exponents 0 to 8 are read)");
            if (k == 0) return "1";
            std::vector<std::string> f(static_cast<size_t>(k), args[0]);
            args = f;
            return joined("*");
        }
        std::string fn = name == "PythonMod" ? "Mod" : name;
        std::string s = fn + "(";
        for (size_t i = 0; i < args.size(); ++i) s += (i ? ", " : "") + args[i];
        return s + ")";
    }
    std::string_view t_;
    size_t pos_ = 0;
    int depth_ = 0;
};

}  // namespace

std::string sympyReprToText(std::string_view srepr)
{
    size_t b = 0;
    while (b < srepr.size() && srepr[b] == ' ') ++b;
    size_t e = b;
    while (e < srepr.size() && (std::isalnum(static_cast<unsigned char>(srepr[e])) || srepr[e] == '_')) ++e;
    // a srepr is a constructor call: Name(...)
    const bool isRepr = e > b && e < srepr.size() && srepr[e] == '('
        && std::isupper(static_cast<unsigned char>(srepr[b]))
        && (srepr.find("Symbol(") != std::string_view::npos || srepr.find("Integer(") != std::string_view::npos);
    if (!isRepr) return std::string(srepr);
    return ReprParser(srepr).parse();
}

ExportedProgram readExportedProgram(std::string_view text, const std::string& file,
                                    const std::set<std::string>& weights, DiagnosticList& diags)
{
    return ProgramReader(text, file, weights, diags).read();
}

std::map<std::string, RawWeight> readRawWeightsConfig(std::string_view text, const std::string& file)
{
    const std::set<std::string> none;
    DiagnosticList diags;
    return ProgramReader(text, file, none, diags).readWeightsConfig();
}

}  // namespace fxl
