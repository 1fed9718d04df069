// The pass framework: named passes with typed, documented options; a pipeline spec string
// ("remove_detach,sac(policy=alternate_mm),remat,dce"); a run of a pipeline yields Steps,
// each an immutable snapshot of the graph(s) with the change log of the pass that made it,
// the verifier's findings and the wall time.
//
// A pass edits a private copy of the graph. When it throws PassError (preconditions unmet,
// a guardrail fired) the copy is dropped and the input is untouched: the pipeline stops there
// and keeps the steps made so far.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/analysis/verify.hpp"
#include "core/ir/graph.hpp"
#include "core/ops/op_registry.hpp"
#include "core/util/progress.hpp"

namespace fxl {

// ---------------------------------------------------------------- options

enum class OptionType : uint8_t
{
    Bool,
    Int,
    Float,
    String,
    Enum,
    StringList
};
std::string_view optionTypeName(OptionType t);  // "bool", "int", "float", "string", "enum", "list"

struct PassOption
{
    std::string name;
    OptionType type = OptionType::String;
    std::string defaultValue;  // as text; "" for an empty string / empty list
    std::vector<std::string> choices;  // Enum only
    std::string help;
};

// Option values after validation against a pass's PassOption list. Every declared option
// has a value (its default unless given). Lists are written "a;b;c" in a spec (',' separates
// options).
class PassOptions
{
public:
    std::map<std::string, std::string> values;  // name -> text
    std::set<std::string> given;  // names set explicitly in the spec

    bool has(std::string_view name) const { return values.count(std::string(name)) != 0; }
    bool isGiven(std::string_view name) const { return given.count(std::string(name)) != 0; }
    bool getBool(std::string_view name) const;
    int64_t getInt(std::string_view name) const;
    double getFloat(std::string_view name) const;
    const std::string& getString(std::string_view name) const;
    std::vector<std::string> getList(std::string_view name) const;
    // "a=1,b=x" with every option that was given, in name order ("" when none).
    std::string toString() const;
};

// Validates raw "name=value" pairs against `decl`: unknown names, bad ints/floats/bools and
// values outside an enum's choices throw std::invalid_argument with a message naming the
// option and what was expected.
PassOptions resolveOptions(const std::vector<PassOption>& decl, const std::map<std::string, std::string>& raw);

// ---------------------------------------------------------------- change log

struct ChangeLog
{
    struct Added
    {
        std::string node;  // name in the result graph
        std::string copiedFrom;  // name of the node it copies ("" for a brand-new node)
        std::string graph;  // role of the graph it is in ("" when the step has one graph)
    };
    struct Rewired
    {
        std::string consumer;  // name in the result
        std::string where;  // "arg 1", "arg 0[2]", "kwarg other"
        std::string from, to;  // producer before / after
        std::string graph;
    };
    struct TagSet
    {
        std::string node;
        std::string field;  // "recompute", "ac_graph_id", "custom.ac_region_id", "phase", ...
        std::string before, after;  // text forms ("" when unset)
        std::string graph;
    };
    std::vector<Added> added;
    std::vector<std::string> removed;  // names in the input graph
    std::vector<Rewired> rewired;
    std::vector<TagSet> tags;
    std::vector<std::string> notes;  // one-line human summaries ("layers.0: 3 saved, 5 recompute")
    nlohmann::json stats = nlohmann::json::object();  // pass-specific numbers, for --json and tests

    bool empty() const { return added.empty() && removed.empty() && rewired.empty() && tags.empty(); }
    void append(const ChangeLog& o);
    nlohmann::json toJson() const;
    // "+3 added, -2 removed, 1 rewired, 7 tags set" then the notes, then one line per entry.
    std::string toText(size_t maxEntries = 200) const;
};

// ---------------------------------------------------------------- passes

// Preconditions unmet or a guardrail fired. The message says what and where (node names).
struct PassError : std::runtime_error
{
    using std::runtime_error::runtime_error;
};

class PassContext
{
public:
    explicit PassContext(const OpRegistry& reg = OpRegistry::instance())
        : registry(reg)
    { }
    const OpRegistry& registry;
    ChangeLog log;
    std::string graphRole;  // role of the graph being transformed ("" when the step has one graph)

    // Records on the log, filling in graphRole.
    void added(const std::string& node, const std::string& copiedFrom = "");
    void removed(const std::string& node);
    void rewired(const std::string& consumer, const std::string& where, const std::string& from, const std::string& to);
    void tagSet(const std::string& node, const std::string& field, const std::string& before, const std::string& after);
    void note(std::string line) { log.notes.push_back(std::move(line)); }
    // A list of notes, one per item ("region 3: 144 nodes"), that folds when long: up to
    // kNoteListMax lines as they are, else the first kNoteListFolded and "... and N more
    // <what> (<where>)", where says where the whole list is (the step's stats).
    static constexpr size_t kNoteListMax = 16;
    static constexpr size_t kNoteListFolded = 3;
    void noteList(const std::vector<std::string>& lines, const std::string& what, const std::string& where)
    {
        const size_t shown = lines.size() > kNoteListMax ? kNoteListFolded : lines.size();
        for (size_t i = 0; i < shown; ++i) note(lines[i]);
        if (shown < lines.size())
            note("... and " + std::to_string(lines.size() - shown) + " more " + what + " (" + where + ")");
    }
};

// A graph held by a step, with its role: "" for the single graph of most steps, "forward" and
// "backward" after partition.
struct RoleGraph
{
    std::string role;
    Graph graph;
};

class Pass
{
public:
    virtual ~Pass() = default;
    virtual std::string name() const = 0;
    virtual std::string summary() const = 0;  // one line for `fxlens passes list`
    virtual std::string description() const { return summary(); }  // paragraph(s) for help
    virtual std::vector<PassOption> options() const { return {}; }

