#include "runtime/cpu/cpu_common.hpp"

#include <limits>
#include <stdexcept>
#include <string>

#include "runtime/base/backend.hpp"

namespace fxl::cpu {

std::vector<int64_t> broadcastShapes(const std::vector<int64_t>& a, const std::vector<int64_t>& b)
{
    const size_t n = std::max(a.size(), b.size());
    std::vector<int64_t> out(n);
    for (size_t k = 0; k < n; ++k) {
        const int64_t x = k < n - a.size() ? 1 : a[k - (n - a.size())];
        const int64_t y = k < n - b.size() ? 1 : b[k - (n - b.size())];
        if (x != y && x != 1 && y != 1)
            throw KernelError("shapes do not broadcast: size " + std::to_string(x) + " vs " + std::to_string(y)
                              + " at dimension " + std::to_string(k));
        out[k] = x == 1 ? y : x;
    }
    return out;
}

Tensor expandTo(const Tensor& t, const std::vector<int64_t>& sizes)
{
    if (t.sizes().size() > sizes.size()) throw KernelError("expand: target has fewer dimensions");
    const size_t lead = sizes.size() - t.sizes().size();
    std::vector<int64_t> st(sizes.size(), 0);
    for (size_t k = 0; k < t.sizes().size(); ++k) {
        const int64_t s = t.sizes()[k];
        if (s == sizes[lead + k])
            st[lead + k] = t.strides()[k];
        else if (s == 1)
            st[lead + k] = 0;
        else
            throw KernelError("expand: size " + std::to_string(s) + " cannot become "
                              + std::to_string(sizes[lead + k]));
    }
    return t.asStrided(sizes, st, t.offset());
}

Tensor contiguous(const Tensor& t, Backend& b)
{
    if (t.isContiguous()) return t;
    Tensor out = b.empty(t.sizes(), t.dtype());
    b.copy(out, t);
    return out;
}

const Value& optArg(const KernelCall& call, const char* name)
{
    static const Value kNone;
    const int k = call.argIndex(name);
    if (k < 0 || static_cast<size_t>(k) >= call.args.size()) return kNone;
    return call.args[static_cast<size_t>(k)];
}

std::vector<int64_t> sizeArg(const KernelCall& call, const char* name)
{
    std::vector<int64_t> s;
    try {
        s = call.arg(name).toIntList();
    } catch (const std::invalid_argument&) {
        throw KernelError(std::string("argument '") + name + "' must be a list of integers");
    }
    for (int64_t v : s)
        if (v < 0) throw KernelError("negative size " + std::to_string(v));
    return s;
}

}  // namespace fxl::cpu
