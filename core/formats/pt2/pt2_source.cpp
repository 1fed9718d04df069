#include "core/formats/pt2/pt2_source.hpp"

#include <filesystem>
#include <set>

#include "core/formats/graph_constants.hpp"
#include "core/formats/pt2/exported_program.hpp"
#include "core/formats/pt2/pt2_archive.hpp"

namespace fxl {

namespace {

nlohmann::json signatureJson(const ExportedProgramInfo& info)
{
    using nlohmann::json;
    json ins = json::array(), outs = json::array();
    for (const auto& i : info.signature.inputs) {
        json j = {{"kind", i.kind}, {"name", i.name}};
        if (!i.target.empty()) j["target"] = i.target;
        if (i.kind == "buffer") j["persistent"] = i.persistent;
        if (i.kind == "parameter" || i.kind == "buffer" || i.kind == "tensor_constant") j["weight_read"] = i.read;
        ins.push_back(std::move(j));
    }
    for (const auto& o : info.signature.outputs) {
        json j = {{"kind", o.kind}, {"name", o.name}};
        if (!o.target.empty()) j["target"] = o.target;
        outs.push_back(std::move(j));
    }
    json ranges = json::object();
    for (const auto& [sym, r] : info.rangeConstraints) ranges[sym] = {{"min", r.first}, {"max", r.second}};
    return {{"schema_version", std::to_string(info.schemaMajor) + "." + std::to_string(info.schemaMinor)},
            {"torch_version", info.torchVersion},
            {"verifiers", info.verifiers},
            {"inputs", std::move(ins)},
            {"outputs", std::move(outs)},
            {"range_constraints", std::move(ranges)}};
}

}  // namespace

std::unique_ptr<Source> openPt2(const std::string& path, const Progress& progress)
{
    return openPt2Archive(zip::Archive::open(path), path, progress);
}

std::unique_ptr<Source> openPt2Archive(const zip::Archive& zip, const std::string& path, const Progress& progress)
{
    const Pt2Archive a = scanPt2(zip);
    ProgressMeter meter(progress, static_cast<int64_t>(a.models.size()) + 1);
    const std::string fileName = std::filesystem::path(path).filename().string();
    meter.report(0, fileName);

    auto src = std::make_unique<Source>();
    src->path = path;
    src->format = SourceFormat::Pt2;
    nlohmann::json about = {
        {"layout", std::string(pt2LayoutName(a.layout))}, {"version", a.version}, {"models", nlohmann::json::array()}};
    if (!a.archiveVersion.empty()) about["archive_version"] = a.archiveVersion;
    if (!a.root.empty()) about["root"] = a.root;
    if (!a.aotiFiles.empty()) about["aotinductor_files"] = a.aotiFiles;
    if (!a.extraFiles.empty()) about["extra_files"] = a.extraFiles;
    if (a.layout == Pt2Layout::AotiPackage)
        about["no_graph"] = "an AOTInductor package: compiled code (" + std::to_string(a.aotiFiles.size())
            + " files) and no exported program, so it holds no graph; export with "
              "torch.export.save (or keep the program in the package) to read its graph";

    auto graphs = std::make_shared<std::map<std::string, std::shared_ptr<Graph>>>();
    int64_t done = 0;
    for (const Pt2Model& m : a.models) {
        const zip::Entry* pe = zip.find(m.program);
        if (!pe) throw InputError(path, 0, 0, "no entry '" + m.program + "'");
        DiagnosticList diags;
        const SafeTensorsFile weights = readPt2Weights(zip, a, m, diags);
        std::set<std::string> names;
        for (const SafeTensor& t : weights.tensors) names.insert(t.name);
        ExportedProgram ep = readExportedProgram(zip.readText(*pe), path + ":" + m.program, names, diags);
        std::vector<std::string> missing;
        embedConstants(*ep.graph, selectConstants(*ep.graph, weights, &missing));
        for (const std::string& name : missing)
            diags.warn(path, 0, 0, "the program reads " + name + ", which the archive's weights lack");
        src->diagnostics.items.insert(src->diagnostics.items.end(), diags.items.begin(), diags.items.end());

        nlohmann::json mj = signatureJson(ep.info);
        mj["name"] = m.name;
        mj["program"] = m.program;
        mj["weights"] = {{"entry", m.weightsConfig.empty() ? m.weights : m.weightsConfig},
                         {"form",
                          !m.weightsConfig.empty() ? "raw"
                              : m.weights.empty()  ? "none"
                                                   : "pickled"},
                         {"tensors", weights.tensors.size()}};
        if (!m.constants.empty() || !m.constantsConfig.empty())
            mj["constants_entry"] = m.constantsConfig.empty() ? m.constants : m.constantsConfig;
        if (!m.sampleInputs.empty()) mj["sample_inputs_entry"] = m.sampleInputs;
        about["models"].push_back(std::move(mj));

        Artifact art;
        art.id = m.name;
        art.kind = "exported_program";
        art.file = path;
        art.line = 1;
        art.isGraph = true;
        src->artifacts.push_back(std::move(art));
        (*graphs)[m.name] = std::move(ep.graph);
        meter.report(++done, m.name);
    }
    src->about = std::move(about);
    src->readPayload = [path, models = a.models](const Artifact& art) {
        for (const Pt2Model& m : models)
            if (m.name == art.id) {
                const zip::Archive z = zip::Archive::open(path);
                const zip::Entry* e = z.find(m.program);
                return e ? z.readText(*e) : std::string();
            }
        return std::string();
    };
    src->parseGraph = [graphs](const Artifact& art, DiagnosticList&) -> std::shared_ptr<Graph> {
        const auto it = graphs->find(art.id);
        if (it == graphs->end()) throw InputError(art.file, 0, 0, "no model '" + art.id + "' in the archive");
        return it->second;
    };
    meter.finish(fileName);
    return src;
}

}  // namespace fxl
