#include "runtime/executor.hpp"

#include <algorithm>
#include <chrono>
#include <limits>
#include <string_view>
#include <unordered_map>

#include "core/diagnostics.hpp"
#include "core/op_registry.hpp"
#include "runtime/cpu/cpu_common.hpp"
#include "runtime/kernel.hpp"
#include "runtime/philox.hpp"

namespace fxl {

namespace {

constexpr size_t kNever = std::numeric_limits<size_t>::max();

Tensor uploadSafeTensor(const SafeTensor& st, Backend& b, const std::string& what) {
    if (!runtimeSupportsDType(st.dtype))
        throw KernelError(what + ": dtype " + std::string(dtypeAbbr(st.dtype)) + " is not supported by the runtime");
    Tensor t = b.empty(st.shape, st.dtype);
    if (static_cast<int64_t>(st.data.size()) != t.nbytes())
        throw KernelError(what + ": " + std::to_string(st.data.size()) + " bytes for shape of " + std::to_string(t.nbytes()));
    b.upload(t, st.data.data(), t.nbytes());
    return t;
}

int64_t hintOf(const SymInt& s, const std::string& what) {
    auto h = s.maybeValue();
    if (!h) throw KernelError(what + ": a size has no hint (" + s.str() + ")");
    return *h;
}

// A bad inputs file must fail at its placeholder, not somewhere downstream in a kernel:
// the file's dtype and concrete sizes must be the ones the graph recorded (symbolic sizes
// are free: a dynamic graph may run on other sizes than its hints).
void checkInputAgainstMeta(const Node& n, const SafeTensor& st) {
    const ValueMeta& m = n.val;
    if (!m.isTensor()) return;
    const TensorMeta& tm = m.tensor;
    auto shapeText = [](const std::vector<int64_t>& s) {
        std::string t = "[";
        for (size_t k = 0; k < s.size(); ++k) t += (k ? ", " : "") + std::to_string(s[k]);
        return t + "]";
    };
    if (tm.dtype != DType::Undefined && st.dtype != tm.dtype)
        throw KernelError("input '" + n.name + "': the inputs file has dtype " + std::string(dtypeAbbr(st.dtype)) +
                          ", the graph expects " + std::string(dtypeAbbr(tm.dtype)));
    bool bad = st.shape.size() != tm.sizes.size();
    std::string expected = "[";
    for (size_t k = 0; k < tm.sizes.size(); ++k) {
        expected += (k ? ", " : "") + tm.sizes[k].str();
        if (!bad && tm.sizes[k].isConcrete()) {
            auto v = tm.sizes[k].maybeValue();
            if (v && *v != st.shape[k]) bad = true;
        }
    }
    expected += "]";
    if (bad)
        throw KernelError("input '" + n.name + "': the inputs file has shape " + shapeText(st.shape) +
                          ", the graph expects " + expected);
}

// Tensors of an inputs/constants file by name: SafeTensorsFile::find is a linear scan, which
// made feeding a graph with thousands of placeholders quadratic.
class TensorIndex {
public:
    explicit TensorIndex(const SafeTensorsFile* f) {
        if (!f) return;
        map_.reserve(f->tensors.size());
        for (const auto& t : f->tensors) map_.emplace(t.name, &t);  // first of duplicate names, as find()
    }
    const SafeTensor* find(const std::string& name) const {
        auto it = map_.find(name);
        return it == map_.end() ? nullptr : it->second;
    }

private:
    std::unordered_map<std::string_view, const SafeTensor*> map_;
};

const SafeTensor* findInput(const Node& n, const TensorIndex& inputs) {
    const SafeTensor* st = inputs.find(n.name);
    if (!st && n.target != n.name) st = inputs.find(n.target);
    return st;
}

// A placeholder with no value given: generated from its meta (Philox, seeded per input).
Value generateInput(const Node& n, uint64_t seed, uint64_t index, Backend& b) {
    const ValueMeta& m = n.val;
    if (m.kind == ValueMeta::Kind::SymInt) {
        if (!m.symHint) throw KernelError("input '" + n.name + "': symbolic int without a hint");
        return Value::ofInt(*m.symHint);
    }
    if (!m.isTensor()) throw KernelError("input '" + n.name + "' has no tensor meta to generate it from; give it in the inputs file");
    std::vector<int64_t> sizes;
    for (const auto& s : m.tensor.sizes) sizes.push_back(hintOf(s, "input '" + n.name + "'"));
    Tensor t = b.empty(sizes, m.tensor.dtype);
    const int64_t count = t.numel();
    std::vector<uint8_t> host(static_cast<size_t>(t.nbytes()));
    const DType dt = m.tensor.dtype;
    for (int64_t k = 0; k < count; ++k) {
        void* p = host.data() + k * t.itemSize();
        if (isFloatingPoint(dt)) cpu::storeFromFloat(p, dt, philoxNormal(seed, index, static_cast<uint64_t>(k)));
        else if (dt == DType::Bool) cpu::storeFromDouble(p, dt, philoxDraw(seed, index, static_cast<uint64_t>(k)) & 1u);
        else cpu::storeFromDouble(p, dt, philoxDraw(seed, index, static_cast<uint64_t>(k)) % 16u);
    }
    b.upload(t, host.data(), t.nbytes());
    return Value::ofTensor(t);
}

struct Runner {
    const Graph& g;
    const ExecOptions& opts;
    Backend& backend;
    const OpRegistry& reg = OpRegistry::instance();
    std::vector<Value> env;        // by node id
    std::vector<uint8_t> have;
    RngState rng;

