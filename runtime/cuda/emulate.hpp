// The CPU's launcher of CUDA kernel bodies (launch.hpp): every thread of every block, blocks in
// order, threads in order within a block (x fastest). Used by the emulated CUDA backend, which
// runs the CUDA kernels' own code on the CPU so that their indexing, tiling and ordering are
// tested without a GPU.
#pragma once

#include <memory>

#include "runtime/cuda/launch.hpp"

namespace fxl::cuda {

template<class Body>
void emulateLaunch(Dim3 grid, Dim3 block, Body&& body)
{
    Coord c;
    c.gridDim = grid;
    c.blockDim = block;
    for (c.block.z = 0; c.block.z < grid.z; ++c.block.z)
        for (c.block.y = 0; c.block.y < grid.y; ++c.block.y)
            for (c.block.x = 0; c.block.x < grid.x; ++c.block.x)
                for (c.thread.z = 0; c.thread.z < block.z; ++c.thread.z)
                    for (c.thread.y = 0; c.thread.y < block.y; ++c.thread.y)
                        for (c.thread.x = 0; c.thread.x < block.x; ++c.thread.x) body(c);
}

// A kernel in phases (a barrier between them on the GPU): for each block, phase by phase, every
// thread of the block; `Shared` is the block's shared memory, `Thread` a thread's registers kept
// from one phase to the next. body(coord, phase, shared, thread).
template<class Shared, class Thread, class Body>
void emulatePhasedLaunch(Dim3 grid, Dim3 block, int phases, Body&& body)
{
    const uint32_t threads = block.x * block.y * block.z;
    Coord c;
    c.gridDim = grid;
    c.blockDim = block;
    auto state = std::make_unique<Thread[]>(threads);
    auto shared = std::make_unique<Shared>();
    for (c.block.z = 0; c.block.z < grid.z; ++c.block.z)
        for (c.block.y = 0; c.block.y < grid.y; ++c.block.y)
            for (c.block.x = 0; c.block.x < grid.x; ++c.block.x)
                for (int phase = 0; phase < phases; ++phase) {
                    uint32_t t = 0;
                    for (c.thread.z = 0; c.thread.z < block.z; ++c.thread.z)
                        for (c.thread.y = 0; c.thread.y < block.y; ++c.thread.y)
                            for (c.thread.x = 0; c.thread.x < block.x; ++c.thread.x, ++t)
                                body(c, phase, *shared, state[t]);
                }
}

}  // namespace fxl::cuda
