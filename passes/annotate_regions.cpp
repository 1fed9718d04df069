// annotate_regions: AC region ids (custom.ac_region_id = k) for the nodes of transformer block k
// (docs/passes.md section 6), derived after tracing from module paths, `# File:` source lines or node names.
#include <map>
#include <regex>

#include "core/analysis/phases.hpp"
#include "passes/annotate_regions.hpp"
#include "passes/pass.hpp"
#include "passes/sac.hpp"

namespace fxl {

namespace {

std::vector<std::string> splitDots(const std::string& s)
{
    std::vector<std::string> out;
    size_t start = 0;
    for (;;) {
        size_t d = s.find('.', start);
        out.push_back(s.substr(start, d == std::string::npos ? std::string::npos : d - start));
        if (d == std::string::npos) break;
        start = d + 1;
    }
    return out;
}

bool allDigits(const std::string& s)
{
    if (s.empty() || s.size() > 9) return false;
    for (char c : s)
        if (c < '0' || c > '9') return false;
    return true;
}

// `<prefix>.<k>` anywhere in a dotted module path, leftmost first, the longest prefix on a tie.
std::optional<int> regionFromPath(const std::string& path, const std::vector<std::vector<std::string>>& prefixes)
{
    if (path.empty()) return std::nullopt;
    std::vector<std::string> comps = splitDots(path);
    for (size_t i = 0; i < comps.size(); ++i) {
        std::optional<int> best;
        size_t bestLen = 0;
        for (const auto& pc : prefixes) {
            if (pc.empty() || i + pc.size() >= comps.size() || pc.size() <= bestLen) continue;
            bool eq = true;
            for (size_t k = 0; k < pc.size() && eq; ++k) eq = comps[i + k] == pc[k];
            if (eq && allDigits(comps[i + pc.size()])) {
                best = std::stoi(comps[i + pc.size()]);
                bestLen = pc.size();
            }
        }
        if (best) return best;
    }
    return std::nullopt;
}

std::string regexEscape(const std::string& s)
{
    static const std::string special = R"(\^$.|?*+()[]{})";
    std::string out;
    for (char c : s) {
        if (special.find(c) != std::string::npos) out += '\\';
        out += c;
    }
    return out;
}

std::optional<int> regionFromRegex(const std::string& text, const std::regex& re)
{
    std::smatch m;
    if (text.empty() || !std::regex_search(text, m, re)) return std::nullopt;
    for (size_t k = 1; k < m.size(); ++k)
        if (m[k].matched && allDigits(m[k].str())) return std::stoi(m[k].str());
    return std::nullopt;
}

class AnnotateRegionsPass : public Pass
{
public:
    std::string name() const override { return "annotate_regions"; }
    std::string summary() const override
    {
        return "AC region ids (custom.ac_region_id = k) for the nodes of block k, from module paths, source lines "
               "or names";
    }
    std::string description() const override
    {
        return "Stamps custom.ac_region_id = k on every node that belongs to transformer block k, the annotation "
               "torchtitan's annotate_ac_regions puts in place before tracing (docs/passes.md section 6). The block is "
               "found, "
               "in this order (option `from`=auto): the module path (meta or custom.module_fqn) containing "
               "`<prefix>.<k>` for a prefix of `prefix`; the `# File:` source line containing `<prefix>[<k>]` or "
               "`<prefix>.<k>`; the node name matched by the regular expression `name_pattern` (its first "
               "all-digit group is k, e.g. \"layers_(\\d+)_\"). Backward nodes are annotated from their own module "
               "path too (the tracer's metadata preservation gives them their forward module). The loss / lm_head "
               "epilogue (phases.hpp) gets no id. Existing ids are kept unless overwrite=true.";
    }
    std::vector<PassOption> options() const override
    {
        return {
            {"prefix",
             OptionType::StringList,
             "layers;blocks;h;model.layers",
             {},
             "module path components naming the block list"},
            {"from",
             OptionType::Enum,
             "auto",
             {"auto", "module", "source", "name"},
             "where to read the block from (auto: module path, then source line, then name_pattern)"},
            {"name_pattern",
             OptionType::String,
             "",
             {},
             "regular expression over node names whose first all-digit group is the block (\"\" = off)"},
            {"overwrite", OptionType::Bool, "false", {}, "replace ids already present"},
        };
    }

