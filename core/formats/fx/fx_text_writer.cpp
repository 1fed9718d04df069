// Writer of print_readable() text (the form FX's CodeGen emits in verbose mode, 2.5+ style
// annotations) from an fxl::Graph, so that parseFxText(printReadable(g)) gives g back.
#include <cctype>
#include <string>
#include <unordered_set>
#include <vector>

#include "core/formats/fx/fx_text_parser.hpp"
#include "core/formats/fx/fx_text_writer.hpp"
#include "core/formats/fx/py_lexer.hpp"

namespace fxl {

namespace {

struct OpForm
{
    const char* target;
    const char* text;
};
constexpr OpForm kBinary[] = {
    {"operator.add", "+"},     {"operator.sub", "-"},       {"operator.mul", "*"},  {"operator.truediv", "/"},
    {"operator.div", "/"},     {"operator.floordiv", "//"}, {"operator.mod", "%"},  {"operator.pow", "**"},
    {"operator.lshift", "<<"}, {"operator.rshift", ">>"},   {"operator.and_", "&"}, {"operator.or_", "|"},
    {"operator.xor", "^"},     {"operator.matmul", "@"},    {"operator.eq", "=="},  {"operator.ne", "!="},
    {"operator.lt", "<"},      {"operator.gt", ">"},        {"operator.le", "<="},  {"operator.ge", ">="},
};
constexpr OpForm kUnary[] = {{"operator.neg", "-"}, {"operator.pos", "+"}, {"operator.invert", "~"}};
constexpr OpForm kInplace[] = {
    {"operator.iadd", "+="},  {"operator.iand", "&="},     {"operator.ifloordiv", "//="}, {"operator.ilshift", "<<="},
    {"operator.imod", "%="},  {"operator.imul", "*="},     {"operator.imatmul", "@="},    {"operator.ior", "|="},
    {"operator.ipow", "**="}, {"operator.irshift", ">>="}, {"operator.isub", "-="},       {"operator.itruediv", "/="},
    {"operator.ixor", "^="},
};

const char* findForm(const OpForm* forms, size_t n, const std::string& target)
{
    for (size_t k = 0; k < n; ++k)
        if (target == forms[k].target) return forms[k].text;
    return nullptr;
}

bool isIdentifier(std::string_view s)
{
    if (s.empty()) return false;
    auto c0 = static_cast<unsigned char>(s[0]);
    if (!(std::isalpha(c0) || c0 == '_')) return false;
    for (char c : s)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
    return true;
}

// "self" + "layers.0.weight" -> getattr(self.layers, "0").weight  (FX's _format_target)
std::string formatTarget(std::string base, const std::string& target)
{
    size_t b = 0;
    for (;;) {
        size_t e = target.find('.', b);
        std::string_view atom = std::string_view(target).substr(b, e == std::string::npos ? std::string::npos : e - b);
        if (isIdentifier(atom)) {
            base += '.';
            base += atom;
        } else {
            std::string s(atom);
            std::string lit = (s.find('"') == std::string::npos && s.find('\\') == std::string::npos)
                ? "\"" + s + "\""
                : pythonStrRepr(s);
            base = "getattr(" + base + ", " + lit + ")";
        }
        if (e == std::string::npos) break;
        b = e + 1;
    }
    return base;
}

void appendArg(std::string& out, const Arg& a, const Graph& g);

void appendSeq(std::string& out, const std::vector<Arg>& items, const Graph& g)
{
    for (size_t k = 0; k < items.size(); ++k) {
        if (k) out += ", ";
        appendArg(out, items[k], g);
    }
}

std::string deviceRepr(const std::string& d)
{
    size_t c = d.rfind(':');
    if (c != std::string::npos && c + 1 < d.size()) {
        bool digits = true;
        for (size_t k = c + 1; k < d.size(); ++k) digits = digits && std::isdigit(static_cast<unsigned char>(d[k]));
        if (digits) return "device(type=" + pythonStrRepr(d.substr(0, c)) + ", index=" + d.substr(c + 1) + ")";
    }
    return "device(type=" + pythonStrRepr(d) + ")";
}

void appendArg(std::string& out, const Arg& a, const Graph& g)
{
    switch (a.kind) {
    case Arg::Kind::None: out += "None"; return;
    case Arg::Kind::Node:
        if (g.alive(a.node))
            out += g.node(a.node).name;
        else
            out += "None";
        return;
    case Arg::Kind::Int: out += std::to_string(a.i); return;
    case Arg::Kind::Float: out += pythonFloatRepr(a.f); return;
    case Arg::Kind::Bool: out += a.b ? "True" : "False"; return;
    case Arg::Kind::Str: out += pythonStrRepr(a.s); return;
    case Arg::Kind::List:
        out += '[';
        appendSeq(out, a.items, g);
        out += ']';
        return;
    case Arg::Kind::Tuple:
        out += '(';
        appendSeq(out, a.items, g);
        if (a.items.size() == 1) out += ',';
        out += ')';
        return;
    case Arg::Kind::Dict:
        out += '{';
        for (size_t k = 0; k < a.dict.size(); ++k) {
            if (k) out += ", ";
            appendArg(out, a.dict[k].first, g);
            out += ": ";
            appendArg(out, a.dict[k].second, g);
        }
        out += '}';
        return;
    case Arg::Kind::DType:
        out += "torch.";
        out += dtypeTorchName(a.dtype);
        return;
    case Arg::Kind::Device: out += deviceRepr(a.s); return;
    case Arg::Kind::Layout:
    case Arg::Kind::MemoryFormat:
        out += "torch.";
        out += a.s;
        return;
    case Arg::Kind::Op:
        out += "torch.ops.";
        out += a.s;
        return;
    case Arg::Kind::Slice: {
        out += "slice(";
        for (size_t k = 0; k < 3; ++k) {
            if (k) out += ", ";
            if (k < a.items.size())
                appendArg(out, a.items[k], g);
            else
                out += "None";
        }
        out += ')';
        return;
    }
    case Arg::Kind::Ellipsis: out += "..."; return;
    case Arg::Kind::Raw: out += a.s; return;
    }
}

// Operands FX's magic-method printing can use without changing how the line parses back.
bool simpleOperand(const Arg& a)
{
    switch (a.kind) {
    case Arg::Kind::Node:
    case Arg::Kind::Int:
    case Arg::Kind::Float:
    case Arg::Kind::Bool:
    case Arg::Kind::None:
    case Arg::Kind::Str:
    case Arg::Kind::List:
    case Arg::Kind::Tuple:
    case Arg::Kind::Dict: return true;
    default: return false;
    }
}

bool printsAsAnnotation(const ValueMeta& v)
{
    switch (v.kind) {
    case ValueMeta::Kind::Tensor:
    case ValueMeta::Kind::SymInt:
    case ValueMeta::Kind::SymFloat:
    case ValueMeta::Kind::SymBool:
    case ValueMeta::Kind::Opaque: return true;
    default: return false;
    }
}

class Writer
{
public:
    Writer(const PrintOptions& o, std::string& out)
        : opts_(o)
        , out_(out)
    { }

