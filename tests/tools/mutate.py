#!/usr/bin/env python3
"""A small mutation trial: plausible bugs put into the code one at a time, the tests that must
catch each one run, every file restored. A mutant is killed when one of its tests fails.

    python3 tests/tools/mutate.py [--build BUILD_DIR] [--only NAME ...] [--list]

Each mutant replaces one exact text (which must occur once in its file) and names the tests
that must fail: "EXE TEST [FUNCTION]" as the combined test executables take them
(build/tests/fxlens_tests_app test_cli_states bufferOnlyDifferenceFailsCheck). The build
directory is rebuilt with ninja after each change and after the restore. Exit code 0 when
every mutant is killed, 1 when one survives, 2 for a mutant whose text is not found (the code
moved: update the list) or that does not compile (a mutant must be a program the tests run).
"""

import argparse
import os
import subprocess
import sys
import time

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

# (name, file, text, replacement, tests)
MUTANTS = [
    ("a 9-byte LONG1 read as wider", "core/formats/pickle/pickle_reader.cpp",
     "if (used == 9 && !negative && p[8] == 0) {", "if (false) {",
     ["core test_pickle_reader integers"]),
    ("GLOBAL not refused by name", "core/formats/pickle/pickle_reader.cpp",
     "                if (!allowed_) refuse(op, at);\n                const std::string module = line(at), name = line(at);",
     "                if (!allowed_) fail(at, \"opcode 0x63 is not read\");\n"
     "                const std::string module = line(at), name = line(at);",
     ["core test_pickle_reader refusals"]),
    # torch.export archives (issue 29)
    ("a stored entry's CRC not checked", "core/formats/zip/zip_archive.cpp",
     "if (e.stored && e.crc != 0) {", "if (false) {", ["core test_pt2 malformed"]),
    ("$type unions not read", "core/formats/pt2/exported_program.cpp",
     "if (const auto t = u.find(\"$type\"); t != u.end()) {", "if (const auto t = u.find(\"$type\"); false) {",
     ["core test_pt2 mlpJointEveryLayout"]),
    ("keyword arguments passed by position", "core/formats/pt2/exported_program.cpp",
     "bool keyword = kind == 2;", "bool keyword = false;", ["core test_pt2 mlpJointEveryLayout"]),
    ("raw weights ignore their offset", "core/formats/pt2/pt2_archive.cpp",
     "w.meta->storageOffset.isConcrete() ? w.meta->storageOffset.valueOrHint() : 0", "0",
     ["core test_pt2 tiedWeights", "app test_cli_pt2 checkAgainstPyTorch"]),
    ("a weights pickle may name any global", "core/formats/pickle/pickle_reader.cpp",
     "for (const std::string& n : allowed_->names) ok = ok || n == full;", "ok = true;",
     ["core test_pt2 malformed"]),
    ("parameters stay inputs", "core/formats/pt2/exported_program.cpp",
     "n.op = NodeOp::GetAttr;  // described still", "n.op = NodeOp::Placeholder;  // described still",
     ["app test_cli_pt2 checkAgainstPyTorch"]),
    ("a multi-output op's results shifted", "core/formats/pt2/exported_program.cpp",
     "gi.args = {Arg::ofNode(id), Arg::ofInt(static_cast<int64_t>(j))};",
     "gi.args = {Arg::ofNode(id), Arg::ofInt(static_cast<int64_t>(names.size() - 1 - j))};",
     ["app test_cli_pt2 checkAgainstPyTorch"]),
    ("srepr products read as sums", "core/formats/pt2/exported_program.cpp",
     "if (name == \"Mul\") return joined(\"*\");", "if (name == \"Mul\") return joined(\" + \");",
     ["core test_pt2 sympyRepr"]),
    ("schema 1 parameters read as user inputs", "core/formats/pt2/exported_program.cpp",
     "for (const auto& [name, target] : toParam) s.inputs.push_back({\"parameter\", name, target, true, false});",
     "(void)toParam;", ["app test_cli_pt2 checkAgainstPyTorch"]),
    ("a pool's envelope follows its live bytes only", "core/analysis/snapshot_timeline.cpp",
     "growEnvelope(p, std::max(p.active, p.reserved));", "growEnvelope(p, p.active);",
     ["core test_snapshot_timeline memoryVizCases", "app test_cli_mem_snapshot privatePools"]),
    ("pool segment events ignored", "core/analysis/snapshot_timeline.cpp",
     "                if (se.pool == key) bytes -= se.delta;", "                (void)se;",
     ["core test_snapshot_timeline memoryVizCases"]),
    ("the with form traces after the step", "python/fxlens_capture.py",
     "                v.copy_(self._state[k])", "                pass",
     ["app test_capture withFormAsTheFunctionForm"]),
    ("free_requested frees", "core/analysis/snapshot_timeline.cpp",
     "return e.action == TraceAction::FreeCompleted ||",
     "return e.action == TraceAction::FreeRequested || e.action == TraceAction::FreeCompleted ||",
     ["core test_snapshot_timeline stepByHand"]),
    ("bands slide down in one step", "core/analysis/snapshot_timeline.cpp",
     "                advance(3);", "                advance(1);",
     ["core test_snapshot_timeline memoryVizCases"]),
    ("overlay matches nothing by order", "core/analysis/snapshot_overlay.cpp",
     "o.elementNode[i] = storageNodes[next++];", "next++;",
     ["app test_cli_mem_snapshot overlay"]),
    ("executor reports no frees", "runtime/exec/executor.cpp",
     "if (opts.onStorage && s->nbytes() > 0) storageEvent(false, *s);", "(void)0;",
     ["app test_cli_mem_snapshot runWritesASnapshot"]),
    ("fast mode runs the bitwise GEMM", "runtime/cuda/cuda_backend.cpp",
     "        if (fast_)\n            device_->fastGemm(p);", "        if (false)\n            device_->fastGemm(p);",
     ["app test_cli_device_runs fastModeIsLabelled"]),
    ("check ignores write counts", "runtime/check/graph_check.cpp",
     "d.writesB = ib == b.end() ? 0 : ib->second.writes;", "d.writesB = d.writesA;",
     ["app test_cli_states bufferOnlyDifferenceFailsCheck"]),
    ("verdict ignores states", "runtime/check/equivalence.cpp",
     """    for (const auto& s : states)
        if (!s.bitwiseEqual()) return false;
    return true;""", "    return true;",
     ["app test_cli_states bufferOnlyDifferenceFailsCheck"]),
    ("executor records no writes", "runtime/exec/executor.cpp",
     "if (!np.writes.empty() && !inputStorages.empty()) noteWrites(f, n, np);",
     "if (false) noteWrites(f, n, np);",
     ["app test_cli_states runWritesStatesBesideOutputs"]),
    ("within tolerance says bitwise equal", "runtime/check/equivalence.cpp",
     """    case Verdict::WithinTolerance:
        return "within tolerance (atol \"""", """    case Verdict::WithinTolerance:
        return "bitwise equal"; return "within tolerance (atol \"""",
     ["app test_cli_run checkDynamoGraphAgainstPytorch"]),
    ("compareTensors skips the last element", "runtime/check/equivalence.cpp",
     "for (int64_t k = 0; k < d.numel; ++k) {", "for (int64_t k = 0; k + 1 < d.numel; ++k) {",
     ["runtime test_equivalence"]),
    ("timeline ignores keyword uses", "core/analysis/memory_timeline_builder.cpp",
     "forEachInput(n, [&](NodeId in) { touch(valueOf(in), step); });",
     "for (const auto& a : n.args) a.forEachNode([&](NodeId in) { touch(valueOf(in), step); });",
     ["core test_memory_timeline keywordTensorLivesToItsUse"]),
    ("batch norm in training writes nothing", "core/ops/op_writes.cpp",
     "if (!when || when->isNone() || (when->kind == Arg::Kind::Bool && !when->b)) break;",
     "if (when || !when) break;",
     ["core test_op_writes written"]),
    ("partition moves a read past its write", "passes/partition_classify.cpp",
     "    keepReadsBeforeWritesForward(g, c);\n", "    if (false) keepReadsBeforeWritesForward(g, c);\n",
     ["app test_cli_models everyModel:gru_steps"]),
    ("remat recomputes a read before a write", "passes/remat.cpp",
     "if (static_cast<size_t>(id) < early.size() && early[static_cast<size_t>(id)]",
     "if (false && static_cast<size_t>(id) < early.size() && early[static_cast<size_t>(id)]",
     ["passes test_remat rematKeepsReadsBeforeWrites"]),
    ("remat recomputes unknown operators", "passes/node_kinds.cpp",
     "if (!op) return Unreplayable::Unknown;", "if (!op) return Unreplayable::None;",
     ["passes test_remat rematKeepsUnknownOpsSaved"]),
    ("saved values lose their strides", "runtime/check/graph_check.cpp",
     "                bwValues.push_back(v);",
     # as a file would hand it over: a contiguous copy in a storage of its own
     "                { Tensor c = backend.empty(v.tensor.sizes(), v.tensor.dtype()); backend.copy(c, v.tensor); "
     "bwValues.push_back(Value::ofTensor(c)); }",
     ["app test_cli_states partitionKeepsSavedStrides"]),
    ("in-place variant does not write self", "runtime/base/kernel.cpp", "            copy(w);\n", "            (void)copy;\n",
     ["runtime test_elementwise matchesPyTorch:aten.sigmoid_.default"]),
    ("run panel summary ignores states", "viewer/jobs/run_jobs.cpp",
     "for (const StateDiff& d : report.states) statesDiffer += d.bitwiseEqual() ? 0 : 1;",
     "for (const StateDiff& d : report.states) statesDiffer += d.bitwiseEqual() ? 0 : 0;",
     ["gui test_window_actions runPanelSeesBufferUpdates"]),
    ("staleness ignores the backward", "viewer/jobs/run_jobs.cpp",
     "if (!bw || bw->contentHash != r.subjectBackwardHash)", "if (!bw)",
     ["viewer test_view_jobs checkRequestsAndStaleness"]),
    # eager chunking: the labels are proven, the reference refuses what it cannot compute
    ("every label proven", "runtime/check/float64_proof.cpp",
     "p.proven = d64.bitwiseEqual || p.diff64 <= kOrderProofShrink * p.diff32;", "p.proven = true;",
     ["app test_cli_check_chunks dropoutValuesDiffer"]),
    ("proof bound without its margin", "runtime/check/float64_proof.cpp",
     "p.diff64 <= kOrderProofShrink * p.diff32;", "p.diff64 <= p.diff32;",
     ["runtime test_equivalence orderProof"]),
    ("the float64 run keeps float32 inputs", "runtime/check/float64_proof.cpp",
     "bool widens(DType t) { return t == DType::F32 || t == DType::BF16 || t == DType::F16; }",
     "bool widens(DType t) { return t == DType::BF16 || t == DType::F16; }",
     ["app test_cli_check_chunks labelsProvenInFloat64"]),
    ("a partial sum plus a whole value accepted", "runtime/check/eager_chunking_function.cpp",
     "            if (other == kNoNode) return ChunkKind::Partial;\n            const std::string on",
     "            if (other == kNoNode || otherKind != ChunkKind::Axis) return ChunkKind::Partial;\n"
     "            const std::string on",
     ["app test_cli_check_chunks referenceRefuses", "runtime test_eager_chunking refusesWholeAxis"]),
    ("batch statistics accepted by the reference", "runtime/check/eager_chunking_function.cpp",
     "        if (!boolArg(n, 5, \"training\", false)) return std::nullopt;",
     "        if (boolArg(n, 5, \"training\", false) || true) return std::nullopt;",
     ["runtime test_eager_chunking refusesWholeAxis"]),
    ("a whole-only live-out summed", "runtime/check/eager_chunking.cpp",
     "if (!act_[static_cast<size_t>(id)] || (kind != kinds.end() && kind->second == ChunkKind::Free)) {",
     "if (!act_[static_cast<size_t>(id)]) {",
     ["runtime test_eager_chunking wholeLiveOutTakenOnce"]),
    ("pass chains a split live-in's mutation", "passes/chunk_region_rewrite.cpp",
     "                        || pieces.count(o.args[i].node))\n", "                        || false)\n",
     ["app test_cli_check_chunks chunkRegionOnModels:lstm_lm"]),
    ("pass convolves any dim", "passes/chunk_axes.cpp",
     "            if (!inLeading(1)) return mixed(n, \"convolves over the chunk axis (it is not the batch dim)\");\n"
     "            return same([](int dd) { return dd; });",
     "            return all(n, AxisInfo::partial());",
     ["app test_cli_check_chunks chunkRegionOnModels:gn_resnet"]),
    ("timeline ignores decompositions", "core/analysis/memory_timeline_builder.cpp",
     "        if (!body) return decompositionPeak(n);", "        if (!body) return 0;",
     ["runtime test_custom_ops decompositionPeakMatchesRun"]),
    ("a built-in's declaration replaces its kernel", "runtime/base/kernel.cpp",
     "    return op.tsvLine == 0 || !KernelRegistry::instance().find(op.qualifiedName, device);",
     "    (void)device;\n    return true;",
     ["app test_cli_mistakes builtinWithoutKernelDeclared"]),
    ("built-ins cannot be declared", "core/ops/op_registry.cpp",
     "        if (old.tsvLine > 0) {", "        if (old.tsvLine > 0) { throw std::invalid_argument(\"built-in\");",
     ["app test_cli_mistakes builtinWithoutKernelDeclared"]),
    ("no symbol fallback", "app/cli_run.cpp",
     "        if (!hinted.count(sym)) m.fallbacks[sym] = kSymbolFallback;", "        (void)sym;",
     ["app test_cli_run constantsAndSymbolsNotInTheFile"]),
    # issue 27: NaN bits
    ("float stores keep a NaN's sign", "runtime/cpu/cpu_elementwise.hpp",
     "    static float store(float v) { return math::canonical(v); }", "    static float store(float v) { return v; }",
     ["runtime test_nan_bits everyKernelWritesTheCanonicalNan"]),
    ("file NaNs not made canonical", "runtime/exec/executor_inputs.cpp",
     "    if (hasOtherNans(st.data.data(), st.dtype, t.numel())) {", "    if (false) {",
     ["app test_cli_nan runWritesTheCanonicalNan"]),
    ("NaN payloads counted as NaN mismatches", "runtime/check/equivalence.cpp",
     "            ++(both ? d.nanPayloadOnly : d.nanMismatch);", "            ++d.nanMismatch;",
     ["runtime test_equivalence nanPayloadsApart", "app test_cli_nan checkReportsNanPayloadsApart"]),
    ("an overflowed float sum kept", "runtime/cpu/cpu_reduction.cpp",
     "                    if (!std::isfinite(s)) {", "                    if (false) {",
     ["runtime test_differential cases"]),
    # issue 27 section 3: the executor's per-node cost
    ("a learnt view used for any input layout", "runtime/exec/executor.cpp",
     "if (self.isTensor() && self.tensor.sameLayout(memo->input)", "if (self.isTensor()",
     ["runtime test_graph_runner otherInputLayoutRunsTheKernels"]),
    ("the storage table's deletion breaks probe chains", "runtime/exec/storage_table.hpp",
     "if (i <= j ? (i < k && k <= j) : (i < k || k <= j)) continue;",
     "if (i <= j ? (i < k && k <= j) : (i < k || k <= j)) break;",
     ["runtime test_storage_table matchesAMap"]),
    ("a new tensor contiguous whatever its strides", "runtime/cpu/cpu_elementwise.cpp",
     "        contiguous = strides[k] == expect;", "        contiguous = true;",
     ["runtime test_shape"]),
    ("getitem's planned index taken from the end", "runtime/exec/executor.cpp",
     "const int64_t k = np.itemIndex < 0 ? np.itemIndex + size : np.itemIndex;",
     "const int64_t k = size - 1 - np.itemIndex;",
     ["runtime test_graph_runner runsRepeatExecuteGraph", "runtime test_executor matchesPyTorch"]),
    # issue 27 section 1: the formulas in runtime/math/
    ("the block's lane tree summed left to right", "runtime/math/sum_order.hpp",
     "    return ((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7]));",
     "    return ((((((l[0] + l[1]) + l[2]) + l[3]) + l[4]) + l[5]) + l[6]) + l[7];",
     ["runtime test_reduction_invariance"]),
    ("addmm's bias not scaled by beta", "runtime/math/gemm_chain.hpp",
     "            const T bv = scaleBias ? beta * bias : bias;", "            const T bv = bias;",
     ["runtime test_matmul"]),
    ("floor division of integers truncates", "runtime/math/arith.hpp",
     "    return (r != 0 && ((a < 0) != (b < 0))) ? static_cast<T>(q - 1) : q;",
     "    return (r != 0 && ((a < 0) != (b < 0))) ? q : q;",
     ["runtime test_elementwise", "runtime test_differential"]),
    ("lerp one-sided", "runtime/math/arith.hpp",
     "    return math::fabs(w) < C(0.5) ? a + w * (b - a) : b - (b - a) * (C(1) - w);",
     "    return a + w * (b - a);",
     ["runtime test_elementwise", "runtime test_differential"]),
    ("grid reflection ignores the parity", "runtime/math/windows.hpp",
     "    return even ? extra + mn : span - extra + mn;", "    return even ? extra + mn : extra + mn;",
     ["runtime test_conv_pool"]),
    ("layer norm's input gradient never redone wide", "runtime/math/rows.hpp",
     "            finite = finite && isFinite(g[j]);", "            (void)0;",
     ["runtime test_differential"]),
    ("sort puts NaN first ascending", "runtime/math/accumulate.hpp",
     "            return descending ? nx : ny;", "            return nx;",
     ["runtime test_shape"]),
    # issue 28: the CUDA kernels, through the emulator
    ("the GEMM kernel's slice skips its last k", "runtime/cuda/gemm_kernel.hpp",
     "    for (int s = 0; s < count; ++s) acc = math::gemm::chainStep(sh.a[tr][s], sh.b[s][tc], acc);",
     "    for (int s = 0; s + 1 < count; ++s) acc = math::gemm::chainStep(sh.a[tr][s], sh.b[s][tc], acc);",
     ["runtime test_cuda_emulated gemmAsTheCpu"]),
    ("the GEMM kernel never redoes a chain wide", "runtime/cuda/gemm_kernel.hpp",
     "            if (math::gemm::needsWideChain(v)) {", "            if (false) {",
     ["runtime test_cuda_emulated gemmAsTheCpu"]),
    ("the strided copy ignores the source offset", "runtime/cuda/copy_kernel.hpp",
     "        int64_t rest = i, d = p.dstOffset, s = p.srcOffset;", "        int64_t rest = i, d = p.dstOffset, s = 0;",
     ["runtime test_cuda_emulated copiesAsTheCpu"]),
    ("the pointwise kernel merges dims with the wrong stride", "runtime/cuda/cuda_backend.cpp",
     "            for (size_t k = 0; k < loop.nOps; ++k) p.strides[k][nd - 1] = loop.ops[k]->strides()[d] * loop.itemBytes[k];",
     "            (void)0;",
     ["runtime test_cuda_kernels sameAsCpu"]),
    ("the row sum never redoes a float sum wide", "runtime/cuda/row_sum_kernel.hpp",
     "            if (math::isNan(s) || math::isInf(s)) {", "            if (false) {",
     ["runtime test_cuda_kernels sameAsCpu"]),
    ("the softmax kernel loads the backward's output as the gradient", "runtime/cuda/rows_kernel.hpp",
     "            for (int64_t j = 0; j < p.n; ++j) w[j] = rowsLoad<A>(p.inElem, p.in[1], off[1] + j * p.colStride[1]);",
     "            for (int64_t j = 0; j < p.n; ++j) w[j] = rowsLoad<A>(p.inElem, p.in[0], off[0] + j * p.colStride[0]);",
     ["runtime test_cuda_kernels sameAsCpu"]),
    ("the gather kernel does not wrap negative indices", "runtime/cuda/gather_kernel.hpp",
     "            if (v < 0 && p.wrapNegative && v >= -p.idxSize[k]) v += p.idxSize[k];", "            (void)0;",
     ["runtime test_cuda_kernels sameAsCpu"]),
    ("the nll fold ignores the class weights", "runtime/cuda/nll_kernel.hpp",
     "        const A weightSum = math::sum::sumOrdered<A>(p.rows, [&](int64_t i) { return weights[i]; });",
     "        const A weightSum = static_cast<A>(p.rows);",
     ["runtime test_cuda_kernels sameAsCpu"]),
    ("the segment sum drops a segment's last row", "runtime/cuda/segment_sum_kernel.hpp",
     "        const int64_t start = p.segStart[s], count = p.segStart[s + 1] - start;",
     "        const int64_t start = p.segStart[s], count = p.segStart[s + 1] - start - (p.segStart[s + 1] > start ? 1 : 0);",
     ["app test_cli_device_runs corpusGraphsAcrossDevices"]),
    ("the layer norm kernel never redoes its moments wide", "runtime/cuda/layer_norm_kernel.hpp",
     "            if (!lnFinite(mean) || !lnFinite(var)) {  // the moments in double, rounded once",
     "            if (false) {",
     ["runtime test_cuda_kernels sameAsCpu"]),
    ("the layer norm kernel's bias gradient skips the last row", "runtime/cuda/layer_norm_kernel.hpp",
     "            A s = math::sum::sumOrdered<A>(p.rows, [&](int64_t i) { return rowsLoad<A>(p.elem, p.dy, gAt(i)); });",
     "            A s = math::sum::sumOrdered<A>(p.rows - 1, [&](int64_t i) { return rowsLoad<A>(p.elem, p.dy, gAt(i)); });",
     ["runtime test_cuda_kernels sameAsCpu"]),
    ("the device matmul canonicalises NaN in its epilogue", "runtime/base/pointwise_fn.hpp",
     "        const Slot out = math::kIsReduced<OutS> ? numSlot<OutS>() : Slot::Raw;",
     "        const Slot out = numSlot<OutS>();",
     ["runtime test_cuda_kernels sameAsCpu"]),
    ("the device's bf16 store truncates", "runtime/base/pointwise_fn.hpp",
     "            writeAs<uint16_t>(p, math::f32ToBf16(v));",
     "            writeAs<uint16_t>(p, static_cast<uint16_t>(math::bitsOf(v) >> 16));",
     ["runtime test_cuda_kernels sameAsCpu"]),
    ("the device's cast converts to the source dtype", "runtime/base/pointwise_fn.hpp",
     "            withStorage(to, [&](auto d) {", "            withStorage(from, [&](auto d) {",
     ["runtime test_cuda_kernels sameAsCpu"]),
    ("the conv input gradient sums its taps in reverse", "runtime/cuda/conv_kernel.hpp",
     "    for (int64_t kp = 0; kp < g.kSp; ++kp) {", "    for (int64_t kp = g.kSp - 1; kp >= 0; --kp) {",
     ["runtime test_cuda_kernels sameAsCpu"]),
    ("the batch norm kernel's running variance is biased", "runtime/cuda/batch_norm_kernel.hpp",
     "math::rows::runningUpdate(rv[c], math::rows::unbiasedVariance(var, M), mom);",
     "math::rows::runningUpdate(rv[c], var, mom);",
     ["runtime test_cuda_kernels sameAsCpu"]),
    ("the pooling backward drops each plane's first output", "runtime/cuda/plane_kernel.hpp",
     "    for (int64_t o = 0; o < g.outSp; ++o) rp[ip[o]] += gp[o];",
     "    for (int64_t o = 1; o < g.outSp; ++o) rp[ip[o]] += gp[o];",
     ["runtime test_cuda_kernels sameAsCpu"]),
    ("the group norm's input gradient ignores the weight", "runtime/cuda/group_norm_kernel.hpp",
     "return w ? v * w[c0 + j / p.HW] : v;", "return v;",
     ["runtime test_cuda_kernels sameAsCpu"]),
    ("integer division checks no tensor divisor", "runtime/cpu/cpu_elementwise_binary.cpp",
     "                if (v == 0) throw KernelError(message);", "                if (false) throw KernelError(message);",
     ["runtime test_cuda_kernels integerDivisionByZero"]),
]


