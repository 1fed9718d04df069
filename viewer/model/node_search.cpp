// The search box's query language, the producer / consumer walks and the definition line of a
// node (viewer/model/node_search.hpp: rules S1-S3, W1-W2, L1).
#include "viewer/model/node_search.hpp"

#include <algorithm>
#include <cctype>
#include <string_view>
#include <unordered_set>

#include "core/analysis/phases.hpp"

namespace fxl::viewer {

namespace {

constexpr const char* kFields = "name, op, target, module, phase, tag, meta, kind";
constexpr const char* kPhases = "input, forward, loss, backward, recomputed, output";
constexpr const char* kTags = "must_save, prefer_save, must_recompute, prefer_recompute, recompute";
constexpr const char* kKinds = "placeholder, call_function, call_method, call_module, get_attr, output";

char lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

std::string lowered(std::string_view s)
{
    std::string out(s);
    for (char& c : out) c = lower(c);
    return out;
}

bool isSpace(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }
bool isIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }
bool isIdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '_'; }

// Whether `hay` contains `needleLower` (already lower case), ignoring case.
bool containsNoCase(std::string_view hay, std::string_view needleLower)
{
    if (needleLower.empty()) return true;
    return std::search(hay.begin(), hay.end(), needleLower.begin(), needleLower.end(),
                       [](char a, char b) { return lower(a) == b; })
        != hay.end();
}

// '*' matches any run of characters; everything else itself.
bool globMatch(std::string_view pattern, std::string_view s)
{
    size_t p = 0, i = 0, starP = std::string_view::npos, starI = 0;
    while (i < s.size()) {
        if (p < pattern.size() && pattern[p] == '*') {
            starP = p++;
            starI = i;
        } else if (p < pattern.size() && pattern[p] == s[i]) {
            ++p;
            ++i;
        } else if (starP != std::string_view::npos) {
            p = starP + 1;
            i = ++starI;
        } else {
            return false;
        }
    }
    while (p < pattern.size() && pattern[p] == '*') ++p;
    return p == pattern.size();
}

bool isFieldWord(const std::string& s)
{
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
        return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
    });
}

bool fieldFromName(const std::string& key, SearchField& f)
{
    static const std::pair<const char*, SearchField> kAll[] = {
        {"name", SearchField::Name},     {"op", SearchField::Op},       {"target", SearchField::Target},
        {"module", SearchField::Module}, {"phase", SearchField::Phase}, {"tag", SearchField::Tag},
        {"meta", SearchField::Meta},     {"kind", SearchField::Kind},
    };
    for (const auto& [name, field] : kAll)
        if (key == name) {
            f = field;
            return true;
        }
    return false;
}

// Checks a field's value and brings it to the form matching compares (S3).
std::string checkValue(SearchTerm& t)
{
    const std::string field = searchFieldName(t.field);
    if (t.value.empty()) return "\"" + field + ":\" needs a value";
    switch (t.field) {
    case SearchField::Phase: {
        t.value = lowered(t.value);
        for (PhaseClass p : {PhaseClass::Input, PhaseClass::Forward, PhaseClass::Loss, PhaseClass::Backward,
                             PhaseClass::Recomputed, PhaseClass::Output})
            if (t.value == phaseClassName(p)) return "";
        return "unknown phase \"" + t.value + "\"; phase: is one of " + kPhases;
    }
    case SearchField::Tag: {
        t.value = lowered(t.value);
        if (t.value == "recompute") return "";
        for (Recompute r :
             {Recompute::MustSave, Recompute::PreferSave, Recompute::MustRecompute, Recompute::PreferRecompute})
            if (t.value == lowered(recomputeName(r))) return "";
        return "unknown tag \"" + t.value + "\"; tag: is one of " + kTags;
    }
    case SearchField::Kind:
        t.value = lowered(t.value);
        if (nodeOpFromName(t.value)) return "";
        return "unknown kind \"" + t.value + "\"; kind: is one of " + kKinds;
    case SearchField::Meta: {
        const size_t eq = t.value.find('=');
        if (eq != std::string::npos) {
            t.metaValue = t.value.substr(eq + 1);
            t.hasMetaValue = true;
            t.value.resize(eq);
        }
        if (t.value.empty()) return "\"meta:\" needs a key (meta:key or meta:key=value)";
        return "";
    }
    case SearchField::Text:
    case SearchField::Target: t.value = lowered(t.value); return "";
    default: return "";
    }
}

