#include "core/analysis/graph_diff_match.hpp"

#include <algorithm>
#include <bit>
#include <unordered_map>

#include "core/formats/fx/fx_text_writer.hpp"

namespace fxl {

namespace {

// ---------------------------------------------------------------- hashing

constexpr uint64_t kSeed = 0x9e3779b97f4a7c15ull;

uint64_t mix(uint64_t h, uint64_t v)
{
    // boost::hash_combine widened to 64 bits, with a final avalanche of v (splitmix64)
    v += kSeed;
    v = (v ^ (v >> 30)) * 0xbf58476d1ce4e5b9ull;
    v = (v ^ (v >> 27)) * 0x94d049bb133111ebull;
    v ^= v >> 31;
    return h ^ (v + kSeed + (h << 6) + (h >> 2));
}

uint64_t hashStr(std::string_view s)
{
    uint64_t h = 1469598103934665603ull;  // FNV-1a
    for (char c : s) {
        h ^= static_cast<unsigned char>(c);
        h *= 1099511628211ull;
    }
    return h;
}

uint64_t hashSymInt(const SymInt& s)
{
    if (s.isConcrete()) return mix(1, static_cast<uint64_t>(*s.maybeValue()));
    return mix(2, hashStr(s.str()));
}

uint64_t hashVal(const ValueMeta& v)
{
    uint64_t h = mix(0x51, static_cast<uint64_t>(v.kind));
    switch (v.kind) {
    case ValueMeta::Kind::Tensor:
        h = mix(h, static_cast<uint64_t>(v.tensor.dtype));
        h = mix(h, v.tensor.sizes.size());
        for (const auto& s : v.tensor.sizes) h = mix(h, hashSymInt(s));
        h = mix(h, v.tensor.strides.size());
        for (const auto& s : v.tensor.strides) h = mix(h, hashSymInt(s));
        h = mix(h, hashSymInt(v.tensor.storageOffset));
        h = mix(h, hashStr(v.tensor.device));
        h = mix(h, hashStr(v.wrapperPrefix));
        break;
    case ValueMeta::Kind::Tuple:
        h = mix(h, v.elems.size());
        for (const auto& e : v.elems) h = mix(h, hashVal(e));
        break;
    case ValueMeta::Kind::SymInt:
    case ValueMeta::Kind::SymFloat:
    case ValueMeta::Kind::SymBool: h = mix(h, hashStr(v.sym.str())); break;
    case ValueMeta::Kind::Opaque: h = mix(h, hashStr(v.opaqueText)); break;
    default: break;
    }
    return h;
}

// Hash of an argument tree; node references go through `ref`.
template<class RefHash>
uint64_t hashArg(const Arg& a, const RefHash& ref)
{
    uint64_t h = mix(0xa7, static_cast<uint64_t>(a.kind));
    switch (a.kind) {
    case Arg::Kind::Node: return mix(h, ref(a.node));
    case Arg::Kind::Int: return mix(h, static_cast<uint64_t>(a.i));
    case Arg::Kind::Float: return mix(h, std::bit_cast<uint64_t>(a.f));
    case Arg::Kind::Bool: return mix(h, a.b ? 1 : 0);
    case Arg::Kind::DType: return mix(h, static_cast<uint64_t>(a.dtype));
    case Arg::Kind::Str:
    case Arg::Kind::Device:
    case Arg::Kind::Layout:
    case Arg::Kind::MemoryFormat:
    case Arg::Kind::Op:
    case Arg::Kind::Raw: return mix(h, hashStr(a.s));
    default: break;
    }
    h = mix(h, a.items.size());
    for (const auto& x : a.items) h = mix(h, hashArg(x, ref));
    h = mix(h, a.dict.size());
    for (const auto& kv : a.dict) {
        h = mix(h, hashArg(kv.first, ref));
        h = mix(h, hashArg(kv.second, ref));
    }
    return h;
}

// The function a node calls, one spelling per function: FX prints "_operator.getitem" or
// "operator.getitem" (the C module `operator` re-exports) depending on the PyTorch version,
// and the two spellings of one graph must diff as unchanged.
std::string_view targetKey(const Node& n)
{
    std::string_view t = n.target;
    if (n.op == NodeOp::CallFunction && t.rfind("_operator.", 0) == 0) t.remove_prefix(1);
    return t;
}

size_t idSpan(const Graph& g)
{
    NodeId mx = -1;
    for (NodeId id : g.order()) mx = std::max(mx, id);
    return static_cast<size_t>(mx + 1);
}

bool validRef(const Graph& g, NodeId id, size_t span)
{
    return id >= 0 && static_cast<size_t>(id) < span && g.alive(id);
}

// Structural hash of every unmatched node of `g` in topological order. `matched(ref)` gives
// the canonical id (a's id) of a matched node, or kNoNode.
template<class Matched>
std::vector<uint64_t> structuralHashes(const Graph& g, size_t span, const Matched& matched)
{
    std::vector<uint64_t> h(span, 0);
    size_t placeholderIndex = 0;
    auto ref = [&](NodeId r) -> uint64_t {
        if (!validRef(g, r, span)) return 0xdead;
        NodeId m = matched(r);
        if (m != kNoNode) return mix(1, static_cast<uint64_t>(m));
        return mix(2, h[static_cast<size_t>(r)]);
    };
    for (NodeId id : g.order()) {
        const Node& n = g.node(id);
        const bool placeholder = n.op == NodeOp::Placeholder;
        const size_t pi = placeholder ? placeholderIndex++ : 0;
        if (matched(id) != kNoNode) continue;  // references to it hash its match, never this
        uint64_t x = mix(0x11, static_cast<uint64_t>(n.op));
        if (placeholder)
            x = mix(x, pi);
        else
            x = mix(x, hashStr(targetKey(n)));
        x = mix(x, n.args.size());
        for (const auto& a : n.args) x = mix(x, hashArg(a, ref));
        x = mix(x, n.kwargs.size());
        for (const auto& [k, v] : n.kwargs) {
            x = mix(x, hashStr(k));
            x = mix(x, hashArg(v, ref));
        }
        x = mix(x, hashVal(n.val));
        h[static_cast<size_t>(id)] = x;
    }
    return h;
}

// ---------------------------------------------------------------- comparison

std::string valText(const ValueMeta& v)
{
    if (v.kind == ValueMeta::Kind::Unknown) return "?";
    if (v.kind == ValueMeta::Kind::None) return "None";
    if (v.kind == ValueMeta::Kind::Tuple) {
        std::string s = "(";
        for (size_t k = 0; k < v.elems.size(); ++k) s += (k ? ", " : "") + valText(v.elems[k]);
        return s + (v.elems.size() == 1 ? ",)" : ")");
    }
    return formatAnnotation(v);
}

// The value meta with every device cleared (tuple elements too).
ValueMeta withoutDevices(ValueMeta v)
{
    v.tensor.device.clear();
    for (ValueMeta& e : v.elems) e = withoutDevices(std::move(e));
    return v;
}

// The devices of a val: "cuda:0", or "(cuda:0, cuda:0)" for a tuple; "?" where unknown.
std::string devicesText(const ValueMeta& v)
{
    if (v.kind == ValueMeta::Kind::Tuple) {
        std::string s = "(";
        for (size_t k = 0; k < v.elems.size(); ++k) s += (k ? ", " : "") + devicesText(v.elems[k]);
        return s + ")";
    }
    if (v.kind != ValueMeta::Kind::Tensor) return "-";
    return v.tensor.device.empty() ? "?" : v.tensor.device;
}

std::string symsText(const std::vector<SymInt>& v)
{
    std::string s = "[";
    for (size_t k = 0; k < v.size(); ++k) s += (k ? ", " : "") + v[k].str();
    return s + "]";
}

// What differs between two vals whose annotations print the same: the fields the annotation
// leaves out (storage offset, strides it does not print, a wrapper), by path for tuples.
std::string hiddenValDifference(const ValueMeta& a, const ValueMeta& b, const std::string& path = "")
{
    if (a.kind != b.kind) return path + "kind differs";
    if (a.kind == ValueMeta::Kind::Tuple) {
        std::string s;
        for (size_t k = 0; k < std::min(a.elems.size(), b.elems.size()); ++k)
            if (a.elems[k] != b.elems[k]) {
                const std::string d =
                    hiddenValDifference(a.elems[k], b.elems[k], path + "[" + std::to_string(k) + "] ");
                s += (s.empty() ? "" : "; ") + d;
            }
        return s.empty() ? path + "tuple length differs" : s;
    }
    if (a.kind != ValueMeta::Kind::Tensor) return path + "value differs";
    std::string s;
    auto field = [&](const std::string& name, const std::string& x, const std::string& y) {
        if (x != y) s += (s.empty() ? "" : ", ") + path + name + " " + x + " -> " + y;
    };
    field("dtype", std::string(dtypeAbbr(a.tensor.dtype)), std::string(dtypeAbbr(b.tensor.dtype)));
    field("sizes", symsText(a.tensor.sizes), symsText(b.tensor.sizes));
    field("strides", a.tensor.strides.empty() ? "?" : symsText(a.tensor.strides),
          b.tensor.strides.empty() ? "?" : symsText(b.tensor.strides));
    field("storage_offset", a.tensor.storageOffset.str(), b.tensor.storageOffset.str());
    field("device", a.tensor.device.empty() ? "?" : a.tensor.device, b.tensor.device.empty() ? "?" : b.tensor.device);
    field("wrapper", a.wrapperPrefix + "..." + a.wrapperSuffix, b.wrapperPrefix + "..." + b.wrapperSuffix);
    return s.empty() ? path + "meta differs" : s;
}

std::string argsText(const std::vector<Arg>& args, const Graph& g)
{
    std::string s = "(";
    for (size_t k = 0; k < args.size(); ++k) s += (k ? ", " : "") + formatArgPython(args[k], g);
    return s + ")";
}

std::string optText(const std::optional<int>& v) { return v ? std::to_string(*v) : "none"; }
std::string optText(const std::optional<bool>& v) { return v ? (*v ? "True" : "False") : "none"; }
std::string quoted(const std::string& s) { return "'" + s + "'"; }
std::string jsonText(const nlohmann::json& j) { return j.is_null() ? "none" : j.dump(); }
std::string sourceText(const SourceLocation& s) { return s.empty() ? "none" : s.file + ":" + std::to_string(s.line); }

class Differ
{
public:
    Differ(const Graph& a, const Graph& b, const DiffOptions& o, GraphDiff& d)
        : a_(a)
        , b_(b)
        , o_(o)
        , d_(d)
        , spanA_(idSpan(a))
        , spanB_(idSpan(b))
    {
        d_.matchA.assign(spanA_, kNoNode);
        d_.matchB.assign(spanB_, kNoNode);
        kind_.assign(spanA_, MatchKind::None);
    }

