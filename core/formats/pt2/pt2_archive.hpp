// torch.export archives (.pt2) of every layout PyTorch has written: the flat ZIP of 2.1 and of
// 2.2 to 2.7 (serialized_exported_program.json beside torch.save files), the rooted archive of
// 2.8 and later (ROOT/archive_format, ROOT/models/NAME.json, pickled or raw weights under
// ROOT/data/), and AOTInductor packages (compiled code, possibly without an exported program).
// This file finds what an archive holds and reads a model's weights; pt2_source.hpp turns it
// into a Source.
#pragma once

#include <string>
#include <vector>

#include "core/formats/safetensors.hpp"
#include "core/formats/zip/zip_archive.hpp"
#include "core/ir/diagnostics.hpp"

namespace fxl {

enum class Pt2Layout
{
    Flat21,  // PyTorch 2.1: serialized_state_dict.json holds torch.save bytes
    Flat,  // PyTorch 2.2 to 2.7
    Rooted,  // PyTorch 2.8 and later: everything under ROOT/
    AotiPackage,  // an AOTInductor package without an exported program
};
std::string_view pt2LayoutName(Pt2Layout l);

struct Pt2Model
{
    std::string name;  // "model" for the flat layouts' one program
    std::string program;  // the ExportedProgram JSON entry
    std::string weights;  // a torch.save entry, or ""
    std::string weightsConfig;  // raw weights: the config entry (its files lie beside it), or ""
    std::string constants, constantsConfig;
    std::string sampleInputs;
};

struct Pt2Archive
{
    Pt2Layout layout = Pt2Layout::Flat;
    std::string root;  // "model/" in a rooted archive, "" in a flat one
    std::string version;  // the 'version' entry (flat), ROOT/.data/version (rooted)
    std::string archiveVersion;  // ROOT/archive_version (rooted)
    std::vector<Pt2Model> models;
    std::vector<std::string> aotiFiles;  // data/aotinductor/... entries
    std::vector<std::string> extraFiles;  // extra/... entries
};

// Finds the layout and the models. Throws InputError(archive name, 0, 0, ...) for an archive
// that is not a torch.export archive (naming the entries it looked for).
Pt2Archive scanPt2(const zip::Archive& zip);

// The weights and constants a model's program reads (parameters, buffers, tensor constants),
// by FQN. What cannot be read (a tensor subclass, a script object) is left out with a warning.
// Throws InputError for a damaged entry.
SafeTensorsFile readPt2Weights(const zip::Archive& zip, const Pt2Archive& a, const Pt2Model& m, DiagnosticList& diags);

}  // namespace fxl
