#include "core/analysis/chunk_spec.hpp"

#include <algorithm>
#include <charconv>
#include <set>
#include <stdexcept>

#include "core/ir/diagnostics.hpp"
#include "core/util/strings.hpp"

namespace fxl {

std::string_view chunkAxisName(ChunkAxis a) { return a == ChunkAxis::Batch ? "batch" : "seq"; }

namespace {

std::string joinList(const std::vector<std::string>& v)
{
    std::string out;
    for (size_t i = 0; i < v.size(); ++i) out += (i ? ";" : "") + v[i];
    return out;
}

std::vector<std::string> splitList(std::string_view s)
{
    std::vector<std::string> out;
    if (trim(s).empty()) return out;
    size_t start = 0;
    while (true) {
        const size_t semi = s.find(';', start);
        out.emplace_back(trim(s.substr(start, semi == std::string_view::npos ? std::string_view::npos : semi - start)));
        if (semi == std::string_view::npos) break;
        start = semi + 1;
    }
    return out;
}

std::vector<std::string_view> components(std::string_view path)
{
    std::vector<std::string_view> out;
    if (path.empty()) return out;
    size_t start = 0;
    while (true) {
        const size_t dot = path.find('.', start);
        out.push_back(path.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start));
        if (dot == std::string_view::npos) break;
        start = dot + 1;
    }
    return out;
}

}  // namespace

std::string ChunkSpec::str() const
{
    std::string s = "regions=" + joinList(regions) + ",dim=" + std::string(chunkAxisName(axis))
        + ",chunks=" + std::to_string(chunks) + ",split=" + (split == ChunkSplit::Chunk ? "chunk" : "tensor_split");
    if (!inputs.empty()) s += ",inputs=" + joinList(inputs);
    return s;
}

ChunkSpec parseChunkSpec(std::string_view text)
{
    ChunkSpec spec;
    const std::vector<std::string> known = {"regions", "dim", "chunks", "split", "inputs"};
    std::set<std::string> seen;
    size_t start = 0;
    while (start <= text.size()) {
        size_t comma = text.find(',', start);
        if (comma == std::string_view::npos) comma = text.size();
        const std::string_view raw = text.substr(start, comma - start);
        const int column = static_cast<int>(start + (raw.size() - trimLeft(raw).size())) + 1;
        const std::string_view item = trim(raw);
        auto fail = [&](const std::string& why) { throw InputError("<chunks>", 1, column, why); };
        if (item.empty()) {
            if (text.find_first_not_of(" \t") == std::string_view::npos) break;  // "" is all defaults
            fail("expected name=value (regions, dim, chunks, split, inputs), found an empty item");
        }
        const size_t eq = item.find('=');
        if (eq == std::string_view::npos) fail("expected name=value, found '" + std::string(item) + "'");
        const std::string name(trim(item.substr(0, eq)));
        const std::string_view value = trim(item.substr(eq + 1));
        if (std::find(known.begin(), known.end(), name) == known.end()) {
            const std::string near = nearestSpelling(name, known);
            fail("unknown item '" + name + "': expected regions, dim, chunks, split or inputs"
                 + (near.empty() ? std::string() : " (did you mean '" + near + "'?)"));
        }
        if (!seen.insert(name).second) fail("'" + name + "' given twice");
        if (name == "regions") {
            spec.regions = splitList(value);
            for (const std::string& p : spec.regions)
                for (std::string_view c : components(p))
                    if (c.empty()) fail("region pattern '" + p + "' has an empty path component");
            std::erase(spec.regions, std::string());
        } else if (name == "dim") {
            if (value == "batch")
                spec.axis = ChunkAxis::Batch;
            else if (value == "seq")
                spec.axis = ChunkAxis::Seq;
            else
                fail("dim must be batch or seq, found '" + std::string(value) + "'");
        } else if (name == "chunks") {
            int v = 0;
            auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
            if (ec != std::errc() || p != value.data() + value.size() || v < 1)
                fail("chunks must be an integer >= 1, found '" + std::string(value) + "'");
            spec.chunks = v;
        } else if (name == "split") {
            if (value == "tensor_split")
                spec.split = ChunkSplit::TensorSplit;
            else if (value == "chunk")
                spec.split = ChunkSplit::Chunk;
            else
                fail("split must be tensor_split or chunk, found '" + std::string(value) + "'");
        } else {
            spec.inputs = splitList(value);
        }
        start = comma + 1;
    }
    return spec;
}

std::vector<int64_t> chunkSizes(int64_t n, int k, ChunkSplit split)
{
    std::vector<int64_t> out;
    if (n <= 0 || k <= 0) return out;
    if (split == ChunkSplit::Chunk) {
        const int64_t each = (n + k - 1) / k;
        for (int64_t left = n; left > 0; left -= each) out.push_back(std::min(each, left));
        return out;
    }
    const int64_t pieces = std::min<int64_t>(n, k);
    const int64_t base = n / pieces, extra = n % pieces;
    for (int64_t i = 0; i < pieces; ++i) out.push_back(base + (i < extra ? 1 : 0));
    return out;
}

bool insideModule(std::string_view path, std::string_view root)
{
    if (root.empty()) return true;
    if (!path.starts_with(root)) return false;
    return path.size() == root.size() || path[root.size()] == '.';
}

std::string matchRoot(std::string_view pattern, std::string_view path)
{
    const auto pc = components(pattern), xc = components(path);
    if (pc.empty() || xc.size() < pc.size()) return "";
    size_t len = 0;
    for (size_t i = 0; i < pc.size(); ++i) {
        if (pc[i] != "*" && pc[i] != xc[i]) return "";
        len += xc[i].size() + (i ? 1 : 0);
    }
    return std::string(path.substr(0, len));
}

std::vector<std::string> regionRoots(const Graph& g, std::string_view pattern)
{
    std::vector<std::string> out;
    std::set<std::string> seen;
    g.forEachNode([&](const Node& n) {
        const std::string r = matchRoot(pattern, n.meta.modulePath);
        if (!r.empty() && seen.insert(r).second) out.push_back(r);
    });
    return out;
}

std::vector<NodeId> dataInputs(const Graph& g, const std::vector<std::string>& named)
{
    std::vector<NodeId> out;
    if (!named.empty()) {
        for (const std::string& name : named) {
            const NodeId id = g.findByName(name);
            if (id == kNoNode || g.node(id).op != NodeOp::Placeholder)
                throw std::invalid_argument("inputs: '" + name + "' is not a placeholder of the graph");
            out.push_back(id);
        }
        return out;
    }
    bool anyDescribed = false;
    for (NodeId id : g.placeholders()) {
        const std::string& d = g.node(id).meta.desc;
        if (!d.empty()) anyDescribed = true;
        if (d.starts_with("PlainAOTInput")) out.push_back(id);
    }
    if (!anyDescribed)
        throw std::invalid_argument(
            "cannot tell the data inputs from the parameters: the graph has no params.json beside it and its "
            "placeholders carry no AOT descriptions; name the data placeholders with inputs=NAME;NAME");
    return out;
}

}  // namespace fxl