    void run()
    {
        if (o_.recurseSubgraphs) diffSubgraphs();
        if (o_.useProvenance) matchProvenance();
        matchNames(false);
        if (o_.useStructure) matchStructure();
        // name-only pairs (changed targets) make their users' hashes comparable: one more round
        if (matchNames(true) > 0 && o_.useStructure) matchStructure();
        classify();
    }

private:
    const Graph& a_;
    const Graph& b_;
    const DiffOptions& o_;
    GraphDiff& d_;
    size_t spanA_, spanB_;
    std::vector<MatchKind> kind_;  // by a id

    NodeId mA(NodeId id) const { return d_.matchOfA(id); }
    NodeId mB(NodeId id) const { return d_.matchOfB(id); }

    void pair(NodeId ia, NodeId ib, MatchKind k)
    {
        d_.matchA[static_cast<size_t>(ia)] = ib;
        d_.matchB[static_cast<size_t>(ib)] = ia;
        kind_[static_cast<size_t>(ia)] = k;
    }

    static bool sameOp(const Node& x, const Node& y) { return x.op == y.op && targetKey(x) == targetKey(y); }

    void diffSubgraphs()
    {
        for (const auto& [k, ga] : a_.subgraphs) {
            auto it = b_.subgraphs.find(k);
            if (it == b_.subgraphs.end() || !it->second) {
                d_.removedSubgraphs.push_back(k);
                continue;
            }
            if (!ga) continue;
            auto sub = std::make_shared<GraphDiff>();
            Differ(*ga, *it->second, o_, *sub).run();
            d_.subgraphs.emplace(k, std::move(sub));
        }
        for (const auto& [k, gb] : b_.subgraphs)
            if (!a_.subgraphs.count(k)) d_.addedSubgraphs.push_back(k);
    }