    void module(const Graph& g, const std::string& name, int indent)
    {
        pad(indent);
        out_ += "class " + name + "(torch.nn.Module):\n";
        forward(g, indent + 4);
        // nested classes: in order of first reference by a get_attr node, then the others
        std::vector<std::string> keys;
        std::unordered_set<std::string> seen;
        g.forEachNode([&](const Node& n) {
            if (n.op == NodeOp::GetAttr && g.subgraphs.count(n.target) && seen.insert(n.target).second)
                keys.push_back(n.target);
        });
        for (const auto& [k, sg] : g.subgraphs)
            if (seen.insert(k).second) keys.push_back(k);
        for (const auto& k : keys) {
            const auto& sg = g.subgraphs.at(k);
            // the class name as read (2.1-2.3 printed "<lambda>"), else the attribute name
            if (sg) module(*sg, sg->className.empty() ? k : sg->className, indent + 4);
        }
    }

private:
    const PrintOptions& opts_;
    std::string& out_;

    void pad(int n) { out_.append(static_cast<size_t>(n), ' '); }

    std::string annotation(const Node& n) const
    {
        if (opts_.annotations && printsAsAnnotation(n.val)) {
            std::string a = formatAnnotation(n.val);
            if (a.find('"') == std::string::npos && a.find('\\') == std::string::npos) return ": \"" + a + "\"";
            return ": " + pythonStrRepr(a);
        }
        if (!n.typeExpr.empty()) return ": " + n.typeExpr;
        return {};
    }

