// The CUDA backend on the emulated device (the CUDA kernels' own code run by the CPU): the
// emulator visits every thread of a launch once; tensors go up and down bytewise; the strided
// copy kernel moves every layout the CPU backend's copy moves (transposed, expanded, offset,
// permuted, 0-size), within the device and across devices, with the CPU's bytes; the memory
// accounting counts what tensors hold; an operator without a CUDA kernel is named.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <set>
#include <tuple>

#include "runtime/backends.hpp"
#include "runtime/base/kernel.hpp"
#include "runtime/cpu/gemm.hpp"
#include "runtime/cuda/device_api.hpp"
#include "runtime/cuda/emulate.hpp"
#include "runtime/math/storage.hpp"
#include "test_registry.hpp"

namespace test_cuda_emulated {
// A GEMM case: C[b] = A[b] B[b] with A [batch, m, k] (transposed in memory when aT) and B
// [batch, k, n] (every other column when bGap), operands of `elem`, values drawn from `kind`.
struct GemmCase
{
    int64_t batch, m, n, k;
    bool aT, bGap;
    int elem;  // cuda::GemmElem
    int kind;  // 0 uniform [-1, 1], 1 with inf / NaN / 3e38 mixed in, 2 magnitudes near float's overflow
};

}  // namespace test_cuda_emulated
Q_DECLARE_METATYPE(test_cuda_emulated::GemmCase)

namespace test_cuda_emulated {

using namespace fxl;

namespace {

std::unique_ptr<Backend> backendNamed(const std::string& name)
{
    std::string why;
    auto b = makeBackend(name, BackendOptions{}, &why);
    if (!b) qFatal("%s", why.c_str());
    return b;
}

// A tensor on `b` filled with distinct bytes.
Tensor filled(Backend& b, const std::vector<int64_t>& sizes, DType t, unsigned seed)
{
    Tensor x = b.empty(sizes, t);
    std::vector<unsigned char> bytes(static_cast<size_t>(x.nbytes()));
    std::mt19937 rng(seed);
    for (auto& c : bytes) c = static_cast<unsigned char>(rng());
    b.upload(x, bytes.data(), x.nbytes());
    return x;
}

std::vector<unsigned char> bytesOf(Backend& b, const Tensor& t)
{
    std::vector<unsigned char> out(static_cast<size_t>(t.nbytes()));
    b.download(out.data(), t, t.nbytes());
    return out;
}

// A view of x by name: the layouts the tests move.
Tensor viewOf(const Tensor& x, const QString& kind)
{
    const auto& s = x.sizes();
    if (kind == "contiguous") return x;
    if (kind == "transposed") return x.asStrided({s[1], s[0]}, {x.strides()[1], x.strides()[0]}, 0);
    if (kind == "offset") return x.asStrided({s[0] - 1, s[1] - 2}, {x.strides()[0], 1}, x.strides()[0] + 2);
    if (kind == "expanded") return x.asStrided({4, s[1]}, {0, 1}, 0);
    if (kind == "empty") return x.asStrided({0, s[1]}, {s[1], 1}, 0);
    return Tensor();
}

std::vector<unsigned char> gemmOperandBytes(int64_t count, int elem, int kind, unsigned seed)
{
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    const size_t item = elem == cuda::kGemmF64 ? 8 : elem == cuda::kGemmF32 ? 4 : 2;
    std::vector<unsigned char> out(static_cast<size_t>(count) * item);
    for (int64_t i = 0; i < count; ++i) {
        double v = u(rng);
        if (kind == 1) {
            const unsigned r = rng() % 23;
            v = r == 0 ? INFINITY : r == 1 ? -INFINITY : r == 2 ? NAN : r == 3 ? 3e38 : v;
        } else if (kind == 2) {
            v *= 1e19 * (1 + rng() % 7);
        }
        unsigned char* p = out.data() + static_cast<size_t>(i) * item;
        if (elem == cuda::kGemmF64) {
            std::memcpy(p, &v, 8);
        } else if (elem == cuda::kGemmF32) {
            const float f = static_cast<float>(v);
            std::memcpy(p, &f, 4);
        } else {
            const uint16_t h = elem == cuda::kGemmBf16 ? math::f32ToBf16(static_cast<float>(v))
                                                       : math::f32ToF16(static_cast<float>(v));
            std::memcpy(p, &h, 2);
        }
    }
    return out;
}

}  // namespace

class TestCudaEmulated : public QObject
{
    Q_OBJECT

private slots:
    // every (block, thread) of a 3-d grid of 3-d blocks, each once
    void emulatorVisitsEveryThreadOnce()
    {
        std::set<std::tuple<int, int, int, int, int, int>> seen;
        int calls = 0;
        cuda::emulateLaunch({3, 2, 2}, {4, 1, 3}, [&](const cuda::Coord& c) {
            ++calls;
            seen.insert(
                {int(c.block.x), int(c.block.y), int(c.block.z), int(c.thread.x), int(c.thread.y), int(c.thread.z)});
            QCOMPARE(c.gridDim.x, 3u);
            QCOMPARE(c.blockDim.z, 3u);
        });
        QCOMPARE(calls, 3 * 2 * 2 * 4 * 1 * 3);
        QCOMPARE(int(seen.size()), calls);
        // the one-dimensional geometry covers n with a grid stride
        QCOMPARE(cuda::gridFor(0).x, 1u);
        QCOMPARE(cuda::gridFor(257).x, 2u);
        QCOMPARE(cuda::gridFor(int64_t(1) << 40).x, cuda::kMaxBlocks);
    }