    void matchProvenance()
    {
        // claimants per node of a, in b's order
        std::unordered_map<NodeId, std::vector<NodeId>> claims;
        for (NodeId ib : b_.order()) {
            const Node& nb = b_.node(ib);
            if (nb.meta.provenance.empty()) continue;
            NodeId ia = a_.findByName(nb.meta.provenance);
            if (ia != kNoNode) claims[ia].push_back(ib);
        }
        for (NodeId ia : a_.order()) {
            auto it = claims.find(ia);
            if (it == claims.end()) continue;
            const Node& na = a_.node(ia);
            // a copy next to a kept original: the original keeps the match
            NodeId same = b_.findByName(na.name);
            if (same != kNoNode && mB(same) == kNoNode) {
                const std::string& p = b_.node(same).meta.provenance;
                if (p.empty() || p == na.name) {
                    MatchKind k = !p.empty()        ? MatchKind::Provenance
                        : sameOp(na, b_.node(same)) ? MatchKind::Name
                        : na.op == b_.node(same).op ? MatchKind::NameOnly
                                                    : MatchKind::None;
                    if (k != MatchKind::None) {
                        pair(ia, same, k);
                        continue;
                    }
                }
            }
            for (NodeId ib : it->second)
                if (mB(ib) == kNoNode) {
                    pair(ia, ib, MatchKind::Provenance);
                    break;
                }
        }
    }

