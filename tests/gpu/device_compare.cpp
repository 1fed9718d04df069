#include "device_compare.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <optional>

#include "core/analysis/memory_timeline.hpp"
#include "core/formats/safetensors.hpp"
#include "core/formats/source.hpp"
#include "runtime/base/kernel.hpp"
#include "runtime/check/graph_check.hpp"
#include "runtime/cpu/cpu_backend.hpp"
#include "runtime/exec/executor.hpp"
#include "runtime/exec/support_check.hpp"

namespace gpucheck {

using namespace fxl;
using json = nlohmann::json;

const std::vector<Family>& families()
{
    static const std::vector<Family> f = {
        {"elementwise", "kernels", "elementwise"}, {"reduction", "kernels", "reduction"},
        {"matmul", "kernels", "matmul"},           {"shape", "kernels", "shape"},
        {"conv_pool", "kernels", "conv_pool"},     {"differential", "differential", "edge"}};
    return f;
}

namespace {

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

std::string hexElement(const std::vector<uint8_t>& v, size_t e0, size_t item)
{
    std::string h;
    char b[3];
    for (size_t q = e0 + item; q-- > e0;) {
        std::snprintf(b, sizeof b, "%02x", v[q]);
        h += b;
    }
    return h;
}

}  // namespace

CaseResult compareCase(Backend& ref, Backend& dev, const RefFile& refs, const json& c)
{
    CaseResult r;
    const std::string id = c.at("id").get<std::string>();
    auto differs = [&](std::string what) {
        r.status = CaseResult::Status::Differs;
        r.detail = id + ": " + std::move(what);
        return r;
    };
    const Outcome a = runOn(ref, refs, c);
    const Outcome b = runOn(dev, refs, c);
    if (a.error || b.error) {
        if (!a.error) return differs("only the device failed: " + *b.error);
        if (!b.error) return differs("only the CPU failed: " + *a.error);
        if (*a.error != *b.error)
            return differs("the device's error \"" + *b.error + "\", the CPU's \"" + *a.error + "\"");
        r.status = CaseResult::Status::SameError;
        return r;
    }
    if (a.outs.size() != b.outs.size()) return differs("a different number of outputs");
    for (size_t k = 0; k < a.outs.size(); ++k) {
        const Tensor &x = a.outs[k], &y = b.outs[k];
        const std::string what = "output " + std::to_string(k);
        if (x.defined() != y.defined()) return differs(what + ": defined on one device only");
        if (!x.defined()) continue;
        if (y.device() != dev.device() && y.numel() > 0) return differs(what + ": not on the device");
        if (x.dtype() != y.dtype()) return differs(what + ": dtype differs");
        if (x.sizes() != y.sizes())
            return differs(what + ": sizes " + shapeText(y.sizes()) + " want " + shapeText(x.sizes()));
        if (x.numel() > 1 && x.strides() != y.strides())
            return differs(what + ": strides " + shapeText(y.strides()) + " want " + shapeText(x.strides()));
        const std::vector<uint8_t> bx = kerneltest::bytesOf(ref, x), by = kerneltest::bytesOf(dev, y);
        size_t first = 0;
        while (first < bx.size() && bx[first] == by[first]) ++first;
        if (first != bx.size()) {
            const size_t item = static_cast<size_t>(x.itemSize()), e0 = first / item * item;
            return differs(what + ": bytes differ from the CPU's at element " + std::to_string(first / item) + " of "
                           + std::to_string(x.numel()) + ": 0x" + hexElement(by, e0, item) + " on the device, 0x"
                           + hexElement(bx, e0, item) + " on the CPU");
        }
        ++r.outputs;
    }
    return r;
}

GraphResult compareGraph(const std::string& path, const std::function<std::unique_ptr<Backend>()>& makeDevice,
                         int cpuThreads, const std::string& outputsPath)
{
    GraphResult r;
    r.name = std::filesystem::path(path).filename().string();
    std::unique_ptr<Source> src = openSource(path);
    const std::vector<const Artifact*> graphs = src->graphs();
    if (graphs.size() != 1) {
        r.detail = std::to_string(graphs.size()) + " graphs in the file (one expected)";
        return r;
    }
    const Artifact& art = *graphs.front();
    std::shared_ptr<Graph> g = src->graph(art.id);
    if (!g) {
        r.detail = "the graph could not be read";
        return r;
    }
    r.nodes = g->size();
    std::unique_ptr<Backend> probe = makeDevice();
    const std::vector<MissingSupport> missing = missingSupport(*g, probe->device());
    probe.reset();
    if (!missing.empty()) {
        r.detail = "not on the device: " + missing.front().reason;
        return r;
    }
    std::optional<SafeTensorsFile> inputs, constants;
    if (!art.inputsPath.empty()) inputs = readSafetensors(art.inputsPath);
    if (!art.constantsPath.empty()) constants = readSafetensors(art.constantsPath);
    CheckOptions opts;
    opts.threads = cpuThreads;
    opts.makeBackend = [cpuThreads] { return makeCpuBackend(CpuBackendOptions{cpuThreads}); };
    opts.makeBackendB = makeDevice;
    opts.inputs = inputs ? &*inputs : nullptr;
    const CheckGraph cg{g.get(), constants ? &*constants : nullptr};
    const CheckOutcome o = checkGraphs(cg, cg, opts);
    r.ran = true;
    r.equal = o.verdict == Verdict::BitwiseEqual;
    r.outputs = o.report.outputs.size();
    r.cpuSeconds = o.a.result.seconds;
    r.deviceSeconds = o.b.result.seconds;
    r.devicePeak = o.b.result.peakBytes;
    r.estimatePeak = computeMemoryTimeline(*g, MemoryOptions{}).peakBytes;
    if (!r.equal) r.detail = reportToText(o.report);
    if (!outputsPath.empty()) writeSafetensors(outputsPath, outputsToSafetensors(o.b.result, *o.b.backend));
    return r;
}

namespace {

// FNV-1a over bytes, continued
uint64_t fnv(uint64_t h, const uint8_t* p, size_t n)
{
    for (size_t i = 0; i < n; ++i) {
        h ^= p[i];
        h *= 1099511628211ull;
    }
    return h;
}

}  // namespace

SweepResult sweepFunction(Backend& ref, Backend& dev, const std::string& target, DType dtype, int bits)
{
    if (bits > 8 * dtypeItemSize(dtype)) bits = 8 * dtypeItemSize(dtype);
    SweepResult r;
    r.name = target + " " + std::string(dtypeAbbr(dtype));
    const int item = dtypeItemSize(dtype);
    const uint64_t total = uint64_t{1} << bits;
    const uint64_t chunk = std::min<uint64_t>(total, uint64_t{1} << 24);
    r.inputs = total;
    uint64_t hr = 1469598103934665603ull, hd = hr;
    bool found = false;
    std::vector<uint8_t> in(static_cast<size_t>(chunk) * static_cast<size_t>(item));
    const OpInfo* op = OpRegistry::instance().find(target);
    if (!op) throw std::runtime_error("no operator " + target);
    for (uint64_t base = 0; base < total; base += chunk) {
        for (uint64_t i = 0; i < chunk; ++i) {  // every bit pattern, or evenly spaced ones for bits < width
            const uint64_t v = (base + i) << (8 * item - bits);
            std::memcpy(in.data() + i * static_cast<uint64_t>(item), &v, static_cast<size_t>(item));
        }
        std::vector<uint8_t> outs[2];
        int side = 0;
        for (Backend* be : {&ref, &dev}) {
            const Tensor x = kerneltest::upload(*be, dtype, {static_cast<int64_t>(chunk)}, in.data());
            const std::vector<Tensor> res = kerneltest::runCall(*be, op, {Value::ofTensor(x)});
            outs[side++] = kerneltest::bytesOf(*be, res.at(0));
        }
        hr = fnv(hr, outs[0].data(), outs[0].size());
        hd = fnv(hd, outs[1].data(), outs[1].size());
        if (!found && outs[0] != outs[1]) {
            const size_t n = outs[0].size() / chunk;
            for (uint64_t i = 0; i < chunk; ++i)
                if (std::memcmp(outs[0].data() + i * n, outs[1].data() + i * n, n) != 0) {
                    r.firstDiffering = (base + i) << (8 * item - bits);
                    found = true;
                    break;
                }
        }
    }
    r.cpuHash = hr;
    r.deviceHash = hd;
    return r;
}

}  // namespace gpucheck
