#include "core/formats/torch_trace/tlparse_output.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "core/formats/fx/fx_text_parser.hpp"
#include "core/formats/torch_trace/torch_trace.hpp"

namespace fxl {

namespace fs = std::filesystem;

namespace {

std::optional<int> rankFromDirName(const std::string& name)
{
    if (!name.starts_with("rank_") || name.size() == 5 || name.size() > 14) return std::nullopt;
    int r = 0;
    for (size_t i = 5; i < name.size(); ++i) {
        if (name[i] < '0' || name[i] > '9') return std::nullopt;
        r = r * 10 + (name[i] - '0');
    }
    return r;
}

struct Root
{
    fs::path dir;
    std::optional<int> rank;
    std::string prefix;
};

std::vector<Root> findRoots(const std::string& dir)
{
    std::vector<Root> roots;
    std::error_code ec;
    if (fs::is_regular_file(fs::path(dir) / "compile_directory.json", ec)) roots.push_back({dir, std::nullopt, ""});
    for (fs::directory_iterator it(dir, ec), endIt; !ec && it != endIt; it.increment(ec)) {
        std::error_code ec2;
        if (!it->is_directory(ec2)) continue;
        auto rank = rankFromDirName(it->path().filename().string());
        if (rank && fs::is_regular_file(it->path() / "compile_directory.json", ec2))
            roots.push_back({it->path(), rank, "rank_" + std::to_string(*rank) + "/"});
    }
    std::sort(roots.begin(), roots.end(),  // the rank-less top level first
              [](const Root& a, const Root& b) { return a.rank < b.rank; });
    return roots;
}

std::string readWholeFile(const std::string& path, int line)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path, line, 0, "cannot read file");
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// "dynamo_output_graph_0.txt" -> "dynamo_output_graph": tlparse appends "_<N>" (one running
// output counter) to every per-compile file name.
std::string kindFromFileName(const fs::path& p)
{
    std::string stem = p.stem().string();
    size_t u = stem.find_last_of('_');
    if (u != std::string::npos && u + 1 < stem.size()
        && std::all_of(stem.begin() + long(u) + 1, stem.end(), [](char c) { return c >= '0' && c <= '9'; }))
        stem.resize(u);
    return stem;
}

bool firstLineIsGraphClass(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::string line;
    while (std::getline(in, line)) {
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        return line.starts_with("class ") && line.find("Module") != std::string::npos;
    }
    return false;
}

// 1-based line and column of a byte offset in a text.
std::pair<int, int> lineColumn(const std::string& text, size_t byte)
{
    byte = std::min(byte, text.size());
    int line = 1 + int(std::count(text.begin(), text.begin() + long(byte), '\n'));
    size_t lastNl = byte == 0 ? std::string::npos : text.rfind('\n', byte - 1);
    int col = int(byte - (lastNl == std::string::npos ? 0 : lastNl + 1)) + 1;
    return {line, col};
}

void loadRoot(Source& src, const Root& root)
{
    const std::string cdPath = (root.dir / "compile_directory.json").string();
    std::string text = readWholeFile(cdPath, 0);
    nlohmann::ordered_json doc;
    try {
        doc = nlohmann::ordered_json::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
        auto [l, c] = lineColumn(text, e.byte > 0 ? e.byte - 1 : 0);
        throw InputError(cdPath, l, c, std::string("compile_directory.json is not valid JSON: ") + e.what());
    }
    if (!doc.is_object())
        throw InputError(cdPath, 1, 1, "expected a JSON object mapping compile ids to {\"artifacts\": [...]}");

    size_t first = src.artifacts.size();
    for (auto& [cid, entry] : doc.items()) {
        const auto* arts = entry.is_object() && entry.contains("artifacts") ? &entry["artifacts"] : nullptr;
        if (!arts || !arts->is_array()) {
            src.diagnostics.warn(cdPath, 0, 0, "compile id '" + cid + "' has no \"artifacts\" list; skipped");
            continue;
        }
        for (const auto& art : *arts) {
            if (!art.is_object() || !art.contains("url") || !art["url"].is_string()) {
                src.diagnostics.warn(cdPath, 0, 0, "an artifact of '" + cid + "' has no \"url\"; skipped");
                continue;
            }
            std::string url = art["url"].get<std::string>();
            fs::path rel(url);
            if (url.find("://") != std::string::npos) continue;  // a link entry, not a file
            bool escapes =
                rel.is_absolute() || std::any_of(rel.begin(), rel.end(), [](const fs::path& c) { return c == ".."; });
            if (escapes) {
                src.diagnostics.warn(cdPath, 0, 0, "artifact url '" + url + "' leaves the folder; skipped");
                continue;
            }
            fs::path file = root.dir / rel;
            std::error_code ec;
            auto size = fs::file_size(file, ec);
            if (ec || !fs::is_regular_file(file, ec)) {
                src.diagnostics.warn(cdPath, 0, 0, "listed file '" + url + "' is missing; skipped");
                continue;
            }
            Artifact a;
            a.id = root.prefix + url;
            a.kind = kindFromFileName(rel);
            a.rank = root.rank;
            a.compileId = cid == "unknown" ? "[-/-]" : cid;
            a.file = file.string();
            a.line = 1;
            a.payloadLength = int64_t(size);
            a.isGraph = rel.extension() == ".txt"
                && (isGraphKind(a.kind) || (a.kind != "fx_graph_runnable" && firstLineIsGraphClass(a.file)));
            src.artifacts.push_back(std::move(a));
        }
    }

    // before_X / after_X within one compile id, in the order tlparse wrote them.
    std::map<std::pair<std::string, std::string>, size_t> pending;
    for (size_t i = first; i < src.artifacts.size(); ++i) {
        Artifact& a = src.artifacts[i];
        bool before = a.kind.starts_with("before_"), after = a.kind.starts_with("after_");
        if (!before && !after) continue;
        auto key = std::make_pair(a.compileId, a.kind.substr(before ? 7 : 6));
        if (before) {
            pending[key] = i;
        } else if (auto it = pending.find(key); it != pending.end()) {
            a.pairedWith = src.artifacts[it->second].id;
            src.artifacts[it->second].pairedWith = a.id;
            pending.erase(it);
        }
    }
}

}  // namespace

bool isTlparseOutputDir(const std::string& dir)
{
    std::error_code ec;
    return fs::is_directory(dir, ec) && !findRoots(dir).empty();
}

std::unique_ptr<Source> loadTlparseOutput(const std::string& dir)
{
    auto roots = findRoots(dir);
    if (roots.empty())
        throw InputError(dir, 0, 0, "not a tlparse output folder: no compile_directory.json (or rank_<N>/ with one)");
    auto src = std::make_unique<Source>();
    src->path = dir;
    src->format = SourceFormat::TlparseOutput;
    for (const auto& r : roots) {
        loadRoot(*src, r);
        if (r.rank) src->ranks.push_back(*r.rank);
    }
    src->readPayload = [](const Artifact& a) { return readWholeFile(a.file, int(a.line)); };
    src->parseGraph = [](const Artifact& a, DiagnosticList& d) -> std::shared_ptr<Graph> {
        if (!a.isGraph) throw InputError(a.file, 1, 1, "'" + a.kind + "' is not an FX graph file");
        return std::make_shared<Graph>(parseFxText(readWholeFile(a.file, 1), a.file, 1, &d, 0));
    };
    return src;
}

}  // namespace fxl