    size_t matchNames(bool nameOnly)
    {
        size_t paired = 0;
        // Most nodes sit at the same offset in both orders: try that position before hashing the name.
        const auto& orderA = a_.order();
        const auto& orderB = b_.order();
        std::vector<int64_t> posB(spanB_, -1);
        for (size_t k = 0; k < orderB.size(); ++k) posB[static_cast<size_t>(orderB[k])] = static_cast<int64_t>(k);
        int64_t delta = 0;
        for (size_t k = 0; k < orderA.size(); ++k) {
            NodeId ia = orderA[k];
            if (mA(ia) != kNoNode) continue;
            const Node& na = a_.node(ia);
            NodeId ib = kNoNode;
            int64_t guess = static_cast<int64_t>(k) + delta;
            if (guess >= 0 && guess < static_cast<int64_t>(orderB.size())
                && b_.node(orderB[static_cast<size_t>(guess)]).name == na.name)
                ib = orderB[static_cast<size_t>(guess)];
            else if ((ib = b_.findByName(na.name)) != kNoNode)
                delta = posB[static_cast<size_t>(ib)] - static_cast<int64_t>(k);
            if (ib == kNoNode || mB(ib) != kNoNode) continue;
            const Node& nb = b_.node(ib);
            if (nameOnly ? na.op == nb.op : sameOp(na, nb)) {
                pair(ia, ib, nameOnly ? MatchKind::NameOnly : MatchKind::Name);
                ++paired;
            }
        }
        return paired;
    }

    void matchStructure()
    {
        auto unmatched = [](const Graph& g, const std::vector<NodeId>& m) {
            for (NodeId id : g.order())
                if (m[static_cast<size_t>(id)] == kNoNode) return true;
            return false;
        };
        if (!unmatched(a_, d_.matchA) || !unmatched(b_, d_.matchB)) return;
        auto ha = structuralHashes(a_, spanA_, [&](NodeId r) { return mA(r) != kNoNode ? r : kNoNode; });
        auto hb = structuralHashes(b_, spanB_, [&](NodeId r) { return mB(r); });
        // unmatched nodes of a per hash, in a's order
        std::unordered_map<uint64_t, std::vector<NodeId>> buckets;
        for (NodeId ia : a_.order())
            if (mA(ia) == kNoNode) buckets[ha[static_cast<size_t>(ia)]].push_back(ia);
        if (buckets.empty()) return;
        std::unordered_map<uint64_t, size_t> taken;
        for (NodeId ib : b_.order()) {
            if (mB(ib) != kNoNode) continue;
            uint64_t h = hb[static_cast<size_t>(ib)];
            auto it = buckets.find(h);
            if (it == buckets.end()) continue;
            size_t& k = taken[h];
            if (k < it->second.size()) {
                NodeId ia = it->second[k++];
                if (a_.node(ia).op == b_.node(ib).op) pair(ia, ib, MatchKind::Structure);
            }
        }
    }

    // --- field comparison of one matched pair

