// Writer of print_readable() text (the form FX's CodeGen emits in verbose mode, 2.5+ style
// annotations) from an fxl::Graph, so that parseFxText(printReadable(g)) gives g back.
#include <algorithm>
#include <cctype>
#include <string>
#include <unordered_set>
#include <vector>

#include "core/formats/fx/fx_text_writer.hpp"
#include "core/formats/fx/py_lexer.hpp"
#include "core/formats/fx/python_operators.hpp"
#include "core/formats/fx/summary_comment.hpp"

namespace fxl {

namespace {

// A string literal as FX prints names and annotations: in double quotes, through
// pythonStrRepr only when it has a quote or a backslash to escape.
std::string doubleQuoted(const std::string& s)
{
    if (s.find('"') == std::string::npos && s.find('\\') == std::string::npos) return "\"" + s + "\"";
    return pythonStrRepr(s);
}

// "self" + "layers.0.weight" -> getattr(self.layers, "0").weight  (FX's _format_target)
std::string formatTarget(std::string base, const std::string& target)
{
    size_t begin = 0;
    for (;;) {
        size_t end = target.find('.', begin);
        std::string_view atom =
            std::string_view(target).substr(begin, end == std::string::npos ? std::string::npos : end - begin);
        if (isPythonIdentifier(atom)) {
            base += '.';
            base += atom;
        } else {
            base = "getattr(" + base + ", " + doubleQuoted(std::string(atom)) + ")";
        }
        if (end == std::string::npos) break;
        begin = end + 1;
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

// "cuda:0" -> device(type='cuda', index=0)
std::string deviceRepr(const std::string& device)
{
    size_t colon = device.rfind(':');
    if (colon != std::string::npos && colon + 1 < device.size()) {
        bool digits = true;
        for (size_t k = colon + 1; k < device.size(); ++k)
            digits = digits && std::isdigit(static_cast<unsigned char>(device[k]));
        if (digits)
            return "device(type=" + pythonStrRepr(device.substr(0, colon)) + ", index=" + device.substr(colon + 1)
                + ")";
    }
    return "device(type=" + pythonStrRepr(device) + ")";
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

// Where each node is used last (by position in the order): the ";  a = b = None" suffixes
// name the values a statement uses for the last time.
class LastUses
{
public:
    explicit LastUses(const Graph& g)
    {
        const auto& order = g.order();
        for (NodeId id : order) idLimit_ = std::max(idLimit_, static_cast<size_t>(id) + 1);
        lastUse_.assign(idLimit_, -1);
        seenAt_.assign(idLimit_, -1);
        for (size_t k = 0; k < order.size(); ++k) {
            const Node& n = g.node(order[k]);
            auto use = [&](NodeId input) {
                if (input >= 0 && static_cast<size_t>(input) < idLimit_)
                    lastUse_[static_cast<size_t>(input)] = static_cast<int32_t>(k);
            };
            for (const auto& a : n.args) a.forEachNode(use);
            for (const auto& kv : n.kwargs) kv.second.forEachNode(use);
        }
    }

    // "a = b = " for the inputs of `n` (at `position` in the order) used last there, and for
    // `n` itself when nothing uses it; "" when none.
    std::string deletions(const Graph& g, const Node& n, size_t position)
    {
        const auto k = static_cast<int32_t>(position);
        std::string names;
        auto consider = [&](NodeId input) {
            if (input < 0 || static_cast<size_t>(input) >= idLimit_) return;
            if (seenAt_[static_cast<size_t>(input)] == k) return;
            seenAt_[static_cast<size_t>(input)] = k;
            if (lastUse_[static_cast<size_t>(input)] == k && g.alive(input)) {
                names += g.node(input).name;
                names += " = ";
            }
        };
        for (const auto& a : n.args) a.forEachNode(consider);
        for (const auto& kv : n.kwargs) kv.second.forEachNode(consider);
        if (lastUse_[static_cast<size_t>(n.id)] < 0) names += n.name + " = ";
        return names;
    }

private:
    size_t idLimit_ = 0;
    std::vector<int32_t> lastUse_;
    std::vector<int32_t> seenAt_;  // position of the statement that listed the node last
};

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
            return ": " + doubleQuoted(formatAnnotation(n.val));
        }
        if (!n.typeExpr.empty()) return ": " + n.typeExpr;
        return {};
    }

    std::string paramText(const Node& p, const Graph& g) const
    {
        std::string param = p.target.empty() ? p.name : p.target;
        param += annotation(p);
        if (p.placeholderDefault) {
            param += " = ";
            appendArg(param, *p.placeholderDefault, g);
        }
        return param;
    }

    // The parameter name without its '*' / '**'.
    static std::string rawName(const Node& p)
    {
        std::string name = p.target.empty() ? p.name : p.target;
        size_t stars = 0;
        while (stars < name.size() && name[stars] == '*') ++stars;
        return name.substr(stars);
    }

    void forward(const Graph& g, int indent)
    {
        const int body = indent + 4;
        std::vector<const Node*> placeholders;
        g.forEachNode([&](const Node& n) {
            if (n.op == NodeOp::Placeholder) placeholders.push_back(&n);
        });
        signature(g, placeholders, indent);
        const bool bodyStarted = aliases(placeholders, body);
        nodes(g, body, bodyStarted);
        pad(body);
        out_ += '\n';
    }

    // --- signatures

    void signature(const Graph& g, const std::vector<const Node*>& placeholders, int indent)
    {
        const int body = indent + 4;
        pad(indent);
        // described inputs (AOT descriptors, or a params.json the graph was read with) keep their
        // descriptions the way PyTorch prints them: one input per line
        SignatureStyle style = g.signature;
        if ((style == SignatureStyle::Flat || style == SignatureStyle::Plain) && opts_.comments
            && std::any_of(placeholders.begin(), placeholders.end(),
                           [](const Node* p) { return !p->meta.desc.empty(); }))
            style = SignatureStyle::Expanded;
        switch (style) {
        case SignatureStyle::Pytree: pytreeSignature(g, placeholders, indent); break;
        case SignatureStyle::Boxed:
            out_ += "def forward(self, args_list):\n";
            if (!placeholders.empty()) {
                pad(body);
                out_ += "args_iter = iter(args_list)\n";
                for (const Node* p : placeholders) {
                    pad(body);
                    out_ += rawName(*p) + annotation(*p) + " = next(args_iter)\n";
                }
                pad(body);
                out_ += "args_list.clear()\n";
            }
            break;
        case SignatureStyle::Expanded:
            if (!placeholders.empty() || opts_.comments) {
                out_ += "def forward(\n";
                pad(body);
                out_ += "self,\n";
                for (const Node* p : placeholders) {
                    pad(body);
                    out_ += paramText(*p, g) + ",";
                    if (opts_.comments && !p->meta.desc.empty()) out_ += "  # " + p->meta.desc;
                    out_ += '\n';
                }
                pad(indent);
                out_ += "):\n";
                break;
            }
            [[fallthrough]];
        case SignatureStyle::Flat:
        case SignatureStyle::Plain:
            out_ += "def forward(self";
            for (const Node* p : placeholders) out_ += ", " + paramText(*p, g);
            out_ += "):\n";
            break;
        }
    }

    // "def forward(self, primals, tangents):", the declarations of the flattened names, and the
    // flatten line.
    void pytreeSignature(const Graph& g, const std::vector<const Node*>& placeholders, int indent)
    {
        const int body = indent + 4;
        bool anyDesc = false;
        for (const Node* p : placeholders) anyDesc = anyDesc || !p->meta.desc.empty();
        const bool expanded = opts_.comments && (anyDesc || !g.outputDescs.empty());
        if (expanded) {
            out_ += "def forward(\n";
            pad(body);
            out_ += "self,\n";
            for (const auto& a : g.pytreeArgNames) {
                pad(body);
                out_ += a + ",\n";
            }
            pad(indent);
            out_ += "):\n";
        } else {
            out_ += "def forward(self";
            for (const auto& a : g.pytreeArgNames) out_ += ", " + a;
            out_ += "):\n";
        }
        if (placeholders.empty()) return;
        if (expanded) {
            for (const Node* p : placeholders) {
                std::string an = annotation(*p);
                if (an.empty()) continue;
                pad(body);
                out_ += rawName(*p) + an;
                if (!p->meta.desc.empty()) out_ += "  # " + p->meta.desc;
                out_ += '\n';
            }
        } else {
            std::string declarations;
            for (const Node* p : placeholders) {
                std::string an = annotation(*p);
                if (!an.empty()) declarations += rawName(*p) + an + "; ";
            }
            if (!declarations.empty()) {
                pad(body);
                out_ += declarations;
                out_ += '\n';
                pad(body);
                out_ += '\n';
            }
        }
        pad(body);
        for (const Node* p : placeholders) out_ += rawName(*p) + ", ";
        out_ += "= fx_pytree.tree_flatten_spec([";
        for (size_t k = 0; k < g.pytreeArgNames.size(); ++k) {
            if (k) out_ += ", ";
            out_ += g.pytreeArgNames[k];
        }
        out_ += "], self._in_spec)\n";
    }

    // Dynamo aliases "l_x_ = L_x_". They open the body (so a comment after them gets a blank
    // line): true when there is one.
    bool aliases(const std::vector<const Node*>& placeholders, int body)
    {
        bool any = false;
        for (const Node* p : placeholders) {
            std::string raw = rawName(*p);
            if (raw != p->name) {
                pad(body);
                out_ += p->name + " = " + raw + '\n';
                any = true;
            }
        }
        return any;
    }

    // --- the body

    void nodes(const Graph& g, int body, bool bodyStarted)
    {
        LastUses lastUses(g);
        const auto& order = g.order();
        // like FX, the first node always gets its summary ("# No stacktrace found ..." included)
        std::string previousSummary;
        for (size_t k = 0; k < order.size(); ++k) {
            const Node& n = g.node(order[k]);
            if (n.op == NodeOp::Placeholder) continue;
            if (n.op == NodeOp::Output) {
                output(g, n, body);
                continue;
            }
            if (opts_.comments) {
                std::string summary = formatSummaryComment(n.meta, n.name);
                if (summary != previousSummary) {
                    if (bodyStarted) {
                        pad(body);
                        out_ += '\n';
                    }
                    pad(body);
                    out_ += summary;
                    out_ += '\n';
                    previousSummary = std::move(summary);
                }
            }
            bodyStarted = true;
            pad(body);
            statement(g, n);
            if (opts_.deletions) {
                std::string deletions = lastUses.deletions(g, n, k);
                if (!deletions.empty()) {
                    out_ += ";  ";
                    out_ += deletions;
                    out_ += "None";
                }
            }
            out_ += '\n';
        }
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
        const std::string lhs = n.name + annotation(n) + " = ";
        switch (n.op) {
        case NodeOp::GetAttr:
            out_ += lhs;
            out_ += formatTarget("self", n.target);
            return;
        case NodeOp::CallModule:
            out_ += lhs;
            out_ += formatTarget("self", n.target);
            callArgs(n, g, 0);
            return;
        case NodeOp::CallMethod:
            out_ += lhs;
            methodCall(g, n);
            return;
        case NodeOp::CallFunction:
            if (mutation(g, n, lhs)) return;
            out_ += lhs;
            if (!operatorForm(g, n)) {
                out_ += calleeText(n.target);
                callArgs(n, g, 0);
            }
            return;
        default:
            out_ += lhs;
            out_ += "None";
            return;
        }
    }

    void methodCall(const Graph& g, const Node& n)
    {
        if (!n.args.empty() && n.args[0].kind == Arg::Kind::Node && isPythonIdentifier(n.target)) {
            appendArg(out_, n.args[0], g);
            out_ += '.';
            out_ += n.target;
            callArgs(n, g, 1);
            return;
        }
        // not printable as a method call: keep it readable (lossy)
        out_ += "getattr(";
        if (!n.args.empty())
            appendArg(out_, n.args[0], g);
        else
            out_ += "None";
        out_ += ", " + pythonStrRepr(n.target) + ")";
        callArgs(n, g, n.args.empty() ? 0 : 1);
    }

    // "a += b;  iadd = a" and "a[i] = v;  setitem = a"; false when `n` has neither form.
    bool mutation(const Graph& g, const Node& n, const std::string& lhs)
    {
        if (!n.kwargs.empty() || n.args.empty() || n.args[0].kind != Arg::Kind::Node) return false;
        if (n.args.size() == 2) {
            const char* op = inplaceOperatorText(n.target);
            if (!op) return false;
            appendArg(out_, n.args[0], g);
            out_ += ' ';
            out_ += op;
            out_ += ' ';
            appendArg(out_, n.args[1], g);
        } else if (n.args.size() == 3 && n.target == "operator.setitem") {
            appendArg(out_, n.args[0], g);
            out_ += '[';
            appendArg(out_, n.args[1], g);
            out_ += "] = ";
            appendArg(out_, n.args[2], g);
        } else {
            return false;
        }
        out_ += ";  ";
        out_ += lhs;
        appendArg(out_, n.args[0], g);
        return true;
    }

    // "a + b", "a[i]", "-a", "a.attr"; false when `n` has none of these forms.
    bool operatorForm(const Graph& g, const Node& n)
    {
        if (!n.kwargs.empty()) return false;
        const size_t argCount = n.args.size();
        if (argCount == 2 && simpleOperand(n.args[0])) {
            if (const char* op = binaryOperatorText(n.target)) {
                appendArg(out_, n.args[0], g);
                out_ += ' ';
                out_ += op;
                out_ += ' ';
                appendArg(out_, n.args[1], g);
                return true;
            }
            if (n.isGetitem()) {
                appendArg(out_, n.args[0], g);
                out_ += '[';
                appendArg(out_, n.args[1], g);
                out_ += ']';
                return true;
            }
        }
        if (argCount == 1 && n.args[0].kind == Arg::Kind::Node) {
            if (const char* op = unaryOperatorText(n.target)) {
                out_ += op;
                appendArg(out_, n.args[0], g);
                return true;
            }
        }
        if (argCount == 2 && n.target == "builtins.getattr" && n.args[0].kind == Arg::Kind::Node
            && n.args[1].kind == Arg::Kind::Str && isPythonIdentifier(n.args[1].s)) {
            appendArg(out_, n.args[0], g);
            out_ += '.';
            out_ += n.args[1].s;
            return true;
        }
        return false;
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