// meta:K: the value at key K of an object, a dotted K walking nested objects when the whole K
// is not a key.
const nlohmann::json* metaValue(const nlohmann::json& custom, const std::string& key)
{
    if (!custom.is_object()) return nullptr;
    auto it = custom.find(key);
    if (it != custom.end()) return &*it;
    const nlohmann::json* at = &custom;
    size_t start = 0;
    while (true) {
        const size_t dot = key.find('.', start);
        const std::string part = key.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
        if (!at->is_object()) return nullptr;
        auto sub = at->find(part);
        if (sub == at->end()) return nullptr;
        at = &*sub;
        if (dot == std::string::npos) return at;
        start = dot + 1;
    }
}

bool metaValueIs(const nlohmann::json& v, const std::string& want)
{
    if (v.is_string()) return v.get<std::string>() == want;
    if (v.is_boolean()) return want == (v.get<bool>() ? "True" : "False") || want == v.dump();
    return v.dump() == want;
}

bool opMatches(const Node& n, const std::string& v)
{
    if (v == n.target) return true;
    if (n.op != NodeOp::CallFunction && n.op != NodeOp::CallMethod) return false;
    if (v == opNameOf(n)) return true;
    // "namespace.op" of an overload target
    if (n.op == NodeOp::CallFunction && !isPythonPathTarget(n.target)) {
        const size_t a = n.target.find('.');
        const size_t b = a == std::string::npos ? std::string::npos : n.target.find('.', a + 1);
        if (b != std::string::npos && std::string_view(n.target).substr(0, b) == v) return true;
    }
    return false;
}

bool termMatches(const GroupTree& tree, const Node& n, const SearchTerm& t, std::string& module, bool& haveModule)
{
    auto modulePath = [&]() -> const std::string& {
        if (!haveModule) {
            module = nodeModulePath(n);
            haveModule = true;
        }
        return module;
    };
    switch (t.field) {
    case SearchField::Text:
        return containsNoCase(n.name, t.value) || containsNoCase(n.target, t.value)
            || containsNoCase(modulePath(), t.value);
    case SearchField::Name:
        return t.value.find('*') == std::string::npos ? n.name == t.value : globMatch(t.value, n.name);
    case SearchField::Op: return opMatches(n, t.value);
    case SearchField::Target: return containsNoCase(n.target, t.value);
    case SearchField::Module: {
        const std::string& m = modulePath();
        return m.size() >= t.value.size() && m.compare(0, t.value.size(), t.value) == 0
            && (m.size() == t.value.size() || m[t.value.size()] == '.');
    }
    case SearchField::Phase: return t.value == phaseClassName(tree.phaseOf(n.id));
    case SearchField::Tag:
        if (n.meta.recompute == Recompute::None) return false;
        return t.value == "recompute" || t.value == lowered(recomputeName(n.meta.recompute));
    case SearchField::Meta: {
        const nlohmann::json* v = metaValue(n.meta.custom, t.value);
        return v && (!t.hasMetaValue || metaValueIs(*v, t.metaValue));
    }
    case SearchField::Kind: return t.value == nodeOpName(n.op);
    }
    return false;
}

// One past the largest node id of the graph (the size of a table indexed by id).
size_t idCapacity(const Graph& g)
{
    size_t cap = 0;
    for (NodeId id : g.order()) cap = std::max(cap, static_cast<size_t>(id) + 1);
    return cap;
}

