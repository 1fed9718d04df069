// A fast reader for the common case of NAME.meta.json (sidecar.hpp): one pass over the text,
// building the node list directly, with no JSON document in between. A 100k-node graph's
// 28 MB meta file is read in a fraction of the time of a full JSON parse.
//
// It reads only what it can read exactly as readSidecarMeta's full reader would: plain JSON
// whose strings hold no escapes in the fields it keeps, integer shapes and strides, known ops,
// dtypes and phases. Anything else (a syntax error, a non-ASCII or escaped string, a value of the
// wrong type, a duplicate key, an unknown op) makes it give up, and the full reader then reads
// the file and reports what is wrong with its line and column. Where it does not give up, its
// result equals the full reader's (tests/core/formats/test_sidecar_scan.cpp, fuzz_sidecar).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/formats/sidecar.hpp"

namespace fxl {

// The sidecar meta read from `text` (the file's bytes; `path` names it in the result), or
// nullopt where the full reader must read it.
std::optional<SidecarMeta> scanSidecarMeta(std::string_view text, const std::string& path);

}  // namespace fxl
