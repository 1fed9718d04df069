// tlparse output folders (compile_directory.json + one folder per compile id, maybe one
// rank_<N>/ subfolder per rank) loaded as a Source whose artifacts are the written files.
#pragma once

#include <memory>
#include <string>

#include "core/formats/source.hpp"

namespace fxl {

// True when `dir` has compile_directory.json, or rank_<N>/ subfolders that have one.
bool isTlparseOutputDir(const std::string& dir);

// Throws InputError when there is no compile_directory.json or it is not valid JSON.
// Listed files that are missing are warnings; the graphs are the .txt files of FX kinds.
std::unique_ptr<Source> loadTlparseOutput(const std::string& dir);

}  // namespace fxl
