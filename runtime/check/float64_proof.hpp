// "Reduction order" is a claim, and this is its proof (docs/numerics.md section 11.4): two float32
// results of the same function that differ only by the order of their sums differ by rounding,
// and rounding shrinks by about 2^29 when every value is widened to float64; two results of
// different functions differ as much in float64 as in float32. So both computations are re-run
// with every float32, bfloat16 and float16 value of the graph, its inputs and its constants
// widened to float64, and the label is given only when
//     max |a64 - b64|  <=  2^-16 * max |a32 - b32|
// (a margin of 2^13 on the expected shrink). A difference in the sign of a zero or a NaN payload
// only (max |a32 - b32| = 0) is proven when the float64 results are equal.
#pragma once

#include <string>

#include "core/formats/safetensors.hpp"
#include "core/ir/graph.hpp"

namespace fxl {

constexpr double kOrderProofShrink = 1.0 / 65536.0;  // 2^-16
constexpr const char* kOrderProofBound = "float64 difference <= 2^-16 x float32 difference";

// A deep copy with every floating dtype argument and value meta widened to float64 (nested graphs too).
Graph widenToFloat64(const Graph& g);
// The file's float32 / bfloat16 / float16 tensors as float64 (exactly); the others copied.
SafeTensorsFile widenToFloat64(const SafeTensorsFile& f);

struct OrderProof
{
    bool proven = false;
    double diff32 = 0, diff64 = 0;  // max |a - b| over the elements
    std::string text() const;  // "float64 difference 1.1e-16 <= 2^-16 x float32 difference 2.4e-07"
};

// a32 / b32: the two float32 results of one output; a64 / b64: the same from the float64 runs.
OrderProof proveOrderOnly(const SafeTensor& a32, const SafeTensor& b32, const SafeTensor& a64, const SafeTensor& b64);

}  // namespace fxl
