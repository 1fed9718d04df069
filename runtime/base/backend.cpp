#include "runtime/base/backend.hpp"

namespace fxl {

void Backend::noteAlloc(int64_t n)
{
    const int64_t now = live_.fetch_add(n) + n;
    int64_t p = peak_.load();
    while (now > p && !peak_.compare_exchange_weak(p, now)) { }
}

void Backend::noteFree(int64_t n) { live_.fetch_sub(n); }

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
