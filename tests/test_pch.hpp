// The precompiled header of every test executable (tests/CMakeLists.txt): what nearly all of
// them include, parsed once per test label instead of once per test. Only stable headers belong
// here: a change to any of them rebuilds every test.
#pragma once

#include <QtTest>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "core/formats/fx/fx_text_parser.hpp"
#include "core/formats/safetensors.hpp"
#include "core/formats/source.hpp"
#include "core/ir/diagnostics.hpp"
#include "core/ir/graph.hpp"
#include "core/ops/op_registry.hpp"
#include "test_util.hpp"
