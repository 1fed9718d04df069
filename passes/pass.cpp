// The pass framework: option typing, change logs, the registry, pipeline specs and runs.
#include "passes/pass.hpp"

#include "passes/builtin_passes.hpp"

#include "core/analysis/graph_diff.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "core/ir/diagnostics.hpp"
#include "core/util/strings.hpp"

namespace fxl {

// ---------------------------------------------------------------- options

std::string_view optionTypeName(OptionType t)
{
    switch (t) {
    case OptionType::Bool: return "bool";
    case OptionType::Int: return "int";
    case OptionType::Float: return "float";
    case OptionType::String: return "string";
    case OptionType::Enum: return "enum";
    case OptionType::StringList: return "list";
    }
    return "string";
}

namespace {

std::string lower(std::string s)
{
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

std::optional<bool> parseBool(const std::string& text)
{
    const std::string t = lower(std::string(trim(text)));
    if (t == "true" || t == "1") return true;
    if (t == "false" || t == "0") return false;
    return std::nullopt;
}

std::optional<int64_t> parseInt(const std::string& text)
{
    const std::string t(trim(text));
    if (t.empty()) return std::nullopt;
    const char* b = t.data();
    const char* e = t.data() + t.size();
    if (*b == '+') ++b;
    int64_t v = 0;
    auto [p, ec] = std::from_chars(b, e, v);
    if (ec != std::errc() || p != e) return std::nullopt;
    return v;
}

std::optional<double> parseFloat(const std::string& text)
{
    const std::string t(trim(text));
    if (t.empty()) return std::nullopt;
    // strtod accepts "inf"/"nan" and hex floats; from_chars for double is not everywhere.
    char* end = nullptr;
    const double v = std::strtod(t.c_str(), &end);
    if (end != t.c_str() + t.size()) return std::nullopt;
    if (!std::isfinite(v)) return std::nullopt;
    return v;
}

std::vector<std::string> splitList(const std::string& text)
{
    std::vector<std::string> out;
    if (trim(text).empty()) return out;
    size_t start = 0;
    for (;;) {
        const size_t p = text.find(';', start);
        std::string item = std::string(
            trim(std::string_view(text).substr(start, p == std::string::npos ? std::string::npos : p - start)));
        if (!item.empty()) out.push_back(std::move(item));
        if (p == std::string::npos) break;
        start = p + 1;
    }
    return out;
}

// A value written in quotes, as shells and Python teach ("mm;addmm", 'x'), is the text inside.
std::string unquote(std::string v)
{
    if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front())
        return v.substr(1, v.size() - 2);
    return v;
}

std::string joinChoices(const std::vector<std::string>& c)
{
    std::string s;
    for (size_t i = 0; i < c.size(); ++i) {
        if (i) s += ", ";
        s += c[i];
    }
    return s;
}

}  // namespace

bool PassOptions::getBool(std::string_view name) const
{
    auto v = parseBool(getString(name));
    if (!v) throw std::invalid_argument("option '" + std::string(name) + "' is not a bool");
    return *v;
}

int64_t PassOptions::getInt(std::string_view name) const
{
    auto v = parseInt(getString(name));
    if (!v) throw std::invalid_argument("option '" + std::string(name) + "' is not an int");
    return *v;
}

double PassOptions::getFloat(std::string_view name) const
{
    auto v = parseFloat(getString(name));
    if (!v) throw std::invalid_argument("option '" + std::string(name) + "' is not a float");
    return *v;
}

const std::string& PassOptions::getString(std::string_view name) const
{
    auto it = values.find(std::string(name));
    if (it == values.end()) throw std::out_of_range("no option '" + std::string(name) + "'");
    return it->second;
}

std::vector<std::string> PassOptions::getList(std::string_view name) const { return splitList(getString(name)); }

std::string PassOptions::toString() const
{
    std::string s;
    for (const auto& [k, v] : values) {
        if (!given.count(k)) continue;
        if (!s.empty()) s += ',';
        s += k + "=" + v;
    }
    return s;
}

PassOptions resolveOptions(const std::vector<PassOption>& decl, const std::map<std::string, std::string>& raw)
{
    PassOptions out;
    for (const auto& entry : raw) {
        const std::string& name = entry.first;  // a named copy: clang 14 cannot capture structured bindings
        auto it = std::find_if(decl.begin(), decl.end(), [&](const PassOption& o) { return o.name == name; });
        if (it == decl.end()) {
            std::string known;
            for (const auto& o : decl) known += (known.empty() ? "" : ", ") + o.name;
            throw std::invalid_argument(
                "unknown option '" + name + "'"
                + (known.empty() ? std::string(" (this pass has no options)") : " (expected one of: " + known + ")"));
        }
    }
    for (const auto& o : decl) {
        auto it = raw.find(o.name);
        const bool given = it != raw.end();
        std::string v = given ? unquote(std::string(trim(it->second))) : o.defaultValue;
        const std::string what = "option '" + o.name + "'";
        switch (o.type) {
        case OptionType::Bool: {
            auto b = parseBool(v);
            if (!b) throw std::invalid_argument(what + ": expected a bool (true/false/1/0), got '" + v + "'");
            v = *b ? "true" : "false";
            break;
        }
        case OptionType::Int:
            if (!parseInt(v)) throw std::invalid_argument(what + ": expected an int, got '" + v + "'");
            v = std::to_string(*parseInt(v));
            break;
        case OptionType::Float:
            if (!parseFloat(v)) throw std::invalid_argument(what + ": expected a float, got '" + v + "'");
            break;
        case OptionType::Enum:
            if (std::find(o.choices.begin(), o.choices.end(), v) == o.choices.end())
                throw std::invalid_argument(what + ": expected one of " + joinChoices(o.choices) + ", got '" + v + "'");
            break;
        case OptionType::StringList: {
            // Normalised so equal lists print equally.
            auto items = splitList(v);
            v.clear();
            for (size_t i = 0; i < items.size(); ++i) v += (i ? ";" : "") + items[i];
            break;
        }
        case OptionType::String: break;
        }
        out.values[o.name] = v;
        if (given) out.given.insert(o.name);
    }
    return out;
}

// ---------------------------------------------------------------- change log

void ChangeLog::append(const ChangeLog& o)
{
    added.insert(added.end(), o.added.begin(), o.added.end());
    removed.insert(removed.end(), o.removed.begin(), o.removed.end());
    rewired.insert(rewired.end(), o.rewired.begin(), o.rewired.end());
    tags.insert(tags.end(), o.tags.begin(), o.tags.end());
    notes.insert(notes.end(), o.notes.begin(), o.notes.end());
    // Numbers add up; anything else: the later value wins.
    for (auto it = o.stats.begin(); it != o.stats.end(); ++it) {
        if (stats.contains(it.key()) && stats[it.key()].is_number() && it.value().is_number()) {
            if (stats[it.key()].is_number_integer() && it.value().is_number_integer())
                stats[it.key()] = stats[it.key()].get<int64_t>() + it.value().get<int64_t>();
            else
                stats[it.key()] = stats[it.key()].get<double>() + it.value().get<double>();
        } else {
            stats[it.key()] = it.value();
        }
    }
}

nlohmann::json ChangeLog::toJson() const
{
    using nlohmann::json;
    json j = json::object();
    json a = json::array();
    for (const auto& x : added) {
        json e = {{"node", x.node}};
        if (!x.copiedFrom.empty()) e["copied_from"] = x.copiedFrom;
        if (!x.graph.empty()) e["graph"] = x.graph;
        a.push_back(std::move(e));
    }
    j["added"] = std::move(a);
    j["removed"] = removed;
    json r = json::array();
    for (const auto& x : rewired) {
        json e = {{"consumer", x.consumer}, {"where", x.where}, {"from", x.from}, {"to", x.to}};
        if (!x.graph.empty()) e["graph"] = x.graph;
        r.push_back(std::move(e));
    }
    j["rewired"] = std::move(r);
    json t = json::array();
    for (const auto& x : tags) {
        json e = {{"node", x.node}, {"field", x.field}, {"before", x.before}, {"after", x.after}};
        if (!x.graph.empty()) e["graph"] = x.graph;
        t.push_back(std::move(e));
    }
    j["tags"] = std::move(t);
    j["notes"] = notes;
    j["stats"] = stats.is_null() ? json::object() : stats;
    return j;
}

std::string ChangeLog::toText(size_t maxEntries) const
{
    std::ostringstream os;
    os << "+" << added.size() << " added, -" << removed.size() << " removed, " << rewired.size() << " rewired, "
       << tags.size() << " tags set\n";
    for (const auto& n : notes) os << "  " << n << "\n";
    size_t shown = 0;
    const size_t total = added.size() + removed.size() + rewired.size() + tags.size();
    auto in = [](const std::string& g) { return g.empty() ? std::string() : " [" + g + "]"; };
    auto room = [&]() { return shown < maxEntries; };
    for (const auto& x : added) {
        if (!room()) break;
        os << "  + " << x.node << (x.copiedFrom.empty() ? "" : " (copy of " + x.copiedFrom + ")") << in(x.graph)
           << "\n";
        ++shown;
    }
    for (const auto& x : removed) {
        if (!room()) break;
        os << "  - " << x << "\n";
        ++shown;
    }
    for (const auto& x : rewired) {
        if (!room()) break;
        os << "  ~ " << x.consumer << " " << x.where << ": " << x.from << " -> " << x.to << in(x.graph) << "\n";
        ++shown;
    }
    for (const auto& x : tags) {
        if (!room()) break;
        os << "  # " << x.node << "." << x.field << ": " << (x.before.empty() ? "(unset)" : x.before) << " -> "
           << (x.after.empty() ? "(unset)" : x.after) << in(x.graph) << "\n";
        ++shown;
    }
    if (shown < total) os << "  ... " << (total - shown) << " more\n";
    return os.str();
}

// ---------------------------------------------------------------- context, passes, registry

void PassContext::added(const std::string& node, const std::string& copiedFrom)
{
    log.added.push_back({node, copiedFrom, graphRole});
}
void PassContext::removed(const std::string& node) { log.removed.push_back(node); }
void PassContext::rewired(const std::string& consumer, const std::string& where, const std::string& from,
                          const std::string& to)
{
    log.rewired.push_back({consumer, where, from, to, graphRole});
}
void PassContext::tagSet(const std::string& node, const std::string& field, const std::string& before,
                         const std::string& after)
{
    log.tags.push_back({node, field, before, after, graphRole});
}

std::vector<RoleGraph> Pass::runAll(std::vector<RoleGraph> graphs, const PassOptions& opts, PassContext& ctx) const
{
    const std::string saved = ctx.graphRole;
    for (auto& rg : graphs) {
        ctx.graphRole = rg.role;
        run(rg.graph, opts, ctx);
    }
    ctx.graphRole = saved;
    return graphs;
}

const PassRegistry& PassRegistry::instance()
{
    static const PassRegistry reg = [] {
        PassRegistry r;
        registerBuiltinPasses(r);
        return r;
    }();
    return reg;
}

void PassRegistry::add(std::unique_ptr<Pass> p)
{
    if (!p) return;
    const std::string n = p->name();
    for (auto& q : passes_) {
        if (q->name() == n) {  // a later registration replaces (tests override built-ins)
            q = std::move(p);
            return;
        }
    }
    passes_.push_back(std::move(p));
}

const Pass* PassRegistry::find(std::string_view name) const
{
    for (const auto& p : passes_)
        if (p->name() == name) return p.get();
    return nullptr;
}

// ---------------------------------------------------------------- pipeline spec

namespace {

[[noreturn]] void specError(size_t pos0, const std::string& msg)
{
    throw InputError("<pipeline>", 1, static_cast<int>(pos0) + 1, msg);
}

bool isNameChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.'; }

std::string knownPasses(const PassRegistry& reg)
{
    std::string s;
    for (const auto& p : reg.all()) s += (s.empty() ? "" : ", ") + p->name();
    return s.empty() ? "(none registered)" : s;
}

}  // namespace

std::vector<PipelineStage> parsePipelineSpec(std::string_view spec, const PassRegistry& reg)
{
    std::vector<PipelineStage> stages;
    size_t i = 0;
    const size_t n = spec.size();
    auto skipWs = [&]() {
        while (i < n && std::isspace(static_cast<unsigned char>(spec[i]))) ++i;
    };
    skipWs();
    if (i == n) specError(0, "empty pipeline: expected a pass name (known: " + knownPasses(reg) + ")");
    for (;;) {
        skipWs();
        const size_t stageStart = i;
        while (i < n && isNameChar(spec[i])) ++i;
        const std::string name(spec.substr(stageStart, i - stageStart));
        if (name.empty()) {
            if (i == n) specError(i, "expected a pass name after ','");
            specError(i, std::string("expected a pass name, got '") + spec[i] + "'");
        }
        PipelineStage st;
        st.pass = name;
        st.column = static_cast<int>(stageStart) + 1;
        const Pass* pass = reg.find(name);
        if (!pass) specError(stageStart, "unknown pass '" + name + "' (known: " + knownPasses(reg) + ")");
        std::map<std::string, size_t> optColumn;  // option -> position of its name
        skipWs();
        if (i < n && spec[i] == '(') {
            ++i;
            skipWs();
            if (i < n && spec[i] == ')') {
                ++i;
            } else {
                for (;;) {
                    skipWs();
                    const size_t keyStart = i;
                    while (i < n && isNameChar(spec[i])) ++i;
                    const std::string key(spec.substr(keyStart, i - keyStart));
                    if (key.empty()) {
                        if (i == n) specError(i, "expected an option name, got end of pipeline");
                        specError(i, std::string("expected an option name, got '") + spec[i] + "'");
                    }
                    skipWs();
                    if (i == n || spec[i] != '=')
                        specError(i,
                                  "expected '=' after option '" + key + "'"
                                      + (i == n ? std::string(", got end of pipeline")
                                                : ", got '" + std::string(1, spec[i]) + "'"));
                    ++i;
                    const size_t valStart = i;
                    int depth = 0;
                    while (i < n) {
                        const char c = spec[i];
                        if (c == '(')
                            ++depth;
                        else if (c == ')') {
                            if (depth == 0) break;
                            --depth;
                        } else if (c == ',' && depth == 0)
                            break;
                        ++i;
                    }
                    if (i == n) specError(i, "expected ')' to close the options of '" + name + "'");
                    const std::string value = std::string(trim(spec.substr(valStart, i - valStart)));
                    if (st.raw.count(key)) specError(keyStart, "option '" + key + "' given twice");
                    st.raw[key] = value;
                    optColumn[key] = keyStart;
                    if (spec[i] == ',') {
                        ++i;
                        continue;
                    }
                    ++i;  // ')'
                    break;
                }
            }
        }
        st.text = std::string(trim(spec.substr(stageStart, i - stageStart)));
        try {
            pass->checkOptions(resolveOptions(pass->options(), st.raw));
        } catch (const std::invalid_argument& e) {
            // Point at the option the message names (the first one that fails, in name order).
            size_t col = stageStart;
            const std::string msg = e.what();
            for (const auto& [k, p] : optColumn)
                if (msg.find("'" + k + "'") != std::string::npos) {
                    col = p;
                    break;
                }
            specError(col, name + ": " + msg);
        }
        stages.push_back(std::move(st));
        skipWs();
        if (i == n) break;
        if (spec[i] != ',') specError(i, std::string("expected ',' or end of pipeline, got '") + spec[i] + "'");
        ++i;
    }
    return stages;
}

// ---------------------------------------------------------------- pipeline runs

const Graph& Step::graph(std::string_view role) const
{
    if (graphs.empty()) throw std::out_of_range("step " + std::to_string(index) + " has no graph");
    if (role.empty()) return graphs.front()->graph;
    for (const auto& g : graphs)
        if (g->role == role) return g->graph;
    throw std::out_of_range("step " + std::to_string(index) + " has no graph '" + std::string(role) + "'");
}

bool Step::verifierClean() const { return !hasErrors(problems); }

const RoleGraph* previousGraph(const Step& before, std::string_view role)
{
    const auto* g = graphOfRole(before.graphs, role, [](const auto& rg) -> const std::string& { return rg->role; });
    return g ? g->get() : nullptr;
}

DiffCounts stepDiffCounts(const Step& step, const Step& before)
{
    DiffCounts c;
    for (const auto& g : step.graphs) {
        const RoleGraph* prev = previousGraph(before, g->role);
        if (!prev) continue;
        if (prev == g.get()) continue;  // the pass left this graph untouched: nothing changed
        c += diffGraphs(prev->graph, g->graph).totalCounts();
    }
    return c;
}

namespace {

std::vector<Problem> verifyAll(const std::vector<std::shared_ptr<const RoleGraph>>& graphs, const OpRegistry& reg)
{
    std::vector<Problem> out;
    for (const auto& rg : graphs) {
        for (Problem p : verifyGraph(rg->graph, reg)) {
            if (!rg->role.empty()) p.graph = p.graph.empty() ? rg->role : rg->role + "/" + p.graph;
            out.push_back(std::move(p));
        }
    }
    return out;
}

// Clears the provenance of nodes of `out` that carry the same name and provenance as the
// node with the same id in `in` (the pass neither made them nor set it). Copies made by the
// pass have fresh ids and keep theirs.
void clearStaleProvenance(const Graph& in, Graph& out)
{
    for (NodeId id : out.order()) {
        Node& n = out.node(id);
        if (n.meta.provenance.empty() || !in.alive(id)) continue;
        const Node& o = in.node(id);
        if (o.name == n.name && o.meta.provenance == n.meta.provenance) n.meta.provenance.clear();
    }
}

}  // namespace

PipelineRun runPipeline(const Graph& input, std::string_view spec, const PipelineOptions& opts)
{
    const PassRegistry& reg = opts.registry ? *opts.registry : PassRegistry::instance();
    auto stages = parsePipelineSpec(spec, reg);
    std::vector<RoleGraph> in;
    in.push_back(RoleGraph{"", input.clone()});
    return runPipeline(std::move(in), stages, opts);
}

PipelineRun runPipeline(std::vector<RoleGraph> input, const std::vector<PipelineStage>& stages,
                        const PipelineOptions& opts)
{
    const PassRegistry& reg = opts.registry ? *opts.registry : PassRegistry::instance();
    const OpRegistry& ops = OpRegistry::instance();
    PipelineRun run;

    Step s0;
    s0.index = 0;
    for (auto& rg : input) {
        rg.graph.rebuildUsers();
        s0.graphs.push_back(std::make_shared<const RoleGraph>(std::move(rg)));
    }
    if (opts.verify) s0.problems = verifyAll(s0.graphs, ops);
    run.steps.push_back(std::move(s0));

    // Reports, then stops the run between steps when it was cancelled (true = stop).
    ProgressMeter meter(opts.progress, static_cast<int64_t>(stages.size()));
    auto reportStep = [&](size_t done, std::string_view what) {
        try {
            meter.report(static_cast<int64_t>(done), what);
        } catch (const CancelledError&) {
            run.ok = false;
            run.cancelled = true;
            run.error =
                "cancelled with " + std::to_string(done) + " of " + std::to_string(stages.size()) + " stages done";
            return true;
        }
        return false;
    };
    if (reportStep(0, "input")) return run;

    for (size_t si = 0; si < stages.size(); ++si) {
        const PipelineStage& st = stages[si];
        const std::string label = "stage " + std::to_string(si + 1) + " (" + st.pass + ")";
        const Pass* pass = reg.find(st.pass);
        if (!pass) {
            run.ok = false;
            run.error = label + ": unknown pass '" + st.pass + "'";
            run.failedStage = static_cast<int>(si);
            break;
        }
        PassOptions po;
        try {
            po = resolveOptions(pass->options(), st.raw);
            pass->checkOptions(po);
        } catch (const std::invalid_argument& e) {
            run.ok = false;
            run.error = label + ": " + e.what();
            run.failedStage = static_cast<int>(si);
            break;
        }
        const Step& prev = run.steps.back();
        std::vector<RoleGraph> work;
        work.reserve(prev.graphs.size());
        for (const auto& g : prev.graphs) work.push_back(RoleGraph{g->role, g->graph.clone()});

        PassContext ctx(ops);
        std::vector<RoleGraph> result;
        const auto t0 = std::chrono::steady_clock::now();
        try {
            result = pass->runAll(std::move(work), po, ctx);
        } catch (const PassError& e) {
            run.ok = false;
            run.error = label + ": " + e.what();
            run.failedStage = static_cast<int>(si);
            break;
        } catch (const std::exception& e) {
            // A bug in a pass must not take the tool down either; say it is one.
            run.ok = false;
            run.error = label + ": internal error: " + e.what();
            run.failedStage = static_cast<int>(si);
            break;
        }
        const auto t1 = std::chrono::steady_clock::now();

        Step step;
        step.index = static_cast<int>(si) + 1;
        step.pass = st.pass;
        step.spec = st.text.empty() ? st.pass : st.text;
        step.options = std::move(po);
        step.wallSeconds = std::chrono::duration<double>(t1 - t0).count();
        for (auto& rg : result) {
            rg.graph.rebuildUsers();
            // Share the previous snapshot when the pass left a graph as it was.
            std::shared_ptr<const RoleGraph> same;
            for (const auto& pg : prev.graphs)
                if (pg->role == rg.role && pg->graph.structurallyEqual(rg.graph)) {
                    same = pg;
                    break;
                }
            if (same) {
                step.graphs.push_back(same);
                continue;
            }
            // Provenance names a node of the previous step: what an earlier pass wrote and
            // this one left alone is stale (a diff would match through it), so it goes.
            for (const auto& pg : prev.graphs)
                if (pg->role == rg.role) clearStaleProvenance(pg->graph, rg.graph);
            step.graphs.push_back(std::make_shared<const RoleGraph>(std::move(rg)));
        }
        step.log = std::move(ctx.log);
        if (opts.verify) step.problems = verifyAll(step.graphs, ops);
        run.steps.push_back(std::move(step));
        if (reportStep(si + 1, run.steps.back().spec)) break;
    }
    return run;
}

}  // namespace fxl