// W2: marks what `next` reaches from `start` with an explicit stack, then lists it in graph order.
template<class Next>
std::vector<NodeId> cone(const Graph& g, NodeId start, Next&& next)
{
    if (!g.alive(start)) return {};
    const size_t cap = idCapacity(g);
    std::vector<uint8_t> seen(cap, 0);
    std::vector<NodeId> stack{start};
    seen[static_cast<size_t>(start)] = 1;
    while (!stack.empty()) {
        const NodeId at = stack.back();
        stack.pop_back();
        next(at, [&](NodeId to) {
            if (to < 0 || static_cast<size_t>(to) >= cap || seen[static_cast<size_t>(to)]) return;
            seen[static_cast<size_t>(to)] = 1;
            stack.push_back(to);
        });
    }
    seen[static_cast<size_t>(start)] = 0;
    std::vector<NodeId> out;
    for (NodeId id : g.order())
        if (seen[static_cast<size_t>(id)]) out.push_back(id);
    return out;
}

// --- L1

bool startsWithWord(std::string_view s, size_t at, std::string_view word)
{
    return s.size() >= at + word.size() && s.compare(at, word.size(), word) == 0
        && (at + word.size() == s.size() || !isIdentChar(s[at + word.size()])) && (at == 0 || !isIdentChar(s[at - 1]));
}

size_t skipSpaces(std::string_view s, size_t p)
{
    while (p < s.size() && isSpace(s[p])) ++p;
    return p;
}

// "name: ..." (an annotated assignment or a bare declaration).
bool declares(std::string_view st, std::string_view name)
{
    if (!startsWithWord(st, 0, name)) return false;
    const size_t p = skipSpaces(st, name.size());
    return p < st.size() && st[p] == ':';
}

// "name = ..." (not "name == ...").
bool assigns(std::string_view st, std::string_view name)
{
    if (!startsWithWord(st, 0, name)) return false;
    const size_t p = skipSpaces(st, name.size());
    return p < st.size() && st[p] == '=' && (p + 1 == st.size() || st[p + 1] != '=');
}

// "a, name, b = ..." / "a, name, = ...": a tuple of plain names assigned at once.
bool unpacks(std::string_view st, std::string_view name)
{
    size_t p = 0;
    bool found = false, comma = false;
    while (true) {
        p = skipSpaces(st, p);
        if (p >= st.size()) return false;
        if (st[p] == '=') return comma && found && (p + 1 == st.size() || st[p + 1] != '=');
        if (!isIdentStart(st[p])) return false;
        size_t e = p;
        while (e < st.size() && isIdentChar(st[e])) ++e;
        found = found || st.substr(p, e - p) == name;
        p = skipSpaces(st, e);
        if (p < st.size() && st[p] == ',') {
            comma = true;
            ++p;
        } else if (p >= st.size() || st[p] != '=') {
            return false;
        }
    }
}

// Inside a string literal (quote != 0): steps over an escape or closes the string at s[i];
// true when s[i] belonged to the string.
bool inString(std::string_view s, size_t& i, char& quote)
{
    if (!quote) return false;
    if (s[i] == '\\')
        ++i;
    else if (s[i] == quote)
        quote = 0;
    return true;
}

// The statements of a code line: split at ';' outside strings, up to a comment.
std::vector<std::string_view> statements(std::string_view line)
{
    std::vector<std::string_view> out;
    size_t start = 0;
    char quote = 0;
    size_t i = 0;
    for (; i < line.size(); ++i) {
        const char c = line[i];
        if (inString(line, i, quote)) continue;
        if (c == '"' || c == '\'')
            quote = c;
        else if (c == '#')
            break;
        else if (c == ';') {
            out.push_back(line.substr(start, i - start));
            start = i + 1;
        }
    }
    out.push_back(line.substr(start, std::min(i, line.size()) - start));
    for (auto& s : out) s = s.substr(std::min(skipSpaces(s, 0), s.size()));
    return out;
}