    std::string paramText(const Node& p, const Graph& g) const
    {
        std::string s = p.target.empty() ? p.name : p.target;
        s += annotation(p);
        if (p.placeholderDefault) {
            s += " = ";
            appendArg(s, *p.placeholderDefault, g);
        }
        return s;
    }

    static std::string rawName(const Node& p)
    {
        std::string t = p.target.empty() ? p.name : p.target;
        size_t k = 0;
        while (k < t.size() && t[k] == '*') ++k;
        return t.substr(k);
    }

    void forward(const Graph& g, int ind)
    {
        const int body = ind + 4;
        std::vector<const Node*> phs;
        g.forEachNode([&](const Node& n) {
            if (n.op == NodeOp::Placeholder) phs.push_back(&n);
        });
        bool anyDesc = false;
        for (const Node* p : phs) anyDesc = anyDesc || !p->meta.desc.empty();
        const bool descs = opts_.comments;

        // --- signature
        pad(ind);
        switch (g.signature) {
        case SignatureStyle::Pytree: {
            const bool expanded = descs && (anyDesc || !g.outputDescs.empty());
            if (expanded) {
                out_ += "def forward(\n";
                pad(body);
                out_ += "self,\n";
                for (const auto& a : g.pytreeArgNames) {
                    pad(body);
                    out_ += a + ",\n";
                }
                pad(ind);
                out_ += "):\n";
            } else {
                out_ += "def forward(self";
                for (const auto& a : g.pytreeArgNames) out_ += ", " + a;
                out_ += "):\n";
            }
            if (!phs.empty()) {
                if (expanded) {
                    for (const Node* p : phs) {
                        std::string an = annotation(*p);
                        if (an.empty()) continue;
                        pad(body);
                        out_ += rawName(*p) + an;
                        if (!p->meta.desc.empty()) out_ += "  # " + p->meta.desc;
                        out_ += '\n';
                    }
                } else {
                    std::string decl;
                    for (const Node* p : phs) {
                        std::string an = annotation(*p);
                        if (!an.empty()) decl += rawName(*p) + an + "; ";
                    }
                    if (!decl.empty()) {
                        pad(body);
                        out_ += decl;
                        out_ += '\n';
                        pad(body);
                        out_ += '\n';
                    }
                }
                pad(body);
                for (const Node* p : phs) out_ += rawName(*p) + ", ";
                out_ += "= fx_pytree.tree_flatten_spec([";
                for (size_t k = 0; k < g.pytreeArgNames.size(); ++k) {
                    if (k) out_ += ", ";
                    out_ += g.pytreeArgNames[k];
                }
                out_ += "], self._in_spec)\n";
            }
            break;
        }
        case SignatureStyle::Boxed:
            out_ += "def forward(self, args_list):\n";
            if (!phs.empty()) {
                pad(body);
                out_ += "args_iter = iter(args_list)\n";
                for (const Node* p : phs) {
                    pad(body);
                    out_ += rawName(*p) + annotation(*p) + " = next(args_iter)\n";
                }
                pad(body);
                out_ += "args_list.clear()\n";
            }
            break;
        case SignatureStyle::Expanded:
            if (!phs.empty() || descs) {
                out_ += "def forward(\n";
                pad(body);
                out_ += "self,\n";
                for (const Node* p : phs) {
                    pad(body);
                    out_ += paramText(*p, g) + ",";
                    if (descs && !p->meta.desc.empty()) out_ += "  # " + p->meta.desc;
                    out_ += '\n';
                }
                pad(ind);
                out_ += "):\n";
                break;
            }
            [[fallthrough]];
        case SignatureStyle::Flat:
        case SignatureStyle::Plain:
            out_ += "def forward(self";
            for (const Node* p : phs) out_ += ", " + paramText(*p, g);
            out_ += "):\n";
            break;
        }

        // --- Dynamo aliases "l_x_ = L_x_" (they open the body, so a comment after them gets a blank line)
        bool bodyStarted = false;
        for (const Node* p : phs) {
            std::string raw = rawName(*p);
            if (raw != p->name) {
                pad(body);
                out_ += p->name + " = " + raw + '\n';
                bodyStarted = true;
            }
        }

        // --- last uses, for the deletion suffixes
        const auto& order = g.order();
        size_t maxId = 0;
        for (NodeId id : order) maxId = std::max(maxId, static_cast<size_t>(id) + 1);
        std::vector<int32_t> pos(maxId, -1);
        for (size_t k = 0; k < order.size(); ++k) pos[static_cast<size_t>(order[k])] = static_cast<int32_t>(k);
        std::vector<int32_t> lastUse(maxId, -1);
        std::vector<int32_t> stamp(maxId, -1);
        for (size_t k = 0; k < order.size(); ++k) {
            const Node& n = g.node(order[k]);
            auto use = [&](NodeId in) {
                if (in >= 0 && static_cast<size_t>(in) < maxId)
                    lastUse[static_cast<size_t>(in)] = static_cast<int32_t>(k);
            };
            for (const auto& a : n.args) a.forEachNode(use);
            for (const auto& kv : n.kwargs) kv.second.forEachNode(use);
        }

        // --- body
        // like FX, the first node always gets its summary ("# No stacktrace found ..." included)
        std::string prevSummary;
        for (size_t k = 0; k < order.size(); ++k) {
            const Node& n = g.node(order[k]);
            if (n.op == NodeOp::Placeholder) continue;
            if (n.op == NodeOp::Output) {
                output(g, n, body);
                continue;
            }
            if (opts_.comments) {
                std::string summary = formatSummaryComment(n.meta);
                if (summary != prevSummary) {
                    if (bodyStarted) {
                        pad(body);
                        out_ += '\n';
                    }
                    pad(body);
                    out_ += summary;
                    out_ += '\n';
                    prevSummary = std::move(summary);
                }
            }
            bodyStarted = true;
            pad(body);
            statement(g, n);
            if (opts_.deletions) {
                std::string del;
                auto consider = [&](NodeId in) {
                    if (in < 0 || static_cast<size_t>(in) >= maxId) return;
                    if (stamp[static_cast<size_t>(in)] == static_cast<int32_t>(k)) return;
                    stamp[static_cast<size_t>(in)] = static_cast<int32_t>(k);
                    if (lastUse[static_cast<size_t>(in)] == static_cast<int32_t>(k) && g.alive(in)) {
                        del += g.node(in).name;
                        del += " = ";
                    }
                };
                for (const auto& a : n.args) a.forEachNode(consider);
                for (const auto& kv : n.kwargs) kv.second.forEachNode(consider);
                if (lastUse[static_cast<size_t>(n.id)] < 0) del += n.name + " = ";
                if (!del.empty()) {
                    out_ += ";  ";
                    out_ += del;
                    out_ += "None";
                }
            }
            out_ += '\n';
        }
        pad(body);
        out_ += '\n';
    }