    void uploadDownloadBytes_data()
    {
        QTest::addColumn<int>("dtype");
        for (DType t : {DType::F32, DType::F64, DType::BF16, DType::F16, DType::I64, DType::I32, DType::I16, DType::I8,
                        DType::U8, DType::Bool})
            QTest::newRow(dtypeAbbr(t).data()) << int(t);
    }
    void uploadDownloadBytes()
    {
        QFETCH(int, dtype);
        auto gpu = backendNamed("cuda-emu");
        QCOMPARE(QString::fromStdString(gpu->name()), QStringLiteral("cuda-emu:0"));
        QCOMPARE(gpu->device(), DeviceKind::Cuda);
        const Tensor x = gpu->empty({5, 7}, DType(dtype));
        std::vector<unsigned char> in(static_cast<size_t>(x.nbytes()));
        for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<unsigned char>(i * 37 + 11);
        gpu->upload(x, in.data(), x.nbytes());
        QVERIFY(bytesOf(*gpu, x) == in);
    }

    // the strided copy on the device, from the host and to the host, against the CPU backend
    void copiesAsTheCpu_data()
    {
        QTest::addColumn<QString>("view");
        QTest::addColumn<int>("dtype");
        for (const char* v : {"contiguous", "transposed", "offset", "expanded", "empty"})
            for (DType t : {DType::F32, DType::BF16, DType::F64, DType::I8})
                QTest::newRow(qPrintable(QStringLiteral("%1/%2").arg(v, dtypeAbbr(t).data()))) << QString(v) << int(t);
    }
    void copiesAsTheCpu()
    {
        QFETCH(QString, view);
        QFETCH(int, dtype);
        const DType t = DType(dtype);
        auto cpu = backendNamed("cpu");
        auto gpu = backendNamed("cuda-emu");
        const Tensor hx = filled(*cpu, {6, 9}, t, 7);
        const Tensor gx = gpu->empty({6, 9}, t);
        gpu->upload(gx, hx.rawData(), hx.nbytes());
        const Tensor hv = viewOf(hx, view), gv = viewOf(gx, view);
        // the CPU's answer: the view copied into a contiguous tensor
        const Tensor want = cpu->empty(hv.sizes(), t);
        cpu->copy(want, hv);
        const std::vector<unsigned char> expected = bytesOf(*cpu, want);
        // device -> device, into a contiguous tensor and into a transposed one
        const Tensor d1 = gpu->empty(gv.sizes(), t);
        gpu->copy(d1, gv);
        QVERIFY(bytesOf(*gpu, d1) == expected);
        // download of the strided view itself (through the kernel)
        QVERIFY(bytesOf(*gpu, gv) == expected);
        // host -> device from the strided host view, then device -> host into a strided host view
        const Tensor d2 = gpu->empty(hv.sizes(), t);
        gpu->copy(d2, hv);
        QVERIFY(bytesOf(*gpu, d2) == expected);
        if (hv.dim() == 2 && hv.numel() > 0) {
            const Tensor back = cpu->empty({hv.sizes()[1], hv.sizes()[0]}, t);
            const Tensor backT = back.asStrided(hv.sizes(), {1, hv.sizes()[0]}, 0);  // a transposed host view
            gpu->copy(backT, d2);
            const Tensor packed = cpu->empty(hv.sizes(), t);
            cpu->copy(packed, backT);
            QVERIFY(bytesOf(*cpu, packed) == expected);
        }
    }

