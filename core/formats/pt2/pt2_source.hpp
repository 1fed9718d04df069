// A torch.export archive (.pt2) opened as a Source: one graph artifact per model (id: the
// model's name, "model" for the flat layouts), each graph carrying the archive's weights as
// embedded constants (get_attr reads, see exported_program.hpp), and Source::about describing
// the archive (layout, versions, signatures, range constraints, AOTInductor files). The
// programs are read when the archive is opened, so that a damaged one is refused at once.
#pragma once

#include <memory>
#include <string>

#include "core/formats/source.hpp"
#include "core/formats/zip/zip_archive.hpp"

namespace fxl {

std::unique_ptr<Source> openPt2(const std::string& path, const Progress& progress = {});
// The same for an archive already open (in memory, for the fuzzer); `path` names it.
std::unique_ptr<Source> openPt2Archive(const zip::Archive& zip, const std::string& path, const Progress& progress = {});

}  // namespace fxl
