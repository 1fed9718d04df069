// Tensors of the runtime: a storage (bytes owned by a backend) and a strided view of it
// (sizes, strides and offset in elements), with the dtypes the corpus graphs use.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/ir/dtype.hpp"

namespace fxl {

class Backend;

enum class DeviceKind : uint8_t
{
    Cpu,
    Cuda
};

// Bytes owned by a backend. Freed through the backend when the last Tensor referring to it
// goes away (the executor drops its references after a value's last use).
class Storage
{
public:
    Storage(Backend* owner, void* data, int64_t nbytes, DeviceKind device, int deviceIndex = 0);
    ~Storage();
    Storage(const Storage&) = delete;
    Storage& operator=(const Storage&) = delete;

    void* data() const { return data_; }
    int64_t nbytes() const { return nbytes_; }
    DeviceKind device() const { return device_; }
    int deviceIndex() const { return deviceIndex_; }
    Backend* owner() const { return owner_; }

private:
    Backend* owner_;
    void* data_;
    int64_t nbytes_;
    DeviceKind device_;
    int deviceIndex_;
};

// Element types the runtime computes with (kernels may support a subset and say so).
bool runtimeSupportsDType(DType t);  // f32, f64, bf16, f16, i64, i32, i16, i8, u8, bool

class Tensor
{
public:
    Tensor() = default;

    DType dtype() const { return dtype_; }
    const std::vector<int64_t>& sizes() const { return layout_ ? layout_->sizes : noDims(); }
    const std::vector<int64_t>& strides() const { return layout_ ? layout_->strides : noDims(); }  // in elements
    int64_t offset() const { return offset_; }  // in elements
    int64_t dim() const { return static_cast<int64_t>(sizes().size()); }
    int64_t size(int64_t d) const;  // negative d counts from the end
    int64_t stride(int64_t d) const;
    int64_t numel() const;
    int64_t itemSize() const { return dtypeItemSize(dtype_); }
    int64_t nbytes() const { return numel() * itemSize(); }  // of the view, not the storage
    bool defined() const { return storage_ != nullptr; }
    bool isContiguous() const;  // row-major with no gaps (size-1 dims ignored)
    const std::shared_ptr<Storage>& storage() const { return storage_; }
    DeviceKind device() const;

    // Pointer to element [0, 0, ...] of the view (storage base + offset).
    void* rawData() const;
    template<class T>
    T* data() const
    {
        return static_cast<T*>(rawData());
    }

    // A view sharing the storage (no checks beyond "fits in the storage": throws
    // std::out_of_range when an element would fall outside).
    Tensor asStrided(std::vector<int64_t> sizes, std::vector<int64_t> strides, int64_t offset) const;
    // Same storage, a different dtype of the same item size (for bit-level comparisons).
    Tensor reinterpret(DType t) const;
    // The same view (dtype, sizes, strides, offset) of storage `s`, sharing this tensor's
    // sizes and strides (no allocation). With a null `s`: the view's shape alone, kept by the
    // executor to give a view it has computed once (runtime/exec/executor_plan.hpp ViewMemo).
    Tensor onStorage(std::shared_ptr<Storage> s) const;
    // Same dtype, sizes, strides and offset (the storages are not compared).
    bool sameLayout(const Tensor& o) const;
    // This tensor with the sizes-and-strides record of `o`, which must have the same sizes and
    // strides (one record shared by many tensors stays in the cache).
    Tensor sharingShapeOf(const Tensor& o) const;

    // Wraps an existing storage.
    static Tensor fromStorage(std::shared_ptr<Storage> s, DType t, std::vector<int64_t> sizes,
                              std::vector<int64_t> strides, int64_t offset = 0);

    static std::vector<int64_t> contiguousStrides(const std::vector<int64_t>& sizes);

private:
    friend class ContiguousLayouts;
    // Sizes and strides never change after a tensor is made, so copies share them: copying a
    // Tensor (every argument of every kernel call) then allocates nothing.
    struct Layout
    {
        std::vector<int64_t> sizes, strides;
    };
    static const std::vector<int64_t>& noDims();
    std::shared_ptr<Storage> storage_;
    std::shared_ptr<const Layout> layout_;  // null: 0-dim
    DType dtype_ = DType::F32;
    int64_t offset_ = 0;
};

// Contiguous layouts by their sizes, one record shared by every tensor a backend makes with
// those sizes: a graph has few distinct shapes, and a record of its own would cost each new
// tensor three allocations. Thread-safe; at most 4096 shapes are kept (others get records of
// their own).
class ContiguousLayouts
{
public:
    // Tensor::fromStorage(s, t, sizes, contiguous strides, 0)
    Tensor make(std::shared_ptr<Storage> s, DType t, const std::vector<int64_t>& sizes);

private:
    struct Hash
    {
        size_t operator()(const std::vector<int64_t>& v) const;
    };
    std::mutex mutex_;
    std::unordered_map<std::vector<int64_t>, std::shared_ptr<const Tensor::Layout>, Hash> layouts_;
};

// "f32[2, 8] (strides [8, 1], offset 0)"
std::string describe(const Tensor& t);
// "[2, 8]"
std::string sizesText(const std::vector<int64_t>& sizes);

}  // namespace fxl
