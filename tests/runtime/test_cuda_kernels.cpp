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

#include "kernel_test_util.hpp"
#include "runtime/backends.hpp"
#include "runtime/base/kernel.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_cuda_kernels {

using namespace fxl;
using kerneltest::RefFile;
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

// The case files: (name, folder, family file name).
struct Family
{
    const char* name;
    const char* dir;
    const char* file;
};
const Family kFamilies[] = {{"elementwise", "kernels", "elementwise"}, {"reduction", "kernels", "reduction"},
                            {"matmul", "kernels", "matmul"},           {"shape", "kernels", "shape"},
                            {"conv_pool", "kernels", "conv_pool"},     {"differential", "differential", "edge"}};

const RefFile& refsOf(const std::string& family)
{
    static std::map<std::string, RefFile> files;
    auto it = files.find(family);
    if (it != files.end()) return it->second;
    for (const Family& f : kFamilies)
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

// One argument in any of the case files' encodings: the kernel tests' tagged forms ({"int": 3},
// {"float": "nan"}, {"none": null}, {"ints": [...]}, {"memory_format": ...}), the others' plain
// JSON, and {"tensor": key} with an optional view over the stored base.
Value argOf(Backend& be, const RefFile& refs, const json& j)
{
    if (j.is_object() && !j.contains("tensor")) {
        if (j.contains("none")) return Value::none();
        if (j.contains("int")) return Value::ofInt(j.at("int").get<int64_t>());
        if (j.contains("bool")) return Value::ofBool(j.at("bool").get<bool>());
        if (j.contains("float")) {
            const json& f = j.at("float");
            if (!f.is_string()) return Value::ofFloat(f.get<double>());
            const std::string s = f.get<std::string>();
            return Value::ofFloat(s == "nan" ? std::nan("") : s[0] == '-' ? -INFINITY : INFINITY);
        }
        if (j.contains("str")) return kerneltest::strValue(j.at("str").get<std::string>());
        if (j.contains("ints")) return kerneltest::sizesValue(j.at("ints").get<std::vector<int64_t>>());
        if (j.contains("memory_format")) {
            Value v;
            v.kind = Value::Kind::MemoryFormat;
            v.s = j.at("memory_format").get<std::string>();
            return v;
        }
    }
    if (j.is_array()) {
        std::vector<Value> items;
        for (const json& x : j) items.push_back(argOf(be, refs, x));
        return Value::ofList(std::move(items));
    }
    return kerneltest::caseArg(be, refs, j);
}

// A case's call on `be`: arguments by name (a dict), by position (a list), or the matmul
// file's inputs and scalars.
KernelCall callOf(Backend& be, const RefFile& refs, const json& c)
{
    const std::string target = c.at("op").get<std::string>();
    if (c.contains("inputs")) {
        kerneltest::NamedArgs named;
        for (const json& in : c.at("inputs")) {
            Tensor t = kerneltest::fromSafe(be, *refs.byKey.at(in.at("key").get<std::string>()));
            if (!in.at("view").is_null()) {
                const json& v = in.at("view");
                t = t.asStrided(v.at("sizes").get<std::vector<int64_t>>(), v.at("strides").get<std::vector<int64_t>>(),
                                v.at("offset").get<int64_t>());
            }
            named[in.at("arg").get<std::string>()] = Value::ofTensor(t);
        }
        for (const auto& [name, v] : c.at("scalars").items())
            named[name] = v.is_number_integer() ? Value::ofInt(v.get<int64_t>()) : Value::ofFloat(v.get<double>());
        return kerneltest::makeCall(target, named);
    }
    const json& args = c.at("args");
    if (args.is_object()) {
        kerneltest::NamedArgs named;
        for (const auto& [name, j] : args.items()) named[name] = argOf(be, refs, j);
        return kerneltest::makeCall(target, named);
    }
    KernelCall call;
    call.op = OpRegistry::instance().find(target);
    if (!call.op) throw std::runtime_error("no operator " + target);
    for (const json& j : args) call.args.push_back(argOf(be, refs, j));
    for (size_t k = call.args.size(); k < call.op->schema.args.size(); ++k)
        call.args.push_back(kerneltest::argToValue(parseDefaultValue(call.op->schema.args[k])));
    return call;
}

struct Outcome
{
    std::vector<Tensor> outs;
    std::optional<std::string> error;
};

Outcome runOn(Backend& be, const RefFile& refs, const json& c)
{
    Outcome o;
    KernelCall call = callOf(be, refs, c);
    try {
        be.run(call);
    } catch (const KernelError& e) {
        o.error = e.what();
        return o;
    }
    o.outs = kerneltest::resultTensors(call.result);
    return o;
}

std::string shapeText(const std::vector<int64_t>& v)
{
    std::string s = "[";
    for (size_t k = 0; k < v.size(); ++k) s += (k ? "," : "") + std::to_string(v[k]);
    return s + "]";
}

// The operators of the case files, by family.
std::map<std::string, std::set<std::string>> caseOps()
{
    std::map<std::string, std::set<std::string>> out;
    for (const Family& f : kFamilies) {
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
        for (const Family& f : kFamilies)
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
            const std::string id = c.at("id").get<std::string>();
            const Outcome a = runOn(*cpu, refs, c);
            Outcome b;
            try {
                b = runOn(*gpu, refs, c);
            } catch (const std::exception& e) {
                QFAIL((id + ": on cuda-emu threw " + e.what()).c_str());
            }
            if (a.error || b.error) {
                QVERIFY2(a.error && b.error,
                         (id + ": " + (a.error ? "only the CPU failed: " + *a.error : "only CUDA failed: " + *b.error))
                             .c_str());
                QCOMPARE(QString::fromStdString(*b.error), QString::fromStdString(*a.error));
                ++errors;
                continue;
            }
            QVERIFY2(a.outs.size() == b.outs.size(), (id + ": a different number of outputs").c_str());
            for (size_t k = 0; k < a.outs.size(); ++k) {
                const Tensor &x = a.outs[k], &y = b.outs[k];
                const std::string what = id + " output " + std::to_string(k);
                QVERIFY2(x.defined() == y.defined(), (what + ": defined on one device only").c_str());
                if (!x.defined()) continue;
                QVERIFY2(y.device() == DeviceKind::Cuda || y.numel() == 0, (what + ": not on the device").c_str());
                QVERIFY2(x.dtype() == y.dtype(), (what + ": dtype differs").c_str());
                QVERIFY2(x.sizes() == y.sizes(),
                         (what + ": sizes " + shapeText(y.sizes()) + " want " + shapeText(x.sizes())).c_str());
                if (x.numel() > 1)
                    QVERIFY2(
                        x.strides() == y.strides(),
                        (what + ": strides " + shapeText(y.strides()) + " want " + shapeText(x.strides())).c_str());
                const std::vector<uint8_t> bx = kerneltest::bytesOf(*cpu, x), by = kerneltest::bytesOf(*gpu, y);
                size_t first = 0;
                while (first < bx.size() && bx[first] == by[first]) ++first;
                if (first != bx.size()) {
                    const size_t item = static_cast<size_t>(x.itemSize()), e0 = first / item * item;
                    auto hex = [&](const std::vector<uint8_t>& v) {
                        std::string h;
                        for (size_t q = e0 + item; q-- > e0;) h += QString::asprintf("%02x", v[q]).toStdString();
                        return h;
                    };
                    QFAIL((what + ": bytes differ from the CPU's at element " + std::to_string(first / item) + " of "
                           + std::to_string(x.numel()) + ": 0x" + hex(by) + " on CUDA, 0x" + hex(bx) + " on the CPU")
                              .c_str());
                }
                ++compared;
            }
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