    // Checks what the option types cannot: options that contradict each other or name what does
    // not exist. Throws std::invalid_argument naming the option ("option 'save': ..."). Called
    // when a pipeline spec is parsed (the error points at the option) and again before the
    // pass runs.
    virtual void checkOptions(const PassOptions&) const { }

    // Transforms one graph in place. Throws PassError when preconditions are unmet.
    virtual void run(Graph& g, const PassOptions& opts, PassContext& ctx) const = 0;

    // Transforms every graph of a step. The default runs run() on each graph in turn (with
    // ctx.graphRole set); partition overrides it to turn one graph into two.
    virtual std::vector<RoleGraph> runAll(std::vector<RoleGraph> graphs, const PassOptions& opts,
                                          PassContext& ctx) const;
};

class PassRegistry
{
public:
    // The built-in passes (registered on first use, in a fixed order).
    static const PassRegistry& instance();

    void add(std::unique_ptr<Pass> p);
    const Pass* find(std::string_view name) const;
    const std::vector<std::unique_ptr<Pass>>& all() const { return passes_; }

private:
    std::vector<std::unique_ptr<Pass>> passes_;
};

// ---------------------------------------------------------------- pipelines

struct PipelineStage
{
    std::string pass;  // "sac"
    std::map<std::string, std::string> raw;  // option text as written
    std::string text;  // "sac(policy=alternate_mm)"
    int column = 1;  // 1-based column of the stage in the spec
};

// Parses "remove_detach,sac(policy=alternate_mm,save=mm;bmm),remat,dce". Whitespace around
// names and values is ignored. Throws InputError (file "<pipeline>", line 1, column) for a
// syntax error, an unknown pass (listing the known ones) or a bad option.
std::vector<PipelineStage> parsePipelineSpec(std::string_view spec, const PassRegistry& reg = PassRegistry::instance());

struct Step
{
    int index = 0;  // 0 = the input
    std::string pass;  // "" for the input step
    std::string spec;  // "sac(policy=alternate_mm)" as written
    PassOptions options;
    std::vector<std::shared_ptr<const RoleGraph>> graphs;  // immutable snapshots, shared between steps when untouched
    ChangeLog log;
    std::vector<Problem> problems;  // verifier findings on every graph (Problem::graph prefixed by the role)
    double wallSeconds = 0.0;  // the pass alone, without the verifier

    const Graph& graph(std::string_view role = "") const;  // first graph when role is ""; throws std::out_of_range
    bool verifierClean() const;  // no Error among problems
};

struct DiffCounts;  // core/analysis/graph_diff.hpp

// The graph of the step `before` that a graph of role `role` in the next step is compared with:
// the graph of that role, else its first (a partition's forward and backward against the joint).
const RoleGraph* previousGraph(const Step& before, std::string_view role);
// The same rule over any list of graphs with roles (the window's prepared steps use it):
// the element whose roleOf(element) is `role`, else the first; null when the list is empty.
template<class Graphs, class RoleOf>
auto graphOfRole(const Graphs& graphs, std::string_view role, RoleOf roleOf) -> decltype(&*graphs.begin())
{
    for (const auto& g : graphs)
        if (roleOf(g) == role) return &g;
    return graphs.empty() ? nullptr : &*graphs.begin();
}
// A step's changes against the step before: the diff (graph_diff.hpp, default options) of each
// of its graphs against previousGraph, summed. The one count of a step's changes: the window's
// Steps table, `fxlens passes` and the workspace record this.
DiffCounts stepDiffCounts(const Step& step, const Step& before);

struct PipelineOptions
{
    bool verify = true;  // run the verifier after every step
    const PassRegistry* registry = nullptr;  // nullptr = PassRegistry::instance()
    // Passes done out of the number of stages: (0, n, "input") once the input step is made,
    // then (k, n, stage k's text) after each step k (its verifier included). The cancel flag
    // is checked right after each report: a pass is not interrupted.
    Progress progress;
};

struct PipelineRun
{
    std::vector<Step> steps;  // steps[0] is the input
    bool ok = true;
    std::string error;  // "stage 3 (remat): ..." when a pass failed, "cancelled with 2 of 4 stages done"
    int failedStage = -1;  // index into the parsed stages (-1 when none failed)
    bool cancelled = false;  // stopped by PipelineOptions::progress.cancel
};

// Runs a pipeline on a graph. A pass that throws PassError stops the run: `ok` is false, the
// error says which stage and why, and the steps made so far are kept. Throws InputError for
// a bad spec (before anything runs).
//
// Cancelled (the flag seen at a report, the last one included): `cancelled` is true, `ok`
// false, failedStage -1, and `steps` holds the input and every step whose pass finished
// before the check, each complete and verified as without cancellation; no step is half made.
PipelineRun runPipeline(const Graph& input, std::string_view spec, const PipelineOptions& opts = {});
// Same from already parsed stages and a multi-graph input.
PipelineRun runPipeline(std::vector<RoleGraph> input, const std::vector<PipelineStage>& stages,
                        const PipelineOptions& opts = {});

}  // namespace fxl
