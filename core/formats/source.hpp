// A loaded file: a tree of artifacts (rank -> compile id -> artifact kind/pass name) whose
// graphs are parsed lazily on first use.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/ir/diagnostics.hpp"
#include "core/ir/graph.hpp"
#include "core/util/progress.hpp"

namespace fxl {

enum class SourceFormat
{
    FxCode,  // print_readable() / gm.code text (.py, .txt)
    GraphListing,  // print(gm.graph)
    TorchTrace,  // one TORCH_TRACE log
    TorchTraceDir,  // a directory of per-rank logs
    TlparseOutput,  // a tlparse output folder (compile_directory.json + per compile id files)
    Json,  // fxlens JSON
    Pt2,  // torch.export archive
};
std::string_view sourceFormatName(SourceFormat f);

struct Artifact
{
    std::string id;  // unique in the source, stable across loads ("12", "rank1/12")
    std::string kind;  // envelope kind or artifact name ("aot_joint_graph", "before_post_grad_graph")
    std::optional<int> rank;
    std::string compileId;  // tlparse notation "[0/0]", "[0/0_1]", "[!0/-/-]", "[-/-]"; "" for plain files
    std::string file;  // the file it lives in
    int64_t line = 0;  // 1-based line of the envelope (or 1 for a plain file)
    int64_t byteOffset = 0;  // of the envelope line
    int64_t payloadOffset = 0, payloadLength = 0;  // bytes of the payload lines in the file
    bool isGraph = false;  // payload is FX graph text
    std::optional<bool> md5Ok;  // nullopt when there is no payload / no md5
    std::string pairedWith;  // id of the before_/after_ partner, if any
    std::string subgraphName;  // "subgraph_name" envelope key (2026 logs)
    // Sidecar files found beside a plain graph file (corpus convention).
    std::string inputsPath, constantsPath, metaPath, paramsPath;
};

class Source
{
public:
    std::string path;
    SourceFormat format = SourceFormat::FxCode;
    std::vector<Artifact> artifacts;
    std::vector<int> ranks;  // distinct ranks, sorted (empty when none)
    DiagnosticList diagnostics;  // md5 mismatches, lossy inputs, skipped lines
    // What the file says about itself, beyond its graphs (a .pt2's layout, schema version and
    // signatures, an AOTInductor package's files); null for the other formats.
    nlohmann::json about;

    // Reader of an artifact's payload text (set by the loader).
    std::function<std::string(const Artifact&)> readPayload;
    // Parser of an artifact's graph (set by the loader). Throws InputError.
    std::function<std::shared_ptr<Graph>(const Artifact&, DiagnosticList&)> parseGraph;

    const Artifact* find(const std::string& id) const;
    std::vector<const Artifact*> graphs() const;  // artifacts with isGraph
    // The parsed graph of an artifact, parsed on first use and cached. Thread-safe.
    std::shared_ptr<Graph> graph(const std::string& artifactId);

private:
    std::mutex mutex_;
    std::map<std::string, std::shared_ptr<Graph>> cache_;
};

// Opens any supported input: detects the format from the content (and the path for
// directories). Throws InputError with a location for unreadable input.
//
// Progress, once the input is recognized: a TORCH_TRACE log counts its bytes indexed, a
// directory of per-rank logs the bytes of all its files (`what` is the file being indexed);
// a single graph file and a tlparse output folder, which have nothing to index (graphs are
// parsed later by Source::graph), count one step, 0 then 1. A cancelled open throws
// CancelledError and leaves nothing behind (no Source, no file written): cancelling at any
// report, the last one included, gives that outcome.
std::unique_ptr<Source> openSource(const std::string& path, const Progress& progress = {});

}  // namespace fxl
