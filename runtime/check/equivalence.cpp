#include "runtime/check/equivalence.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <sstream>

#include "runtime/base/dtype_codec.hpp"

namespace fxl {

namespace {

struct FloatFormat
{
    int bytes = 4;
    int mantissaBits = 23;  // explicit mantissa bits
    int minExp = -126;  // exponent of the smallest normal
};

FloatFormat formatOf(DType t)
{
    switch (t) {
    case DType::F64: return {8, 52, -1022};
    case DType::BF16: return {2, 7, -126};
    case DType::F16: return {2, 10, -14};
    default: return {4, 23, -126};
    }
}

uint64_t rawBits(const uint8_t* p, int bytes)
{
    uint64_t v = 0;
    std::memcpy(&v, p, static_cast<size_t>(bytes));
    return v;
}

// Bits mapped to an integer that orders like the float values (negative floats mirrored).
int64_t orderedBits(uint64_t bits, int bytes)
{
    const uint64_t sign = uint64_t{1} << (bytes * 8 - 1);
    const int64_t mag = static_cast<int64_t>(bits & (sign - 1));
    return (bits & sign) ? -mag : mag;
}

// Size of one unit in the last place at |x| in the format.
double ulpAt(double x, const FloatFormat& f)
{
    x = std::fabs(x);
    int e = 0;
    if (x == 0.0 || !std::isfinite(x))
        e = f.minExp;
    else {
        std::frexp(x, &e);
        e -= 1;  // x = m * 2^e with m in [1, 2)
        if (e < f.minExp) e = f.minExp;
    }
    return std::ldexp(1.0, e - f.mantissaBits);
}

std::string hexOf(uint64_t bits, int bytes)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "0x%0*llx", bytes * 2, static_cast<unsigned long long>(bits));
    return buf;
}

std::vector<int64_t> unflatten(int64_t flat, const std::vector<int64_t>& shape)
{
    std::vector<int64_t> idx(shape.size(), 0);
    for (size_t k = shape.size(); k-- > 0;) {
        if (shape[k] > 0) {
            idx[k] = flat % shape[k];
            flat /= shape[k];
        }
    }
    return idx;
}

}  // namespace

TensorDiff compareTensors(const std::string& name, const SafeTensor& a, const SafeTensor& b,
                          std::optional<Tolerance> tol)
{
    TensorDiff d;
    d.name = name;
    d.numel = a.numel();
    if (a.dtype != b.dtype) d.dtypeMismatch = true;
    if (a.shape != b.shape) d.shapeMismatch = true;
    if (d.dtypeMismatch || d.shapeMismatch) return d;
    d.bitwiseEqual = a.data == b.data;
    d.withinTolerance = d.bitwiseEqual;
    if (d.bitwiseEqual) return d;
    const int isz = dtypeItemSize(a.dtype);
    const bool isFloat = isFloatingPoint(a.dtype);
    const FloatFormat fmt = formatOf(a.dtype);
    bool allWithin = true;
    for (int64_t k = 0; k < d.numel; ++k) {
        const uint8_t* pa = a.data.data() + k * isz;
        const uint8_t* pb = b.data.data() + k * isz;
        if (std::memcmp(pa, pb, static_cast<size_t>(isz)) == 0) continue;
        ++d.differing;
        const double va = loadAsDouble(pa, a.dtype), vb = loadAsDouble(pb, b.dtype);
        if (d.firstIndex < 0) {
            d.firstIndex = k;
            d.firstIndexNd = unflatten(k, a.shape);
            d.firstA = va;
            d.firstB = vb;
            d.firstAHex = hexOf(rawBits(pa, isz), isz);
            d.firstBHex = hexOf(rawBits(pb, isz), isz);
        }
        if (std::isnan(va) || std::isnan(vb)) {
            const bool both = std::isnan(va) && std::isnan(vb);
            ++(both ? d.nanPayloadOnly : d.nanMismatch);
            allWithin = allWithin && both;
            continue;
        }
        if (va == vb) {  // +0 vs -0 (or NaN payloads, handled above)
            ++d.zeroSignOnly;
            continue;
        }
        const double diff = std::fabs(va - vb);
        d.maxAbs = std::max(d.maxAbs, diff);
        d.maxRel = std::max(d.maxRel, diff / std::max(std::fabs(vb), 1e-30));
        if ((va < 0) != (vb < 0) && va != 0 && vb != 0) ++d.signFlips;
        if (isFloat) {
            const int64_t oa = orderedBits(rawBits(pa, isz), isz), ob = orderedBits(rawBits(pb, isz), isz);
            // in unsigned arithmetic: float64 values of opposite signs are over 2^63 apart
            const uint64_t u = oa > ob ? static_cast<uint64_t>(oa) - static_cast<uint64_t>(ob)
                                       : static_cast<uint64_t>(ob) - static_cast<uint64_t>(oa);
            d.maxUlp = std::max(d.maxUlp, u);
            d.maxUlpOfLarger = std::max(d.maxUlpOfLarger, diff / ulpAt(std::max(std::fabs(va), std::fabs(vb)), fmt));
        }
        if (tol && (std::isinf(va) || std::isinf(vb))) {
            // an infinity matches only the same infinity (as torch.allclose): the bound
            // atol + rtol * inf would otherwise accept anything
            d.worstToleranceRatio = std::numeric_limits<double>::infinity();
            allWithin = false;
        } else if (tol) {
            const double bound = tol->atol + tol->rtol * std::fabs(vb);
            const double ratio = bound > 0 ? diff / bound : std::numeric_limits<double>::infinity();
            d.worstToleranceRatio = std::max(d.worstToleranceRatio, ratio);
            if (!(diff <= bound) || !isFloat) allWithin = false;
        } else {
            allWithin = false;
        }
    }
    d.withinTolerance = tol.has_value() && allWithin;
    return d;
}

