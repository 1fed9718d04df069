#include "app/cli.hpp"

#include <exception>
#include <iomanip>
#include <ostream>
#include <sstream>

#include "app/cli_common.hpp"
#include "app/cli_convert.hpp"
#include "app/cli_devices.hpp"
#include "app/cli_diff.hpp"
#include "app/cli_info.hpp"
#include "app/cli_mem.hpp"
#include "app/cli_passes.hpp"
#include "app/cli_render.hpp"
#include "app/cli_report.hpp"
#include "app/cli_run.hpp"
#include "core/ir/diagnostics.hpp"

#ifndef FXLENS_VERSION
#define FXLENS_VERSION "0.1.0"
#endif

namespace fxl::cli {

namespace {

// Options every verb understands.
const std::vector<OptionSpec>& commonOptions()
{
    static const std::vector<OptionSpec> opts = {
        {"json", 0, "", "machine output: one JSON document on stdout"},
        {"verbose", 0, "", "print every diagnostic (repeated ones are folded by default)"},
        {"help", 'h', "", "show this help"},
    };
    return opts;
}

const OptionSpec* findOption(const Verb& v, const std::string& longName, char shortName)
{
    auto match = [&](const OptionSpec& o) {
        return longName.empty() ? (shortName != 0 && o.shortName == shortName) : o.name == longName;
    };
    for (const auto& o : v.options)
        if (match(o)) return &o;
    for (const auto& o : commonOptions())
        if (match(o)) return &o;
    return nullptr;
}

void printOptionList(const std::vector<OptionSpec>& opts, std::ostream& out)
{
    for (const auto& o : opts) {
        std::string left = "  ";
        left += o.shortName ? std::string("-") + o.shortName + ", " : "    ";
        left += "--" + o.name;
        if (!o.valueName.empty()) left += " " + o.valueName;
        out << std::left << std::setw(26) << left;
        if (left.size() >= 26) out << "\n" << std::string(26, ' ');
        out << o.help << "\n";
    }
}

// One function per verb: its name, help texts, options and entry point.
Verb infoVerb()
{
    return {"info",
            "summarize graphs and logs: origin, node counts, ops, parameter and activation bytes",
            "fxlens info [options] FILE...",
            "For every FILE (FX code, graph listing, fxlens JSON, TORCH_TRACE log or directory of\n"
            "logs, tlparse output folder) print its format and, for logs, ranks, compile ids,\n"
            "artifact counts and MD5 failures; then for each graph its origin, node counts, the\n"
            "operator histogram, parameter bytes (and the rule used to find parameters),\n"
            "activation bytes (tensor outputs of call_function nodes, views excluded), unknown\n"
            "operators and verifier problems.\n"
            "A workspace (NAME.fxlens, saved by the window) lists its sources with their pipeline,\n"
            "steps and runs, the sources changed on disk since it was saved, the saved pipelines and\n"
            "the view the window reopens on (--json: under \"workspaces\").",
            {
                {"graph", 'g', "ID", "only the graph with this artifact id (see the ids listed)", true},
                {"top", 0, "N", "operators shown in the histogram (default 10)"},
                {"all-ops", 0, "", "show every operator in the histogram"},
            },
            1,
            -1,
            &runInfo};
}

Verb convertVerb()
{
    return {"convert",
            "write a graph as fxlens JSON or as print_readable() Python text",
            "fxlens convert [options] FILE --to json|py [-o OUT]",
            "Convert one graph of FILE. A file with several graphs needs --graph ID. Output goes to\n"
            "stdout unless -o is given; -o writes atomically and never replaces an existing file\n"
            "unless --force is given. The constants the graph reads with get_attr (from --constants,\n"
            "else embedded in FILE, else FILE's STEM.constants.safetensors, as for fxlens run) go with\n"
            "it: JSON embeds them; with --to py they are written beside OUT as\n"
            "OUT-STEM.constants.safetensors, where every verb finds them. A graph whose constants\n"
            "cannot be found is still converted, with a warning.",
            {
                {"graph", 'g', "ID", "the graph to convert (artifact id, see fxlens info)"},
                {"to", 't', "FORMAT", "json (fxlens JSON) or py (print_readable text)"},
                {"output", 'o', "OUT", "write to OUT instead of stdout"},
                {"constants", 'c', "C", "safetensors file of the graph's get_attr constants"},
                {"force", 'f', "", "replace OUT (and its constants file) if it exists"},
            },
            1,
            1,
            &runConvert};
}

Verb passesVerb()
{
    return {"passes",
            "list the graph passes, or run a pipeline of them and write every step",
            "fxlens passes list [--json]\n"
            "       fxlens passes run [options] FILE --pipeline SPEC [--out DIR]",
            "'passes list' shows every registered pass with its options (name, type, default,\n"
            "choices). 'passes run' runs a pipeline on one graph of FILE, e.g.\n"
            "  --pipeline 'remove_detach,sac(policy=alternate_mm),remat,dce'\n"
            "(options in parentheses, ',' between options, ';' between the items of a list), checks\n"
            "every step with the verifier, and prints per step the pass, its wall time, the node\n"
            "count, the changes (+added -removed ~rewired, tags set), the verifier status and the\n"
            "pass's notes. Exit code 1 when a pass fails (its stage is named) or the verifier\n"
            "finds errors; 2 for a bad spec (the column is shown).\n"
            "--out DIR writes each step's graph as NN_<pass>.py (00_input.py for the input;\n"
            "NN_<pass>.<role>.py when a step holds several graphs, e.g. forward and backward after\n"
            "partition) in print_readable form that PyTorch can exec, beside each one the constants\n"
            "it reads with get_attr (NN_<pass>.constants.safetensors, taken from the input's: from\n"
            "--constants, else embedded in FILE, else FILE's STEM.constants.safetensors), so that\n"
            "every step runs on its own (fxlens run, fxlens check), NN_<pass>.changes.json (the\n"
            "change log), summary.json and summary.txt. DIR must be empty or absent unless --force\n"
            "(which replaces files of the same names and leaves others alone).",
            {
                {"graph", 'g', "ID", "the graph to transform (artifact id, see fxlens info)"},
                {"pipeline", 'p', "SPEC", "the passes to run, in order"},
                {"constants", 'c', "C", "safetensors file of the input graph's get_attr constants"},
                {"out", 'o', "DIR", "write every step's files into DIR"},
                {"force", 'f', "", "write into a non-empty DIR, replacing files of the same names"},
            },
            0,
            2,
            &runPasses};
}

Verb diffVerb()
{
    return {"diff",
            "compare two graphs node by node (added, removed, changed, rewired)",
            "fxlens diff [options] A B",
            "Diff graph B against graph A (typically one graph before and after a pass, e.g. two\n"
            "files written by 'fxlens passes run --out'). Nodes are matched by provenance, then by\n"
            "name, then by structure, so renamed copies pair up. The text form is a unified diff\n"
            "of print_readable lines: ' ' unchanged, '-' removed, '+' added, '~' changed (with the\n"
            "changed fields). The exit code is 0 whether or not the graphs differ (1 only for\n"
            "input errors): read 'identical' or the counts from --json to test for a difference.",
            {
                {"graph-a", 0, "ID", "the graph of A to compare (when A holds several)"},
                {"graph-b", 0, "ID", "the graph of B to compare (when B holds several)"},
                {"context", 'C', "N", "unchanged lines shown around each change (default 3)"},
                {"all", 0, "", "show every node; list unchanged ones (--json); count vals gained as changes"},
                {"ignore", 0, "FIELDS",
                 "leave fields out of the comparison, comma-separated: val, device, module_path, source, ...", true},
            },
            2,
            2,
            &runDiff};
}

Verb memVerb()
{
    return {"mem",
            "memory timeline: peak live bytes, the node at the peak, activations saved for backward",
            "fxlens mem [options] FILE|SNAPSHOT.pickle",
            "Estimate the memory of running one graph of FILE in its node order: every tensor's\n"
            "allocation and free (views share their base's storage), the peak of live bytes and the\n"
            "storages live at it, and the bytes of forward values kept for the backward. Sizes come\n"
            "from tensor meta (a .meta.json beside a corpus file, annotations in print_readable\n"
            "text); tensors of unknown size count 0 bytes and are reported. The rules are listed in\n"
            "docs/memory.md (section 2). The first output line is the summary.\n"
            "A CUDA memory snapshot (torch.cuda.memory._dump_snapshot: a pickle, read without\n"
            "Python, refusing anything that is not plain data) gets, per device, its segments, the\n"
            "active memory timeline by memory_viz's rules (--segments: the cached segment\n"
            "timeline), the peak with the allocations live there and their stacks (FX node names\n"
            "where the frames carry them), and the largest allocations; --csv writes one row per\n"
            "allocation. Rules: docs/memory.md (section 5).",
            {
                {"graph", 'g', "ID", "the graph to analyze (artifact id, see fxlens info)"},
                {"csv", 0, "OUT", "write the per-node timeline as CSV to OUT ('-' = stdout, summary to stderr)"},
                {"force", 'f', "", "replace the --csv file if it exists"},
                {"no-inputs", 0, "", "do not count placeholder and get_attr tensors (parameters, inputs)"},
                {"no-phase", 0, "", "ignore recorded forward/backward phase meta; infer it from data flow"},
                {"forward-outputs", 0, "N",
                 "the graph is a forward partition (no backward nodes) returning N user outputs; the rest are saved "
                 "values"},
                {"device", 'd', "N", "a snapshot: only CUDA device N"},
                {"snapshot", 0, "SNAP",
                 "a CUDA memory snapshot of a run of this graph, laid over its estimate: allocations matched to "
                 "nodes (fx_node_name, else allocation order), the match rate, both peaks, the nodes that differ"},
                {"segments", 0, "", "a snapshot: the cached segment timeline instead of the active memory one"},
                {"private-pools", 0, "",
                 "a snapshot: memory_viz's view incl. private pools (CUDA graphs, MemPool): each pool one envelope as "
                 "high as its reserved bytes, its allocations inside"},
                {"top", 0, "N", "a snapshot: how many allocations to list (default 5)"},
                {"compare", 0, "B",
                 "a snapshot: compare with snapshot B (peaks; per FX node or allocation site, bytes allocated and "
                 "live at the peak)"},
            },
            1,
            1,
            &runMem};
}

Verb runVerb()
{
    return {"run",
            "execute a graph on the CPU reference backend: outputs, checksums, peak memory, time",
            "fxlens run [options] FILE",
            "Run one graph of FILE with the deterministic CPU backend. Placeholders are read from\n"
            "--inputs by name; without it from the graph file's corpus sidecar NAME.inputs.safetensors\n"
            "when there is one (said in the output); placeholders not found are generated from their\n"
            "meta (normal(0,1) floats, ints in [0, 16)) with --seed. get_attr constants come from\n"
            "--constants, else from the graph file itself (fxlens JSON embeds them), else from\n"
            "STEM.constants.safetensors beside it (STEM: FILE's name less .code.py or its extension,\n"
            "as 'passes run --out' and 'convert --to py' write it); with --seed, those no file has\n"
            "are generated from their meta and listed. A size symbol without a hint (s0) takes\n"
            "--symbols s0=N, else the fallback 8 (said in the output). Prints the measured peak of live\n"
            "bytes next to the memory timeline's estimate (fxlens mem), the run time, the slowest\n"
            "nodes and per output its node, dtype, shape, a checksum of its bytes (FNV-1a 64) and\n"
            "min/max/mean. --device cuda:N runs it on a GPU with the CPU's bits; --fast instead puts\n"
            "its matrix products on tensor cores through cuBLAS (TF32 for f32), labelled in every\n"
            "output as not comparable bitwise (JSON: fast, comparable_bitwise). --out writes the outputs (out_0, "
            "out_1, ... as PyTorch's\n"
            "NAME.outputs.safetensors; Python numbers as 0-dim tensors, None left out) atomically,\n"
            "never replacing an existing file unless --force. --repeat N runs the graph N times as a\n"
            "training loop runs its step (planned once; the metadata-only views of later runs given\n"
            "from the layouts the first run learnt), prints the first, best and median time, and\n"
            "checks that every run gives the first run's bytes (outputs, written states, peak).\n"
            "Exit code 1 when an input is bad, a node cannot run (the node is named) or a repeated\n"
            "run differs from the first.",
            {
                {"graph", 'g', "ID", "the graph to run (artifact id, see fxlens info)"},
                {"inputs", 'i', "X", "safetensors file of placeholder values, keyed by placeholder name"},
                {"constants", 'c', "C", "safetensors file of get_attr constants, keyed by attribute name"},
                {"seed", 0, "N",
                 "seed of generated inputs and random ops (default 0); given, it also generates the get_attr "
                 "constants no file has (listed)"},
                {"symbols", 0, "S=N,...", "values of size symbols the graph gives no hint for (s0=8,u0=3)"},
                {"threads", 'j', "N",
                 "worker threads (default: 2 when large kernels carry the work, else 1; results never depend on it)"},
                {"device", 'd', "DEV",
                 "where the graph runs: cpu (default, the reference), cuda:N, or cuda-emu:N (the CUDA kernels' "
                 "code run by the CPU: no GPU needed)"},
                {"fast", 0, "",
                 "with a CUDA device: matrix products on tensor cores through cuBLAS (TF32 for f32); labelled, not "
                 "comparable bitwise"},
                {"out", 'o', "Y", "write the outputs to the safetensors file Y"},
                {"force", 'f', "", "replace Y (and the --memory-snapshot file) if it exists"},
                {"memory-snapshot", 0, "FILE",
                 "write the run's allocations as a CUDA memory snapshot (torch.cuda.memory._dump_snapshot's format, "
                 "FX node names in the frames): fxlens mem and memory_viz read it"},
                {"repeat", 0, "N",
                 "run N times (1 to 100000), planned once: times, and every run checked equal to the first"},
            },
            1,
            1,
            &runExec};
}

Verb renderVerb()
{
    return {"render",
            "draw the graph view (groups, stubs, colours of the window) to an SVG or PNG file",
            "fxlens render [options] FILE --out X.svg|X.png",
            "Draw one graph of FILE as the viewer shows it, without a display: grouped by phase\n"
            "(inputs, forward, loss, backward) and module path, groups collapsed unless --expand\n"
            "names them, levels with more than 200 children split into ranges, and every edge that\n"
            "leaves its group, spans more than 3 layers or goes from the forward to the backward\n"
            "cut into stubs that name the other end. Nodes are coloured by phase, with a stripe for\n"
            "their operator class; groups show their node count and how many siblings share their\n"
            "structure. Layout: Graphviz dot per expanded group (a layered layout above 300 items).",
            {
                {"graph", 'g', "ID", "the graph to draw (artifact id, see fxlens info)"},
                {"out", 'o', "X", "the file to write: X.svg or X.png"},
                {"expand", 'e', "PATH", "expand a group (forward/blocks.0, or blocks.0 when unique; all)", true},
                {"group", 0, "MODE", "phase,module (default) or none (every node shown)"},
                {"select", 0, "NAME", "expand the groups down to this node and mark it"},
                {"trace", 0, "DIR", "with --select: highlight its upstream or downstream cone (up, down)"},
                {"fold", 0, "", "fold runs of identical sibling groups into one box (blocks.0 … blocks.195)"},
                {"dark", 0, "", "the dark theme"},
                {"legend", 0, "", "add the legend of colours at the top right"},
                {"scale", 0, "S", "PNG pixels per point (default 1)"},
                {"force", 'f', "", "replace --out if it exists"},
            },
            1,
            1,
            &runRender};
}

Verb checkVerb()
{
    return {"check",
            "run two graphs on identical inputs (or one against expected outputs) and compare bitwise",
            "fxlens check [options] A B",
            "Run graph A and either graph B on the very same input tensors (A's inputs: --inputs,\n"
            "else A's sidecar, else generated with --seed; B's placeholders are matched by name,\n"
            "those not found are generated and listed) or, when B ends in .safetensors, compare A's\n"
            "outputs with that file of expected outputs (out_0, out_1, ... as written by fxlens run\n"
            "--out or PyTorch's NAME.outputs.safetensors), by name. Each graph's constants come from\n"
            "--constants-a / --constants-b, else from the graph file itself (fxlens JSON), else from\n"
            "its STEM.constants.safetensors (as for fxlens run). Graph outputs are paired by\n"
            "position, except when the two output lists are\n"
            "a reordering or a subset of one another identified by their (unique) output node\n"
            "names: then by name (the pairs are listed). Per output: bitwise equal, or how many\n"
            "elements differ, max abs/rel/ULP difference, sign flips, NaN and signed-zero\n"
            "differences, and the first differing element. Exit code 0 only when every output is\n"
            "bitwise equal, or within --tolerance when one is given (|a-b| <= atol + rtol*|b|,\n"
            "integers exact, infinities and NaN only matching themselves); 1 otherwise (and on\n"
            "input errors).\n"
            "A partition is checked against its joint: when B is NAME.forward.* with a\n"
            "NAME.backward.* beside it (what partition writes), or is that backward, or --backward\n"
            "names the backward, the forward runs on A's inputs, the backward on the forward's saved\n"
            "values (by name), A's tangents and ones for a loss seed, and A's outputs are compared\n"
            "with the forward's user outputs followed by the backward's gradients.\n"
            "--localize (B a graph, not a partition) says where two runs diverge: every node the\n"
            "two graphs share (paired as fxlens diff pairs them: provenance, name, structure; a\n"
            "recomputed copy with its original) has its value compared as B computes it, and the\n"
            "first node of B in execution order whose value differs is named with its counterpart\n"
            "in A, its max ULP distance and first differing element, and whether all its inputs\n"
            "were compared equal (then the difference starts there); then the counts and the\n"
            "nodes with the largest differences. A's values are kept on the host while B runs.\n"
            "--fast runs the sides on CUDA devices in fast mode (see fxlens run): not comparable\n"
            "bitwise, so it needs --tolerance, and the output says which side ran fast.\n"
            "--against eager-chunking --chunks SPEC checks a chunked graph A (CHUNKED) against its\n"
            "unchunked original B (ORIGINAL): B runs as eager module-level chunking would run it\n"
            "(each selected region once per chunk on slices of its live-ins, live-outs concatenated\n"
            "along the chunk dim or summed in chunk order; the whole train step with a mean loss\n"
            "as gradient accumulation, weighted n_k/N), and B runs unchunked. Per output, by\n"
            "position: how the reference combined it, A against the reference and against the\n"
            "unchunked run (bitwise, or differing elements and max ULP); where the reference and\n"
            "the unchunked run differ, both are re-run in float64 and the label is 'reduction\n"
            "order' only when the float64 difference is at most 2^-16 of the float32 one, else\n"
            "'values differ' with the first region live-out where they part; the reference refuses\n"
            "a region that needs the whole chunk axis (batch statistics, a softmax or cumsum along\n"
            "it) or would count a partial sum once per chunk, naming the node; the chunk pass's 'formula' note\n"
            "for an output that differs from the reference; then the estimated and measured peaks\n"
            "of A and B and their ratio. Exit code 0 only when every output of A is bitwise equal\n"
            "to the reference; 1 otherwise.",
            {
                {"graph-a", 0, "ID", "the graph of A (when A holds several)"},
                {"graph-b", 0, "ID", "the graph of B (when B holds several)"},
                {"inputs", 'i', "X", "safetensors file of A's placeholder values"},
                {"constants-a", 0, "C", "safetensors file of A's get_attr constants"},
                {"constants-b", 0, "C", "safetensors file of B's get_attr constants"},
                {"backward", 0, "G", "B is a partition's forward and G its backward: run both, compare with A"},
                {"localize", 0, "", "compare every shared node's value and name the first that differs"},
                {"device", 'd', "DEV", "where both graphs run: cpu (default), cuda:N or cuda-emu:N (see fxlens run)"},
                {"device-a", 0, "DEV", "where A runs (default: --device)"},
                {"device-b", 0, "DEV", "where B runs (default: --device)"},
                {"fast", 0, "",
                 "the CUDA sides' matrix products on tensor cores (cuBLAS, TF32 for f32): not comparable bitwise, "
                 "needs --tolerance"},
                {"against", 0, "MODE", "original (default: B's own run) or eager-chunking (A chunked from B)"},
                {"chunks", 0, "SPEC", "with eager-chunking: regions=P;P,dim=batch|seq,chunks=N,split=..."},
                {"tolerance", 't', "ATOL,RTOL",
                 "accept differences within atol + rtol*|expected| (both numbers: 1e-6,1e-5; 1e-6,0)"},
                {"seed", 0, "N",
                 "seed of generated inputs and random ops (default 0); given, it also generates the get_attr "
                 "constants no file has (listed; the same values on both sides)"},
                {"symbols", 0, "S=N,...", "values of size symbols A gives no hint for (s0=8,u0=3), for both sides"},
                {"threads", 'j', "N",
                 "worker threads (default: 2 when large kernels carry the work, else 1; results never depend on it)"},
            },
            2,
            2,
            &runCheck};
}

Verb reportVerb()
{
    return {"report",
            "run a pipeline and write one self-contained HTML page of its steps (for a pull request)",
            "fxlens report [options] FILE --pipeline SPEC --out REPORT.html",
            "Run a pipeline of passes on one graph of FILE (as 'fxlens passes run' does) and write\n"
            "one HTML page with everything inline (no script, no external file; images as data:\n"
            "URIs), to paste into or attach to a pull request: the source, the spec and the command\n"
            "that makes the steps again; the step table of the window's pass stepper (per step the\n"
            "nodes added, removed and changed and the edges rewired, as 'fxlens diff' counts them\n"
            "against the step before, the verifier, the pass time, the memory peak as 'fxlens mem'\n"
            "estimates it and its change); then per step the pass's notes, the first changes, the\n"
            "unified diff (folded, cut past 192 KiB), and the memory timeline drawn with the step\n"
            "before overlaid. A partition step shows its forward and its backward graph.\n"
            "--check runs every step against the step before on identical inputs (the graph's\n"
            "NAME.inputs.safetensors, else generated with --seed) on the CPU reference backend (or\n"
            "on --device: both steps of each check there, named in the report) and adds per step\n"
            "the equivalence table (per output: bitwise or not, max abs, max ULP,\n"
            "differing elements, the first difference) and the first node whose value differs. The\n"
            "graphs of a partition are checked against their joint with 'fxlens check' instead.\n"
            "A pass that fails ends the run: the report is still written, with the steps made and\n"
            "the failed step's error. REPORT.html is written atomically and never replaced unless\n"
            "--force. Exit code 0 when every pass ran, the verifier found no errors and (with\n"
            "--check) every step is bitwise equal to the step before; 1 otherwise or on input\n"
            "errors; 2 for a bad spec (the column is shown) or command line.",
            {
                {"graph", 'g', "ID", "the graph to transform (artifact id, see fxlens info)"},
                {"pipeline", 'p', "SPEC", "the passes to run, in order (see fxlens passes list)"},
                {"out", 'o', "REPORT", "the HTML file to write"},
                {"check", 0, "", "run every step against the step before and compare the outputs bitwise"},
                {"seed", 0, "N", "with --check: seed of generated inputs and random ops (default 0)"},
                {"device", 'd', "DEV",
                 "with --check: where the steps run: cpu (default), cuda:N or cuda-emu:N (see fxlens run); "
                 "the report names it per check"},
                {"force", 'f', "", "replace REPORT if it exists"},
            },
            1,
            1,
            &runReport};
}

}  // namespace

std::string Args::value(const std::string& name, const std::string& fallback) const
{
    auto it = options.find(name);
    if (it == options.end() || it->second.empty()) return fallback;
    return it->second.back();
}

long long Args::intValue(const std::string& name, long long fallback) const
{
    if (!has(name)) return fallback;
    const std::string v = value(name);
    size_t pos = 0;
    long long n = -1;
    try {
        n = std::stoll(v, &pos);
    } catch (const std::exception&) {
        pos = 0;
    }
    if (v.empty() || pos != v.size() || n < 0)
        throw UsageError("--" + name + " expects a non-negative integer, got '" + v + "'");
    return n;
}

Verb devicesVerb()
{
    return {"devices",
            "the CPU and the CUDA devices, NCCL and cuBLAS this machine offers fxlens",
            "fxlens devices [--json]",
            "Print the CPU (cores, the GEMM path its kernels take), how this fxlens was built (with\n"
            "or without the CUDA Toolkit), every CUDA device the NVIDIA driver reports (name,\n"
            "memory, compute capability, multiprocessors) or the reason none is (no driver, no\n"
            "device, the driver's error), whether graphs can run on them, and whether NCCL and\n"
            "cuBLAS were found (they are loaded at run time: fxlens runs where they are absent).\n"
            "The driver, NCCL and cuBLAS are looked for by the loader's search path (NCCL and cuBLAS\n"
            "also in $CUDA_HOME/lib64 and /usr/local/cuda/lib64); FXLENS_CUDA_DRIVER,\n"
            "FXLENS_NCCL_LIBRARY and FXLENS_CUBLAS_LIBRARY name the files instead.",
            {},
            0,
            0,
            &runDevices};
}

const std::vector<Verb>& verbTable()
{
    static const std::vector<Verb> verbs = [] {
        std::vector<Verb> v = {infoVerb(), convertVerb(), passesVerb(), diffVerb(),  memVerb(),
                               runVerb(),  checkVerb(),   renderVerb(), reportVerb()};
        for (auto& verb : v) verb.options.push_back(opsOption());  // every verb loads graphs
        v.push_back(devicesVerb());  // loads none
        return v;
    }();
    return verbs;
}

const Verb* findVerb(const std::string& name)
{
    for (const auto& v : verbTable())
        if (v.name == name) return &v;
    return nullptr;
}

Args parseArgs(const Verb& verb, const std::vector<std::string>& argv)
{
    Args a;
    bool onlyPositional = false;
    for (size_t i = 0; i < argv.size(); ++i) {
        const std::string& s = argv[i];
        if (onlyPositional || s.size() < 2 || s[0] != '-') {
            a.positional.push_back(s);
            continue;
        }
        if (s == "--") {
            onlyPositional = true;
            continue;
        }
        std::string longName, inlineValue;
        bool hasInline = false;
        char shortName = 0;
        if (s[1] == '-') {
            longName = s.substr(2);
            auto eq = longName.find('=');
            if (eq != std::string::npos) {
                inlineValue = longName.substr(eq + 1);
                longName.resize(eq);
                hasInline = true;
            }
        } else {
            shortName = s[1];
            if (s.size() > 2) {  // -oOUT
                inlineValue = s.substr(2);
                hasInline = true;
            }
        }
        const OptionSpec* o = findOption(verb, longName, shortName);
        if (!o) throw UsageError("unknown option '" + s + "'");
        if (o->valueName.empty()) {
            if (hasInline) throw UsageError("option --" + o->name + " takes no value");
            a.options[o->name] = {""};
            continue;
        }
        std::string value;
        if (hasInline) {
            value = inlineValue;
        } else {
            if (i + 1 >= argv.size()) throw UsageError("option --" + o->name + " needs a value " + o->valueName);
            value = argv[++i];
        }
        auto& values = a.options[o->name];
        if (!values.empty() && !o->repeatable) throw UsageError("option --" + o->name + " given more than once");
        values.push_back(value);
    }
    if (a.has("help")) return a;  // --help wins over missing arguments
    const int n = static_cast<int>(a.positional.size());
    if (n < verb.minPositional)
        throw UsageError(verb.minPositional == 1 && verb.maxPositional == 1 ? "missing FILE argument"
                                                                            : "missing FILE arguments");
    if (verb.maxPositional >= 0 && n > verb.maxPositional)
        throw UsageError("too many arguments (unexpected '" + a.positional[static_cast<size_t>(verb.maxPositional)]
                         + "')");
    return a;
}

void printGlobalHelp(std::ostream& out)
{
    out << "fxlens " << FXLENS_VERSION << ": inspect and transform PyTorch FX training graphs\n\n"
        << "Usage: fxlens <verb> [options] [FILE...]\n"
        << "       fxlens --version | --help\n\n"
        << "Verbs:\n";
    for (const auto& v : verbTable()) out << "  " << std::left << std::setw(10) << v.name << v.summary << "\n";
    out << "\nEvery verb accepts --json (machine output), --verbose (every diagnostic) and --help.\n"
        << "Exit codes: 0 ok, 1 input error, 2 usage error, 3 internal error.\n"
        << "Run 'fxlens <verb> --help' for the options of a verb.\n";
}

// A usage error: the error, the verb's usage line and where the options are, not the whole help
// (which would bury the one line that matters).
void printUsageError(const Verb& verb, const std::string& message, std::ostream& out)
{
    out << "fxlens " << verb.name << ": error: " << message << "\n"
        << "Usage: " << verb.usage << "\n"
        << "Run 'fxlens " << verb.name << " --help' for the options.\n";
}

void printVerbHelp(const Verb& verb, std::ostream& out)
{
    out << "Usage: " << verb.usage << "\n\n" << verb.description << "\n\nOptions:\n";
    printOptionList(verb.options, out);
    printOptionList(commonOptions(), out);
}

int runCli(const std::vector<std::string>& argv, Io& io)
{
    try {
        if (argv.empty()) {
            // No verb: the GUI will open here; until then, the help.
            printGlobalHelp(io.out);
            return kExitOk;
        }
        const std::string& first = argv[0];
        if (first == "--help" || first == "-h" || first == "help") {
            if (first == "help" && argv.size() > 1) {
                if (const Verb* v = findVerb(argv[1])) {
                    printVerbHelp(*v, io.out);
                    return kExitOk;
                }
                io.err << "fxlens: error: unknown verb '" << argv[1] << "'\nUsage: fxlens help <verb>\n"
                       << "Run 'fxlens --help' for the verbs and 'fxlens <verb> --help' for the options.\n";
                return kExitUsage;
            }
            printGlobalHelp(io.out);
            return kExitOk;
        }
        if (first == "--version" || first == "-V") {
            io.out << "fxlens " << FXLENS_VERSION << "\n";
            return kExitOk;
        }
        const Verb* verb = findVerb(first);
        if (!verb) {
            io.err << "fxlens: error: " << (first[0] == '-' ? "unknown option '" : "unknown verb '") << first
                   << "'\nUsage: fxlens <verb> [options] [FILE...]\n"
                   << "Run 'fxlens --help' for the verbs and 'fxlens <verb> --help' for the options.\n";
            return kExitUsage;
        }
        Args args;
        try {
            args = parseArgs(*verb, std::vector<std::string>(argv.begin() + 1, argv.end()));
        } catch (const UsageError& e) {
            printUsageError(*verb, e.what(), io.err);
            return kExitUsage;
        }
        if (args.has("help")) {
            printVerbHelp(*verb, io.out);
            return kExitOk;
        }
        io.verbose = args.has("verbose");
        try {
            loadOpsFiles(args);
            return verb->run(args, io);
        } catch (const UsageError& e) {
            printUsageError(*verb, e.what(), io.err);
            return kExitUsage;
        }
    } catch (const InputError& e) {
        io.err << e.diagnostic().format() << "\n";
        return kExitInputError;
    } catch (const std::exception& e) {
        io.err << "fxlens: internal error: " << e.what() << "\n";
        return kExitInternal;
    } catch (...) {
        io.err << "fxlens: internal error: unknown exception\n";
        return kExitInternal;
    }
}

}  // namespace fxl::cli
