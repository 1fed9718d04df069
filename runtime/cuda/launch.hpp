// How a CUDA kernel of fxlens is written: its body is a __host__ __device__ function of its
// thread's coordinates (and its parameters, a plain struct), so that the same source runs on a
// GPU, launched by a thin __global__ wrapper (cuda_kernels.cu), and on the CPU, launched by the
// emulator (emulate.hpp) in the tests. A body touches only its parameters' memory and never
// synchronises; kernels that share memory between threads are written in phases (a later
// issue's tiled GEMM), each phase a body the emulator runs for every thread of a block before
// the next.
#pragma once

#include <cstdint>

#include "runtime/math/hostdev.hpp"

namespace fxl::cuda {

struct Dim3
{
    uint32_t x = 1, y = 1, z = 1;
};

// blockIdx, threadIdx, blockDim, gridDim of one thread
struct Coord
{
    Dim3 block, thread, blockDim, gridDim;
    // the thread's index along x over the whole grid, and the grid's thread count along x
    FXL_HD int64_t globalX() const { return static_cast<int64_t>(block.x) * blockDim.x + thread.x; }
    FXL_HD int64_t strideX() const { return static_cast<int64_t>(gridDim.x) * blockDim.x; }
};

// The geometry of a one-dimensional launch over n items: kThreads per block, at most kMaxBlocks
// blocks (a body walks its items with a grid stride, so every n is covered).
inline constexpr uint32_t kThreads = 256;
inline constexpr uint32_t kMaxBlocks = 4096;
FXL_HD inline Dim3 gridFor(int64_t n)
{
    const int64_t blocks = (n + kThreads - 1) / kThreads;
    return {static_cast<uint32_t>(blocks < 1 ? 1 : blocks > kMaxBlocks ? kMaxBlocks : blocks), 1, 1};
}

#if defined(__CUDACC__)
// The coordinates of the thread running a __global__ wrapper.
__device__ inline Coord coordHere()
{
    Coord c;
    c.block = {blockIdx.x, blockIdx.y, blockIdx.z};
    c.thread = {threadIdx.x, threadIdx.y, threadIdx.z};
    c.blockDim = {blockDim.x, blockDim.y, blockDim.z};
    c.gridDim = {gridDim.x, gridDim.y, gridDim.z};
    return c;
}
#endif

// Tensors up to this many dims (after merging) go to a kernel as sizes and strides by value.
inline constexpr int kMaxDims = 12;

}  // namespace fxl::cuda
