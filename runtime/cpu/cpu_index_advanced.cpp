#include "runtime/cpu/cpu_index_advanced.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "runtime/cpu/cpu_elementwise.hpp"
#include "runtime/cpu/cpu_shape.hpp"

namespace fxl::cpu::shape {

namespace {

// nonzero(mask): one int64 vector per mask dim.
void maskCoordinates(const KernelCall& call, const Tensor& mask, std::vector<Tensor>& coords)
{
    // the mask's values read in host memory (any device), row-major; the coordinates uploaded
    std::vector<std::vector<int64_t>> perDim(static_cast<size_t>(mask.dim()));
    const std::vector<unsigned char> values = ew::hostBytes(mask);
    forEachIndex(mask.sizes(), [&](const int64_t* i, int64_t flat) {
        if (values[static_cast<size_t>(flat)] != 0)
            for (size_t j = 0; j < perDim.size(); ++j) perDim[j].push_back(i[j]);
    });
    for (auto& c : perDim)
        coords.push_back(ew::tensorFromHost(call, {static_cast<int64_t>(c.size())}, DType::I64, c.data()));
}

// One index tensor (or undefined) per dim of self: masks replaced by their coordinates (kept
// alive in `owned`), missing trailing dims undefined.
std::vector<Tensor> indicesPerDim(const KernelCall& call, const Tensor& self, const std::vector<Tensor>& given,
                                  const char* op, std::vector<Tensor>& owned)
{
    std::vector<Tensor> indices;
    for (const Tensor& t : given) {
        if (!t.defined()) {
            indices.emplace_back();
            continue;
        }
        if (t.dtype() == DType::Bool || t.dtype() == DType::U8) {
            if (t.dim() == 0) throw KernelError(std::string(op) + ": 0-dim boolean indices are not supported");
            const int64_t at = static_cast<int64_t>(indices.size());
            if (at + t.dim() > self.dim())
                throw KernelError("too many indices for tensor of dimension " + std::to_string(self.dim()) + " (got "
                                  + std::to_string(at + t.dim()) + ")");
            for (int64_t j = 0; j < t.dim(); ++j)
                if (t.sizes()[static_cast<size_t>(j)] != self.sizes()[static_cast<size_t>(at + j)])
                    throw KernelError("The shape of the mask " + shapeStr(t.sizes()) + " at index " + std::to_string(j)
                                      + " does not match the shape of the indexed tensor " + shapeStr(self.sizes())
                                      + " at index " + std::to_string(at + j));
            std::vector<Tensor> coords;
            maskCoordinates(call, t, coords);
            for (Tensor& c : coords) {
                owned.push_back(c);
                indices.push_back(c);
            }
        } else if (t.dtype() == DType::I64 || t.dtype() == DType::I32) {
            indices.push_back(t);
        } else {
            throw KernelError("tensors used as indices must be long, int, byte or bool tensors");
        }
    }
    if (static_cast<int64_t>(indices.size()) > self.dim())
        throw KernelError("too many indices for tensor of dimension " + std::to_string(self.dim()) + " (got "
                          + std::to_string(indices.size()) + ")");
    while (static_cast<int64_t>(indices.size()) < self.dim()) indices.emplace_back();
    return indices;
}

// transposeToFront: when the indexed dims are not one run, the indexed dims (in order) then
// the others. Returns self permuted as a view; reorders `indices` alike and sets `dimOf` to
// the original dim of each entry.
Tensor moveIndexedDimsToFront(const Tensor& self, std::vector<Tensor>& indices, std::vector<int64_t>& dimOf)
{
    dimOf.resize(indices.size());
    for (size_t k = 0; k < indices.size(); ++k) dimOf[k] = static_cast<int64_t>(k);
    int first = -1, last = -1;
    for (size_t k = 0; k < indices.size(); ++k)
        if (indices[k].defined()) {
            if (first < 0) first = static_cast<int>(k);
            last = static_cast<int>(k);
        }
    bool contiguousRun = true;
    for (int k = first; k >= 0 && k <= last; ++k)
        if (!indices[static_cast<size_t>(k)].defined()) contiguousRun = false;
    if (contiguousRun) return self;
    std::vector<size_t> order;
    for (size_t k = 0; k < indices.size(); ++k)
        if (indices[k].defined()) order.push_back(k);
    for (size_t k = 0; k < indices.size(); ++k)
        if (!indices[k].defined()) order.push_back(k);
    std::vector<int64_t> sizes, strides, dims;
    std::vector<Tensor> reordered;
    for (size_t k : order) {
        sizes.push_back(self.sizes()[k]);
        strides.push_back(self.strides()[k]);
        reordered.push_back(indices[k]);
        dims.push_back(static_cast<int64_t>(k));
    }
    indices = reordered;
    dimOf = dims;
    return self.asStrided(sizes, strides, self.offset());
}

// The shape the defined index tensors broadcast to.
std::vector<int64_t> broadcastIndexShape(const std::vector<Tensor>& indices)
{
    std::vector<int64_t> shape;
    bool anyDefined = false;
    for (const Tensor& t : indices) {
        if (!t.defined()) continue;
        if (!anyDefined) {
            shape = t.sizes();
            anyDefined = true;
            continue;
        }
        try {
            shape = broadcastShapes(shape, t.sizes());
        } catch (const KernelError&) {
            std::string shapes;
            for (const Tensor& u : indices)
                if (u.defined()) shapes += (shapes.empty() ? "" : ", ") + shapeStr(u.sizes());
            throw KernelError("shape mismatch: indexing tensors could not be broadcast together with shapes " + shapes);
        }
    }
    return shape;
}

}  // namespace

AdvancedIndex makeAdvancedIndex(const KernelCall& call, const Tensor& self, const std::vector<Tensor>& given,
                                const char* op)
{
    AdvancedIndex a;
    std::vector<Tensor> indices = indicesPerDim(call, self, given, op, a.owned);
    std::vector<int64_t> dimOf;  // original dim of each (reordered) entry
    const Tensor src = moveIndexedDimsToFront(self, indices, dimOf);
    const std::vector<int64_t> indexShape = broadcastIndexShape(indices);

    // dims before the indexed run, the run, dims after it
    int64_t before = 0, after = 0, indexed = 0;
    std::vector<int64_t> indexedSizes;
    for (size_t k = 0; k < indices.size(); ++k) {
        if (!indices[k].defined())
            (indexed == 0 ? before : after)++;
        else {
            ++indexed;
            indexedSizes.push_back(src.sizes()[k]);
        }
    }
    if (std::find(indexedSizes.begin(), indexedSizes.end(), 0) != indexedSizes.end()
        && std::find(indexShape.begin(), indexShape.end(), 0) == indexShape.end())
        throw KernelError("index is out of bounds for dimension with size 0");

    // the iteration: the base's dims with the indexed run replaced by the index shape
    IndexPlan& plan = a.plan;
    plan.op = op;
    plan.wrapNegative = true;
    std::vector<int64_t> baseStrides;
    for (int64_t k = 0; k < before; ++k) {
        plan.shape.push_back(src.sizes()[static_cast<size_t>(k)]);
        baseStrides.push_back(src.strides()[static_cast<size_t>(k)]);
    }
    for (int64_t s : indexShape) {
        plan.shape.push_back(s);
        baseStrides.push_back(0);
    }
    for (int64_t k = before + indexed; k < src.dim(); ++k) {
        plan.shape.push_back(src.sizes()[static_cast<size_t>(k)]);
        baseStrides.push_back(src.strides()[static_cast<size_t>(k)]);
    }
    plan.base = baseOperand(src, baseStrides);
    a.src = src.asStrided(plan.shape, baseStrides, src.offset());
    for (size_t k = 0; k < indices.size(); ++k) {
        const Tensor& t = indices[k];
        if (!t.defined()) continue;
        // [1]*before + broadcast(t) + [1]*after
        Tensor expanded = expandTo(t, indexShape);
        std::vector<int64_t> sizes(static_cast<size_t>(before), 1), strides(static_cast<size_t>(before), 0);
        sizes.insert(sizes.end(), expanded.sizes().begin(), expanded.sizes().end());
        strides.insert(strides.end(), expanded.strides().begin(), expanded.strides().end());
        for (int64_t j = 0; j < after; ++j) {
            sizes.push_back(1);
            strides.push_back(0);
        }
        Tensor reshaped = expanded.asStrided(sizes, strides, expanded.offset());
        a.reshaped.push_back(reshaped);
        IndexOperand ix;
        ix.op = iterOperandOf(reshaped, plan.shape);
        ix.size = src.sizes()[k];
        ix.stride = src.strides()[k];
        ix.dim = dimOf[k];
        plan.idx.push_back(ix);
    }
    return a;
}

}  // namespace fxl::cpu::shape
