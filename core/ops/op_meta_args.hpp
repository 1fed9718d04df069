// Reading the bound arguments of a meta function call: tensors, ints, symbolic sizes, dtypes,
// devices, memory formats. Readers throw MetaError naming the argument when it has the
// wrong kind.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/ops/op_meta_symint.hpp"
#include "core/ops/op_registry.hpp"

namespace fxl::meta {

const TensorMeta& tensorOf(const MetaCall& c, std::string_view name);
const TensorMeta* optTensorOf(const MetaCall& c, std::string_view name);  // nullptr for None
const TensorMeta& tensorOfArg(const MetaCall& c, const Arg& a, std::string_view what);
std::vector<const TensorMeta*> tensorListOf(const MetaCall& c, std::string_view name, bool allowNone = false);
int64_t toInt(const MetaCall& c, const Arg& a, std::string_view what);
std::optional<int64_t> toOptInt(const MetaCall& c, const Arg& a, std::string_view what);
SymInt toSymInt(const MetaCall& c, const Arg& a, std::string_view what);
Sizes toSymInts(const MetaCall& c, const Arg& a, std::string_view what);
std::vector<int64_t> toInts(const MetaCall& c, const Arg& a, std::string_view what);
double toDouble(const Arg& a, std::string_view what);
bool toBool(const Arg& a, std::string_view what);
std::optional<DType> toOptDType(const Arg& a);
std::string deviceOf(const Arg& a, const std::string& fallback);
std::string memoryFormatOf(const Arg& a);  // "" for None
int64_t intArg(const MetaCall& c, std::string_view name);
SymInt symArg(const MetaCall& c, std::string_view name);
Sizes symListArg(const MetaCall& c, std::string_view name);
std::vector<int64_t> intListArg(const MetaCall& c, std::string_view name);
bool hasArg(const MetaCall& c, std::string_view name);  // present in schema and not None

}  // namespace fxl::meta