    struct PairDiff
    {
        std::vector<std::string> fields, details;
        std::vector<RewiredEdge> rewired;
        bool argsDiffer = false, kwargsDiffer = false;
        bool metaGained = false;  // a val on one side only, not counted as a change
    };

    std::string aName(NodeId id) const { return validRef(a_, id, spanA_) ? a_.node(id).name : "?"; }
    std::string bName(NodeId id) const { return validRef(b_, id, spanB_) ? b_.node(id).name : "?"; }

    static bool sameScalar(const Arg& x, const Arg& y)
    {
        switch (x.kind) {
        case Arg::Kind::Int: return x.i == y.i;
        case Arg::Kind::Float: return std::bit_cast<uint64_t>(x.f) == std::bit_cast<uint64_t>(y.f);
        case Arg::Kind::Bool: return x.b == y.b;
        case Arg::Kind::DType: return x.dtype == y.dtype;
        case Arg::Kind::None:
        case Arg::Kind::Ellipsis: return true;
        default: return x.s == y.s;
        }
    }

    // Where a reference sits, built into text only when a rewire is recorded (the common case
    // of equal trees allocates nothing): the top-level label, then list indices / dict keys.
    struct ArgPath
    {
        const std::string* kwarg = nullptr;  // kwarg name, or null for a positional arg
        size_t index = 0;  // positional index
        std::vector<const Arg*> keys;  // per level: dict key, or null for a list index
        std::vector<size_t> items;
    };

    std::string pathText(const ArgPath& p) const
    {
        std::string s = p.kwarg ? "kwarg " + *p.kwarg : "arg " + std::to_string(p.index);
        for (size_t k = 0; k < p.items.size(); ++k)
            s += "[" + (p.keys[k] ? formatArgPython(*p.keys[k], a_) : std::to_string(p.items[k])) + "]";
        return s;
    }

    // Walks both trees in parallel; a reference whose match is a different node is a rewire.
    void compareArg(const Arg& x, const Arg& y, const std::string& consumer, ArgPath& path, PairDiff& pd,
                    bool& structural) const
    {
        if (x.kind != y.kind) {
            structural = true;
            return;
        }
        if (x.kind == Arg::Kind::Node) {
            NodeId m = validRef(b_, y.node, spanB_) ? mB(y.node) : kNoNode;
            if (m != x.node || m == kNoNode)
                pd.rewired.push_back({consumer, pathText(path), aName(x.node), bName(y.node)});
            return;
        }
        if (x.items.size() != y.items.size() || x.dict.size() != y.dict.size()) {
            structural = true;
            return;
        }
        for (size_t k = 0; k < x.items.size(); ++k) {
            path.keys.push_back(nullptr);
            path.items.push_back(k);
            compareArg(x.items[k], y.items[k], consumer, path, pd, structural);
            path.keys.pop_back();
            path.items.pop_back();
        }
        for (size_t k = 0; k < x.dict.size(); ++k) {
            bool keyDiff = false;
            PairDiff ignore;
            compareArg(x.dict[k].first, y.dict[k].first, consumer, path, ignore, keyDiff);
            if (keyDiff || !ignore.rewired.empty()) {
                structural = true;
                continue;
            }
            path.keys.push_back(&x.dict[k].first);
            path.items.push_back(k);
            compareArg(x.dict[k].second, y.dict[k].second, consumer, path, pd, structural);
            path.keys.pop_back();
            path.items.pop_back();
        }
        if (x.items.empty() && x.dict.empty() && !sameScalar(x, y)) structural = true;
    }

    bool want(const char* field) const { return !o_.ignoreFields.count(field); }

    void add(PairDiff& pd, const char* field, std::string detail) const
    {
        if (!want(field)) return;
        pd.fields.emplace_back(field);
        pd.details.push_back(std::move(detail));
    }

    // "val", "device" and "val_known" (graph_diff.hpp).
    void compareVal(const ValueMeta& va, const ValueMeta& vb, PairDiff& pd) const
    {
        if (va == vb) return;
        const bool knownA = va.kind != ValueMeta::Kind::Unknown, knownB = vb.kind != ValueMeta::Kind::Unknown;
        if (knownA != knownB) {
            if (o_.metaGainedIsChange)
                add(pd, "val_known", "val " + valText(va) + " -> " + valText(vb));
            else
                pd.metaGained = true;
            return;
        }
        const ValueMeta a = withoutDevices(va), b = withoutDevices(vb);
        if (a != b) {
            const std::string ta = valText(va), tb = valText(vb);
            add(pd, "val", ta != tb ? "val " + ta + " -> " + tb : "val " + ta + ": " + hiddenValDifference(va, vb));
        }
        const std::string da = devicesText(va), db = devicesText(vb);
        if (da != db) add(pd, "device", "device " + da + " -> " + db);
    }