    // a 5-d permutation through upload into a strided device view
    void stridedUpload()
    {
        auto gpu = backendNamed("cuda-emu:1");
        QCOMPARE(QString::fromStdString(gpu->name()), QStringLiteral("cuda-emu:1"));
        const Tensor base = gpu->empty({2, 3, 4, 5, 6}, DType::F32);
        const Tensor perm = base.asStrided({6, 2, 5, 3, 4}, {1, 360, 6, 120, 30}, 0);
        std::vector<float> in(720);
        for (size_t i = 0; i < in.size(); ++i) in[i] = float(i);
        gpu->upload(perm, in.data(), 720 * 4);
        std::vector<float> all(720);
        gpu->download(all.data(), base, 720 * 4);
        // element (a, b, c, d, e) of perm sits at a + 360 b + 6 c + 120 d + 30 e of base
        size_t i = 0;
        for (int a = 0; a < 6; ++a)
            for (int b = 0; b < 2; ++b)
                for (int c = 0; c < 5; ++c)
                    for (int d = 0; d < 3; ++d)
                        for (int e = 0; e < 4; ++e, ++i)
                            QCOMPARE(all[size_t(a + 360 * b + 6 * c + 120 * d + 30 * e)], in[i]);
    }

    // the GEMM kernel, emulated, against the CPU GEMM: every output's bits
    void gemmAsTheCpu_data()
    {
        QTest::addColumn<GemmCase>("c");
        const int f32 = cuda::kGemmF32;
        QTest::newRow("1x1x1") << GemmCase{1, 1, 1, 1, false, false, f32, 0};
        QTest::newRow("k0") << GemmCase{1, 5, 7, 0, false, false, f32, 0};
        QTest::newRow("17x33x5") << GemmCase{1, 17, 33, 5, false, false, f32, 0};
        QTest::newRow("batch2 64x48x40") << GemmCase{2, 64, 48, 40, false, false, f32, 0};
        QTest::newRow("257x65x33 A transposed") << GemmCase{1, 257, 65, 33, true, false, f32, 0};
        QTest::newRow("31x19x70 B strided") << GemmCase{1, 31, 19, 70, false, true, f32, 0};
        QTest::newRow("bf16 40x24x50") << GemmCase{1, 40, 24, 50, true, false, cuda::kGemmBf16, 0};
        QTest::newRow("f16 3x40x24x18") << GemmCase{3, 24, 40, 18, false, true, cuda::kGemmF16, 0};
        QTest::newRow("f64 33x17x65") << GemmCase{1, 33, 17, 65, true, true, cuda::kGemmF64, 0};
        QTest::newRow("inf nan 3e38") << GemmCase{1, 20, 30, 37, false, false, f32, 1};
        QTest::newRow("overflow inside the chain") << GemmCase{2, 18, 21, 47, true, false, f32, 2};
        QTest::newRow("f64 inf nan") << GemmCase{1, 9, 11, 29, false, false, cuda::kGemmF64, 1};
        // several blocks of kTile x kTile outputs each way, partial at both edges (register tiles)
        QTest::newRow("batch2 130x150x40") << GemmCase{2, 130, 150, 40, false, false, f32, 0};
        QTest::newRow("bf16 70x129x17 B strided") << GemmCase{1, 70, 129, 17, false, true, cuda::kGemmBf16, 0};
        QTest::newRow("f64 129x66x20 A transposed") << GemmCase{1, 129, 66, 20, true, false, cuda::kGemmF64, 0};
    }