    // live-byte accounting by the memory timeline's rules (distinct storages of live values)
    std::unordered_map<const Storage*, int> refs;
    std::unordered_map<const Storage*, uint8_t> resident;  // input storages (countInputs=false: 0 bytes)
    int64_t live = 0;

    Runner(const Graph& graph, const ExecOptions& o, Backend& b) : g(graph), opts(o), backend(b) {
        rng.seed = o.rngSeed;
    }

    template <class F>
    static void forEachTensor(const Value& v, F&& fn) {
        if (v.isTensor()) fn(v.tensor);
        for (const auto& it : v.items) forEachTensor(it, fn);
    }
    void acquire(const Value& v, bool isInput) {
        forEachTensor(v, [&](const Tensor& t) {
            const Storage* s = t.storage().get();
            if (!s) return;
            if (refs[s]++ == 0) {
                if (isInput && !opts.countInputs) resident[s] = 1;
                else live += s->nbytes();
            }
        });
    }
    void releaseValue(const Value& v) {
        forEachTensor(v, [&](const Tensor& t) {
            const Storage* s = t.storage().get();
            if (!s) return;
            auto it = refs.find(s);
            if (it == refs.end()) return;
            if (--it->second == 0) {
                if (!resident.erase(s)) live -= s->nbytes();
                refs.erase(it);
            }
        });
    }

    Value toValue(const Arg& a) const {
        switch (a.kind) {
            case Arg::Kind::None: return Value::none();
            case Arg::Kind::Node: {
                const size_t id = static_cast<size_t>(a.node);
                if (id >= have.size() || !have[id])
                    throw KernelError("the value of '" + g.node(a.node).name + "' is not available (not computed yet or already freed)");
                return env[id];
            }
            case Arg::Kind::Int: return Value::ofInt(a.i);
            case Arg::Kind::Float: return Value::ofFloat(a.f);
            case Arg::Kind::Bool: return Value::ofBool(a.b);
            case Arg::Kind::List:
            case Arg::Kind::Tuple: {
                std::vector<Value> items;
                items.reserve(a.items.size());
                for (const auto& x : a.items) items.push_back(toValue(x));
                return Value::ofList(std::move(items));
            }
            case Arg::Kind::Str: { Value v; v.kind = Value::Kind::Str; v.s = a.s; return v; }
            case Arg::Kind::DType: { Value v; v.kind = Value::Kind::DType; v.dtype = a.dtype; return v; }
            case Arg::Kind::Device: { Value v; v.kind = Value::Kind::Device; v.s = a.s; return v; }
            case Arg::Kind::Layout: { Value v; v.kind = Value::Kind::Layout; v.s = a.s; return v; }
            case Arg::Kind::MemoryFormat: { Value v; v.kind = Value::Kind::MemoryFormat; v.s = a.s; return v; }
            case Arg::Kind::Op: { Value v; v.kind = Value::Kind::Op; v.s = a.s; return v; }
            default: throw KernelError("argument form not supported by the runtime (slice, ellipsis, dict or raw text)");
        }
    }