    void callArgs(const Node& n, const Graph& g, size_t from)
    {
        out_ += '(';
        bool first = true;
        for (size_t k = from; k < n.args.size(); ++k) {
            if (!first) out_ += ", ";
            first = false;
            appendArg(out_, n.args[k], g);
        }
        for (const auto& kv : n.kwargs) {
            if (!first) out_ += ", ";
            first = false;
            out_ += kv.first;
            out_ += " = ";
            appendArg(out_, kv.second, g);
        }
        out_ += ')';
    }

    void statement(const Graph& g, const Node& n)
    {
        const std::string an = annotation(n);
        auto lhs = [&]() {
            out_ += n.name;
            out_ += an;
            out_ += " = ";
        };
        switch (n.op) {
        case NodeOp::GetAttr:
            lhs();
            out_ += formatTarget("self", n.target);
            return;
        case NodeOp::CallModule:
            lhs();
            out_ += formatTarget("self", n.target);
            callArgs(n, g, 0);
            return;
        case NodeOp::CallMethod:
            lhs();
            if (!n.args.empty() && n.args[0].kind == Arg::Kind::Node && isIdentifier(n.target)) {
                appendArg(out_, n.args[0], g);
                out_ += '.';
                out_ += n.target;
                callArgs(n, g, 1);
            } else {
                // not printable as a method call: keep it readable (lossy)
                out_ += "getattr(";
                if (!n.args.empty())
                    appendArg(out_, n.args[0], g);
                else
                    out_ += "None";
                out_ += ", " + pythonStrRepr(n.target) + ")";
                callArgs(n, g, n.args.empty() ? 0 : 1);
            }
            return;
        case NodeOp::CallFunction: break;
        default:
            lhs();
            out_ += "None";
            return;
        }
        const size_t na = n.args.size();
        const bool noKw = n.kwargs.empty();
        if (noKw && na == 2 && n.args[0].kind == Arg::Kind::Node) {
            if (const char* op = findForm(kInplace, std::size(kInplace), n.target)) {
                appendArg(out_, n.args[0], g);
                out_ += ' ';
                out_ += op;
                out_ += ' ';
                appendArg(out_, n.args[1], g);
                out_ += ";  ";
                lhs();
                appendArg(out_, n.args[0], g);
                return;
            }
        }
        if (noKw && na == 3 && n.target == "operator.setitem" && n.args[0].kind == Arg::Kind::Node) {
            appendArg(out_, n.args[0], g);
            out_ += '[';
            appendArg(out_, n.args[1], g);
            out_ += "] = ";
            appendArg(out_, n.args[2], g);
            out_ += ";  ";
            lhs();
            appendArg(out_, n.args[0], g);
            return;
        }
        lhs();
        if (noKw && na == 2 && simpleOperand(n.args[0])) {
            if (const char* op = findForm(kBinary, std::size(kBinary), n.target)) {
                appendArg(out_, n.args[0], g);
                out_ += ' ';
                out_ += op;
                out_ += ' ';
                appendArg(out_, n.args[1], g);
                return;
            }
            if (n.isGetitem()) {
                appendArg(out_, n.args[0], g);
                out_ += '[';
                appendArg(out_, n.args[1], g);
                out_ += ']';
                return;
            }
        }
        if (noKw && na == 1 && n.args[0].kind == Arg::Kind::Node) {
            if (const char* op = findForm(kUnary, std::size(kUnary), n.target)) {
                out_ += op;
                appendArg(out_, n.args[0], g);
                return;
            }
        }
        if (noKw && na == 2 && n.target == "builtins.getattr" && n.args[0].kind == Arg::Kind::Node
            && n.args[1].kind == Arg::Kind::Str && isIdentifier(n.args[1].s)) {
            appendArg(out_, n.args[0], g);
            out_ += '.';
            out_ += n.args[1].s;
            return;
        }
        out_ += calleeText(n.target);
        callArgs(n, g, 0);
    }

