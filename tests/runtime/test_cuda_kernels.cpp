// Every operator with a CUDA kernel, run on the emulated CUDA device (the kernels' own bodies
// run by the CPU, device memory closed to host code outside launches), against the CPU
// backend on every case of the kernel tests (tests/data/kernels/*.cases.json) and of the
// differential edge cases (tests/data/differential): the same error text, or outputs of the
// same dtype, sizes and strides with the same bytes. Operators of those files without a CUDA
// kernel must be the ones docs/coverage.md lists under "On CUDA", and that list must be the
// registry's (every CPU operator without a CUDA kernel, no other).
#include <QtTest>

#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "device_compare.hpp"
#include "kernel_test_util.hpp"
#include "runtime/backends.hpp"
#include "runtime/base/dtype_codec.hpp"
#include "runtime/base/kernel.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_cuda_kernels {

using namespace fxl;
using kerneltest::RefFile;
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

using gpucheck::Family;

const RefFile& refsOf(const std::string& family)
{
    static std::map<std::string, RefFile> files;
    auto it = files.find(family);
    if (it != files.end()) return it->second;
    for (const Family& f : gpucheck::families())
        if (family == f.name) files[family].load(fxltest::testDataPath(f.dir), f.file);
    return files[family];
}

std::unique_ptr<Backend> backendNamed(const std::string& name)
{
    std::string why;
    auto b = makeBackend(name, BackendOptions{}, &why);
    if (!b) qFatal("%s", why.c_str());
    return b;
}

// The operators of the case files, by family.
std::map<std::string, std::set<std::string>> caseOps()
{
    std::map<std::string, std::set<std::string>> out;
    for (const Family& f : gpucheck::families()) {
        const RefFile& r = refsOf(f.name);
        if (r.doc.is_null()) continue;
        for (const json& c : r.doc.at("cases")) out[f.name].insert(c.at("op").get<std::string>());
    }
    return out;
}

// docs/coverage.md's list of the operators with a CPU kernel and no CUDA kernel.
std::set<std::string> listedCpuOnly(std::string* err)
{
    const fs::path doc = fxltest::testDataPath().parent_path().parent_path() / "docs" / "coverage.md";
    const std::string text = fxltest::readFile(doc);
    const size_t at = text.find("\n## On CUDA\n");
    if (at == std::string::npos) {
        *err = "docs/coverage.md has no section \"## On CUDA\"";
        return {};
    }
    std::set<std::string> ops;
    size_t pos = at;
    const std::string tag = "\n- `";
    while ((pos = text.find(tag, pos)) != std::string::npos) {
        const size_t b = pos + tag.size(), e = text.find('`', b);
        ops.insert(text.substr(b, e - b));
        pos = e;
    }
    return ops;
}

}  // namespace

