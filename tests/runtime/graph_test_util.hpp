// What the executor tests share: f32 inputs and reading outputs back, running a graph on given
// inputs with its outputs downloaded.
// Header-only; each test executable includes it once.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "core/formats/safetensors.hpp"
#include "core/ir/graph.hpp"
#include "runtime/base/backend.hpp"
#include "runtime/cpu/cpu_backend.hpp"
#include "runtime/exec/executor.hpp"

namespace graphtest {

inline fxl::SafeTensor f32Tensor(const std::string& name, std::vector<int64_t> shape, const std::vector<float>& v)
{
    fxl::SafeTensor t;
    t.name = name;
    t.dtype = fxl::DType::F32;
    t.shape = std::move(shape);
    t.data.resize(v.size() * sizeof(float));
    std::memcpy(t.data.data(), v.data(), t.data.size());
    return t;
}

template<class T = float>
std::vector<T> valuesOf(const fxl::SafeTensor& t)
{
    std::vector<T> v(t.data.size() / sizeof(T));
    std::memcpy(v.data(), t.data.data(), t.data.size());
    return v;
}
inline std::vector<float> floatsOf(const fxl::SafeTensor& t) { return valuesOf<float>(t); }

struct Run
{
    fxl::ExecResult result;
    fxl::SafeTensorsFile outputs;
};

// Every placeholder from `inputs` (requireAllInputs); outputs as out_0, out_1, ...
inline Run runGraph(const fxl::Graph& g, const fxl::SafeTensorsFile& inputs, fxl::Backend& backend,
                    int64_t maxLoopIterations = 1000000)
{
    fxl::ExecOptions opts;
    opts.backend = &backend;
    opts.inputs = &inputs;
    opts.requireAllInputs = true;
    opts.maxLoopIterations = maxLoopIterations;
    Run r;
    r.result = fxl::executeGraph(g, opts);
    r.outputs = fxl::outputsToSafetensors(r.result, backend);
    return r;
}

// The outputs of a run on a CPU backend of `threads` threads, every placeholder from `inputs`,
// get_attr tensors from `constants`: one item per output, nullopt for one that is not a tensor.
inline std::vector<std::optional<fxl::SafeTensor>> outputItems(const fxl::Graph& g, const fxl::SafeTensorsFile& inputs,
                                                               const fxl::SafeTensorsFile& constants, int threads)
{
    auto backend = fxl::makeCpuBackend(fxl::CpuBackendOptions{threads});
    fxl::ExecOptions o;
    o.backend = backend.get();
    o.inputs = &inputs;
    o.constants = &constants;
    o.requireAllInputs = true;
    fxl::ExecResult r = fxl::executeGraph(g, o);
    std::vector<std::optional<fxl::SafeTensor>> items;
    for (const fxl::Value& v : r.outputs) {
        if (!v.isTensor()) {
            items.emplace_back(std::nullopt);
            continue;
        }
        fxl::SafeTensor st;
        st.dtype = v.tensor.dtype();
        st.shape = v.tensor.sizes();
        st.data.resize(static_cast<size_t>(v.tensor.nbytes()));
        backend->download(st.data.data(), v.tensor, v.tensor.nbytes());
        items.emplace_back(std::move(st));
    }
    return items;
}

}  // namespace graphtest