// A "def" signature being read, possibly over several lines.
struct Signature
{
    bool open = false;
    int depth = 0;  // bracket depth; the parameters are at depth 1
    bool expectName = false;  // at depth 1, after '(' or ','
};

// Reads a signature line from `from`; true when `name` stands there as a parameter.
bool scanSignature(std::string_view s, size_t from, std::string_view name, Signature& sig)
{
    char quote = 0;
    for (size_t i = from; i < s.size(); ++i) {
        const char c = s[i];
        if (inString(s, i, quote)) continue;
        if (isSpace(c) || c == '*') continue;
        if (c == '#') break;
        if (c == '"' || c == '\'') {
            quote = c;
            if (sig.depth == 1) sig.expectName = false;
        } else if (c == '(' || c == '[' || c == '{') {
            ++sig.depth;
            sig.expectName = sig.depth == 1;
        } else if (c == ')' || c == ']' || c == '}') {
            if (--sig.depth <= 0) {
                sig.open = false;
                return false;
            }
        } else if (c == ',') {
            if (sig.depth == 1) sig.expectName = true;
        } else if (isIdentStart(c)) {
            size_t e = i;
            while (e < s.size() && isIdentChar(s[e])) ++e;
            if (sig.depth == 1 && sig.expectName && s.substr(i, e - i) == name) return true;
            if (sig.depth == 1) sig.expectName = false;
            i = e - 1;
        } else if (sig.depth == 1) {
            sig.expectName = false;
        }
    }
    return false;
}

}  // namespace

const char* searchFieldName(SearchField f)
{
    switch (f) {
    case SearchField::Text: return "text";
    case SearchField::Name: return "name";
    case SearchField::Op: return "op";
    case SearchField::Target: return "target";
    case SearchField::Module: return "module";
    case SearchField::Phase: return "phase";
    case SearchField::Tag: return "tag";
    case SearchField::Meta: return "meta";
    case SearchField::Kind: return "kind";
    }
    return "?";
}

SearchQuery parseSearchQuery(const std::string& text)
{
    SearchQuery q;
    const size_t n = text.size();
    size_t i = 0;
    while (true) {
        while (i < n && isSpace(text[i])) ++i;
        if (i >= n) break;
        std::string cur, key;
        bool haveKey = false, quoted = false, inQuote = false;
        for (; i < n; ++i) {
            const char c = text[i];
            if (c == '"') {
                inQuote = !inQuote;
                quoted = true;
                continue;
            }
            if (!inQuote && isSpace(c)) break;
            if (!inQuote && !haveKey && !quoted && c == ':' && isFieldWord(cur) && !(i + 1 < n && text[i + 1] == ':')) {
                key = lowered(cur);
                cur.clear();
                haveKey = true;
                continue;
            }
            cur += c;
        }
        if (inQuote) {
            q.terms.clear();
            q.error = "unterminated quote: a value in quotes ends with \"";
            return q;
        }
        SearchTerm t;
        if (haveKey && !fieldFromName(key, t.field)) {
            q.terms.clear();
            q.error = "unknown field \"" + key + ":\"; the fields are " + kFields + " (or text without a field)";
            return q;
        }
        t.value = std::move(cur);
        if (!haveKey && t.value.empty()) continue;  // "" alone
        std::string error = checkValue(t);
        if (!error.empty()) {
            q.terms.clear();
            q.error = std::move(error);
            return q;
        }
        q.terms.push_back(std::move(t));
    }
    return q;
}

std::string opNameOf(const Node& n)
{
    if (n.op == NodeOp::CallMethod) return n.target;
    if (n.op != NodeOp::CallFunction) return "";
    const std::string& t = n.target;
    if (isPythonPathTarget(t)) return t.substr(t.rfind('.') + 1);
    const size_t a = t.find('.');
    if (a == std::string::npos) return t;
    const size_t b = t.find('.', a + 1);
    return t.substr(a + 1, b == std::string::npos ? std::string::npos : b - a - 1);
}

