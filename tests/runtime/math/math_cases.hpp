#pragma once
// The functions of runtime/math/ the oracle checks, family by family (cases_*.cpp): each float
// function with MPFR's and a quick double evaluation, each double function with its input range,
// and the hard inputs found by the exhaustive sweep (tests/bench/bench_math_exhaustive), which the
// test suite (test_math_functions) checks on every run.
#include <string>
#include <vector>

#include "math_oracle.hpp"

namespace fxltest::oracle {

struct UnaryF64Case
{
    UnaryF64 f;
    double lo, hi;  // the half of the random inputs drawn uniformly
};
struct BinaryF64Case
{
    BinaryF64 f;
    double lo, hi, lo2, hi2;
};
struct HardUnary
{
    std::string name;
    std::vector<float> xs;
};
struct HardBinary
{
    std::string name;
    std::vector<float> xs, ys;
};
struct FunctionCases
{
    std::vector<UnaryF32> unaryF32;
    std::vector<BinaryF32> binaryF32;
    std::vector<UnaryF64Case> unaryF64;
    std::vector<BinaryF64Case> binaryF64;
    std::vector<HardUnary> hardUnary;
    std::vector<HardBinary> hardBinary;
};

// one function per family, each in its cases_FAMILY.cpp
void addExpCases(FunctionCases& c);  // exp, exp2, expm1, sinh, cosh, tanh
void addLogCases(FunctionCases& c);  // log, log2, log10, log1p, asinh, acosh, atanh
void addTrigCases(FunctionCases& c);  // sin, cos, tan
void addInvTrigCases(FunctionCases& c);  // asin, acos, atan, atan2
void addErfCases(FunctionCases& c);  // erf, erfc
void addPowCases(FunctionCases& c);  // pow
FunctionCases allCases();

}  // namespace fxltest::oracle
