// One row-wise normalisation as a backend receives it: softmax, log_softmax, the safe softmax
// and the two backwards, along `dim`, each row gathered in the accumulation type of in0's
// dtype (float for f32 / bf16 / f16, double for f64), computed by runtime/math/rows.hpp's row
// formula and stored rounded once to out's dtype. The kernels' host logic (checks, dtypes,
// output allocation) is the same on every device; this loop is the backend's (Backend::rows).
#pragma once

#include <cstdint>

namespace fxl {

class Tensor;

struct RowsLoop
{
    enum class Kind
    {
        Softmax,
        LogSoftmax,
        SafeSoftmax,
        SoftmaxBackward,  // in0 the incoming gradient, in1 the forward's output
        LogSoftmaxBackward,
    };
    Kind kind = Kind::Softmax;
    const Tensor* in0 = nullptr;
    const Tensor* in1 = nullptr;  // the backwards' forward output, else null
    const Tensor* out = nullptr;  // in0's sizes, any strides
    int64_t dim = 0;
};

}  // namespace fxl