    Value callBuiltin(const Node& n) {
        const std::string& t = n.target;
        auto argv = [&](size_t k) { return toValue(n.args.at(k)); };
        if (t == "operator.getitem") {
            Value c = argv(0);
            const Value i = argv(1);
            if (c.kind != Value::Kind::List || i.kind != Value::Kind::Int)
                throw KernelError("getitem: only tuple/list indexing by an int is supported");
            int64_t k = i.i < 0 ? i.i + static_cast<int64_t>(c.items.size()) : i.i;
            if (k < 0 || k >= static_cast<int64_t>(c.items.size())) throw KernelError("getitem: index out of range");
            return c.items[static_cast<size_t>(k)];
        }
        auto intOp = [&](auto f) {
            Value a = argv(0), b = argv(1);
            if (a.kind == Value::Kind::Int && b.kind == Value::Kind::Int) return Value::ofInt(f(a.i, b.i));
            throw KernelError(t + ": only integer operands are supported outside tensors");
        };
        if (t == "operator.add") return intOp([](int64_t a, int64_t b) { return a + b; });
        if (t == "operator.sub") return intOp([](int64_t a, int64_t b) { return a - b; });
        if (t == "operator.mul") return intOp([](int64_t a, int64_t b) { return a * b; });
        if (t == "operator.floordiv")
            return intOp([&](int64_t a, int64_t b) {
                if (b == 0) throw KernelError("floordiv by zero");
                int64_t q = a / b;
                if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
                return q;
            });
        throw KernelError("call target '" + t + "' is not supported by the runtime");
    }

