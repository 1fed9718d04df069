// What the executor tests share: running a graph on given inputs with its outputs downloaded.
// Header-only; each test executable includes it once.
#pragma once

#include <cstdint>

#include "core/formats/safetensors.hpp"
#include "core/ir/graph.hpp"
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

}  // namespace graphtest
