#include "runtime/base/backend.hpp"
#include "runtime/base/kernel.hpp"

namespace fxl {

int64_t Backend::newTensorBytes(const std::vector<int64_t>& sizes, DType t) const
{
    if (!runtimeSupportsDType(t))
        throw KernelError("the " + name() + " backend has no dtype " + std::string(dtypeAbbr(t)));
    int64_t n = 1;
    for (int64_t s : sizes) {
        if (s < 0) throw KernelError("negative size");
        n *= s;
    }
    return n * dtypeItemSize(t);
}

void Backend::noteAlloc(int64_t n)
{
    const int64_t now = live_.fetch_add(n) + n;
    int64_t p = peak_.load();
    while (now > p && !peak_.compare_exchange_weak(p, now)) { }
}

void Backend::noteFree(int64_t n) { live_.fetch_sub(n); }

void Backend::gemm(const GemmLoop&) { throw KernelError("the " + name() + " backend has no matrix product"); }

void Backend::rowSum(const RowSumLoop&) { throw KernelError("the " + name() + " backend has no row sum"); }

void Backend::rows(const RowsLoop&) { throw KernelError("the " + name() + " backend has no row normalisations"); }

void Backend::nll(const NllLoop&) { throw KernelError("the " + name() + " backend has no nll_loss"); }

void Backend::gather(const GatherLoop&) { throw KernelError("the " + name() + " backend has no indexed gather"); }

void Backend::segmentSum(const SegmentSumLoop&) { throw KernelError("the " + name() + " backend has no segment sums"); }

void Backend::layerNorm(const LayerNormLoop&) { throw KernelError("the " + name() + " backend has no layer norm"); }
void Backend::conv(const ConvLoop&) { throw KernelError("the " + name() + " backend has no convolution loop"); }
void Backend::plane(const PlaneLoop&) { throw KernelError("the " + name() + " backend has no pooling loop"); }
void Backend::groupNorm(const GroupNormLoop&)
{
    throw KernelError("the " + name() + " backend has no group norm loop");
}
void Backend::batchNorm(const BatchNormLoop&)
{
    throw KernelError("the " + name() + " backend has no batch norm loop");
}

void Backend::pointwise(const PointwiseLoop&) { throw KernelError("the " + name() + " backend has no pointwise loop"); }

void replaceTensorsWithCopies(Backend& backend, std::vector<Value>& values)
{
    for (auto& v : values)
        if (v.isTensor()) {
            Tensor c = backend.empty(v.tensor.sizes(), v.tensor.dtype());
            backend.copy(c, v.tensor);
            v = Value::ofTensor(std::move(c));
        }
}

}  // namespace fxl