bool EquivalenceReport::allBitwiseEqual() const
{
    if (!onlyInA.empty() || !onlyInB.empty()) return false;
    for (const auto& o : outputs)
        if (!o.bitwiseEqual) return false;
    for (const auto& s : states)
        if (!s.bitwiseEqual()) return false;
    return true;
}

bool EquivalenceReport::allEqualExceptNanPayloads() const
{
    if (!onlyInA.empty() || !onlyInB.empty() || allBitwiseEqual()) return false;
    for (const auto& o : outputs)
        if (!o.bitwiseEqual && !o.onlyNanPayloads()) return false;
    for (const auto& s : states)
        if (!s.bitwiseEqual() && !(s.sameWrites() && s.values && s.values->onlyNanPayloads())) return false;
    return true;
}

bool EquivalenceReport::allWithinTolerance() const
{
    if (!onlyInA.empty() || !onlyInB.empty()) return false;
    for (const auto& o : outputs)
        if (!o.bitwiseEqual && !o.withinTolerance) return false;
    for (const auto& s : states)
        if (!s.withinTolerance()) return false;
    return true;
}

Verdict verdictOf(const EquivalenceReport& r, const std::optional<Tolerance>& tol)
{
    if (r.allBitwiseEqual()) return Verdict::BitwiseEqual;
    if (r.allEqualExceptNanPayloads()) return Verdict::NanPayloadsOnly;
    if (tol && r.allWithinTolerance()) return Verdict::WithinTolerance;
    return Verdict::Different;
}

const char* verdictKey(Verdict v)
{
    switch (v) {
    case Verdict::BitwiseEqual: return "bitwise_equal";
    case Verdict::NanPayloadsOnly: return "nan_payloads_only";
    case Verdict::WithinTolerance: return "within_tolerance";
    default: return "different";
    }
}

std::string verdictText(Verdict v, const std::optional<Tolerance>& tol)
{
    auto number = [](double x) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.6g", x);
        return std::string(buf);
    };
    switch (v) {
    case Verdict::BitwiseEqual: return "bitwise equal";
    case Verdict::NanPayloadsOnly:
        return "equal except NaN payloads (the same elements are NaN, with other NaN bits), not bitwise equal";
    case Verdict::WithinTolerance:
        return "within tolerance (atol " + number(tol ? tol->atol : 0) + ", rtol " + number(tol ? tol->rtol : 0)
            + "), not bitwise equal";
    default: return tol ? "outside the tolerance" : "not bitwise equal (no --tolerance given)";
    }
}

EquivalenceReport compareOutputs(const SafeTensorsFile& a, const SafeTensorsFile& b, std::optional<Tolerance> tol)
{
    EquivalenceReport r;
    for (const auto& ta : a.tensors) {
        const SafeTensor* tb = b.find(ta.name);
        if (!tb) {
            r.onlyInA.push_back(ta.name);
            continue;
        }
        r.outputs.push_back(compareTensors(ta.name, ta, *tb, tol));
    }
    for (const auto& tb : b.tensors)
        if (!a.find(tb.name)) r.onlyInB.push_back(tb.name);
    return r;
}

namespace {
std::string joinIndex(const std::vector<int64_t>& idx)
{
    std::string s;
    for (size_t k = 0; k < idx.size(); ++k) s += (k ? ", " : "") + std::to_string(idx[k]);
    return s;
}
}  // namespace

