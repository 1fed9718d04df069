#!/usr/bin/env python3
"""Times the corpus train-step graphs in PyTorch's CPU eager mode: the reference for
bench_train_step (issue 4: whole train steps no slower than PyTorch's CPU eager).

    torch_eager_step.py [--corpus DIR] [--reps N] [--threads 2,1] [--json OUT] [CASE...]

CASE is a corpus/pytorch name (default: gpt2_tiny llama_tiny); its NAME.joint.code.py is
run exactly as tests/python/run_fx_graph.py runs a graph (the gm.code text exec'd in FX's
namespace, constants from NAME.joint.constants.safetensors, placeholders from
NAME.inputs.safetensors, forward under torch.no_grad()), with torch.set_num_threads(T).
One call = one whole train step (forward + backward of the joint graph). Reported: the
best of N calls after 3 warm-up calls, the median, and the best process CPU time of a call
(all threads; on a loaded machine the 1-thread CPU time is the steadier number). --json writes the numbers for
`bench_train_step --torch OUT` to print the ratio.

Needs a python with torch (Debian's python3-torch 1.13: /usr/bin/python3).
"""

import argparse
import json
import os
import platform
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))

import torch  # noqa: E402
import run_fx_graph as rfg  # noqa: E402


def load_step(corpus, case):
    graph = os.path.join(corpus, case + ".joint.code.py")
    with open(graph, "r", encoding="utf-8") as f:
        text = f.read()
    cls_name = rfg.top_level_class(text)
    if cls_name is None:
        text, cls_name = rfg.gm_code_module(text)
    ns = rfg.namespace()
    exec(compile(text, graph, "exec"), ns)
    mod = rfg.instantiate(ns[cls_name])
    constants = os.path.join(corpus, case + ".joint.constants.safetensors")
    if os.path.exists(constants):
        for k, v in rfg.read_safetensors(constants).items():
            rfg.set_constant(mod, k, v)
    inputs = rfg.read_safetensors(os.path.join(corpus, case + ".inputs.safetensors"))
    import inspect

    call = [inputs[p.name] for p in inspect.signature(mod.forward).parameters.values()]
    return mod, call


def time_step(mod, call, reps):
    with torch.no_grad():
        for _ in range(3):
            mod(*call)
        times, cpu = [], []
        for _ in range(reps):
            c0 = time.process_time()
            t0 = time.perf_counter()
            mod(*call)
            times.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
    return min(times), statistics.median(times), min(cpu)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("cases", nargs="*", default=["gpt2_tiny", "llama_tiny"])
    corpus = os.environ.get("FXLENS_CORPUS_DIR") or os.path.join(HERE, "../../../shared/corpus")
    ap.add_argument("--corpus", default=os.path.join(corpus, "pytorch"))
    ap.add_argument("--reps", type=int, default=50)
    ap.add_argument("--threads", default="2,1")
    ap.add_argument("--json")
    args = ap.parse_args(argv)

    results = []
    print("torch %s, %s, load average %s" % (torch.__version__, platform.platform(),
                                             " ".join("%.2f" % x for x in os.getloadavg())))
    for case in args.cases:
        mod, call = load_step(args.corpus, case)
        for t in [int(x) for x in args.threads.split(",")]:
            torch.set_num_threads(t)
            best, med, cpu = time_step(mod, call, args.reps)
            results.append({"case": case, "threads": t, "best_s": best, "median_s": med, "best_cpu_s": cpu,
                            "reps": args.reps})
            print("%-12s %d thread%s  best %8.3f ms  median %8.3f ms  best CPU time %8.3f ms  (of %d)" %
                  (case, t, "" if t == 1 else "s", best * 1e3, med * 1e3, cpu * 1e3, args.reps))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"torch": torch.__version__, "loadavg": os.getloadavg(), "results": results}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
