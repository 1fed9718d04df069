// Sums of source rows by destination segment, in index order, as a backend receives them:
// out[s, j] = S over i < count_s of (scale_s *) src[rowOffsets[members[segStart[s] + i]] +
// j * colStride], in math/sum_order.hpp's order, in the accumulation type of src's dtype,
// rounded once (scale_s = math::loss::embeddingFreqScale(count_s) when byFreq). The host sorts
// the rows by destination (no atomics on values); embedding backward is one such sum
// (Backend::segmentSum).
#pragma once

#include <cstdint>
#include <vector>

namespace fxl {

class Tensor;

struct SegmentSumLoop
{
    const Tensor* src = nullptr;
    std::vector<int64_t> rowOffsets;  // element offset of each source row from src's element [0, ...]
    int64_t cols = 0, colStride = 0;
    std::vector<int64_t> segStart;  // segments + 1 entries
    std::vector<int64_t> members;  // source rows, segment after segment, each in index order
    bool byFreq = false;
    const Tensor* out = nullptr;  // contiguous [segments, cols], src's dtype
};

}  // namespace fxl
