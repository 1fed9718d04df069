#include "core/formats/pt2/pt2_archive.hpp"

#include <memory>
#include <set>

#include "core/formats/pt2/exported_program.hpp"
#include "core/formats/pt2/torch_save.hpp"

namespace fxl {

std::string_view pt2LayoutName(Pt2Layout l)
{
    switch (l) {
    case Pt2Layout::Flat21: return "flat (PyTorch 2.1)";
    case Pt2Layout::Flat: return "flat (PyTorch 2.2 to 2.7)";
    case Pt2Layout::Rooted: return "rooted (PyTorch 2.8 and later)";
    case Pt2Layout::AotiPackage: return "AOTInductor package";
    }
    return "unknown";
}

namespace {

std::string trimmed(std::string s)
{
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
    return s;
}

std::string textOf(const zip::Archive& zip, const std::string& entry)
{
    const zip::Entry* e = zip.find(entry);
    return e ? trimmed(zip.readText(*e)) : std::string();
}

void scanFlat(const zip::Archive& zip, Pt2Archive& a)
{
    Pt2Model m;
    m.name = "model";
    m.program = "serialized_exported_program.json";
    a.version = textOf(zip, "version");
    if (zip.find("serialized_state_dict.pt")) {
        a.layout = Pt2Layout::Flat;
        m.weights = "serialized_state_dict.pt";
    } else if (zip.find("serialized_state_dict.json")) {
        a.layout = Pt2Layout::Flat21;  // despite the name: torch.save bytes
        m.weights = "serialized_state_dict.json";
    } else {
        a.layout = Pt2Layout::Flat;
    }
    if (zip.find("serialized_constants.pt")) m.constants = "serialized_constants.pt";
    if (zip.find("serialized_example_inputs.pt")) m.sampleInputs = "serialized_example_inputs.pt";
    a.models.push_back(std::move(m));
    for (const auto& e : zip.entries())
        if (e.name.starts_with("extra_files/")) a.extraFiles.push_back(e.name);
}

void scanRooted(const zip::Archive& zip, Pt2Archive& a)
{
    const std::string& r = a.root;
    a.layout = Pt2Layout::Rooted;
    a.version = textOf(zip, r + ".data/version");
    a.archiveVersion = textOf(zip, r + "archive_version");
    if (!a.archiveVersion.empty() && a.archiveVersion != "0")
        throw InputError(zip.name(), 0, 0,
                         "entry '" + r + "archive_version' reads '" + a.archiveVersion
                             + "': this fxlens reads PT2 archive version 0 (a newer PyTorch wrote this one)");
    for (const auto& e : zip.entries()) {
        const std::string rel = e.name.starts_with(r) ? e.name.substr(r.size()) : std::string();
        if (rel.starts_with("models/") && rel.ends_with(".json") && rel.find('/', 7) == std::string::npos) {
            Pt2Model m;
            m.name = rel.substr(7, rel.size() - 12);
            m.program = e.name;
            const std::string w = r + "data/weights/" + m.name, c = r + "data/constants/" + m.name;
            if (zip.find(w + "_weights_config.json"))
                m.weightsConfig = w + "_weights_config.json";
            else if (zip.find(w + ".pt"))
                m.weights = w + ".pt";
            if (zip.find(c + "_constants_config.json"))
                m.constantsConfig = c + "_constants_config.json";
            else if (zip.find(c + ".pt"))
                m.constants = c + ".pt";
            if (zip.find(r + "data/sample_inputs/" + m.name + ".pt"))
                m.sampleInputs = r + "data/sample_inputs/" + m.name + ".pt";
            a.models.push_back(std::move(m));
        } else if (rel.starts_with("data/aotinductor/")) {
            a.aotiFiles.push_back(e.name);
        } else if (rel.starts_with("extra/")) {
            a.extraFiles.push_back(e.name);
        }
    }
    if (a.models.empty() && !a.aotiFiles.empty()) a.layout = Pt2Layout::AotiPackage;
}

std::string listed(const zip::Archive& zip)
{
    std::string s;
    size_t n = 0;
    for (const auto& e : zip.entries()) {
        if (n++ == 6) {
            s += ", ...";
            break;
        }
        s += (s.empty() ? "" : ", ") + e.name;
    }
    return s.empty() ? "none" : s;
}

void addAll(SafeTensorsFile& into, SafeTensorsFile&& from, std::set<std::string>& seen)
{
    for (SafeTensor& t : from.tensors)
        if (seen.insert(t.name).second) into.tensors.push_back(std::move(t));
}

SafeTensorsFile pickled(const zip::Archive& zip, const std::string& entry, DiagnosticList& diags)
{
    const zip::Entry* e = zip.find(entry);
    if (!e) return {};
    auto bytes = std::make_shared<const std::vector<uint8_t>>(zip.read(*e));
    TorchSaveContents c = readTorchSave(bytes, zip.name() + ":" + entry);
    for (const std::string& s : c.skipped) diags.note(zip.name() + ":" + entry, 0, 0, "not a tensor, not read: " + s);
    return std::move(c.tensors);
}

SafeTensorsFile raw(const zip::Archive& zip, const std::string& configEntry, DiagnosticList& diags)
{
    const zip::Entry* ce = zip.find(configEntry);
    if (!ce) return {};
    const std::string where = zip.name() + ":" + configEntry;
    const std::map<std::string, RawWeight> config = readRawWeightsConfig(zip.readText(*ce), where);
    const std::string dir = configEntry.substr(0, configEntry.rfind('/') + 1);
    std::map<std::string, std::vector<uint8_t>> files;  // several names may view one file (tied weights)
    SafeTensorsFile out;
    for (const auto& [fqn, w] : config) {
        if (w.usePickle) {
            diags.warn(where, 0, 0, fqn + " is a pickled tensor subclass: not read");
            continue;
        }
        if (!w.meta) throw InputError(where, 0, 0, fqn + ": no tensor_meta");
        auto it = files.find(w.pathName);
        if (it == files.end()) {
            const zip::Entry* fe = zip.find(dir + w.pathName);
            if (!fe) throw InputError(where, 0, 0, fqn + ": its file '" + dir + w.pathName + "' is not in the archive");
            it = files.emplace(w.pathName, zip.read(*fe)).first;
        }
        SafeTensor t;
        t.name = fqn;
        t.dtype = w.meta->dtype;
        std::vector<int64_t> strides;
        for (const SymInt& s : w.meta->sizes) {
            if (!s.isConcrete()) throw InputError(where, 0, 0, fqn + ": a weight of symbolic size");
            t.shape.push_back(s.valueOrHint());
        }
        for (const SymInt& s : w.meta->strides) strides.push_back(s.isConcrete() ? s.valueOrHint() : 0);
        if (strides.empty()) {
            int64_t st = 1;
            strides.assign(t.shape.size(), 1);
            for (size_t d = t.shape.size(); d-- > 0;) {
                strides[d] = st;
                st *= t.shape[d];
            }
        }
        if (strides.size() != t.shape.size())
            throw InputError(where, 0, 0, fqn + ": sizes and strides of different lengths");
        try {
            t.data = gatherStrided(it->second.data(), it->second.size(), dtypeItemSize(t.dtype), t.shape, strides,
                                   w.meta->storageOffset.isConcrete() ? w.meta->storageOffset.valueOrHint() : 0);
        } catch (const std::invalid_argument& e) {
            throw InputError(where, 0, 0, fqn + " in '" + w.pathName + "': " + e.what());
        }
        out.tensors.push_back(std::move(t));
    }
    return out;
}

}  // namespace

Pt2Archive scanPt2(const zip::Archive& zip)
{
    Pt2Archive a;
    if (zip.entries().empty()) throw InputError(zip.name(), 0, 0, "an empty ZIP archive (not a torch.export archive)");
    if (zip.find("serialized_exported_program.json")) {
        scanFlat(zip, a);
        return a;
    }
    const std::string& first = zip.entries().front().name;
    const size_t slash = first.find('/');
    if (slash != std::string::npos) {
        a.root = first.substr(0, slash + 1);
        if (const zip::Entry* f = zip.find(a.root + "archive_format")) {
            const std::string format = trimmed(zip.readText(*f));
            if (format != "pt2")
                throw InputError(zip.name(), 0, 0,
                                 "entry '" + f->name + "' reads '" + format
                                     + "', not 'pt2': not a torch.export archive");
            scanRooted(zip, a);
            if (a.models.empty() && a.aotiFiles.empty())
                throw InputError(zip.name(), 0, 0,
                                 "a PT2 archive with no model (no entry " + a.root + "models/NAME.json) and no "
                                     + a.root + "data/aotinductor/");
            return a;
        }
    }
    // AOTInductor packages of 2.5 to 2.7: flat, archive_format beside data/aotinductor/ (and
    // models/ when they keep the program)
    if (const zip::Entry* f = zip.find("archive_format")) {
        const std::string format = trimmed(zip.readText(*f));
        if (format != "pt2")
            throw InputError(zip.name(), 0, 0,
                             "entry 'archive_format' reads '" + format + "', not 'pt2': not a torch.export archive");
        a.root.clear();
        scanRooted(zip, a);
        if (a.version.empty()) a.version = textOf(zip, "version");
        if (a.models.empty() && a.aotiFiles.empty())
            throw InputError(zip.name(), 0, 0,
                             "a PT2 archive with no model (no entry models/NAME.json) and no data/aotinductor/");
        return a;
    }
    throw InputError(zip.name(), 0, 0,
                     "a ZIP archive that is not a torch.export archive: no serialized_exported_program.json "
                     "(PyTorch 2.1 to 2.7) and no ROOT/archive_format under the first entry's folder"
                         + (slash == std::string::npos ? std::string() : " '" + first.substr(0, slash) + "'")
                         + " (PyTorch 2.8 and later); its entries: " + listed(zip));
}

SafeTensorsFile readPt2Weights(const zip::Archive& zip, const Pt2Archive&, const Pt2Model& m, DiagnosticList& diags)
{
    SafeTensorsFile out;
    std::set<std::string> seen;
    if (!m.weightsConfig.empty())
        addAll(out, raw(zip, m.weightsConfig, diags), seen);
    else if (!m.weights.empty())
        addAll(out, pickled(zip, m.weights, diags), seen);
    // constants may hold script objects, which fxlens cannot run: what is readable is kept
    try {
        if (!m.constantsConfig.empty())
            addAll(out, raw(zip, m.constantsConfig, diags), seen);
        else if (!m.constants.empty())
            addAll(out, pickled(zip, m.constants, diags), seen);
    } catch (const InputError& e) {
        diags.warn(e.diagnostic().file, 0, 0, "the constants are not read: " + e.diagnostic().message);
    }
    return out;
}

}  // namespace fxl