    void output(const Graph& g, const Node& n, int body)
    {
        const Arg none;
        const Arg& v = n.args.empty() ? none : n.args[0];
        pad(body);
        const bool multi = opts_.comments && !g.outputDescs.empty() && v.isSequence();
        std::string prefix = g.outputPytree ? "return pytree.tree_unflatten(" : "return ";
        std::string suffix = g.outputPytree ? ", self._out_spec)" : "";
        out_ += prefix;
        if (multi) {
            const bool tuple = v.kind == Arg::Kind::Tuple;
            out_ += tuple ? "(\n" : "[\n";
            for (size_t k = 0; k < v.items.size(); ++k) {
                pad(body + 4);
                appendArg(out_, v.items[k], g);
                out_ += ',';
                if (k < g.outputDescs.size() && !g.outputDescs[k].empty()) out_ += "  # " + g.outputDescs[k];
                out_ += '\n';
            }
            pad(body);
            out_ += tuple ? ")" : "]";
        } else {
            appendArg(out_, v, g);
        }
        out_ += suffix;
        out_ += '\n';
    }
};

}  // namespace

std::string calleeText(const std::string& target)
{
    if (target.starts_with("builtins.") && isPythonBuiltinFunctionName(std::string_view(target).substr(9)))
        return target.substr(9);
    if (target.find('.') == std::string::npos || isPythonPathTarget(target)) return target;
    return "torch.ops." + target;
}

std::string pythonReprOfJson(const nlohmann::json& j)
{
    switch (j.type()) {
    case nlohmann::json::value_t::null: return "None";
    case nlohmann::json::value_t::boolean: return j.get<bool>() ? "True" : "False";
    case nlohmann::json::value_t::number_integer: return std::to_string(j.get<int64_t>());
    case nlohmann::json::value_t::number_unsigned: return std::to_string(j.get<uint64_t>());
    case nlohmann::json::value_t::number_float: return pythonFloatRepr(j.get<double>());
    case nlohmann::json::value_t::string: return pythonStrRepr(j.get<std::string>());
    case nlohmann::json::value_t::array: {
        std::string s = "[";
        bool first = true;
        for (const auto& e : j) {
            if (!first) s += ", ";
            first = false;
            s += pythonReprOfJson(e);
        }
        return s + "]";
    }
    case nlohmann::json::value_t::object: {
        std::string s = "{";
        bool first = true;
        for (auto it = j.begin(); it != j.end(); ++it) {
            if (!first) s += ", ";
            first = false;
            s += pythonStrRepr(it.key()) + ": " + pythonReprOfJson(it.value());
        }
        return s + "}";
    }
    default: return "None";
    }
}

std::string formatSummaryComment(const NodeMeta& m)
{
    std::string s = "#";
    if (m.autogradBackward) {
        s += " autograd_backward: ";
        s += *m.autogradBackward ? "True" : "False";
        s += " #";
    }
    if (!m.custom.is_null()) {
        s += " Annotation: ";
        s += m.custom.is_string() ? m.custom.get<std::string>() : pythonReprOfJson(m.custom);
    }
    if (m.recompute != Recompute::None && m.acGraphId) {
        s += " # ac_graph_id: " + std::to_string(*m.acGraphId) + " - " + std::string(recomputeName(m.recompute));
    } else if (m.recompute != Recompute::None) {
        s += " # recompute: " + std::string(recomputeName(m.recompute));
    } else if (m.acGraphId) {
        s += " # ac_graph_id: " + std::to_string(*m.acGraphId);
    }
    if (m.source.empty()) {
        s += " No stacktrace found for following nodes";
    } else if (m.source.line == 0 && m.source.function.empty() && m.source.code.empty()) {
        s += " File: " + m.source.file;
    } else if (m.source.function.empty()) {
        s += " File: " + m.source.file + ":" + std::to_string(m.source.line) + ", code: " + m.source.code;
    } else {
        s += " File: " + m.source.file + ":" + std::to_string(m.source.line) + " in " + m.source.function
            + ", code: " + m.source.code;
    }
    return s;
}

std::string formatArgPython(const Arg& a, const Graph& g)
{
    std::string s;
    appendArg(s, a, g);
    return s;
}

std::string printReadable(const Graph& g, const PrintOptions& opts)
{
    std::string out;
    out.reserve(64 + g.size() * 96);
    Writer w(opts, out);
    w.module(g, g.className, 0);
    return out;
}

}  // namespace fxl
