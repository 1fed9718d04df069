// The reduction kernel family, invariance: row-wise ops computed on any chunk of rows (1, 2, 3,
// 7, 8, ... at any offset, also along the sequence dim) and on strided copies give the whole
// call's bits; larger inputs of every op give the same bits on 1, 2, 3 and 5 threads.
#include <QtTest>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <random>
#include <set>

#include <nlohmann/json.hpp>

#include "core/formats/safetensors.hpp"
#include "core/formats/source.hpp"
#include "core/ops/op_registry.hpp"
#include "kernel_test_util.hpp"
#include "reduction_test_util.hpp"
#include "runtime/base/backend.hpp"
#include "runtime/base/kernel.hpp"
#include "runtime/cpu/cpu_backend.hpp"
#include "runtime/cpu/cpu_common.hpp"
#include "runtime/cpu/cpu_reduction.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_reduction_invariance {

using namespace fxl;
using namespace kerneltest;
using namespace reductiontest;
namespace fs = std::filesystem;

namespace {

// A row-wise op for the batch-invariance test: inputs chunked along `dims[k]` (-1: not
// chunked), the outputs listed in `outDims` chunked along that dim (-1: not compared).
struct RowOp
{
    std::string target;
    std::vector<Tensor> inputs;
    std::vector<int64_t> dims;
    std::function<NamedArgs(const std::vector<Tensor>&)> args;
    std::vector<int64_t> outDims;
};

}  // namespace

class TestReductionInvariance : public QObject
{
    Q_OBJECT
    std::unique_ptr<Backend> be1_, be2_, be3_;

    // Checks that every chunk (sizes 1,2,3,7,8,16,... at several offsets) and strided copies
    // of the inputs give the whole call's bits for the per-row outputs.
    void checkRowInvariance(const RowOp& op, int64_t rows)
    {
        Backend& be = *be2_;
        const std::vector<Tensor> whole = runOp(be, op.target, op.args(op.inputs));
        std::vector<int64_t> sizes = {1, 2, 3, 7, 8, 16, rows - 1, rows};
        int checked = 0;
        for (int64_t c : sizes) {
            if (c < 1 || c > rows) continue;
            std::set<int64_t> offsets = {0, 1, 2, 3, 5, rows / 2, rows - c - 1, rows - c};
            for (int64_t o : offsets) {
                if (o < 0 || o + c > rows) continue;
                std::vector<Tensor> in;
                for (size_t k = 0; k < op.inputs.size(); ++k)
                    in.push_back(op.dims[k] < 0 ? op.inputs[k] : chunk(op.inputs[k], op.dims[k], o, c));
                const std::vector<Tensor> part = runOp(be, op.target, op.args(in));
                for (size_t k = 0; k < op.outDims.size(); ++k) {
                    if (op.outDims[k] < 0) continue;
                    const Tensor expect = chunk(whole[k], op.outDims[k], o, c);
                    if (!sameBits(be, part[k], expect))
                        QFAIL(qPrintable(QString("%1: output %2 of rows [%3, %4) differs from the whole call")
                                             .arg(QString::fromStdString(op.target))
                                             .arg(k)
                                             .arg(o)
                                             .arg(o + c)));
                    ++checked;
                }
            }
        }
        for (int layout = 0; layout < 2; ++layout) {
            std::vector<Tensor> in;
            for (const Tensor& t : op.inputs) in.push_back(layout == 0 ? reversedCopy(be, t) : gappedCopy(be, t));
            const std::vector<Tensor> part = runOp(be, op.target, op.args(in));
            for (size_t k = 0; k < op.outDims.size(); ++k) {
                if (op.outDims[k] < 0) continue;
                if (!sameBits(be, part[k], whole[k]))
                    QFAIL(qPrintable(QString("%1: output %2 differs for %3 inputs")
                                         .arg(QString::fromStdString(op.target))
                                         .arg(k)
                                         .arg(layout == 0 ? "transposed" : "strided")));
                ++checked;
            }
        }
        QVERIFY(checked > 10);
    }
private slots:
    void initTestCase()
    {
        be1_ = makeCpuBackend({1});
        be2_ = makeCpuBackend({2});
        be3_ = makeCpuBackend({3});
    }

