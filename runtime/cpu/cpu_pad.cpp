// Padding kernels (PyTorch 1.13's PadNd.cpp, ReflectionPad.cpp, ReplicationPadding.cpp):
//  - constant_pad_nd(self, pad, value): pad = (left, right) pairs from the last dim backwards;
//    a negative pad crops. When no pad is positive the result is a clone of the cropped view
//    (preserve_format strides); otherwise a new tensor (channels_last / channels_last_3d when
//    self's strides are channels-last-like, as suggest_memory_format, else contiguous) filled
//    with the value, the cropped input copied in.
//  - reflection_pad{1,2,3}d / replication_pad{2,3}d(self, padding): the last 1/2/3 dims of a
//    (k+1)- or (k+2)-d input; output element o of a padded dim reads input element
//    j = o - pad_left, reflected (j < 0 -> -j, j >= n -> 2(n-1) - j) or clamped to [0, n-1]
//    (PyTorch's index formulas, negative pads included). Contiguous output.
// Each output element is one bit copy, so threads and strides never change a result.
#include "runtime/cpu/cpu_pad.hpp"
#include "runtime/math/windows.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "runtime/cpu/cpu_elementwise.hpp"
#include "runtime/cpu/cpu_shape.hpp"

namespace fxl::cpu {
namespace {

using shape::intListArg;
using shape::shapeStr;

// c10's is_channels_last_strides_2d / _3d (what suggest_memory_format reads): the strides
// grow in the order C, W, H(, D), N, with PyTorch's tie rules for size-1 dims.
bool channelsLastLike(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides)
{
    const size_t n = sizes.size();
    if ((n != 4 && n != 5) || strides[1] == 0) return false;
    const std::vector<size_t> order = n == 4 ? std::vector<size_t>{1, 3, 2, 0} : std::vector<size_t>{1, 4, 3, 2, 0};
    int64_t min = 0;
    for (size_t d : order) {
        if (sizes[d] == 0 || strides[d] < min) return false;
        if (d == 0 && min == strides[1]) return false;
        min = strides[d];
        if (sizes[d] > 1) min *= sizes[d];
    }
    return true;
}

// Dense channels-last (4-d) / channels-last-3d (5-d) strides of `sizes`.
std::vector<int64_t> channelsLastDense(const std::vector<int64_t>& sizes)
{
    const size_t n = sizes.size();
    std::vector<int64_t> st(n);
    int64_t s = 1;
    st[1] = s;
    s *= std::max<int64_t>(sizes[1], 1);
    for (size_t d = n - 1; d >= 2; --d) {
        st[d] = s;
        s *= std::max<int64_t>(sizes[d], 1);
    }
    st[0] = s;
    return st;
}

void constantPadKernel(KernelCall& call)
{
    const Tensor& self = call.tensor("self");
    const std::vector<int64_t> pad = intListArg(call, "pad");
    const int64_t nd = self.dim();
    if (pad.size() % 2 != 0)
        throw KernelError("constant_pad_nd: length of pad must be even but instead it equals "
                          + std::to_string(pad.size()));
    const int64_t pairs = static_cast<int64_t>(pad.size()) / 2;
    if (pairs > nd)
        throw KernelError("constant_pad_nd: length of pad should be no more than twice the number of dimensions of "
                          "the input (pad has "
                          + std::to_string(pad.size()) + " entries, input is " + std::to_string(nd) + "-d)");
    std::vector<int64_t> outSizes = self.sizes();
    Tensor cropped = self;  // the input with the negative pads applied
    bool anyPositive = false;
    for (int64_t k = 0; k < pairs; ++k) {
        const int64_t d = nd - 1 - k;
        const size_t ud = static_cast<size_t>(d);
        const int64_t lo = pad[static_cast<size_t>(2 * k)], hi = pad[static_cast<size_t>(2 * k + 1)];
        const int64_t n = self.sizes()[ud];
        const int64_t newSize = n + lo + hi;
        if (newSize < 0)
            throw KernelError("constant_pad_nd: the input size " + std::to_string(n) + " of dim " + std::to_string(d)
                              + " plus the padding (" + std::to_string(lo) + ", " + std::to_string(hi)
                              + ") gives a negative output size");
        outSizes[ud] = newSize;
        anyPositive = anyPositive || lo > 0 || hi > 0;
        const int64_t start = std::max<int64_t>(0, -lo);
        const int64_t len = std::max<int64_t>(0, n - start - std::max<int64_t>(0, -hi));
        std::vector<int64_t> sz = cropped.sizes();
        sz[ud] = len;
        cropped = cropped.asStrided(sz, cropped.strides(), cropped.offset() + start * cropped.strides()[ud]);
    }
    Tensor out;
    if (!anyPositive) {
        out = ew::allocStrided(call, cropped.sizes(), ew::preserveStrides(cropped), self.dtype());
        shape::copyInto(call, out, cropped);
        call.result = Value::ofTensor(out);
        return;
    }
    out = channelsLastLike(self.sizes(), self.strides())
        ? ew::allocStrided(call, outSizes, channelsLastDense(outSizes), self.dtype())
        : call.newTensor(outSizes, self.dtype());
    ew::fillWith(call, out, call.arg("value"));
    // the window of the output the cropped input lands in
    int64_t off = out.offset();
    for (int64_t k = 0; k < pairs; ++k) {
        const int64_t d = nd - 1 - k;
        off += std::max<int64_t>(0, pad[static_cast<size_t>(2 * k)]) * out.strides()[static_cast<size_t>(d)];
    }
    if (cropped.numel() > 0) shape::copyInto(call, out.asStrided(cropped.sizes(), out.strides(), off), cropped);
    call.result = Value::ofTensor(out);
}

enum class PadMode
{
    Reflect,
    Replicate
};

void padKernel(KernelCall& call, PadMode mode, int k)
{
    const std::string op =
        std::string(mode == PadMode::Reflect ? "reflection_pad" : "replication_pad") + std::to_string(k) + "d";
    const Tensor& self = call.tensor("self");
    const std::vector<int64_t> pad = intListArg(call, "padding");
    const int64_t nd = self.dim();
    if (static_cast<int64_t>(pad.size()) != 2 * k)
        throw KernelError(op + ": padding size is expected to be " + std::to_string(2 * k) + ", got "
                          + std::to_string(pad.size()));
    if (nd != k + 1 && nd != k + 2)
        throw KernelError(op + ": expected a " + std::to_string(k + 1) + "-d or " + std::to_string(k + 2)
                          + "-d input, got " + std::to_string(nd) + "-d " + shapeStr(self.sizes()));
    std::vector<int64_t> outSizes = self.sizes();
    // per padded dim: the input index each output index reads
    std::vector<std::vector<int64_t>> src(static_cast<size_t>(k));
    for (int j = 0; j < k; ++j) {
        const size_t d = static_cast<size_t>(nd - 1 - j);
        const int64_t lo = pad[static_cast<size_t>(2 * j)], hi = pad[static_cast<size_t>(2 * j + 1)];
        const int64_t n = self.sizes()[d];
        if (mode == PadMode::Reflect && (lo >= n || hi >= n))
            throw KernelError(op + ": padding size should be less than the corresponding input dimension, but got "
                              + "padding (" + std::to_string(lo) + ", " + std::to_string(hi) + ") at dimension "
                              + std::to_string(d) + " of input " + shapeStr(self.sizes()));
        if (mode == PadMode::Replicate && n == 0)
            throw KernelError(op + ": input dimension " + std::to_string(d) + " is empty " + shapeStr(self.sizes()));
        const int64_t on = n + lo + hi;
        if (on < 1)
            throw KernelError(op + ": input " + shapeStr(self.sizes()) + " is too small for the padding: output size "
                              + std::to_string(on) + " at dimension " + std::to_string(d));
        outSizes[d] = on;
        std::vector<int64_t>& m = src[static_cast<size_t>(nd - 1) - d];
        m.resize(static_cast<size_t>(on));
        for (int64_t o = 0; o < on; ++o)
            m[static_cast<size_t>(o)] = math::win::padSource(o, lo, n, mode == PadMode::Reflect);
    }
    Tensor out = call.newTensor(outSizes, self.dtype());
    const int64_t lead = nd - k;  // unpadded leading dims
    std::vector<int64_t> leadSizes(self.sizes().begin(), self.sizes().begin() + lead);
    int64_t rows = 1, inner = 1;
    for (int64_t s : leadSizes) rows *= s;
    for (int64_t d = lead; d < nd; ++d) inner *= outSizes[static_cast<size_t>(d)];
    const int64_t isz = self.itemSize();
    const char* in = static_cast<const char*>(self.rawData());
    char* dst = static_cast<char*>(out.rawData());
    std::vector<int64_t> padSizes(outSizes.begin() + lead, outSizes.end());
    ew::parallelFor(
        call, rows, std::max<int64_t>(1, (1 << 15) / std::max<int64_t>(inner, 1)), [&](int64_t b, int64_t e) {
            std::vector<int64_t> idx(static_cast<size_t>(lead));
            for (int64_t r = b; r < e; ++r) {
                int64_t rem = r, base = 0;
                for (int64_t d = lead; d-- > 0;) {
                    const size_t ud = static_cast<size_t>(d);
                    base += (rem % leadSizes[ud]) * self.strides()[ud];
                    rem /= leadSizes[ud];
                }
                char* o = dst + r * inner * isz;
                forEachIndex(padSizes, [&](const int64_t* pi, int64_t flat) {
                    int64_t s = base;
                    for (int j = 0; j < k; ++j) {
                        const size_t d = static_cast<size_t>(lead + j);
                        s += src[static_cast<size_t>(k - 1 - j)][static_cast<size_t>(pi[j])] * self.strides()[d];
                    }
                    std::memcpy(o + flat * isz, in + s * isz, static_cast<size_t>(isz));
                });
            }
        });
    call.result = Value::ofTensor(out);
}

}  // namespace

void registerPadKernels(KernelRegistry& reg)
{
    const DeviceKind cpu = DeviceKind::Cpu;
    reg.add("aten.constant_pad_nd.default", cpu, constantPadKernel);
    reg.add("aten.reflection_pad1d.default", cpu, [](KernelCall& c) { padKernel(c, PadMode::Reflect, 1); });
    reg.add("aten.reflection_pad2d.default", cpu, [](KernelCall& c) { padKernel(c, PadMode::Reflect, 2); });
    reg.add("aten.reflection_pad3d.default", cpu, [](KernelCall& c) { padKernel(c, PadMode::Reflect, 3); });
    reg.add("aten.replication_pad2d.default", cpu, [](KernelCall& c) { padKernel(c, PadMode::Replicate, 2); });
    reg.add("aten.replication_pad3d.default", cpu, [](KernelCall& c) { padKernel(c, PadMode::Replicate, 3); });
}

}  // namespace fxl::cpu
