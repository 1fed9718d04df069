// What the executor tests share: running a graph on given inputs with its outputs downloaded.
// Header-only; each test executable includes it once.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "core/formats/safetensors.hpp"
#include "core/ir/graph.hpp"
#include "runtime/backend.hpp"
#include "runtime/executor.hpp"

namespace graphtest {

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