    // --fast's stand-in for tensor cores (DeviceApi::fastGemm on the emulated device): not the
    // CPU's bits (operands rounded to TF32, sums in blocks), within TF32's error of them.
    void fastGemmIsLabelledApart()
    {
        const int64_t m = 70, n = 90, k = 100;
        const auto aBytes = gemmOperandBytes(m * k, cuda::kGemmF32, 0, 5);
        const auto bBytes = gemmOperandBytes(k * n, cuda::kGemmF32, 0, 6);
        cuda::GemmParams p;
        p.m = m;
        p.n = n;
        p.k = k;
        p.a = {aBytes.data(), cuda::kGemmF32, k, 1, m * k};
        p.b = {bBytes.data(), cuda::kGemmF32, n, 1, k * n};
        p.ldc = n;
        p.cBatchStride = m * n;
        std::vector<float> fast(static_cast<size_t>(m * n)), exact(static_cast<size_t>(m * n));
        p.c = fast.data();
        cuda::makeEmulatedDevice(0)->fastGemm(p);
        p.c = exact.data();
        cuda::makeEmulatedDevice(0)->gemm(p);
        int differ = 0;
        double scale = 0;
        for (float v : exact) scale = std::max(scale, static_cast<double>(std::fabs(v)));
        for (size_t e = 0; e < fast.size(); ++e) {
            differ += std::memcmp(&fast[e], &exact[e], 4) != 0;
            QVERIFY2(std::fabs(static_cast<double>(fast[e]) - exact[e]) <= 1e-2 * scale,
                     qPrintable(QStringLiteral("element %1: fast %2, exact %3").arg(e).arg(fast[e]).arg(exact[e])));
        }
        QVERIFY2(differ > static_cast<int>(fast.size()) / 2, qPrintable(QString::number(differ)));
    }
    void gemmAsTheCpu()
    {
        QFETCH(GemmCase, c);
        const bool f64 = c.elem == cuda::kGemmF64;
        const auto aBytes = gemmOperandBytes(c.batch * c.m * c.k, c.elem, c.kind, 11);
        const int64_t bCols = c.bGap ? 2 * c.n : c.n;
        const auto bBytes = gemmOperandBytes(c.batch * c.k * bCols, c.elem, c.kind, 23);
        cuda::GemmParams p;
        p.batch = c.batch;
        p.m = c.m;
        p.n = c.n;
        p.k = c.k;
        p.a = {aBytes.data(), c.elem, c.aT ? 1 : c.k, c.aT ? c.m : 1, c.m * c.k};
        p.b = {bBytes.data(), c.elem, bCols, c.bGap ? 2 : 1, c.k * bCols};
        p.ldc = c.n;
        p.cBatchStride = c.m * c.n;
        const size_t outBytes = static_cast<size_t>(c.batch * c.m * c.n) * (f64 ? 8 : 4);
        std::vector<unsigned char> got(outBytes, 0xab), want(outBytes, 0xcd);
        p.c = got.data();
        cuda::makeEmulatedDevice(0)->gemm(p);
        const DType dt = c.elem == cuda::kGemmF64 ? DType::F64
            : c.elem == cuda::kGemmBf16           ? DType::BF16
            : c.elem == cuda::kGemmF16            ? DType::F16
                                                  : DType::F32;
        const cpu::GemmOperand A{aBytes.data(), dt, p.a.rowStride, p.a.colStride, p.a.batchStride};
        const cpu::GemmOperand B{bBytes.data(), dt, p.b.rowStride, p.b.colStride, p.b.batchStride};
        if (f64)
            cpu::gemmF64(c.batch, c.m, c.n, c.k, A, B, reinterpret_cast<double*>(want.data()), c.n, c.m * c.n, nullptr);
        else
            cpu::gemmF32(c.batch, c.m, c.n, c.k, A, B, reinterpret_cast<float*>(want.data()), c.n, c.m * c.n, nullptr);
        const size_t item = f64 ? 8 : 4;
        for (size_t e = 0; e < outBytes / item; ++e)
            if (std::memcmp(got.data() + e * item, want.data() + e * item, item) != 0) {
                double g = 0, w = 0;
                if (f64) {
                    std::memcpy(&g, got.data() + e * item, 8);
                    std::memcpy(&w, want.data() + e * item, 8);
                } else {
                    float gf, wf;
                    std::memcpy(&gf, got.data() + e * item, 4);
                    std::memcpy(&wf, want.data() + e * item, 4);
                    g = gf;
                    w = wf;
                }
                QFAIL(qPrintable(QStringLiteral("element %1: emulated GPU %2, CPU %3")
                                     .arg(e)
                                     .arg(g, 0, 'g', 17)
                                     .arg(w, 0, 'g', 17)));
            }
        if (c.kind == 1) {  // the case reaches the wide redo and IEEE's NaN / inf
            bool special = false;
            for (size_t e = 0; e < outBytes / item && !f64; ++e) {
                float v;
                std::memcpy(&v, got.data() + e * item, 4);
                special = special || !std::isfinite(v);
            }
            QVERIFY(special || f64);
        }
    }