bool matchesQuery(const GroupTree& tree, NodeId id, const SearchQuery& q)
{
    if (!q.ok()) return false;
    const Node& n = tree.graph().node(id);
    std::string module;
    bool haveModule = false;
    for (const SearchTerm& t : q.terms)
        if (!termMatches(tree, n, t, module, haveModule)) return false;
    return true;
}

std::vector<NodeId> searchNodes(const GroupTree& tree, const SearchQuery& q, size_t limit)
{
    std::vector<NodeId> out;
    if (!q.ok()) return out;
    for (NodeId id : tree.graph().order()) {
        if (out.size() >= limit) break;
        if (matchesQuery(tree, id, q)) out.push_back(id);
    }
    return out;
}

std::vector<NodeId> producersOf(const Graph& g, NodeId id)
{
    std::vector<NodeId> out;
    if (!g.alive(id)) return out;
    std::unordered_set<NodeId> seen;
    auto add = [&](NodeId p) {
        if (p >= 0 && seen.insert(p).second) out.push_back(p);
    };
    const Node& n = g.node(id);
    for (const Arg& a : n.args) a.forEachNode(add);
    for (const auto& kv : n.kwargs) kv.second.forEachNode(add);
    return out;
}

std::vector<NodeId> consumersOf(const Graph& g, NodeId id)
{
    if (!g.alive(id)) return {};
    std::vector<NodeId> out;
    for (NodeId u : g.node(id).users)
        if (g.alive(u)) out.push_back(u);
    std::sort(out.begin(), out.end(), [&](NodeId a, NodeId b) { return g.positionOf(a) < g.positionOf(b); });
    return out;
}

std::vector<NodeId> upstreamCone(const Graph& g, NodeId id)
{
    return cone(g, id, [&](NodeId at, auto&& visit) {
        const Node& n = g.node(at);
        for (const Arg& a : n.args) a.forEachNode(visit);
        for (const auto& kv : n.kwargs) kv.second.forEachNode(visit);
    });
}

std::vector<NodeId> downstreamCone(const Graph& g, NodeId id)
{
    return cone(g, id, [&](NodeId at, auto&& visit) {
        for (NodeId u : g.node(at).users) visit(u);
    });
}

int findNodeLine(const std::string& text, const std::string& nodeName)
{
    if (nodeName.empty()) return 0;
    const std::string_view all(text), name(nodeName);
    Signature sig;
    int lineNo = 0;
    for (size_t start = 0; start <= all.size();) {
        size_t end = all.find('\n', start);
        if (end == std::string_view::npos) end = all.size();
        std::string_view line = all.substr(start, end - start);
        start = end + 1;
        ++lineNo;
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (sig.open) {
            if (scanSignature(line, 0, name, sig)) return lineNo;
            continue;
        }
        const std::string_view t = line.substr(std::min(skipSpaces(line, 0), line.size()));
        if (t.empty() || t[0] == '#') continue;
        if (t[0] == '%') {
            if (startsWithWord(t, 1, name)) {
                const size_t p = skipSpaces(t, 1 + name.size());
                if (p == t.size() || t[p] == ':' || t[p] == '=') return lineNo;
            }
            continue;
        }
        if (t.starts_with("def ") || t.starts_with("async def ")) {
            const size_t open = t.find('(');
            if (open == std::string_view::npos) continue;
            sig = Signature{true, 0, false};
            if (scanSignature(t, open, name, sig)) return lineNo;
            continue;
        }
        const std::vector<std::string_view> sts = statements(t);
        if (assigns(sts[0], name) || declares(sts[0], name) || unpacks(sts[0], name)) return lineNo;
        for (size_t k = 1; k < sts.size(); ++k)
            if (declares(sts[k], name)) return lineNo;
    }
    return 0;
}

}  // namespace fxl::viewer
