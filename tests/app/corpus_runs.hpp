// The graphs of the shared corpus' TORCH_TRACE logs and fx dumps that tests run with --seed:
// test_cli_run (every graph runs, 1 and 2 threads agree) and test_output_hashes (their output
// bytes against the committed list).
#pragma once

namespace clitest {

// Every graph of the shared TORCH_TRACE logs and fx dumps (the ids `fxlens info` lists), as a
// user runs them: `fxlens run FILE --graph ID --seed 1`, with --symbols where a size has no
// hint and --ops where the graph calls custom operators. `ran` graphs must run, the others
// stop at a collective (no single-process kernel yet). Counts as of the corpus in the repo's
// time; a changed corpus changes them, which the test reports.
struct CorpusRunRow
{
    const char* file;  // under the corpus dir
    const char* symbols;  // --symbols, "" for none
    const char* ops;  // --ops files under tests/data/ops, ';'-separated, "" for none
    int graphs, ran, collectives;
};
inline constexpr CorpusRunRow kCorpusRuns[] = {
    {"fx/entangle_megatron_gpt_tp1_fwd_bwd_both.g0.r0.txt", "", "apex_layer_norm.ops;logging.ops", 1, 0, 1},
    {"fx/entangle_megatron_gpt_tp2_fwd_bwd_both.g0.r0.txt", "", "apex_layer_norm.ops;logging.ops", 1, 0, 1},
    {"fx/pytorch_test_aotdispatch_twotensor_symbolic_fw.txt", "s0=8,s1=4", "", 1, 1, 0},
    {"fx/pytorch_test_invoke_subgraph_dynamo_graph.txt", "", "", 1, 1, 0},
    {"fx/pytorch_test_invoke_subgraph_partitioned_fw.txt", "", "", 1, 1, 0},
    {"fx/tlparse_v2.4dev_getattr_aot_forward_graph.txt", "", "", 1, 1, 0},
    {"fx/tlparse_v2.4dev_getattr_dynamo_output_graph.txt", "", "", 1, 1, 0},
    {"fx/tlparse_v2.4dev_raw_structured_log_links.log", "", "", 3, 3, 0},
    {"fx/tlparse_v2.6dev_gelu_dropout_aot_inference_graph.txt", "", "logging.ops", 1, 1, 0},
    {"fx/tlparse_v2.6dev_gelu_dropout_dynamo_output_graph.txt", "", "logging.ops", 1, 1, 0},
    {"fx/tlparse_v2.6dev_gelu_dropout_inductor_post_grad_graph.txt", "", "logging.ops", 1, 1, 0},
    {"fx/tlparse_v2.7dev_exported_program_unbacked_symints.txt", "s0=5", "", 1, 1, 0},
    {"fx/tlparse_v2.9dev_collectives_aot_inference_graph.txt", "", "", 1, 0, 1},
    {"fx/tlparse_v2.9dev_collectives_dynamo_output_graph.txt", "", "", 1, 0, 1},
    {"fx/tlparse_v2.9dev_mlp_aot_backward_graph_expanded.txt", "", "", 1, 1, 0},
    {"fx/tlparse_v2.9dev_mlp_aot_forward_graph_expanded.txt", "", "", 1, 1, 0},
    {"fx/tlparse_v2.9dev_mlp_aot_joint_graph_expanded.txt", "", "", 1, 1, 0},
    {"fx/tlparse_v2.9dev_mlp_dynamo_output_graph.txt", "", "", 1, 1, 0},
    {"tlparse/artifacts.log", "", "", 2, 2, 0},
    {"tlparse/autotune_with_compile_id.log", "", "", 8, 8, 0},
    {"tlparse/cache_hit_miss.log", "", "", 11, 11, 0},
    {"tlparse/graph_exec_order/dedicated_log_torch_trace_rank_0_a74od7a1.log", "", "", 12, 0, 12},
    {"tlparse/graph_exec_order/dedicated_log_torch_trace_rank_1_fglwclht.log", "", "", 12, 0, 12},
    {"tlparse/inductor_provenance_aot_cuda_log.txt", "", "", 5, 5, 0},
    {"tlparse/inductor_provenance_jit_debug_handle_log.txt", "", "", 8, 8, 0},
    {"tlparse/links.log", "", "", 3, 3, 0},
    {"tlparse/multi_rank_schedule/dedicated_log_torch_trace_rank_0_6u3fubwl.log", "", "", 12, 0, 12},
    {"tlparse/simple.log", "", "logging.ops", 3, 3, 0},
};

}  // namespace clitest