    void run(Graph& g, const PassOptions& opts, PassContext& ctx) const override
    {
        std::vector<std::string> prefixes = opts.getList("prefix");
        const std::string from = opts.getString("from");
        const std::string namePattern = opts.getString("name_pattern");
        const bool overwrite = opts.getBool("overwrite");
        if (prefixes.empty() && namePattern.empty())
            throw PassError("annotate_regions: no prefix and no name_pattern: nothing to match");
        if (from == "name" && namePattern.empty()) throw PassError("annotate_regions: from=name needs name_pattern");

        std::vector<std::vector<std::string>> prefixComps;
        std::string alt;
        for (const auto& p : prefixes) {
            if (p.empty()) continue;
            prefixComps.push_back(splitDots(p));
            alt += (alt.empty() ? "" : "|") + regexEscape(p);
        }
        std::regex sourceRe, nameRe;
        bool haveSourceRe = false, haveNameRe = false;
        try {
            if (!alt.empty()) {
                // self.layers[3](x) / self.layers.3 / layers[3]
                sourceRe = std::regex("(?:^|[^A-Za-z0-9_])(?:" + alt + ")" + R"((?:\[(\d+)\]|\.(\d+)(?![0-9])))");
                haveSourceRe = true;
            }
            if (!namePattern.empty()) {
                nameRe = std::regex(namePattern);
                haveNameRe = true;
            }
        } catch (const std::regex_error& e) {
            throw PassError("annotate_regions: bad name_pattern '" + namePattern + "': " + e.what());
        }

        PhaseInfo ph = classifyPhases(g);
        std::map<int, int64_t> perRegion;
        std::map<std::string, int64_t> byRule;
        int64_t kept = 0, epilogue = 0, unannotatedFw = 0, unannotatedBw = 0;
        for (NodeId id : g.order()) {
            Node& n = g.node(id);
            if (n.op == NodeOp::Placeholder || n.op == NodeOp::GetAttr || n.op == NodeOp::Output) continue;
            if (ph.isEpilogue(id)) {
                ++epilogue;
                continue;
            }
            std::optional<int> existing = acRegionId(n);
            if (existing && !overwrite) {
                ++kept;
                ++perRegion[*existing];
                continue;
            }
            std::optional<int> k;
            std::string rule;
            if ((from == "auto" || from == "module") && !prefixComps.empty()) {
                k = regionFromPath(nodeModulePath(n), prefixComps);
                rule = "module_path";
            }
            if (!k && (from == "auto" || from == "source") && haveSourceRe) {
                k = regionFromRegex(n.meta.source.code, sourceRe);
                rule = "source";
            }
            if (!k && (from == "auto" || from == "name") && haveNameRe) {
                k = regionFromRegex(n.name, nameRe);
                rule = "name";
            }
            if (!k) {
                ++(ph.isBackward(id) ? unannotatedBw : unannotatedFw);
                continue;
            }
            ++byRule[rule];
            ++perRegion[*k];
            if (existing != k) {
                ctx.tagSet(n.name, "custom.ac_region_id", existing ? std::to_string(*existing) : "",
                           std::to_string(*k));
                setAcRegionId(n, *k);
            }
        }

        nlohmann::json regions = nlohmann::json::object();
        int64_t total = 0;
        for (const auto& [k, c] : perRegion) {
            regions[std::to_string(k)] = c;
            total += c;
        }
        ctx.log.stats["regions"] = regions;
        ctx.log.stats["annotated"] = total;
        ctx.log.stats["kept"] = kept;
        ctx.log.stats["by_rule"] = byRule;
        ctx.log.stats["epilogue"] = epilogue;
        ctx.log.stats["unannotated_forward"] = unannotatedFw;
        ctx.log.stats["unannotated_backward"] = unannotatedBw;
        ctx.note("annotate_regions: " + std::to_string(perRegion.size()) + " region(s), " + std::to_string(total)
                 + " nodes annotated; " + std::to_string(epilogue) + " loss/epilogue nodes left out; "
                 + std::to_string(unannotatedFw) + " forward and " + std::to_string(unannotatedBw)
                 + " backward nodes outside any block");
        std::vector<std::string> regionLines;
        for (const auto& [k, c] : perRegion)
            regionLines.push_back("region " + std::to_string(k) + ": " + std::to_string(c) + " nodes");
        ctx.noteList(regionLines, "regions", "all in the step's stats \"regions\", with --json");
    }
};

}  // namespace

std::unique_ptr<Pass> makeAnnotateRegionsPass() { return std::make_unique<AnnotateRegionsPass>(); }

}  // namespace fxl