    void accountsMemory()
    {
        auto gpu = backendNamed("cuda-emu");
        QCOMPARE(gpu->liveBytes(), int64_t(0));
        {
            const Tensor a = gpu->empty({100}, DType::F32);
            const Tensor b = gpu->empty({10, 10}, DType::F64);
            QCOMPARE(gpu->liveBytes(), int64_t(400 + 800));
            std::vector<char> host(800);
            gpu->download(host.data(), b.asStrided({10, 10}, {1, 10}, 0), 800);  // staging is not a tensor's
            QCOMPARE(gpu->liveBytes(), int64_t(1200));
        }
        QCOMPARE(gpu->liveBytes(), int64_t(0));
        QCOMPARE(gpu->peakBytes(), int64_t(1200));
    }

    void refusals()
    {
        auto gpu = backendNamed("cuda-emu");
        const Tensor a = gpu->empty({3}, DType::F32), b = gpu->empty({4}, DType::F32), c = gpu->empty({3}, DType::I32);
        QVERIFY_THROWS_EXCEPTION(KernelError, gpu->copy(a, b));
        QVERIFY_THROWS_EXCEPTION(KernelError, gpu->copy(a, c));
        QVERIFY_THROWS_EXCEPTION(KernelError, gpu->upload(a, nullptr, 8));
        std::string why;
        QVERIFY(!makeBackend("cuda-emu:x", BackendOptions{}, &why));
        QVERIFY2(why.find("cuda-emu:N") != std::string::npos, why.c_str());
        // an operator with no CUDA kernel yet is named
        KernelCall call;
        OpInfo op;
        op.qualifiedName = "aten.topk.default";
        call.op = &op;
        try {
            gpu->run(call);
            QFAIL("ran an operator without a kernel");
        } catch (const KernelError& e) {
            QCOMPARE(QString(e.what()), QStringLiteral("no CUDA kernel for aten.topk.default"));
        }
    }
};

FXL_TEST_APPLESS_MAIN(TestCudaEmulated)
}  // namespace test_cuda_emulated
#include "test_cuda_emulated.moc"