class TestCudaKernels : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        for (const Family& f : gpucheck::families())
            QVERIFY2(!refsOf(f.name).doc.is_null(), (std::string("missing the case file of ") + f.name).c_str());
    }

    // Rows: every (family, operator) whose operator has a CUDA kernel.
    void sameAsCpu_data()
    {
        QTest::addColumn<QString>("family");
        QTest::addColumn<QString>("op");
        for (const auto& [family, ops] : caseOps())
            for (const std::string& op : ops)
                if (KernelRegistry::instance().find(op, DeviceKind::Cuda))
                    QTest::newRow((family + " " + op).c_str())
                        << QString::fromStdString(family) << QString::fromStdString(op);
    }
    void sameAsCpu()
    {
        QFETCH(QString, family);
        QFETCH(QString, op);
        const RefFile& refs = refsOf(family.toStdString());
        auto cpu = backendNamed("cpu");
        auto gpu = backendNamed("cuda-emu:0");
        int cases = 0, compared = 0, errors = 0;
        for (const json& c : refs.doc.at("cases")) {
            if (c.at("op").get<std::string>() != op.toStdString()) continue;
            ++cases;
            gpucheck::CaseResult r;
            try {
                r = gpucheck::compareCase(*cpu, *gpu, refs, c);
            } catch (const std::exception& e) {
                QFAIL((c.at("id").get<std::string>() + ": on cuda-emu threw " + e.what()).c_str());
            }
            QVERIFY2(r.status != gpucheck::CaseResult::Status::Differs, r.detail.c_str());
            compared += r.outputs;
            if (r.status == gpucheck::CaseResult::Status::SameError) ++errors;
        }
        QVERIFY2(cases > 0, "no case ran");
        qInfo("%s %s: %d cases, %d outputs bitwise equal, %d refused with the CPU's message", qPrintable(family),
              qPrintable(op), cases, compared, errors);
    }

    // The operators of the case files without a CUDA kernel, and the CPU-only list of
    // docs/coverage.md: that list is exactly the CPU operators the registry has no CUDA kernel
    // for (in-place variants made by the registry are not rows).
    void cpuOnlyListIsTheRegistrys()
    {
        std::string err;
        const std::set<std::string> listed = listedCpuOnly(&err);
        QVERIFY2(err.empty(), err.c_str());
        std::set<std::string> want;
        const KernelRegistry& reg = KernelRegistry::instance();
        for (const std::string& t : reg.targets(DeviceKind::Cpu)) {
            const OpInfo* op = OpRegistry::instance().find(t);
            if (op && !op->inplaceOf.empty()) continue;
            if (!reg.find(t, DeviceKind::Cuda)) want.insert(t);
        }
        // the count the section gives of the operators that run on CUDA
        int onCuda = 0;
        for (const std::string& t : reg.targets(DeviceKind::Cpu)) {
            const OpInfo* op = OpRegistry::instance().find(t);
            if ((!op || op->inplaceOf.empty()) && reg.find(t, DeviceKind::Cuda)) ++onCuda;
        }
        const std::string doc =
            fxltest::readFile(fxltest::testDataPath().parent_path().parent_path() / "docs" / "coverage.md");
        const std::string claim = "**" + std::to_string(onCuda) + "** operators of the";
        QVERIFY2(doc.find(claim) != std::string::npos, ("docs/coverage.md does not say " + claim).c_str());
        std::string extra;
        int missing = 0;
        for (const std::string& t : want)
            if (!listed.count(t)) {
                qWarning("not listed: - `%s`", t.c_str());  // one line each, ready to paste
                ++missing;
            }
        for (const std::string& t : listed)
            if (!want.count(t)) extra += " " + t;
        QVERIFY2(missing == 0,
                 ("docs/coverage.md does not list " + std::to_string(missing) + " CPU-only operators (above)").c_str());
        QVERIFY2(extra.empty(), ("docs/coverage.md lists operators that have a CUDA kernel or none:" + extra).c_str());
        // and the case files' operators are each run above or listed
        for (const auto& [family, ops] : caseOps())
            for (const std::string& op : ops)
                QVERIFY2(reg.find(op, DeviceKind::Cuda) || listed.count(op) || !reg.find(op, DeviceKind::Cpu),
                         (family + " " + op + ": neither on CUDA nor listed").c_str());
    }

    // An index out of range on the device: no assert, a record the backend reads after the
    // launch and turns into the CPU kernel's error text; the device keeps working.
    void indexOutOfRangeIsTheCpusError()
    {
        auto cpu = backendNamed("cpu");
        auto gpu = backendNamed("cuda-emu");
        const std::vector<float> w(12, 1.5f);
        const std::vector<int64_t> ids = {0, 3, 7, 1};  // 7: out of range for 4 rows
        std::string messages[2];
        int k = 0;
        for (Backend* be : {cpu.get(), gpu.get()}) {
            kerneltest::NamedArgs args;
            args["weight"] = Value::ofTensor(kerneltest::upload(*be, DType::F32, {4, 3}, w.data()));
            args["indices"] = Value::ofTensor(kerneltest::upload(*be, DType::I64, {4}, ids.data()));
            KernelCall call = kerneltest::makeCall("aten.embedding.default", args);
            try {
                be->run(call);
                QFAIL("an out-of-range index was not refused");
            } catch (const KernelError& e) {
                messages[k++] = e.what();
            }
        }
        QCOMPARE(QString::fromStdString(messages[1]), QString::fromStdString(messages[0]));
        QVERIFY2(messages[1].find("index 7 is out of range") != std::string::npos, messages[1].c_str());
        // the device still runs: the same gather with good indices
        const std::vector<int64_t> good = {3, 0};
        kerneltest::NamedArgs args;
        args["weight"] = Value::ofTensor(kerneltest::upload(*gpu, DType::F32, {4, 3}, w.data()));
        args["indices"] = Value::ofTensor(kerneltest::upload(*gpu, DType::I64, {2}, good.data()));
        KernelCall call = kerneltest::makeCall("aten.embedding.default", args);
        gpu->run(call);
        const std::vector<uint8_t> out = kerneltest::bytesOf(*gpu, call.result.tensor);
        QCOMPARE(out.size(), size_t(24));
        float first;
        std::memcpy(&first, out.data(), 4);
        QCOMPARE(first, 1.5f);
    }

    // Integer division and remainder by zero: no device can throw from inside its loop, so the
    // kernels check the divisor first; the CPU and the device refuse the same calls with the
    // same text, and compute the others alike.
    void integerDivisionByZero_data()
    {
        QTest::addColumn<QString>("target");
        QTest::addColumn<QString>("mode");  // div's rounding_mode, or ""
        QTest::addColumn<int>("dtype");
        QTest::addColumn<QList<qint64>>("self");
        QTest::addColumn<QList<qint64>>("other");  // one value and no "otherSizes": a Python number
        QTest::addColumn<bool>("otherIsNumber");
        QTest::addColumn<QString>("error");  // "" when the call computes
        const QList<qint64> a = {7, -7, 9, 4, -5, 6};
        const QString divErr = "div: integer division by zero", modErr = "fmod/remainder: integer division by zero";
        QTest::newRow("div trunc, a zero in the divisor")
            << "aten.div.Tensor_mode"
            << "trunc" << int(DType::I64) << a << QList<qint64>{1, 2, 0, 3, 4, 5} << false << divErr;
        QTest::newRow("div floor, no zero")
            << "aten.div.Tensor_mode"
            << "floor" << int(DType::I32) << a << QList<qint64>{2, -2, 3, -3, 2, 5} << false << "";
        QTest::newRow("floor_divide by the number 0")
            << "aten.floor_divide.default"
            << "" << int(DType::I64) << a << QList<qint64>{0} << true << divErr;
        QTest::newRow("floor_divide of uint8 by 256 (wraps to 0)")
            << "aten.floor_divide.default"
            << "" << int(DType::U8) << QList<qint64>{7, 9, 200, 4, 5, 6} << QList<qint64>{256} << true << divErr;
        QTest::newRow("remainder, a zero in the divisor")
            << "aten.remainder.Tensor"
            << "" << int(DType::I16) << a << QList<qint64>{3, 0, 2, 2, 2, 2} << false << modErr;
        QTest::newRow("fmod by a number") << "aten.fmod.Scalar"
                                          << "" << int(DType::I8) << a << QList<qint64>{-4} << true << "";
        QTest::newRow("fmod by the number 0") << "aten.fmod.Scalar"
                                              << "" << int(DType::I32) << a << QList<qint64>{0} << true << modErr;
        QTest::newRow("float division by zero computes")
            << "aten.div.Tensor_mode"
            << "floor" << int(DType::F32) << a << QList<qint64>{1, 0, 0, 3, 0, 5} << false << "";
    }
    void integerDivisionByZero()
    {
        QFETCH(QString, target);
        QFETCH(QString, mode);
        QFETCH(int, dtype);
        QFETCH(QList<qint64>, self);
        QFETCH(QList<qint64>, other);
        QFETCH(bool, otherIsNumber);
        QFETCH(QString, error);
        const DType dt = static_cast<DType>(dtype);
        auto tensorOf = [&](Backend& be, const QList<qint64>& v) {
            std::vector<unsigned char> bytes(static_cast<size_t>(v.size() * dtypeItemSize(dt)));
            for (int i = 0; i < v.size(); ++i)
                storeFromDouble(bytes.data() + i * dtypeItemSize(dt), dt, static_cast<double>(v[i]));
            return kerneltest::upload(be, dt, {2, static_cast<int64_t>(v.size()) / 2}, bytes.data());
        };
        auto cpu = backendNamed("cpu");
        auto gpu = backendNamed("cuda-emu");
        std::string messages[2];
        std::vector<uint8_t> outputs[2];
        int k = 0;
        for (Backend* be : {cpu.get(), gpu.get()}) {
            kerneltest::NamedArgs args;
            args["self"] = Value::ofTensor(tensorOf(*be, self));
            args["other"] = otherIsNumber ? Value::ofInt(other[0]) : Value::ofTensor(tensorOf(*be, other));
            if (!mode.isEmpty()) {
                Value m;
                m.kind = Value::Kind::Str;
                m.s = mode.toStdString();
                args["rounding_mode"] = m;
            }
            KernelCall call = kerneltest::makeCall(target.toStdString(), args);
            try {
                be->run(call);
                outputs[k] = kerneltest::bytesOf(*be, call.result.tensor);
            } catch (const KernelError& e) {
                messages[k] = e.what();
            }
            ++k;
        }
        QCOMPARE(QString::fromStdString(messages[0]), error);
        QCOMPARE(QString::fromStdString(messages[1]), error);
        QVERIFY(outputs[0] == outputs[1]);
        if (error.isEmpty()) QCOMPARE(outputs[0].size(), size_t(6 * dtypeItemSize(dt)));
    }

    // Host code cannot touch the emulated device's memory outside a transfer or a launch: a
    // kernel's host logic reading a device tensor directly crashes (in a child process here).
    void deviceMemoryIsClosedToTheHost()
    {
        auto gpu = backendNamed("cuda-emu");
        const Tensor t = gpu->empty({4}, DType::F32);
        const float v[4] = {1, 2, 3, 4};
        gpu->upload(t, v, sizeof v);
        float back[4] = {};
        gpu->download(back, t, sizeof back);
        QCOMPARE(back[2], 3.0f);
        const pid_t pid = fork();
        if (pid == 0) {
            std::signal(SIGSEGV, SIG_DFL);  // not the test framework's or a sanitizer's handler
            volatile float x = *static_cast<const float*>(t.rawData());  // must fault
            (void)x;
            _exit(0);
        }
        int status = 0;
        waitpid(pid, &status, 0);
        QVERIFY2(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV, "a host read of device memory did not fault");
    }
};

FXL_TEST_APPLESS_MAIN(TestCudaKernels)
}  // namespace test_cuda_kernels
#include "test_cuda_kernels.moc"