    Value callOp(const Node& n) {
        const OpInfo* op = reg.find(OpRegistry::normalizeTarget(n.target));
        if (!op) throw KernelError("unknown operator " + n.target);
        if (op->has(kTraitHigherOrder)) throw KernelError("higher-order operator " + n.target + " is not supported by the executor yet");
        std::vector<Arg> bound;
        if (auto err = reg.bind(*op, n, bound)) throw KernelError(*err);
        KernelCall call;
        call.node = &n;
        call.op = op;
        call.args.reserve(bound.size());
        for (const auto& a : bound) call.args.push_back(toValue(a));
        call.outMeta = &n.val;
        call.backend = &backend;
        call.rng = &rng;
        backend.run(call);
        return std::move(call.result);
    }
};

}  // namespace

ExecResult executeGraph(const Graph& g, const ExecOptions& opts) {
    std::shared_ptr<Backend> own;
    Backend* backend = opts.backend;
    if (!backend) {
        own = makeCpuBackend(CpuBackendOptions{opts.threads});
        backend = own.get();
    }
    Runner r(g, opts, *backend);
    const auto& order = g.order();
    size_t maxId = 0;
    for (NodeId id : order) maxId = std::max(maxId, static_cast<size_t>(id) + 1);
    r.env.assign(maxId, Value::none());
    r.have.assign(maxId, 0);

    // last step that reads each node; outputs and inputs never die (R4, R6)
    std::vector<size_t> lastUse(maxId, kNever);
    std::vector<uint8_t> pinned(maxId, 0);
    for (size_t k = 0; k < order.size(); ++k) {
        const Node& n = g.node(order[k]);
        lastUse[static_cast<size_t>(n.id)] = k;  // a value nothing reads dies after its own step (R5)
        if (n.op == NodeOp::Placeholder || n.op == NodeOp::GetAttr) pinned[static_cast<size_t>(n.id)] = 1;
        auto use = [&](NodeId id) {
            if (n.op == NodeOp::Output) pinned[static_cast<size_t>(id)] = 1;
            else lastUse[static_cast<size_t>(id)] = k;
        };
        for (const auto& a : n.args) a.forEachNode(use);
        for (const auto& kv : n.kwargs) kv.second.forEachNode(use);
    }
    // the nodes dying after each step, as one flat array with per-step offsets (a vector per
    // step costs an allocation per node on 100k-node graphs)
    std::vector<size_t> dyingStart(order.size() + 1, 0);
    for (NodeId id : order) {
        const size_t i = static_cast<size_t>(id);
        if (!pinned[i] && lastUse[i] != kNever) ++dyingStart[lastUse[i] + 1];
    }
    for (size_t k = 0; k < order.size(); ++k) dyingStart[k + 1] += dyingStart[k];
    std::vector<NodeId> dying(dyingStart.back());
    {
        std::vector<size_t> fill(dyingStart.begin(), dyingStart.end() - 1);
        for (NodeId id : order) {
            const size_t i = static_cast<size_t>(id);
            if (!pinned[i] && lastUse[i] != kNever) dying[fill[lastUse[i]]++] = id;
        }
    }
    const TensorIndex inputs(opts.inputs), constants(opts.constants);
    r.refs.reserve(order.size());

    ExecResult res;
    res.ownedBackend = own;
    res.liveBytesPerStep.reserve(order.size());
    std::vector<double> stepSeconds;
    stepSeconds.reserve(order.size());
    const auto t0 = std::chrono::steady_clock::now();
    uint64_t inputIndex = 0;
    for (size_t k = 0; k < order.size(); ++k) {
        const Node& n = g.node(order[k]);
        if (opts.cancel && opts.cancel->load()) {
            res.cancelled = true;
            break;
        }
        const auto n0 = std::chrono::steady_clock::now();
        Value v;
        bool isInput = false;
        try {
            switch (n.op) {
                case NodeOp::Placeholder: {
                    isInput = true;
                    const SafeTensor* st = findInput(n, inputs);
                    if (st) {
                        checkInputAgainstMeta(n, *st);
                        v = Value::ofTensor(uploadSafeTensor(*st, *backend, "input '" + n.name + "'"));
                    } else if (opts.requireAllInputs) throw KernelError("input '" + n.name + "' is missing from the inputs file");
                    else v = generateInput(n, opts.inputSeed, inputIndex, *backend);
                    ++inputIndex;
                    break;
                }
                case NodeOp::GetAttr: {
                    isInput = true;
                    const SafeTensor* st = constants.find(n.target);
                    if (!st) throw KernelError("constant '" + n.target + "' is not in the constants file");
                    v = Value::ofTensor(uploadSafeTensor(*st, *backend, "constant '" + n.target + "'"));
                    break;
                }
                case NodeOp::CallFunction:
                    if (n.target.rfind("operator.", 0) == 0 || n.target.rfind("builtins.", 0) == 0) v = r.callBuiltin(n);
                    else v = r.callOp(n);
                    break;
                case NodeOp::Output: {
                    if (!n.args.empty()) {
                        Value out = r.toValue(n.args[0]);
                        if (out.kind == Value::Kind::List) res.outputs = out.items;
                        else res.outputs.push_back(out);
                    }
                    break;
                }
                default:
                    throw KernelError(std::string(nodeOpName(n.op)) + " nodes are not supported by the runtime");
            }
        } catch (const KernelError& e) {
            throw KernelError("node '" + n.name + "' (" + n.target + "): " + e.what());
        }
        if (n.op != NodeOp::Output) {
            r.acquire(v, isInput);
            r.env[static_cast<size_t>(n.id)] = std::move(v);
            r.have[static_cast<size_t>(n.id)] = 1;
        }
        res.liveBytesPerStep.push_back(r.live);
        if (r.live > res.peakBytes) {
            res.peakBytes = r.live;
            res.peakNode = n.name;
        }
        for (size_t j = dyingStart[k]; j < dyingStart[k + 1]; ++j) {
            const size_t i = static_cast<size_t>(dying[j]);
            if (!r.have[i]) continue;
            r.releaseValue(r.env[i]);
            r.env[i] = Value::none();
            r.have[i] = 0;
        }
        const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - n0).count();
        stepSeconds.push_back(dt);
        if (opts.progress) opts.progress(k + 1, order.size(), n);
    }
    res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::vector<size_t> steps(stepSeconds.size());
    for (size_t k = 0; k < steps.size(); ++k) steps[k] = k;
    const size_t top = std::min<size_t>(20, steps.size());
    std::partial_sort(steps.begin(), steps.begin() + static_cast<std::ptrdiff_t>(top), steps.end(), [&](size_t a, size_t b) {
        return stepSeconds[a] > stepSeconds[b] || (stepSeconds[a] == stepSeconds[b] && a < b);
    });
    for (size_t k = 0; k < top; ++k) res.slowest.push_back({g.node(order[steps[k]]).name, stepSeconds[steps[k]]});
    for (size_t k = 0; k < res.outputs.size(); ++k) res.outputNames.push_back("out_" + std::to_string(k));
    return res;
}

