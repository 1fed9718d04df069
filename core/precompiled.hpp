// The precompiled header of the libraries without Qt (core, passes, runtime, workspace) and of
// the command line (CMakeLists.txt: fxlens_precompile): the standard headers nearly every
// source includes, JSON, and the graph IR, parsed once per library instead of once per source.
// Every source still includes what it uses: a build with -DFXLENS_PCH=OFF must compile. Only
// stable headers belong here: a change to any of them rebuilds everything.
#pragma once

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/ir/graph.hpp"
#include "core/ops/op_registry.hpp"