    PairDiff comparePair(const Node& na, const Node& nb) const
    {
        PairDiff pd;
        if (na.op != nb.op)
            add(pd, "op", "op " + std::string(nodeOpName(na.op)) + " -> " + std::string(nodeOpName(nb.op)));
        if (targetKey(na) != targetKey(nb)) add(pd, "target", "target " + na.target + " -> " + nb.target);

        // args
        bool argsStructural = na.args.size() != nb.args.size();
        if (!argsStructural)
            for (size_t k = 0; k < na.args.size(); ++k) {
                ArgPath path;
                path.index = k;
                compareArg(na.args[k], nb.args[k], nb.name, path, pd, argsStructural);
            }
        if (argsStructural) add(pd, "args", "args " + argsText(na.args, a_) + " -> " + argsText(nb.args, b_));

        // kwargs by key
        bool kwStructural = na.kwargs.size() != nb.kwargs.size();
        std::string kwDetail;
        for (const auto& [k, va] : na.kwargs) {
            const Arg* vb = nb.kwarg(k);
            bool s = !vb;
            if (vb) {
                ArgPath path;
                path.kwarg = &k;
                compareArg(va, *vb, nb.name, path, pd, s);
            }
            if (s) {
                kwStructural = true;
                kwDetail += (kwDetail.empty() ? "" : ", ") + k + "=" + formatArgPython(va, a_) + " -> "
                    + (vb ? formatArgPython(*vb, b_) : std::string("(absent)"));
            }
        }
        for (const auto& [k, vb] : nb.kwargs)
            if (!na.kwarg(k)) {
                kwStructural = true;
                kwDetail += (kwDetail.empty() ? "" : ", ") + k + "=(absent) -> " + formatArgPython(vb, b_);
            }
        if (kwStructural) add(pd, "kwargs", "kwargs " + kwDetail);

        if (!pd.rewired.empty()) {
            if (want("inputs")) {
                std::string s = "inputs ";
                for (size_t k = 0; k < pd.rewired.size(); ++k)
                    s += (k ? "; " : "") + pd.rewired[k].where + ": " + pd.rewired[k].fromProducer + " -> "
                        + pd.rewired[k].toProducer;
                add(pd, "inputs", s);
            } else {
                pd.rewired.clear();
            }
        }
        compareVal(na.val, nb.val, pd);
        const NodeMeta& ma = na.meta;
        const NodeMeta& mb = nb.meta;
        if (ma.modulePath != mb.modulePath)
            add(pd, "module_path", "module_path " + quoted(ma.modulePath) + " -> " + quoted(mb.modulePath));
        if (!(ma.source == mb.source))
            add(pd, "source", "source " + sourceText(ma.source) + " -> " + sourceText(mb.source));
        if (ma.recompute != mb.recompute) {
            auto t = [](Recompute r) {
                return r == Recompute::None ? std::string("none") : std::string(recomputeName(r));
            };
            add(pd, "recompute", "recompute " + t(ma.recompute) + " -> " + t(mb.recompute));
        }
        if (ma.acGraphId != mb.acGraphId)
            add(pd, "ac_graph_id", "ac_graph_id " + optText(ma.acGraphId) + " -> " + optText(mb.acGraphId));
        if (ma.custom != mb.custom) add(pd, "custom", "custom " + jsonText(ma.custom) + " -> " + jsonText(mb.custom));
        if (ma.phase != mb.phase) {
            auto t = [](Phase p) { return p == Phase::Unknown ? std::string("none") : std::string(phaseName(p)); };
            add(pd, "phase", "phase " + t(ma.phase) + " -> " + t(mb.phase));
        }
        if (ma.autogradBackward != mb.autogradBackward)
            add(pd, "autograd_backward",
                "autograd_backward " + optText(ma.autogradBackward) + " -> " + optText(mb.autogradBackward));
        if (ma.desc != mb.desc) add(pd, "desc", "desc " + quoted(ma.desc) + " -> " + quoted(mb.desc));
        if (ma.chunk != mb.chunk) add(pd, "chunk", "chunk " + jsonText(ma.chunk) + " -> " + jsonText(mb.chunk));
        if (na.placeholderDefault != nb.placeholderDefault) {
            auto t = [](const std::optional<Arg>& v, const Graph& g) {
                return v ? formatArgPython(*v, g) : std::string("none");
            };
            add(pd, "default", "default " + t(na.placeholderDefault, a_) + " -> " + t(nb.placeholderDefault, b_));
        }
        if (na.op == NodeOp::GetAttr && nb.op == NodeOp::GetAttr && na.target == nb.target) {
            auto it = d_.subgraphs.find(na.target);
            if (it != d_.subgraphs.end() && it->second && !it->second->identical()) {
                DiffCounts c = it->second->totalCounts();
                add(pd, "subgraph",
                    "subgraph " + na.target + ": " + std::to_string(c.added) + " added, " + std::to_string(c.removed)
                        + " removed, " + std::to_string(c.changed) + " changed");
            }
        }
        return pd;
    }