    // ---------------- batch invariance of the row-wise ops
    void rowInvariance_data()
    {
        QTest::addColumn<std::string>("name");
        for (const char* n :
             {"softmax",      "log_softmax",         "softmax_bwd",      "log_softmax_bwd", "softmax_seq",
              "layer_norm",   "layer_norm_seq",      "layer_norm_bwd",   "nll_none",        "sum_lastdim",
              "mean_lastdim", "amax_lastdim",        "var_mean_lastdim", "cumsum_lastdim",  "mse_none",
              "softmax_bf16", "layer_norm_bwd_bf16", "min_lastdim",      "any_lastdim",     "prod_lastdim",
              "var_lastdim",  "group_norm",          "group_norm_bf16",  "group_norm_bwd"})
            QTest::newRow(n) << std::string(n);
        // the other forms of the same kernels: release builds only
        if (!fxltest::kSanitizedBuild)
            for (const char* n :
                 {"amin_lastdim", "argmin_lastdim", "any_dims_lastdim", "prod_bf16_lastdim", "var_dim_lastdim"})
                QTest::newRow(n) << std::string(n);
    }

    void rowInvariance()
    {
        QFETCH(std::string, name);
        Backend& be = *be2_;
        const int64_t R = 37, C = 300;
        RowOp op;
        auto x = randomTensor(be, {R, C}, DType::F32, 11, 2.0);
        auto g = randomTensor(be, {R, C}, DType::F32, 12);
        if (name == "softmax" || name == "log_softmax" || name == "softmax_bf16") {
            const bool log = name == "log_softmax";
            if (name == "softmax_bf16") x = randomTensor(be, {R, C}, DType::BF16, 13, 2.0);
            op = {log ? "aten._log_softmax.default" : "aten._softmax.default",
                  {x},
                  {0},
                  [](const std::vector<Tensor>& in) {
                      return NamedArgs{{"self", tv(in[0])}, {"dim", iv(-1)}, {"half_to_float", bv(false)}};
                  },
                  {0}};
        } else if (name == "softmax_bwd" || name == "log_softmax_bwd") {
            const bool log = name == "log_softmax_bwd";
            const Tensor y = runOp(be, log ? "aten._log_softmax.default" : "aten._softmax.default",
                                   {{"self", tv(x)}, {"dim", iv(1)}, {"half_to_float", bv(false)}})[0];
            op = {log ? "aten._log_softmax_backward_data.default" : "aten._softmax_backward_data.default",
                  {g, y},
                  {0, 0},
                  [](const std::vector<Tensor>& in) {
                      return NamedArgs{{"grad_output", tv(in[0])},
                                       {"output", tv(in[1])},
                                       {"dim", iv(1)},
                                       {"input_dtype", dtypeValue(DType::F32)}};
                  },
                  {0}};
        } else if (name == "softmax_seq") {  // [B, T, T] scores chunked along the query dim
            Tensor s = randomTensor(be, {3, R, 40}, DType::F32, 14, 3.0);
            op = {"aten._softmax.default",
                  {s},
                  {1},
                  [](const std::vector<Tensor>& in) {
                      return NamedArgs{{"self", tv(in[0])}, {"dim", iv(-1)}, {"half_to_float", bv(false)}};
                  },
                  {1}};
        } else if (name == "layer_norm" || name == "layer_norm_seq") {
            const bool seq = name == "layer_norm_seq";
            Tensor in = seq ? randomTensor(be, {2, R, 64}, DType::F32, 15) : x;
            const int64_t n = seq ? 64 : C;
            Tensor w = randomTensor(be, {n}, DType::F32, 16), b = randomTensor(be, {n}, DType::F32, 17);
            op = {"aten.native_layer_norm.default",
                  {in, w, b},
                  {seq ? 1 : 0, -1, -1},
                  [n](const std::vector<Tensor>& v) {
                      return NamedArgs{{"input", tv(v[0])},
                                       {"normalized_shape", sizesValue({n})},
                                       {"weight", tv(v[1])},
                                       {"bias", tv(v[2])},
                                       {"eps", fv(1e-5)}};
                  },
                  {seq ? 1 : 0, seq ? 1 : 0, seq ? 1 : 0}};
        } else if (name == "layer_norm_bwd" || name == "layer_norm_bwd_bf16") {
            const DType dt = name == "layer_norm_bwd" ? DType::F32 : DType::BF16;
            Tensor xi = randomTensor(be, {R, C}, dt, 18), gi = randomTensor(be, {R, C}, dt, 19);
            Tensor w = randomTensor(be, {C}, dt, 20), b = randomTensor(be, {C}, dt, 21);
            const auto f = runOp(be, "aten.native_layer_norm.default",
                                 {{"input", tv(xi)},
                                  {"normalized_shape", sizesValue({C})},
                                  {"weight", tv(w)},
                                  {"bias", tv(b)},
                                  {"eps", fv(1e-5)}});
            op = {"aten.native_layer_norm_backward.default",
                  {gi, xi, f[1], f[2], w, b},
                  {0, 0, 0, 0, -1, -1},
                  [=](const std::vector<Tensor>& v) {
                      return NamedArgs{{"grad_out", tv(v[0])},
                                       {"input", tv(v[1])},
                                       {"normalized_shape", sizesValue({C})},
                                       {"mean", tv(v[2])},
                                       {"rstd", tv(v[3])},
                                       {"weight", tv(v[4])},
                                       {"bias", tv(v[5])},
                                       {"output_mask", bools({true, true, true})}};
                  },
                  {0, -1, -1}};  // dgamma/dbeta sum over rows: cross-chunk by nature
        } else if (name == "group_norm" || name == "group_norm_bf16") {  // [N, C, HW], per sample
            const DType dt = name == "group_norm" ? DType::F32 : DType::BF16;
            Tensor in = randomTensor(be, {R, 12, 25}, dt, 31, 2.0);
            Tensor w = randomTensor(be, {12}, dt, 32), b = randomTensor(be, {12}, dt, 33);
            op = {"aten.native_group_norm.default",
                  {in, w, b},
                  {0, -1, -1},
                  [](const std::vector<Tensor>& v) {
                      return NamedArgs{{"input", tv(v[0])},     {"weight", tv(v[1])}, {"bias", tv(v[2])},
                                       {"N", iv(v[0].size(0))}, {"C", iv(12)},        {"HxW", iv(25)},
                                       {"group", iv(4)},        {"eps", fv(1e-5)}};
                  },
                  {0, 0, 0}};
        } else if (name == "group_norm_bwd") {
            Tensor xi = randomTensor(be, {R, 12, 25}, DType::F32, 34),
                   gi = randomTensor(be, {R, 12, 25}, DType::F32, 35);
            Tensor w = randomTensor(be, {12}, DType::F32, 36);
            const auto f = runOp(be, "aten.native_group_norm.default",
                                 {{"input", tv(xi)},
                                  {"weight", tv(w)},
                                  {"bias", Value::none()},
                                  {"N", iv(R)},
                                  {"C", iv(12)},
                                  {"HxW", iv(25)},
                                  {"group", iv(4)},
                                  {"eps", fv(1e-5)}});
            op = {"aten.native_group_norm_backward.default",
                  {gi, xi, f[1], f[2], w},
                  {0, 0, 0, 0, -1},
                  [](const std::vector<Tensor>& v) {
                      return NamedArgs{{"grad_out", tv(v[0])}, {"input", tv(v[1])},
                                       {"mean", tv(v[2])},     {"rstd", tv(v[3])},
                                       {"weight", tv(v[4])},   {"N", iv(v[0].size(0))},
                                       {"C", iv(12)},          {"HxW", iv(25)},
                                       {"group", iv(4)},       {"output_mask", bools({true, true, true})}};
                  },
                  {0, -1, -1}};  // dweight / dbias sum over the batch
        } else if (name == "nll_none") {
            const Tensor lsm = runOp(be, "aten._log_softmax.default",
                                     {{"self", tv(x)}, {"dim", iv(1)}, {"half_to_float", bv(false)}})[0];
            Tensor t = randomInts(be, {R}, 0, C, 22);
            t.data<int64_t>()[5] = -100;
            t.data<int64_t>()[20] = -100;
            Tensor w = randomTensor(be, {C}, DType::F32, 23);
            op = {"aten.nll_loss_forward.default",
                  {lsm, t, w},
                  {0, 0, -1},
                  [](const std::vector<Tensor>& v) {
                      return NamedArgs{{"self", tv(v[0])},
                                       {"target", tv(v[1])},
                                       {"weight", tv(v[2])},
                                       {"reduction", iv(0)},
                                       {"ignore_index", iv(-100)}};
                  },
                  {0}};
        } else if (name == "sum_lastdim" || name == "mean_lastdim") {
            op = {name == "sum_lastdim" ? "aten.sum.dim_IntList" : "aten.mean.dim",
                  {x},
                  {0},
                  [](const std::vector<Tensor>& v) {
                      return NamedArgs{{"self", tv(v[0])}, {"dim", sizesValue({-1})}, {"keepdim", bv(true)}};
                  },
                  {0}};
        } else if (name == "amax_lastdim") {
            op = {"aten.max.dim",
                  {x},
                  {0},
                  [](const std::vector<Tensor>& v) {
                      return NamedArgs{{"self", tv(v[0])}, {"dim", iv(1)}};
                  },
                  {0, 0}};
        } else if (name == "var_mean_lastdim") {
            op = {"aten.var_mean.correction",
                  {x},
                  {0},
                  [](const std::vector<Tensor>& v) {
                      return NamedArgs{{"self", tv(v[0])}, {"dim", sizesValue({1})}};
                  },
                  {0, 0}};
        } else if (name == "cumsum_lastdim") {
            op = {"aten.cumsum.default",
                  {x},
                  {0},
                  [](const std::vector<Tensor>& v) {
                      return NamedArgs{{"self", tv(v[0])}, {"dim", iv(1)}};
                  },
                  {0}};
        } else if (name == "min_lastdim" || name == "argmin_lastdim") {
            const bool arg = name == "argmin_lastdim";
            op = {arg ? "aten.argmin.default" : "aten.min.dim",
                  {x},
                  {0},
                  [](const std::vector<Tensor>& v) {
                      return NamedArgs{{"self", tv(v[0])}, {"dim", iv(1)}};
                  },
                  arg ? std::vector<int64_t>{0} : std::vector<int64_t>{0, 0}};
        } else if (name == "amin_lastdim") {
            op = {"aten.amin.default",
                  {x},
                  {0},
                  [](const std::vector<Tensor>& v) {
                      return NamedArgs{{"self", tv(v[0])}, {"dim", sizesValue({-1})}, {"keepdim", bv(true)}};
                  },
                  {0}};
        } else if (name == "any_lastdim" || name == "any_dims_lastdim") {
            // mostly zero rows: some rows all zero
            Tensor z = randomInts(be, {R, C}, -1, 2, 24);
            const int64_t* zi = z.data<int64_t>();
            Tensor sparse = be.empty({R, C}, DType::F32);
            for (int64_t i = 0; i < R * C; ++i)
                sparse.data<float>()[i] = (zi[i] == 1 && i % 7 == 0 && (i / C) % 3) ? 1.5f : 0.0f;
            const bool dims = name == "any_dims_lastdim";
            op = {dims ? "aten.any.dims" : "aten.any.dim",
                  {sparse},
                  {0},
                  [dims](const std::vector<Tensor>& v) {
                      return NamedArgs{{"self", tv(v[0])}, {"dim", dims ? sizesValue({-1}) : iv(-1)}};
                  },
                  {0}};
        } else if (name == "prod_lastdim" || name == "prod_bf16_lastdim") {
            // values near 1 so that products of 300 stay finite and nonzero
            const DType dt = name == "prod_lastdim" ? DType::F32 : DType::BF16;
            Tensor small = randomTensor(be, {R, C}, DType::F32, 25, 0.05);
            Tensor near1 = runOp(be, "aten.add.Scalar", {{"self", tv(small)}, {"other", fv(1.0)}})[0];
            if (dt == DType::BF16)
                near1 = runOp(be, "aten._to_copy.default", {{"self", tv(near1)}, {"dtype", dtypeValue(dt)}})[0];
            op = {"aten.prod.dim_int",
                  {near1},
                  {0},
                  [](const std::vector<Tensor>& v) {
                      return NamedArgs{{"self", tv(v[0])}, {"dim", iv(1)}};
                  },
                  {0}};
        } else if (name == "var_lastdim" || name == "var_dim_lastdim") {
            const bool dimForm = name == "var_dim_lastdim";
            op = {dimForm ? "aten.var.dim" : "aten.var.correction",
                  {x},
                  {0},
                  [dimForm](const std::vector<Tensor>& v) {
                      if (dimForm)
                          return NamedArgs{{"self", tv(v[0])}, {"dim", sizesValue({1})}, {"unbiased", bv(false)}};
                      return NamedArgs{{"self", tv(v[0])}, {"dim", sizesValue({1})}};
                  },
                  {0}};
        } else if (name == "mse_none") {
            op = {"aten.mse_loss.default",
                  {x, g},
                  {0, 0},
                  [](const std::vector<Tensor>& v) {
                      return NamedArgs{{"self", tv(v[0])}, {"target", tv(v[1])}, {"reduction", iv(0)}};
                  },
                  {0}};
        } else {
            QFAIL("unknown row op");
        }
        const int64_t rows = op.inputs[0].size(op.dims[0]);
        checkRowInvariance(op, rows);
    }