def run(cmd, env=None, timeout=1800):
    t0 = time.time()
    p = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout + p.stderr, time.time() - t0


def test_command(build, spec):
    parts = spec.split()
    exe, test = parts[0], parts[1]
    cmd = [os.path.join(build, "tests", "fxlens_tests_" + exe), test]
    if len(parts) > 2:
        cmd.append(parts[2])
    return cmd


def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args(argv[1:])
    mutants = [m for m in MUTANTS if not a.only or m[0] in a.only]
    if a.list:
        for m in mutants:
            print("%s: %s; tests: %s" % (m[0], m[1], ", ".join(m[4])))
        return 0
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    for name, path, text, repl, _ in mutants:
        src = open(os.path.join(ROOT, path)).read()
        if src.count(text) != 1:
            print("mutant '%s': its text occurs %d times in %s" % (name, src.count(text), path))
            return 2
    killed = invalid = 0
    for name, path, text, repl, tests in mutants:
        full = os.path.join(ROOT, path)
        original = open(full).read()
        try:
            with open(full, "w") as f:
                f.write(original.replace(text, repl))
            rc, out, secs = run(["ninja", "-C", a.build])
            if rc != 0:
                # a mutant the compiler rejects proves nothing about the tests: fix the mutant
                print("INVALID  %s (it does not build: %s)" % (name, out.strip().splitlines()[-1][:200]))
                invalid += 1
                continue
            failing = []
            for spec in tests:
                rc, out, _ = run(test_command(a.build, spec), env=env)
                if rc != 0:
                    failing.append(spec)
            if failing:
                killed += 1
                print("KILLED   %s (by %s)" % (name, ", ".join(failing)))
            else:
                print("SURVIVED %s (%s passed)" % (name, ", ".join(tests)))
        finally:
            with open(full, "w") as f:
                f.write(original)
    rc, out, _ = run(["ninja", "-C", a.build])
    if rc != 0:
        print("the restored tree does not build:\n" + out[-2000:])
        return 2
    print("%d of %d mutants killed%s" % (killed, len(mutants), ", %d invalid" % invalid if invalid else ""))
    if invalid:
        return 2
    return 0 if killed == len(mutants) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
