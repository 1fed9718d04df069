#include "runtime/base/tensor.hpp"

#include <stdexcept>

#include "runtime/base/backend.hpp"

namespace fxl {

Storage::Storage(Backend* owner, void* data, int64_t nbytes, DeviceKind device, int deviceIndex)
    : owner_(owner)
    , data_(data)
    , nbytes_(nbytes)
    , device_(device)
    , deviceIndex_(deviceIndex)
{ }

Storage::~Storage()
{
    if (owner_) owner_->release(data_, nbytes_);
}

bool runtimeSupportsDType(DType t)
{
    switch (t) {
    case DType::F32:
    case DType::F64:
    case DType::BF16:
    case DType::F16:
    case DType::I64:
    case DType::I32:
    case DType::I16:
    case DType::I8:
    case DType::U8:
    case DType::Bool: return true;
    default: return false;
    }
}

namespace {
int64_t wrapDim(int64_t d, int64_t n)
{
    if (d < 0) d += n;
    if (d < 0 || d >= n) throw std::out_of_range("dimension out of range");
    return d;
}
}  // namespace

const std::vector<int64_t>& Tensor::noDims()
{
    static const std::vector<int64_t> none;
    return none;
}

int64_t Tensor::size(int64_t d) const { return sizes()[static_cast<size_t>(wrapDim(d, dim()))]; }
int64_t Tensor::stride(int64_t d) const { return strides()[static_cast<size_t>(wrapDim(d, dim()))]; }

int64_t Tensor::numel() const
{
    int64_t n = 1;
    for (int64_t s : sizes()) n *= s;
    return n;
}

bool Tensor::isContiguous() const
{
    if (numel() == 0) return true;  // as PyTorch: an empty tensor is contiguous whatever its strides
    const auto& sz = sizes();
    const auto& st = strides();
    int64_t expected = 1;
    for (size_t k = sz.size(); k-- > 0;) {
        if (sz[k] == 1) continue;
        if (st[k] != expected) return false;
        expected *= sz[k];
    }
    return true;
}

DeviceKind Tensor::device() const { return storage_ ? storage_->device() : DeviceKind::Cpu; }

void* Tensor::rawData() const
{
    if (!storage_) return nullptr;
    return static_cast<char*>(storage_->data()) + offset_ * itemSize();
}

std::vector<int64_t> Tensor::contiguousStrides(const std::vector<int64_t>& sizes)
{
    std::vector<int64_t> st(sizes.size());
    int64_t s = 1;
    for (size_t k = sizes.size(); k-- > 0;) {
        st[k] = s;
        s *= sizes[k] > 0 ? sizes[k] : 1;
    }
    return st;
}

Tensor Tensor::fromStorage(std::shared_ptr<Storage> s, DType t, std::vector<int64_t> sizes,
                           std::vector<int64_t> strides, int64_t offset)
{
    Tensor r;
    r.storage_ = std::move(s);
    r.dtype_ = t;
    if (strides.empty() && !sizes.empty()) strides = contiguousStrides(sizes);
    if (!sizes.empty() || !strides.empty())
        r.layout_ = std::make_shared<const Layout>(Layout{std::move(sizes), std::move(strides)});
    r.offset_ = offset;
    return r;
}

Tensor Tensor::asStrided(std::vector<int64_t> sizes, std::vector<int64_t> strides, int64_t offset) const
{
    if (sizes.size() != strides.size()) throw std::out_of_range("asStrided: sizes and strides differ in length");
    int64_t lo = offset, hi = offset;
    bool empty = false;
    for (size_t k = 0; k < sizes.size(); ++k) {
        if (sizes[k] < 0) throw std::out_of_range("asStrided: negative size");
        if (sizes[k] == 0) empty = true;
        const int64_t span = (sizes[k] - 1) * strides[k];
        if (span < 0)
            lo += span;
        else
            hi += span;
    }
    const int64_t cap = storage_ ? storage_->nbytes() / itemSize() : 0;
    if (!empty && (lo < 0 || hi >= cap)) throw std::out_of_range("asStrided: view falls outside its storage");
    Tensor r = *this;
    if (sizes.empty())
        r.layout_.reset();
    else
        r.layout_ = std::make_shared<const Layout>(Layout{std::move(sizes), std::move(strides)});
    r.offset_ = offset;
    return r;
}

size_t ContiguousLayouts::Hash::operator()(const std::vector<int64_t>& v) const
{
    uint64_t h = 0x9E3779B97F4A7C15ull ^ v.size();
    for (int64_t x : v) h = (h ^ static_cast<uint64_t>(x)) * 0x100000001B3ull;
    return static_cast<size_t>(h ^ (h >> 29));
}

Tensor ContiguousLayouts::make(std::shared_ptr<Storage> s, DType t, const std::vector<int64_t>& sizes)
{
    if (sizes.empty()) return Tensor::fromStorage(std::move(s), t, {}, {}, 0);
    Tensor r;
    r.storage_ = std::move(s);
    r.dtype_ = t;
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = layouts_.find(sizes);
    if (it != layouts_.end()) {
        r.layout_ = it->second;
        return r;
    }
    auto layout = std::make_shared<const Tensor::Layout>(Tensor::Layout{sizes, Tensor::contiguousStrides(sizes)});
    if (layouts_.size() < 4096) layouts_.emplace(sizes, layout);
    r.layout_ = std::move(layout);
    return r;
}

Tensor Tensor::onStorage(std::shared_ptr<Storage> s) const
{
    Tensor r;
    r.storage_ = std::move(s);
    r.layout_ = layout_;
    r.dtype_ = dtype_;
    r.offset_ = offset_;
    return r;
}

Tensor Tensor::sharingShapeOf(const Tensor& o) const
{
    if (sizes() != o.sizes() || strides() != o.strides())
        throw std::invalid_argument("sharingShapeOf: sizes or strides differ");
    Tensor r = *this;
    r.layout_ = o.layout_;
    return r;
}

bool Tensor::sameLayout(const Tensor& o) const
{
    if (dtype_ != o.dtype_ || offset_ != o.offset_) return false;
    if (layout_ == o.layout_) return true;
    return sizes() == o.sizes() && strides() == o.strides();
}

Tensor Tensor::reinterpret(DType t) const
{
    if (dtypeItemSize(t) != itemSize()) throw std::invalid_argument("reinterpret: item sizes differ");
    Tensor r = *this;
    r.dtype_ = t;
    return r;
}

std::string sizesText(const std::vector<int64_t>& sizes)
{
    std::string o = "[";
    for (size_t k = 0; k < sizes.size(); ++k) o += (k ? ", " : "") + std::to_string(sizes[k]);
    return o + "]";
}

std::string describe(const Tensor& t)
{
    return std::string(dtypeAbbr(t.dtype())) + sizesText(t.sizes()) + " (strides " + sizesText(t.strides())
        + ", offset " + std::to_string(t.offset()) + ")";
}

}  // namespace fxl