    // ---------------- threads: larger inputs of every op, 1 vs 2 vs 3 vs 5 threads bitwise
    void threadInvariance_data()
    {
        QTest::addColumn<std::string>("name");
        for (const char* n : {"sum_rows",   "sum_cols",       "sum_3d",   "sum_all",  "mean",    "var_mean",
                              "amax",       "argmax",         "cumsum",   "bincount", "softmax", "log_softmax_bwd",
                              "layer_norm", "layer_norm_bwd", "nll_mean", "nll_none", "nll_bwd", "mse_mean",
                              "mse_bwd",    "embedding_bwd",  "amin",     "any",      "prod",    "var"})
            QTest::newRow(n) << std::string(n);
        if (!fxltest::kSanitizedBuild)  // the other forms of the min kernel: release builds only
            for (const char* n : {"argmin", "min_dim"}) QTest::newRow(n) << std::string(n);
    }

    void threadInvariance()
    {
        QFETCH(std::string, name);
        std::vector<std::unique_ptr<Backend>> bes;
        for (int t : {1, 2, 3, 5}) bes.push_back(makeCpuBackend({t}));
        std::vector<std::vector<uint8_t>> first;
        // inputs made once (CPU tensors can be read by any CPU backend)
        const auto x = randomTensor(*be1_, {513, 300}, DType::F32, 31);
        const auto y = randomTensor(*be1_, {513, 300}, DType::F32, 32);
        for (size_t k = 0; k < bes.size(); ++k) {
            Backend& be = *bes[k];
            std::vector<Tensor> out;
            if (name == "sum_rows")
                out = runOp(be, "aten.sum.dim_IntList",
                            {{"self", tv(x)}, {"dim", sizesValue({0})}, {"keepdim", bv(true)}});
            else if (name == "sum_cols")
                out = runOp(be, "aten.sum.dim_IntList", {{"self", tv(x)}, {"dim", sizesValue({1})}});
            else if (name == "sum_3d")
                out = runOp(be, "aten.sum.dim_IntList",
                            {{"self", tv(x.asStrided({27, 19, 300}, {5700, 300, 1}, 0))}, {"dim", sizesValue({0, 1})}});
            else if (name == "sum_all")
                out = runOp(be, "aten.sum.default", {{"self", tv(x)}});
            else if (name == "mean")
                out = runOp(be, "aten.mean.dim", {{"self", tv(x)}, {"dim", sizesValue({-1})}, {"keepdim", bv(true)}});
            else if (name == "var_mean")
                out = runOp(be, "aten.var_mean.correction", {{"self", tv(x)}, {"dim", sizesValue({0})}});
            else if (name == "amax")
                out = runOp(be, "aten.amax.default", {{"self", tv(x)}, {"dim", sizesValue({0})}});
            else if (name == "argmax")
                out = runOp(be, "aten.argmax.default", {{"self", tv(x)}, {"dim", iv(1)}});
            else if (name == "amin")
                out = runOp(be, "aten.amin.default", {{"self", tv(x)}, {"dim", sizesValue({0})}});
            else if (name == "argmin")
                out = runOp(be, "aten.argmin.default", {{"self", tv(x)}, {"dim", iv(0)}});
            else if (name == "min_dim")
                out = runOp(be, "aten.min.dim", {{"self", tv(x)}, {"dim", iv(1)}});
            else if (name == "any") {
                const Tensor gt = runOp(be, "aten.gt.Scalar", {{"self", tv(x)}, {"other", fv(2.5)}})[0];
                out = runOp(be, "aten.any.dim", {{"self", tv(gt)}, {"dim", iv(0)}});
            } else if (name == "prod") {
                Tensor small = randomTensor(be, {513, 300}, DType::F32, 41, 0.05);
                Tensor near1 = runOp(be, "aten.add.Scalar", {{"self", tv(small)}, {"other", fv(1.0)}})[0];
                out = runOp(be, "aten.prod.dim_int", {{"self", tv(near1)}, {"dim", iv(0)}});
            } else if (name == "var")
                out = runOp(be, "aten.var.correction", {{"self", tv(x)}, {"dim", sizesValue({0})}});
            else if (name == "cumsum")
                out = runOp(be, "aten.cumsum.default", {{"self", tv(x)}, {"dim", iv(0)}});
            else if (name == "bincount") {
                Tensor ids = randomInts(be, {5000}, 0, 37, 33);
                Tensor w = randomTensor(be, {5000}, DType::F32, 34);
                out = runOp(be, "aten.bincount.default", {{"self", tv(ids)}, {"weights", tv(w)}});
            } else if (name == "softmax")
                out =
                    runOp(be, "aten._softmax.default", {{"self", tv(x)}, {"dim", iv(0)}, {"half_to_float", bv(false)}});
            else if (name == "log_softmax_bwd")
                out = runOp(be, "aten._log_softmax_backward_data.default",
                            {{"grad_output", tv(x)},
                             {"output", tv(y)},
                             {"dim", iv(1)},
                             {"input_dtype", dtypeValue(DType::F32)}});
            else if (name == "layer_norm" || name == "layer_norm_bwd") {
                Tensor w = randomTensor(be, {300}, DType::F32, 35), b = randomTensor(be, {300}, DType::F32, 36);
                out = runOp(be, "aten.native_layer_norm.default",
                            {{"input", tv(x)},
                             {"normalized_shape", sizesValue({300})},
                             {"weight", tv(w)},
                             {"bias", tv(b)},
                             {"eps", fv(1e-5)}});
                if (name == "layer_norm_bwd")
                    out = runOp(be, "aten.native_layer_norm_backward.default",
                                {{"grad_out", tv(y)},
                                 {"input", tv(x)},
                                 {"normalized_shape", sizesValue({300})},
                                 {"mean", tv(out[1])},
                                 {"rstd", tv(out[2])},
                                 {"weight", tv(w)},
                                 {"bias", tv(b)},
                                 {"output_mask", bools({true, true, true})}});
            } else if (name == "nll_mean" || name == "nll_none" || name == "nll_bwd") {
                Tensor t = randomInts(be, {513}, 0, 300, 37);
                t.data<int64_t>()[3] = -100;
                const int64_t red = name == "nll_none" ? 0 : 1;
                out = runOp(be, "aten.nll_loss_forward.default",
                            {{"self", tv(x)},
                             {"target", tv(t)},
                             {"weight", Value::none()},
                             {"reduction", iv(red)},
                             {"ignore_index", iv(-100)}});
                if (name == "nll_bwd") {
                    Tensor g = randomTensor(be, {}, DType::F32, 38);
                    out = runOp(be, "aten.nll_loss_backward.default",
                                {{"grad_output", tv(g)},
                                 {"self", tv(x)},
                                 {"target", tv(t)},
                                 {"weight", Value::none()},
                                 {"reduction", iv(1)},
                                 {"ignore_index", iv(-100)},
                                 {"total_weight", tv(out[1])}});
                }
            } else if (name == "mse_mean")
                out = runOp(be, "aten.mse_loss.default", {{"self", tv(x)}, {"target", tv(y)}, {"reduction", iv(1)}});
            else if (name == "mse_bwd") {
                Tensor g = randomTensor(be, {}, DType::F32, 39);
                out = runOp(be, "aten.mse_loss_backward.default",
                            {{"grad_output", tv(g)}, {"self", tv(x)}, {"target", tv(y)}, {"reduction", iv(1)}});
            } else if (name == "embedding_bwd") {
                Tensor ids = randomInts(be, {9, 57}, 0, 40, 40);
                Tensor g = chunk(x, 0, 0, 9 * 57).asStrided({9, 57, 300}, {17100, 300, 1}, 0);
                out = runOp(be, "aten.embedding_dense_backward.default",
                            {{"grad_output", tv(g)},
                             {"indices", tv(ids)},
                             {"num_weights", iv(40)},
                             {"padding_idx", iv(2)},
                             {"scale_grad_by_freq", bv(false)}});
            } else {
                QFAIL("unknown op");
            }
            std::vector<uint8_t> all;
            for (const Tensor& t : out) {
                if (!t.defined()) continue;
                auto b = bytesOf(be, t);
                all.insert(all.end(), b.begin(), b.end());
            }
            QVERIFY(!all.empty());
            if (k == 0)
                first.push_back(all);
            else
                QVERIFY2(all == first[0],
                         qPrintable(QString("%1 threads differ from 1").arg(k == 1 ? 2 : (k == 2 ? 3 : 5))));
        }
    }
};

FXL_TEST_APPLESS_MAIN(TestReductionInvariance)
}  // namespace test_reduction_invariance
#include "test_reduction_invariance.moc"
