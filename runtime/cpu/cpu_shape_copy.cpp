// The shape family's copies: cat, stack, repeat, flip, slice/select/as_strided_scatter,
// slice/select_backward, repeat_interleave, one_hot. Pure data movement (bitwise), except
// cat's dtype promotion, which converts like PyTorch's copy_. Each op allocates only its
// output, laid out as PyTorch lays it out (contiguous, or clone(preserve_format) for the
// *_scatter ops and flip).
#include "runtime/cpu/cpu_shape_copy.hpp"

#include <algorithm>
#include <cstring>

#include "runtime/cpu/cpu_elementwise.hpp"
#include "runtime/cpu/cpu_shape.hpp"

namespace fxl::cpu::shape {

namespace {

// 1.13's cat skips 1-d empty tensors ("legacy" [0]-shaped inputs) when checking shapes.
bool skippedInCat(const Tensor& t) { return t.dim() == 1 && t.numel() == 0; }

Tensor catTensors(const KernelCall& call, const std::vector<Tensor>& ts, int64_t dim)
{
    if (ts.empty()) throw KernelError("torch.cat(): expected a non-empty list of Tensors");
    DType dt = ts[0].dtype();
    for (const Tensor& t : ts) dt = promoteTypes(dt, t.dtype());
    const Tensor* ref = nullptr;
    for (const Tensor& t : ts)
        if (!skippedInCat(t)) {
            ref = &t;
            break;
        }
    if (!ref) return call.newTensor({0}, dt);
    if (ref->dim() == 0) throw KernelError("zero-dimensional tensor (at position 0) cannot be concatenated");
    const int64_t d = wrapDim(dim, ref->dim());
    std::vector<int64_t> sizes = ref->sizes();
    int64_t total = 0;
    bool allChannelsLast = ref->dim() == 4;
    for (size_t i = 0; i < ts.size(); ++i) {
        const Tensor& t = ts[i];
        if (skippedInCat(t)) continue;
        if (t.dim() != ref->dim())
            throw KernelError("Tensors must have same number of dimensions: got " + std::to_string(ref->dim()) + " and "
                              + std::to_string(t.dim()));
        for (int64_t k = 0; k < t.dim(); ++k) {
            if (k == d) continue;
            if (t.sizes()[static_cast<size_t>(k)] != sizes[static_cast<size_t>(k)])
                throw KernelError("Sizes of tensors must match except in dimension " + std::to_string(d)
                                  + ". Expected size " + std::to_string(sizes[static_cast<size_t>(k)])
                                  + " but got size " + std::to_string(t.sizes()[static_cast<size_t>(k)])
                                  + " for tensor number " + std::to_string(i) + " in the list.");
        }
        total += t.sizes()[static_cast<size_t>(d)];
        // suggest_memory_format: channels_last only when every input suggests it
        allChannelsLast = allChannelsLast && !t.isContiguous() && ew::isChannelsLastLayout(t.sizes(), t.strides());
    }
    sizes[static_cast<size_t>(d)] = total;
    Tensor out =
        allChannelsLast ? ew::allocStrided(call, sizes, ew::channelsLastStrides(sizes), dt) : call.newTensor(sizes, dt);
    int64_t at = 0;
    for (const Tensor& t : ts) {
        if (skippedInCat(t)) continue;
        const int64_t n = t.sizes()[static_cast<size_t>(d)];
        if (n > 0) copyInto(call, sliceView(out, d, at, at + n, 1), t);
        at += n;
    }
    return out;
}

void catKernel(KernelCall& call)
{
    call.result = Value::ofTensor(catTensors(call, tensorListArg(call, "tensors"), intArg(call, "dim")));
}

void stackKernel(KernelCall& call)
{
    const std::vector<Tensor> ts = tensorListArg(call, "tensors");
    if (ts.empty()) throw KernelError("stack expects a non-empty TensorList");
    const int64_t d = wrapDim(intArg(call, "dim"), ts[0].dim() + 1);
    for (size_t i = 1; i < ts.size(); ++i)
        if (ts[i].sizes() != ts[0].sizes())
            throw KernelError("stack expects each tensor to be equal size, but got " + shapeStr(ts[0].sizes())
                              + " at entry 0 and " + shapeStr(ts[i].sizes()) + " at entry " + std::to_string(i));
    std::vector<Tensor> parts;
    for (const Tensor& t : ts) parts.push_back(unsqueezeView(t, d));
    call.result = Value::ofTensor(catTensors(call, parts, d));
}

void repeatKernel(KernelCall& call)
{
    const Tensor& self = call.tensor("self");
    const std::vector<int64_t> reps = intListArg(call, "repeats");
    if (static_cast<int64_t>(reps.size()) < self.dim())
        throw KernelError("Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor");
    const size_t lead = reps.size() - static_cast<size_t>(self.dim());
    std::vector<int64_t> padSizes(lead, 1), padStrides(lead, 0);
    padSizes.insert(padSizes.end(), self.sizes().begin(), self.sizes().end());
    padStrides.insert(padStrides.end(), self.strides().begin(), self.strides().end());
    std::vector<int64_t> outSizes(reps.size());
    for (size_t k = 0; k < reps.size(); ++k) {
        if (reps[k] < 0)
            throw KernelError("Trying to create tensor with negative dimension " + std::to_string(reps[k]));
        outSizes[k] = padSizes[k] * reps[k];
    }
    Tensor out = call.newTensor(outSizes, self.dtype());
    if (out.numel() == 0) {
        call.result = Value::ofTensor(out);
        return;
    }
    // out viewed as [r0, s0, r1, s1, ...] receives self broadcast over the r dims
    std::vector<int64_t> vSizes, vStrides, sSizes, sStrides;
    const std::vector<int64_t> os = out.strides();
    for (size_t k = 0; k < reps.size(); ++k) {
        vSizes.push_back(reps[k]);
        vStrides.push_back(os[k] * padSizes[k]);
        vSizes.push_back(padSizes[k]);
        vStrides.push_back(os[k]);
        sSizes.push_back(reps[k]);
        sStrides.push_back(0);
        sSizes.push_back(padSizes[k]);
        sStrides.push_back(padStrides[k]);
    }
    copyInto(call, out.asStrided(vSizes, vStrides, 0), self.asStrided(sSizes, sStrides, self.offset()));
    call.result = Value::ofTensor(out);
}

// flip: empty_like(self, preserve_format) filled through a negative-stride view of self.
void flipKernel(KernelCall& call)
{
    const Tensor& self = call.tensor("self");
    std::vector<bool> flipped(self.sizes().size(), false);
    for (int64_t d : intListArg(call, "dims")) {
        const size_t w = static_cast<size_t>(wrapDim(d, self.dim()));
        if (flipped[w])
            throw KernelError("dims has duplicates, original flip dims size="
                              + std::to_string(intListArg(call, "dims").size()));
        flipped[w] = true;
    }
    Tensor out = ew::allocStrided(call, self.sizes(), ew::preserveStrides(self), self.dtype());
    if (self.numel() > 0) {
        std::vector<int64_t> st = self.strides();
        int64_t off = self.offset();
        for (size_t k = 0; k < st.size(); ++k)
            if (flipped[k]) {
                off += (self.sizes()[k] - 1) * st[k];
                st[k] = -st[k];
            }
        copyInto(call, out, self.asStrided(self.sizes(), st, off));
    }
    call.result = Value::ofTensor(out);
}

void checkSameSizes(const Tensor& part, const Tensor& src, const char* op)
{
    if (part.sizes() != src.sizes())
        throw KernelError(std::string(op) + ": expected src to have a size equal to the slice of self. src size = "
                          + shapeStr(src.sizes()) + ", slice size = " + shapeStr(part.sizes()));
}

void sliceScatterKernel(KernelCall& call)
{
    Tensor out = clonePreserve(call, call.tensor("self"));
    const Tensor part =
        sliceView(out, intArg(call, "dim"), optIntArg(call, "start"), optIntArg(call, "end"), intArg(call, "step"));
    checkSameSizes(part, call.tensor("src"), "slice_scatter");
    copyInto(call, part, call.tensor("src"));
    call.result = Value::ofTensor(out);
}

void selectScatterKernel(KernelCall& call)
{
    Tensor out = clonePreserve(call, call.tensor("self"));
    const Tensor part = selectView(out, intArg(call, "dim"), intArg(call, "index"));
    checkSameSizes(part, call.tensor("src"), "select_scatter");
    copyInto(call, part, call.tensor("src"));
    call.result = Value::ofTensor(out);
}

void asStridedScatterKernel(KernelCall& call)
{
    Tensor out = clonePreserve(call, call.tensor("self"));
    const std::vector<int64_t> sizes = intListArg(call, "size"), strides = intListArg(call, "stride");
    if (sizes.size() != strides.size())
        throw KernelError("as_strided_scatter: mismatch in length of strides and shape");
    Tensor part;
    try {
        part = out.asStrided(sizes, strides, optIntArg(call, "storage_offset").value_or(out.offset()));
    } catch (const std::out_of_range& e) {
        throw KernelError(std::string("as_strided_scatter: ") + e.what());
    }
    checkSameSizes(part, call.tensor("src"), "as_strided_scatter");
    copyInto(call, part, call.tensor("src"));
    call.result = Value::ofTensor(out);
}

void sliceBackwardKernel(KernelCall& call)
{
    const Tensor& g = call.tensor("grad_output");
    Tensor out = zeros(call, intListArg(call, "input_sizes"), g.dtype());
    const Tensor part =
        sliceView(out, intArg(call, "dim"), intArg(call, "start"), intArg(call, "end"), intArg(call, "step"));
    checkSameSizes(part, g, "slice_backward");
    copyInto(call, part, g);
    call.result = Value::ofTensor(out);
}

void selectBackwardKernel(KernelCall& call)
{
    const Tensor& g = call.tensor("grad_output");
    Tensor out = zeros(call, intListArg(call, "input_sizes"), g.dtype());
    const Tensor part = selectView(out, intArg(call, "dim"), intArg(call, "index"));
    checkSameSizes(part, g, "select_backward");
    copyInto(call, part, g);
    call.result = Value::ofTensor(out);
}

// repeat_interleave.Tensor(repeats): [0]*r0 + [1]*r1 + ... in the dtype of repeats; the
// output size comes from the data (output_size, when given, must agree).
void repeatInterleaveKernel(KernelCall& call)
{
    const Tensor& rep = call.tensor("repeats");
    if (rep.dim() != 1) throw KernelError("repeat_interleave only accept 1D vector as repeat");
    if (!isIndexDType(rep.dtype())) throw KernelError("repeats has to be Long or Int tensor");
    const std::vector<int64_t> r = indexValues(rep, "repeat_interleave");
    int64_t total = 0;
    for (int64_t x : r) {
        if (x < 0) throw KernelError("repeats can not be negative");
        total += x;
    }
    if (auto os = optIntArg(call, "output_size"); os && *os != total)
        throw KernelError("repeat_interleave: output_size " + std::to_string(*os) + " differs from the sum of repeats "
                          + std::to_string(total));
    // the values made here (their count comes from the data), then one upload
    std::vector<int64_t> wide;
    std::vector<int32_t> narrow;
    for (size_t i = 0; i < r.size(); ++i)
        for (int64_t j = 0; j < r[i]; ++j) {
            if (rep.dtype() == DType::I64)
                wide.push_back(static_cast<int64_t>(i));
            else
                narrow.push_back(static_cast<int32_t>(i));
        }
    const void* host = rep.dtype() == DType::I64 ? static_cast<const void*>(wide.data()) : narrow.data();
    call.result = Value::ofTensor(ew::tensorFromHost(call, {total}, rep.dtype(), host));
}

void oneHotKernel(KernelCall& call)
{
    const Tensor& self = call.tensor("self");
    if (self.dtype() != DType::I64) throw KernelError("one_hot is only applicable to index tensor.");
    int64_t classes = intArg(call, "num_classes");
    const std::vector<int64_t> v = indexValues(self, "one_hot");
    std::vector<int64_t> sizes = self.sizes();
    if (v.empty()) {
        if (classes <= 0) throw KernelError("Can not infer total number of classes from empty tensor.");
        sizes.push_back(classes);
        call.result = Value::ofTensor(call.newTensor(sizes, DType::I64));
        return;
    }
    const int64_t lo = *std::min_element(v.begin(), v.end()), hi = *std::max_element(v.begin(), v.end());
    if (lo < 0) throw KernelError("Class values must be non-negative.");
    if (classes == -1)
        classes = hi + 1;
    else if (hi >= classes)
        throw KernelError("Class values must be smaller than num_classes.");
    sizes.push_back(classes);
    std::vector<int64_t> host(v.size() * static_cast<size_t>(classes), 0);
    for (size_t i = 0; i < v.size(); ++i) host[i * static_cast<size_t>(classes) + static_cast<size_t>(v[i])] = 1;
    call.result = Value::ofTensor(ew::tensorFromHost(call, sizes, DType::I64, host.data()));
}

}  // namespace

void registerCopyKernels(KernelRegistry& reg, DeviceKind d)
{
    reg.add("aten.cat.default", d, catKernel);
    reg.add("aten.stack.default", d, stackKernel);
    reg.add("aten.repeat.default", d, repeatKernel);
    reg.add("aten.flip.default", d, flipKernel);
    reg.add("aten.slice_scatter.default", d, sliceScatterKernel);
    reg.add("aten.select_scatter.default", d, selectScatterKernel);
    reg.add("aten.as_strided_scatter.default", d, asStridedScatterKernel);
    reg.add("aten.slice_backward.default", d, sliceBackwardKernel);
    reg.add("aten.select_backward.default", d, selectBackwardKernel);
    reg.add("aten.repeat_interleave.Tensor", d, repeatInterleaveKernel);
    reg.add("aten.one_hot.default", d, oneHotKernel);
}

}  // namespace fxl::cpu::shape