std::string diffToText(const TensorDiff& d)
{
    std::ostringstream o;
    {
        o << d.name << ": ";
        if (d.dtypeMismatch)
            o << "dtype differs";
        else if (d.shapeMismatch)
            o << "shape differs";
        else if (d.bitwiseEqual)
            o << "bitwise equal";
        else if (d.onlyNanPayloads())
            o << "equal except NaN payloads: " << d.nanPayloadOnly << " of " << d.numel
              << " elements are NaN in both with other bits; first at [" << joinIndex(d.firstIndexNd)
              << "]: " << d.firstAHex << " vs " << d.firstBHex;
        else {
            o << d.differing << " of " << d.numel << " elements differ; max abs " << d.maxAbs << ", max rel "
              << d.maxRel << ", max ulp " << d.maxUlp;
            if (d.signFlips) o << ", " << d.signFlips << " sign flips";
            if (d.nanMismatch) o << ", " << d.nanMismatch << " NaN mismatches";
            if (d.nanPayloadOnly) o << ", " << d.nanPayloadOnly << " NaN in both with other bits";
            if (d.zeroSignOnly) o << ", " << d.zeroSignOnly << " differ only in the sign of zero";
            o << "; first at [";
            for (size_t k = 0; k < d.firstIndexNd.size(); ++k) o << (k ? ", " : "") << d.firstIndexNd[k];
            // 9 significant digits: a 1-ulp float32 difference must show in the numbers too
            const auto prec = o.precision(9);
            o << "]: " << d.firstA << " (" << d.firstAHex << ") vs " << d.firstB << " (" << d.firstBHex << ")";
            o.precision(prec);
            if (d.withinTolerance) o << " [within tolerance, worst " << d.worstToleranceRatio << " of the bound]";
        }
    }
    return o.str();
}

namespace {

std::string times(int n) { return std::to_string(n) + (n == 1 ? " time" : " times"); }

}  // namespace

std::string reportToText(const EquivalenceReport& r)
{
    std::ostringstream o;
    for (const auto& d : r.outputs) o << diffToText(d) << "\n";
    for (const auto& s : r.states) {
        std::string writes;
        if (s.writesB < 0)
            writes = "written " + times(s.writesA) + " in A";
        else if (s.writesA == s.writesB)
            writes = "written " + times(s.writesA) + " in each";
        else
            writes = "written " + times(s.writesA) + " in A, " + times(s.writesB) + " in B: not equal";
        o << "state " << s.name << " (" << writes << "): ";
        if (s.values) {
            const std::string row = diffToText(*s.values);
            o << row.substr(std::min(row.size(), s.values->name.size() + 2));
        } else {
            o << s.missing;
        }
        o << "\n";
    }
    for (const auto& m : r.mapping) o << "mapped: " << m.first << " -> " << m.second << "\n";
    for (const auto& n : r.onlyInA) o << n << ": only in the first\n";
    for (const auto& n : r.onlyInB) o << n << ": only in the second\n";
    return o.str();
}

nlohmann::json reportToJson(const EquivalenceReport& r)
{
    nlohmann::json j;
    j["bitwise_equal"] = r.allBitwiseEqual();
    j["equal_except_nan_payloads"] = r.allEqualExceptNanPayloads();
    j["outputs"] = nlohmann::json::array();
    for (const auto& d : r.outputs) {
        nlohmann::json o = {{"name", d.name},
                            {"bitwise_equal", d.bitwiseEqual},
                            {"dtype_mismatch", d.dtypeMismatch},
                            {"shape_mismatch", d.shapeMismatch},
                            {"numel", d.numel},
                            {"differing", d.differing},
                            {"max_abs", d.maxAbs},
                            {"max_rel", d.maxRel},
                            {"max_ulp", d.maxUlp},
                            {"max_ulp_of_larger", d.maxUlpOfLarger},
                            {"sign_flips", d.signFlips},
                            {"nan_mismatch", d.nanMismatch},
                            {"nan_payload_only", d.nanPayloadOnly},
                            {"zero_sign_only", d.zeroSignOnly},
                            {"within_tolerance", d.withinTolerance},
                            {"worst_tolerance_ratio", d.worstToleranceRatio}};
        if (d.firstIndex >= 0)
            o["first"] = {{"index", d.firstIndexNd},
                          {"a", d.firstA},
                          {"b", d.firstB},
                          {"a_hex", d.firstAHex},
                          {"b_hex", d.firstBHex}};
        j["outputs"].push_back(std::move(o));
    }
    j["states"] = nlohmann::json::array();
    for (const auto& s : r.states) {
        nlohmann::json o = {{"name", s.name},
                            {"writes_a", s.writesA},
                            {"writes_b", s.writesB < 0 ? nlohmann::json(nullptr) : nlohmann::json(s.writesB)},
                            {"same_writes", s.sameWrites()},
                            {"bitwise_equal", s.bitwiseEqual()}};
        if (s.values) {
            o["differing"] = s.values->differing;
            o["nan_payload_only"] = s.values->nanPayloadOnly;
            o["numel"] = s.values->numel;
            o["max_abs"] = s.values->maxAbs;
            o["max_ulp"] = s.values->maxUlp;
            o["within_tolerance"] = s.values->withinTolerance;
        } else {
            o["missing"] = s.missing;
        }
        j["states"].push_back(std::move(o));
    }
    j["mapping"] = nlohmann::json::array();
    for (const auto& m : r.mapping) j["mapping"].push_back({{"a", m.first}, {"b", m.second}});
    j["only_in_a"] = r.onlyInA;
    j["only_in_b"] = r.onlyInB;
    return j;
}

}  // namespace fxl