    void count(MatchKind k)
    {
        switch (k) {
        case MatchKind::Provenance: ++d_.counts.byProvenance; break;
        case MatchKind::Name: ++d_.counts.byName; break;
        case MatchKind::Structure: ++d_.counts.byStructure; break;
        case MatchKind::NameOnly: ++d_.counts.byNameOnly; break;
        case MatchKind::None: break;
        }
    }

    NodeDiff removed(NodeId ia)
    {
        NodeDiff nd;
        nd.cls = DiffClass::Removed;
        nd.a = ia;
        nd.aName = a_.node(ia).name;
        ++d_.counts.removed;
        return nd;
    }

    void classify()
    {
        const auto& orderA = a_.order();
        std::vector<int32_t> posA(spanA_, -1);
        for (size_t k = 0; k < orderA.size(); ++k) posA[static_cast<size_t>(orderA[k])] = static_cast<int32_t>(k);
        d_.nodes.reserve(std::max(orderA.size(), b_.order().size()) + 16);
        size_t pa = 0;
        for (NodeId ib : b_.order()) {
            const Node& nb = b_.node(ib);
            NodeId ia = mB(ib);
            if (ia == kNoNode) {
                NodeDiff nd;
                nd.cls = DiffClass::Added;
                nd.b = ib;
                nd.bName = nb.name;
                if (!nb.meta.provenance.empty() && a_.findByName(nb.meta.provenance) != kNoNode)
                    nd.details.push_back("copy of " + nb.meta.provenance);
                ++d_.counts.added;
                d_.nodes.push_back(std::move(nd));
                continue;
            }
            size_t p = static_cast<size_t>(posA[static_cast<size_t>(ia)]);
            for (; pa < p; ++pa)
                if (mA(orderA[pa]) == kNoNode) d_.nodes.push_back(removed(orderA[pa]));
            if (pa == p) ++pa;
            const Node& na = a_.node(ia);
            PairDiff pd = comparePair(na, nb);
            NodeDiff nd;
            nd.a = ia;
            nd.b = ib;
            nd.aName = na.name;
            nd.bName = nb.name;
            nd.match = kind_[static_cast<size_t>(ia)];
            count(nd.match);
            nd.renamed = na.name != nb.name;
            if (nd.renamed) ++d_.counts.renamed;
            nd.cls = pd.fields.empty() ? DiffClass::Unchanged : DiffClass::Changed;
            if (pd.fields.empty() && pd.metaGained) ++d_.counts.metaGained;
            ++(pd.fields.empty() ? d_.counts.unchanged : d_.counts.changed);
            nd.fields = std::move(pd.fields);
            nd.details = std::move(pd.details);
            d_.counts.rewired += pd.rewired.size();
            for (auto& e : pd.rewired) d_.rewired.push_back(std::move(e));
            d_.nodes.push_back(std::move(nd));
        }
        for (; pa < orderA.size(); ++pa)
            if (mA(orderA[pa]) == kNoNode) d_.nodes.push_back(removed(orderA[pa]));
    }
};

}  // namespace

void matchGraphs(const Graph& a, const Graph& b, const DiffOptions& opts, GraphDiff& d) { Differ(a, b, opts, d).run(); }

}  // namespace fxl
