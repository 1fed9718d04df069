// Equivalence of two runs: per output, bitwise equality or how they differ (docs/numerics.md section 11).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/formats/safetensors.hpp"
#include "core/ir/graph.hpp"
#include "runtime/base/tensor.hpp"

namespace fxl {

struct TensorDiff
{
    std::string name;
    bool bitwiseEqual = false;
    bool shapeMismatch = false, dtypeMismatch = false;
    int64_t numel = 0;
    int64_t differing = 0;  // elements whose bits differ
    int64_t firstIndex = -1;  // flat index of the first differing element
    std::vector<int64_t> firstIndexNd;  // the same in the logical shape
    double firstA = 0, firstB = 0;  // values there
    std::string firstAHex, firstBHex;  // bit patterns
    double maxAbs = 0, maxRel = 0;  // rel = |a-b| / max(|b|, 1e-30)
    uint64_t maxUlp = 0;  // in the tensor's own format
    double maxUlpOfLarger = 0;  // |a-b| / ulp(max(|a|,|b|))
    int64_t signFlips = 0;
    int64_t nanMismatch = 0;  // NaN on one side, a number on the other
    int64_t nanPayloadOnly = 0;  // NaN on both sides, with different bits (sign or payload)
    int64_t zeroSignOnly = 0;
    // every difference is a NaN on both sides with other bits: the values are the same, the
    // NaN bits are not (a file written by PyTorch has 0x7fc00000, fxlens writes 0xffc00000)
    bool onlyNanPayloads() const { return !bitwiseEqual && differing > 0 && differing == nanPayloadOnly; }
    bool withinTolerance = false;  // when a tolerance was given: |a-e| <= atol + rtol |e|
    double worstToleranceRatio = 0;  // max |a-e| / (atol + rtol |e|)
};

struct Tolerance
{
    double atol = 0, rtol = 0;
};

// a = actual, b = expected. Integers and bools compare exactly.
TensorDiff compareTensors(const std::string& name, const SafeTensor& a, const SafeTensor& b,
                          std::optional<Tolerance> tol = std::nullopt);

// A state one of the runs wrote in place (an input or a get_attr tensor: ExecResult::writtenInputs),
// compared after the runs like an output. Equal only when both runs wrote it as many times and
// its values after them are bitwise equal.
struct StateDiff
{
    std::string name;  // "buffer bn1.running_var" (get_attr), "input arg10_1" (placeholder)
    int writesA = 0, writesB = 0;  // -1: not known (B is a file of expected values)
    std::optional<TensorDiff> values;  // nullopt when one side has no value for it (`missing` says why)
    std::string missing;
    bool sameWrites() const { return writesB < 0 || writesA == writesB; }
    bool bitwiseEqual() const { return sameWrites() && values && values->bitwiseEqual; }
    bool withinTolerance() const { return sameWrites() && values && (values->bitwiseEqual || values->withinTolerance); }
};

struct EquivalenceReport
{
    std::vector<TensorDiff> outputs;
    std::vector<StateDiff> states;  // inputs and constants either run wrote
    std::vector<std::string> onlyInA, onlyInB;  // unmatched outputs
    std::vector<std::pair<std::string, std::string>> mapping;  // a name -> b name when outputs were remapped
    bool allBitwiseEqual() const;
    // not bitwise equal, but every difference is NaN against NaN with other bits
    bool allEqualExceptNanPayloads() const;
    bool allWithinTolerance() const;
};

// The one verdict of a comparison, as every front end says it.
enum class Verdict
{
    BitwiseEqual,
    NanPayloadsOnly,  // not bitwise equal: the same elements are NaN, with other NaN bits; the rest is bitwise equal
    WithinTolerance,  // not bitwise equal, every difference within the tolerance given
    Different,
};
Verdict verdictOf(const EquivalenceReport& r, const std::optional<Tolerance>& tol);
// "bitwise_equal", "within_tolerance", "different" (the JSON "result")
const char* verdictKey(Verdict v);
// "bitwise equal", "within tolerance (atol 1e-06, rtol 1e-05), not bitwise equal",
// "outside the tolerance", "not bitwise equal (no --tolerance given)"
std::string verdictText(Verdict v, const std::optional<Tolerance>& tol);

// One row of the text report: "NAME: bitwise equal", "NAME: 3 of 64 elements differ; ...".
std::string diffToText(const TensorDiff& d);

EquivalenceReport compareOutputs(const SafeTensorsFile& a, const SafeTensorsFile& b,
                                 std::optional<Tolerance> tol = std::nullopt);
std::string reportToText(const EquivalenceReport& r);
nlohmann::json reportToJson(const EquivalenceReport& r);

}  // namespace fxl