SafeTensorsFile resolveInputs(const Graph& g, const ExecOptions& opts, std::vector<std::string>* generated) {
    std::unique_ptr<Backend> own;
    Backend* backend = opts.backend;
    if (!backend) {
        own = makeCpuBackend(CpuBackendOptions{1});
        backend = own.get();
    }
    SafeTensorsFile f;
    const TensorIndex given(opts.inputs);
    uint64_t inputIndex = 0;  // counted as executeGraph counts: every placeholder, in order
    for (NodeId id : g.order()) {
        const Node& n = g.node(id);
        if (n.op != NodeOp::Placeholder) continue;
        const uint64_t index = inputIndex++;
        try {
            SafeTensor st;
            st.name = n.name;
            if (const SafeTensor* file = findInput(n, given)) {
                checkInputAgainstMeta(n, *file);
                st.dtype = file->dtype;
                st.shape = file->shape;
                st.data = file->data;
            } else {
                if (opts.requireAllInputs) throw KernelError("input '" + n.name + "' is missing from the inputs file");
                if (n.val.kind == ValueMeta::Kind::SymInt) continue;  // a scalar: not a tensor file entry
                const Value v = generateInput(n, opts.inputSeed, index, *backend);
                st.dtype = v.tensor.dtype();
                st.shape = v.tensor.sizes();
                st.data.resize(static_cast<size_t>(v.tensor.nbytes()));
                backend->download(st.data.data(), v.tensor, v.tensor.nbytes());
                if (generated) generated->push_back(n.name);
            }
            f.tensors.push_back(std::move(st));
        } catch (const KernelError& e) {
            throw KernelError("node '" + n.name + "' (" + n.target + "): " + e.what());
        }
    }
    return f;
}

SafeTensorsFile outputsToSafetensors(const ExecResult& r, Backend& backend) {
    SafeTensorsFile f;
    std::string skipped;
    for (size_t k = 0; k < r.outputs.size(); ++k) {
        const Value& v = r.outputs[k];
        const std::string name = k < r.outputNames.size() ? r.outputNames[k] : "out_" + std::to_string(k);
        if (!v.isTensor()) {
            skipped += (skipped.empty() ? "" : ",") + name;
            continue;
        }
        SafeTensor st;
        st.name = name;
        st.dtype = v.tensor.dtype();
        st.shape = v.tensor.sizes();
        st.data.resize(static_cast<size_t>(v.tensor.nbytes()));
        backend.download(st.data.data(), v.tensor, v.tensor.nbytes());
        f.tensors.push_back(std::move(st));
    }
    if (!skipped.empty()) f.metadata["skipped"] = skipped;
    return f;
}

}  // namespace fxl
