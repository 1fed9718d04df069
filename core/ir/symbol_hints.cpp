#include "core/ir/symbol_hints.hpp"

#include <cctype>
#include <charconv>

namespace fxl {
namespace {

void hintOfSize(const SymInt& s, SymbolValues& out)
{
    if (s.isConcrete() || !s.hint()) return;
    const SymExpr e = s.expr();
    if (e.isSymbol()) out.emplace(e.symbols().front(), *s.hint());
}

void hintsOfMeta(const ValueMeta& v, SymbolValues& out)
{
    switch (v.kind) {
    case ValueMeta::Kind::Tensor:
        for (const auto& s : v.tensor.sizes) hintOfSize(s, out);
        for (const auto& s : v.tensor.strides) hintOfSize(s, out);
        hintOfSize(v.tensor.storageOffset, out);
        break;
    case ValueMeta::Kind::Tuple:
        for (const auto& e : v.elems) hintsOfMeta(e, out);
        break;
    case ValueMeta::Kind::SymInt:
        if (v.symHint && v.sym.isSymbol()) out.emplace(v.sym.symbols().front(), *v.symHint);
        break;
    default: break;
    }
}

void collect(const Graph& g, SymbolValues& out)
{
    g.forEachNode([&](const Node& n) { hintsOfMeta(n.val, out); });
    for (const auto& [name, sub] : g.subgraphs)
        if (sub) collect(*sub, out);
}

struct Binder
{
    const SymbolValues& values;
    size_t changed = 0;

    void size(SymInt& s)
    {
        if (s.isConcrete()) return;
        const std::optional<int64_t> v = s.expr().evaluate(values);
        if (!v || s.hint() == v) return;
        s.setHint(v);
        ++changed;
    }
    void meta(ValueMeta& m)
    {
        switch (m.kind) {
        case ValueMeta::Kind::Tensor:
            for (auto& s : m.tensor.sizes) size(s);
            for (auto& s : m.tensor.strides) size(s);
            size(m.tensor.storageOffset);
            break;
        case ValueMeta::Kind::Tuple:
            for (auto& e : m.elems) meta(e);
            break;
        case ValueMeta::Kind::SymInt:
            if (!m.sym.isConstant()) {
                const std::optional<int64_t> v = m.sym.evaluate(values);
                if (v && m.symHint != v) {
                    m.symHint = v;
                    ++changed;
                }
            }
            break;
        default: break;
        }
    }
    void graph(Graph& g)
    {
        g.forEachNodeMut([&](Node& n) { meta(n.val); });
        for (auto& [name, sub] : g.subgraphs)
            if (sub) graph(*sub);
    }
};

void symbolsOfMeta(const ValueMeta& m, std::set<std::string>& out)
{
    auto add = [&](const SymInt& s) {
        if (s.isConcrete()) return;
        for (const auto& name : s.expr().symbols()) out.insert(name);
    };
    switch (m.kind) {
    case ValueMeta::Kind::Tensor:
        for (const auto& s : m.tensor.sizes) add(s);
        for (const auto& s : m.tensor.strides) add(s);
        add(m.tensor.storageOffset);
        break;
    case ValueMeta::Kind::Tuple:
        for (const auto& e : m.elems) symbolsOfMeta(e, out);
        break;
    case ValueMeta::Kind::SymInt:
    case ValueMeta::Kind::SymFloat:
    case ValueMeta::Kind::SymBool:
        for (const auto& name : m.sym.symbols()) out.insert(name);
        break;
    default: break;
    }
}

void symbolsOf(const Graph& g, std::set<std::string>& out)
{
    g.forEachNode([&](const Node& n) { symbolsOfMeta(n.val, out); });
    for (const auto& [name, sub] : g.subgraphs)
        if (sub) symbolsOf(*sub, out);
}

}  // namespace

std::set<std::string> graphSymbols(const Graph& g)
{
    std::set<std::string> out;
    symbolsOf(g, out);
    return out;
}

SymbolValues symbolHints(const Graph& g)
{
    SymbolValues out;
    collect(g, out);
    return out;
}

std::set<std::string> unhintedInputSymbols(const Graph& g, const std::function<bool(const Node&)>& generated)
{
    std::set<std::string> out;
    for (NodeId id : g.placeholders()) {
        const Node& n = g.node(id);
        if (!n.val.isTensor() || !generated(n)) continue;
        for (const auto& s : n.val.tensor.sizes)
            if (!s.maybeValue())
                for (const auto& sym : s.expr().symbols()) out.insert(sym);
    }
    return out;
}

size_t bindSymbols(Graph& g, const SymbolValues& values)
{
    SymbolValues all = values;
    for (const auto& [name, v] : symbolHints(g)) all.emplace(name, v);  // the given ones win
    Binder b{all};
    b.graph(g);
    return b.changed;
}

bool parseSymbolValues(std::string_view text, SymbolValues& out, std::string& error, size_t& column)
{
    size_t i = 0;
    auto skipSpaces = [&] {
        while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    };
    auto fail = [&](std::string what) {
        error = std::move(what);
        column = i + 1;
        return false;
    };
    skipSpaces();
    if (i == text.size()) return fail("expected SYMBOL=N (e.g. s0=8,u0=3)");
    while (i < text.size()) {
        skipSpaces();
        const size_t start = i;
        while (i < text.size() && (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '_')) ++i;
        if (i == start || std::isdigit(static_cast<unsigned char>(text[start]))) {
            i = start;
            return fail("expected a symbol name (s0, u0, ...)");
        }
        const std::string name(text.substr(start, i - start));
        skipSpaces();
        if (i == text.size() || text[i] != '=') return fail("expected '=' after " + name);
        ++i;
        skipSpaces();
        int64_t v = 0;
        const auto [p, ec] = std::from_chars(text.data() + i, text.data() + text.size(), v);
        if (ec != std::errc() || p == text.data() + i) return fail("expected an integer value for " + name);
        if (v < 0) return fail("expected a value >= 0 for " + name);
        i = static_cast<size_t>(p - text.data());
        if (out.count(name)) {
            i = start;
            return fail(name + " is bound twice");
        }
        out[name] = v;
        skipSpaces();
        if (i == text.size()) break;
        if (text[i] != ',' && text[i] != ';') return fail("expected ',' between bindings");
        ++i;
        skipSpaces();
        if (i == text.size()) return fail("expected SYMBOL=N after ','");
    }
    return true;
}

}  // namespace fxl
