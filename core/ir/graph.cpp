#include "core/ir/graph.hpp"

#include <algorithm>

#include <cctype>
#include <stdexcept>

namespace fxl {

bool Node::isGetitem() const
{
    return op == NodeOp::CallFunction && (target == "operator.getitem" || target == "_operator.getitem");
}

bool isPythonPathTarget(std::string_view target)
{
    const size_t dot = target.find('.');
    if (dot == std::string_view::npos) return false;
    const std::string_view root = target.substr(0, dot);
    return root == "torch" || root == "operator" || root == "_operator" || root == "math" || root == "builtins";
}

std::string_view nodeOpName(NodeOp op)
{
    switch (op) {
    case NodeOp::Placeholder: return "placeholder";
    case NodeOp::CallFunction: return "call_function";
    case NodeOp::CallMethod: return "call_method";
    case NodeOp::CallModule: return "call_module";
    case NodeOp::GetAttr: return "get_attr";
    case NodeOp::Output: return "output";
    }
    return "?";
}

std::optional<NodeOp> nodeOpFromName(std::string_view s)
{
    for (NodeOp op : {NodeOp::Placeholder, NodeOp::CallFunction, NodeOp::CallMethod, NodeOp::CallModule,
                      NodeOp::GetAttr, NodeOp::Output})
        if (nodeOpName(op) == s) return op;
    return std::nullopt;
}

std::string_view recomputeName(Recompute r)
{
    switch (r) {
    case Recompute::None: return "";
    case Recompute::MustSave: return "MUST_SAVE";
    case Recompute::PreferSave: return "PREFER_SAVE";
    case Recompute::MustRecompute: return "MUST_RECOMPUTE";
    case Recompute::PreferRecompute: return "PREFER_RECOMPUTE";
    }
    return "";
}

std::optional<Recompute> recomputeFromName(std::string_view s)
{
    for (Recompute r :
         {Recompute::MustSave, Recompute::PreferSave, Recompute::MustRecompute, Recompute::PreferRecompute})
        if (recomputeName(r) == s) return r;
    return std::nullopt;
}

std::string_view phaseName(Phase p)
{
    switch (p) {
    case Phase::Unknown: return "";
    case Phase::Forward: return "forward";
    case Phase::Backward: return "backward";
    case Phase::Loss: return "loss";
    }
    return "";
}

std::optional<Phase> phaseFromName(std::string_view s)
{
    for (Phase p : {Phase::Forward, Phase::Backward, Phase::Loss})
        if (phaseName(p) == s) return p;
    return std::nullopt;
}

bool NodeMeta::operator==(const NodeMeta& o) const
{
    return modulePath == o.modulePath && source == o.source && recompute == o.recompute && acGraphId == o.acGraphId
        && custom == o.custom && phase == o.phase && autogradBackward == o.autogradBackward && desc == o.desc
        && provenance == o.provenance && chunk == o.chunk;
}

const Arg* Node::kwarg(std::string_view key) const
{
    for (const auto& kv : kwargs)
        if (kv.first == key) return &kv.second;
    return nullptr;
}

NodeId Graph::addNode(Node n) { return insertNode(std::move(n), kNoNode); }

NodeId Graph::insertNode(Node n, NodeId before)
{
    if (n.name.empty()) throw std::invalid_argument("node without a name");
    if (byName_.count(n.name)) throw std::invalid_argument("duplicate node name '" + n.name + "'");
    NodeId id = static_cast<NodeId>(nodes_.size());
    n.id = id;
    n.users.clear();
    byName_.emplace(n.name, id);
    nodes_.push_back(std::move(n));
    alive_.push_back(1);
    if (before == kNoNode) {
        order_.push_back(id);
        if (positionValid_) position_.push_back(static_cast<int32_t>(order_.size() - 1));
    } else {
        size_t pos = positionOf(before);
        order_.insert(order_.begin() + static_cast<std::ptrdiff_t>(pos), id);
        positionValid_ = false;
    }
    return id;
}

void Graph::setOrder(std::vector<NodeId> order)
{
    if (order.size() != order_.size()) throw std::invalid_argument("setOrder: not every live node is listed once");
    std::vector<uint8_t> seen(nodes_.size(), 0);
    for (NodeId id : order) {
        if (!alive(id) || seen[static_cast<size_t>(id)])
            throw std::invalid_argument("setOrder: not every live node is listed once");
        seen[static_cast<size_t>(id)] = 1;
    }
    order_ = std::move(order);
    positionValid_ = false;
}

void Graph::removeNode(NodeId id)
{
    if (!alive(id)) throw std::invalid_argument("removeNode: no such node");
    size_t pos = positionOf(id);
    order_.erase(order_.begin() + static_cast<std::ptrdiff_t>(pos));
    byName_.erase(nodes_[static_cast<size_t>(id)].name);
    alive_[static_cast<size_t>(id)] = 0;
    positionValid_ = false;
}

void Graph::removeNodes(const std::vector<NodeId>& ids)
{
    bool any = false;
    for (NodeId id : ids) {
        if (!alive(id)) continue;
        byName_.erase(nodes_[static_cast<size_t>(id)].name);
        alive_[static_cast<size_t>(id)] = 0;
        any = true;
    }
    if (!any) return;
    order_.erase(
        std::remove_if(order_.begin(), order_.end(), [&](NodeId id) { return !alive_[static_cast<size_t>(id)]; }),
        order_.end());
    positionValid_ = false;
}

bool Graph::alive(NodeId id) const
{
    return id >= 0 && static_cast<size_t>(id) < alive_.size() && alive_[static_cast<size_t>(id)];
}

NodeId Graph::findByName(std::string_view name) const
{
    auto it = byName_.find(std::string(name));
    return it == byName_.end() ? kNoNode : it->second;
}

void Graph::rebuildPositions() const
{
    position_.assign(nodes_.size(), -1);
    for (size_t i = 0; i < order_.size(); ++i) position_[static_cast<size_t>(order_[i])] = static_cast<int32_t>(i);
    positionValid_ = true;
}

size_t Graph::positionOf(NodeId id) const
{
    if (!positionValid_ || position_.size() != nodes_.size()) rebuildPositions();
    if (!alive(id)) throw std::invalid_argument("positionOf: no such node");
    return static_cast<size_t>(position_[static_cast<size_t>(id)]);
}

std::vector<NodeId> Graph::placeholders() const
{
    std::vector<NodeId> out;
    for (NodeId id : order_)
        if (nodes_[static_cast<size_t>(id)].op == NodeOp::Placeholder) out.push_back(id);
    return out;
}

NodeId Graph::outputNode() const
{
    for (auto it = order_.rbegin(); it != order_.rend(); ++it)
        if (nodes_[static_cast<size_t>(*it)].op == NodeOp::Output) return *it;
    return kNoNode;
}

void Graph::rename(NodeId id, std::string newName)
{
    Node& n = node(id);
    if (n.name == newName) return;
    if (byName_.count(newName)) throw std::invalid_argument("rename: name '" + newName + "' is taken");
    byName_.erase(n.name);
    n.name = std::move(newName);
    byName_.emplace(n.name, id);
}

std::string Graph::uniqueName(std::string_view candidate) const
{
    std::string base(candidate);
    if (!byName_.count(base)) return base;
    // strip an existing _N suffix the way FX's namespace does
    auto us = base.rfind('_');
    if (us != std::string::npos && us + 1 < base.size()) {
        bool digits = true;
        for (size_t k = us + 1; k < base.size(); ++k)
            digits = digits && std::isdigit(static_cast<unsigned char>(base[k]));
        if (digits) base = base.substr(0, us);
    }
    for (int k = 1;; ++k) {
        std::string c = base + "_" + std::to_string(k);
        if (!byName_.count(c)) return c;
    }
}

void Graph::rebuildUsers()
{
    for (auto& n : nodes_) n.users.clear();
    std::vector<NodeId> seenFor(nodes_.size(), kNoNode);
    for (NodeId id : order_) {
        Node& n = nodes_[static_cast<size_t>(id)];
        auto add = [&](NodeId input) {
            if (input < 0 || static_cast<size_t>(input) >= nodes_.size()) return;
            if (seenFor[static_cast<size_t>(input)] == id) return;
            seenFor[static_cast<size_t>(input)] = id;
            nodes_[static_cast<size_t>(input)].users.push_back(id);
        };
        for (const auto& a : n.args) a.forEachNode(add);
        for (const auto& kv : n.kwargs) kv.second.forEachNode(add);
    }
    rebuildPositions();
}

void Graph::replaceAllUses(NodeId from, NodeId to)
{
    for (NodeId id : order_) {
        Node& n = nodes_[static_cast<size_t>(id)];
        auto fix = [&](NodeId& ref) {
            if (ref == from) ref = to;
        };
        for (auto& a : n.args) a.forEachNodeMut(fix);
        for (auto& kv : n.kwargs) kv.second.forEachNodeMut(fix);
    }
    rebuildUsers();
}

const Graph* Graph::subgraph(std::string_view attr) const
{
    auto it = subgraphs.find(std::string(attr));
    return it == subgraphs.end() ? nullptr : it->second.get();
}

namespace {

// Compares two args where node refs are compared by name.
bool argEqual(const Arg& a, const Graph& ga, const Arg& b, const Graph& gb)
{
    if (a.kind != b.kind) return false;
    if (a.kind == Arg::Kind::Node) {
        if (!ga.alive(a.node) || !gb.alive(b.node)) return false;
        return ga.node(a.node).name == gb.node(b.node).name;
    }
    if (a.kind == Arg::Kind::List || a.kind == Arg::Kind::Tuple || a.kind == Arg::Kind::Slice) {
        if (a.items.size() != b.items.size()) return false;
        for (size_t k = 0; k < a.items.size(); ++k)
            if (!argEqual(a.items[k], ga, b.items[k], gb)) return false;
        return true;
    }
    if (a.kind == Arg::Kind::Dict) {
        if (a.dict.size() != b.dict.size()) return false;
        for (size_t k = 0; k < a.dict.size(); ++k)
            if (!argEqual(a.dict[k].first, ga, b.dict[k].first, gb)
                || !argEqual(a.dict[k].second, ga, b.dict[k].second, gb))
                return false;
        return true;
    }
    return a == b;
}

}  // namespace

bool Graph::structurallyEqual(const Graph& o, std::string* why) const
{
    auto fail = [&](const std::string& msg) {
        if (why) *why = msg;
        return false;
    };
    if (className != o.className) return fail("class name " + className + " vs " + o.className);
    if (order_.size() != o.order_.size())
        return fail("node count " + std::to_string(order_.size()) + " vs " + std::to_string(o.order_.size()));
    for (size_t k = 0; k < order_.size(); ++k) {
        const Node& a = node(order_[k]);
        const Node& b = o.node(o.order_[k]);
        std::string where = "node #" + std::to_string(k) + " '" + a.name + "': ";
        if (a.name != b.name) return fail(where + "name vs '" + b.name + "'");
        if (a.op != b.op) return fail(where + "op");
        if (a.target != b.target) return fail(where + "target " + a.target + " vs " + b.target);
        if (a.args.size() != b.args.size()) return fail(where + "arg count");
        for (size_t i = 0; i < a.args.size(); ++i)
            if (!argEqual(a.args[i], *this, b.args[i], o)) return fail(where + "arg " + std::to_string(i));
        if (a.kwargs.size() != b.kwargs.size()) return fail(where + "kwarg count");
        for (size_t i = 0; i < a.kwargs.size(); ++i)
            if (a.kwargs[i].first != b.kwargs[i].first || !argEqual(a.kwargs[i].second, *this, b.kwargs[i].second, o))
                return fail(where + "kwarg " + a.kwargs[i].first);
        if (a.val != b.val) return fail(where + "val " + formatAnnotation(a.val) + " vs " + formatAnnotation(b.val));
        if (!(a.meta == b.meta)) return fail(where + "meta");
        if (a.placeholderDefault.has_value() != b.placeholderDefault.has_value()
            || (a.placeholderDefault && !argEqual(*a.placeholderDefault, *this, *b.placeholderDefault, o)))
            return fail(where + "placeholder default");
        if (a.typeExpr != b.typeExpr) return fail(where + "type expression");
    }
    const bool sameConstants = embeddedConstants && o.embeddedConstants ? *embeddedConstants == *o.embeddedConstants
                                                                        : !embeddedConstants && !o.embeddedConstants;
    if (!sameConstants) return fail("embedded constants");
    if (subgraphs.size() != o.subgraphs.size()) return fail("nested graph count");
    for (const auto& [name, g] : subgraphs) {
        auto it = o.subgraphs.find(name);
        if (it == o.subgraphs.end()) return fail("nested graph " + name + " missing");
        std::string sub;
        if (!g->structurallyEqual(*it->second, &sub)) return fail("in nested graph " + name + ": " + sub);
    }
    return true;
}

Graph Graph::clone() const
{
    Graph g = *this;
    for (auto& [name, sg] : g.subgraphs) sg = std::make_shared<Graph>(sg->clone());
    return g;
}

}  // namespace fxl
