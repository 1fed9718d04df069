// FX graph text, the documented examples: real dumps of every PyTorch
// generation (corpus/fx, read per test by the corpus rule) and inline texts give the expected
// nodes, meta and signature details, and survive the print-parse round trip.
#include <QtTest>

#include <string>

#include "core/formats/fx/fx_text_parser.hpp"
#include "core/formats/fx/fx_text_writer.hpp"
#include "fx_text_test_util.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_fx_text_examples {

using namespace fxl;
using namespace fxtexttest;

class TestFxTextExamples : public QObject
{
    Q_OBJECT

private slots:
    // ---------------------------------------------------------------- documented examples
    void e1JointGraphExpanded()
    {
        FXL_REQUIRE_CORPUS(fxFixture("tlparse_v2.9dev_mlp_aot_joint_graph_expanded.txt"));
        std::string text = fxltest::readFile(fxFixture("tlparse_v2.9dev_mlp_aot_joint_graph_expanded.txt"));
        Graph g = parseFxText(text, "joint");
        QCOMPARE(g.className, std::string("inner_f"));
        QCOMPARE(static_cast<int>(g.signature), static_cast<int>(SignatureStyle::Pytree));
        QCOMPARE(g.pytreeArgNames, (std::vector<std::string>{"primals", "tangents"}));
        QCOMPARE(g.placeholders().size(), size_t(7));
        QCOMPARE(byName(g, "primals_1").meta.desc, std::string("PlainAOTInput(idx=0)"));
        QCOMPARE(byName(g, "tangents_1").meta.desc, std::string("TangentAOTInput(output=PlainAOTOutput(idx=0))"));
        QCOMPARE(formatAnnotation(byName(g, "primals_1").val), std::string("f32[16, 10][10, 1]cuda:0"));
        QVERIFY(g.outputPytree);
        QVERIFY(g.outputIsList);
        QCOMPARE(g.outputDescs.size(), size_t(8));
        QCOMPARE(g.outputDescs[2], std::string("GradAOTOutput(grad_of=PlainAOTInput(idx=0))"));
        QCOMPARE(g.outputDescs[7], std::string("None"));
        const Node& out = g.node(g.outputNode());
        QCOMPARE(out.args[0].kind, Arg::Kind::List);
        QCOMPARE(out.args[0].items.size(), size_t(8));
        QVERIFY(out.args[0].items[4].isNone());
        QCOMPARE(g.node(out.args[0].items[2].node).name, std::string("permute_3"));

        const Node& permute = byName(g, "permute");
        QVERIFY(permute.isOp("aten.permute.default"));
        QCOMPARE(permute.args[1].kind, Arg::Kind::List);
        QCOMPARE(permute.args[1].items[0].i, int64_t(1));
        QVERIFY(permute.meta.source.file.size() > 20);
        QVERIFY(QString::fromStdString(permute.meta.source.file).endsWith(QLatin1String("test_provenance_tracing.py")));
        QCOMPARE(permute.meta.source.line, 79);
        QCOMPARE(permute.meta.source.function, std::string("forward"));
        QCOMPARE(permute.meta.source.code, std::string("x = self.fc1(x)"));
        QCOMPARE(byName(g, "relu").meta.source.line, 80);
        QCOMPARE(byName(g, "alias_1").meta.source.line, 80);  // a comment covers the nodes after it

        const Node& st = byName(g, "scalar_tensor");
        QCOMPARE(st.kwargs.size(), size_t(3));
        QCOMPARE(st.kwargs[0].first, std::string("dtype"));
        QCOMPARE(st.kwarg("dtype")->dtype, DType::F32);
        QCOMPARE(st.kwarg("layout")->kind, Arg::Kind::Layout);
        QCOMPARE(st.kwarg("layout")->s, std::string("strided"));
        QCOMPARE(st.kwarg("device")->kind, Arg::Kind::Device);
        QCOMPARE(st.kwarg("device")->s, std::string("cuda:0"));
        QCOMPARE(formatAnnotation(st.val), std::string("f32[][]cuda:0"));
        const Node& mul2 = byName(g, "mul_2");
        QCOMPARE(mul2.args[1].kind, Arg::Kind::Float);
        QCOMPARE(mul2.args[1].f, 0.7071067811865476);
        checkRoundTrip(g);
    }

    void e3ForwardExpandedSignature()
    {
        FXL_REQUIRE_CORPUS(fxFixture("tlparse_v2.9dev_mlp_aot_forward_graph_expanded.txt"));
        std::string text = fxltest::readFile(fxFixture("tlparse_v2.9dev_mlp_aot_forward_graph_expanded.txt"));
        Graph g = parseFxText(text, "fw");
        QCOMPARE(static_cast<int>(g.signature), static_cast<int>(SignatureStyle::Expanded));
        QCOMPARE(g.placeholders().size(), size_t(6));
        QCOMPARE(byName(g, "primals_6").meta.desc, std::string("PlainAOTInput(idx=5)"));
        QVERIFY(!g.outputPytree);
        QVERIFY(!g.outputIsList);
        QCOMPARE(g.outputDescs,
                 (std::vector<std::string>{"PlainAOTOutput(idx=0)", "PlainAOTOutput(idx=1)",
                                           "SavedForBackwardsAOTOutput(idx=0)", "SavedForBackwardsAOTOutput(idx=1)",
                                           "SavedForBackwardsAOTOutput(idx=2)"}));
        const Node& out = g.node(g.outputNode());
        QCOMPARE(out.args[0].kind, Arg::Kind::Tuple);
        QCOMPARE(out.args[0].items[3].node, byName(g, "sigmoid").id);
        // a backward-graph placeholder without a descriptor keeps an empty one
        FXL_REQUIRE_CORPUS(fxFixture("tlparse_v2.9dev_mlp_aot_backward_graph_expanded.txt"));
        std::string bw = fxltest::readFile(fxFixture("tlparse_v2.9dev_mlp_aot_backward_graph_expanded.txt"));
        Graph b = parseFxText(bw, "bw");
        QCOMPARE(byName(b, "sigmoid").meta.desc, std::string());
        QCOMPARE(byName(b, "tangents_1").meta.desc, std::string("TangentAOTInput(output=PlainAOTOutput(idx=0))"));
        QCOMPARE(b.outputDescs.size(), size_t(6));
        checkRoundTrip(g);
        checkRoundTrip(b);
    }

    void e2PytreeDeclarationsAndPreamble()
    {
        FXL_REQUIRE_CORPUS(fxFixture("entangle_megatron_gpt_tp1_fwd_bwd_both.g0.r0.txt"));
        std::string text = fxltest::readFile(fxFixture("entangle_megatron_gpt_tp1_fwd_bwd_both.g0.r0.txt"));
        Graph g = parseFxText(text, "entangle");
        QCOMPARE(g.className, std::string("joint_helper"));
        QCOMPARE(static_cast<int>(g.signature), static_cast<int>(SignatureStyle::Pytree));
        QCOMPARE(formatAnnotation(byName(g, "primals_4").val), std::string("b8[32, 1, 1024, 1024]"));
        QCOMPARE(byName(g, "primals_4").meta.desc, std::string());
        QVERIFY(g.outputPytree);
        QVERIFY(g.outputDescs.empty());
        // "# No stacktrace found for following nodes": nodes after it carry no source
        QVERIFY(byName(g, "clone").meta.source.empty());
        // custom namespaces
        bool apex = false;
        g.forEachNode([&](const Node& n) { apex = apex || n.target.rfind("apex.", 0) == 0; });
        QVERIFY(apex);
    }

    void e4CollectivesAndTuples()
    {
        FXL_REQUIRE_CORPUS(fxFixture("tlparse_v2.9dev_collectives_aot_inference_graph.txt"));
        std::string text = fxltest::readFile(fxFixture("tlparse_v2.9dev_collectives_aot_inference_graph.txt"));
        Graph g = parseFxText(text, "coll");
        const Node& vm = byName(g, "var_mean");
        QCOMPARE(vm.val.kind, ValueMeta::Kind::Unknown);  // tuple results print no annotation
        QCOMPARE(vm.kwarg("correction")->i, int64_t(0));
        QCOMPARE(vm.kwarg("keepdim")->b, true);
        const Node& gi = byName(g, "getitem");
        QVERIFY(gi.isOp("operator.getitem"));
        QCOMPARE(gi.args[0].node, vm.id);
        QCOMPARE(gi.args[1].i, int64_t(0));
        const Node& ar = byName(g, "all_reduce");
        QVERIFY(ar.isOp("_c10d_functional.all_reduce.default"));
        QCOMPARE(ar.args[1].s, std::string("sum"));
        QCOMPARE(ar.args[2].s, std::string("0"));
        QVERIFY(byName(g, "wait_tensor").isOp("_c10d_functional.wait_tensor.default"));
    }

    void e5DynamoGraph()
    {
        FXL_REQUIRE_CORPUS(fxFixture("tlparse_v2.9dev_collectives_dynamo_output_graph.txt"));
        std::string text = fxltest::readFile(fxFixture("tlparse_v2.9dev_collectives_dynamo_output_graph.txt"));
        Graph g = parseFxText(text, "dynamo");
        const Node& p = g.node(g.placeholders()[1]);
        QCOMPARE(p.name, std::string("l_args_0_"));
        QCOMPARE(p.target, std::string("L_args_0_"));
        QCOMPARE(formatAnnotation(p.val), std::string("f16[1024, 1024][1024, 1]cuda:0"));
        const Node& sg = byName(g, "_set_grad_enabled");
        QVERIFY(sg.isOp("torch._C._set_grad_enabled"));
        QCOMPARE(sg.args[0].kind, Arg::Kind::Bool);
        QVERIFY(sg.meta.source.empty());
        const Node& a = byName(g, "a");
        QVERIFY(a.isOp("torch._C._nn.linear"));
        QVERIFY(a.args[2].isNone());
        QCOMPARE(a.meta.source.function, std::string("graph_two"));
        QCOMPARE(a.meta.source.line, 105);
        QVERIFY(byName(g, "_set_grad_enabled_1").meta.source.empty());
        QVERIFY(byName(g, "a_1").isOp("torch.nn.functional.silu"));
        // the Dynamo graph of the MLP: operator forms and torch-level calls
        FXL_REQUIRE_CORPUS(fxFixture("tlparse_v2.9dev_mlp_dynamo_output_graph.txt"));
        std::string mlp = fxltest::readFile(fxFixture("tlparse_v2.9dev_mlp_dynamo_output_graph.txt"));
        Graph m = parseFxText(mlp, "mlp");
        const Node& d = byName(m, "d");
        QVERIFY(d.isOp("operator.mul"));
        QCOMPARE(d.args[1].f, 3.14);
        QCOMPARE(byName(m, "x_1").kwarg("inplace")->b, false);
        // 2.4 graph: get_attr with an annotation
        FXL_REQUIRE_CORPUS(fxFixture("tlparse_v2.4dev_getattr_dynamo_output_graph.txt"));
        std::string old = fxltest::readFile(fxFixture("tlparse_v2.4dev_getattr_dynamo_output_graph.txt"));
        Graph o = parseFxText(old, "old");
        const Node& ga = byName(o, "l__self___param");
        QCOMPARE(ga.op, NodeOp::GetAttr);
        QCOMPARE(ga.target, std::string("L__self___param"));
        QCOMPARE(formatAnnotation(ga.val), std::string("f32[2][1]cpu"));
    }

    void e6InvokeSubgraph()
    {
        FXL_REQUIRE_CORPUS(fxFixture("pytorch_test_invoke_subgraph_dynamo_graph.txt"));
        std::string text = fxltest::readFile(fxFixture("pytorch_test_invoke_subgraph_dynamo_graph.txt"));
        Graph g = parseFxText(text, "invoke");
        QCOMPARE(g.subgraphs.size(), size_t(1));
        const Graph* sub = g.subgraph("subgraph_0");
        QVERIFY(sub);
        QCOMPARE(sub->size(), size_t(9));
        const Node& s1 = byName(g, "subgraph_1");
        QCOMPARE(s1.op, NodeOp::GetAttr);
        QCOMPARE(s1.target, std::string("subgraph_0"));  // two nodes, one nested class
        const Node& inv = byName(g, "invoke_subgraph_1");
        QVERIFY(inv.isOp("higher_order.invoke_subgraph"));
        QCOMPARE(inv.args[0].node, s1.id);
        QCOMPARE(inv.args[1].s, std::string("subgraph_0"));
        const Node& addm = byName(*sub, "add_");
        QCOMPARE(addm.op, NodeOp::CallMethod);
        QCOMPARE(addm.target, std::string("add_"));
        QCOMPARE(addm.args.size(), size_t(2));
        QVERIFY(addm.users.empty());
        QVERIFY(byName(*sub, "add").isOp("operator.add"));
        QCOMPARE(byName(*sub, "sin").op, NodeOp::CallMethod);
        QVERIFY(byName(*sub, "mul").isOp("torch.mul"));

        FXL_REQUIRE_CORPUS(fxFixture("pytorch_test_invoke_subgraph_partitioned_fw.txt"));
        std::string fw = fxltest::readFile(fxFixture("pytorch_test_invoke_subgraph_partitioned_fw.txt"));
        Graph f = parseFxText(fw, "fw");
        QVERIFY(f.subgraph("partitioned_fw_subgraph_0_0"));
        QCOMPARE(f.subgraph("partitioned_fw_subgraph_0_0")->placeholders().size(), size_t(3));
    }

    void e7SymbolicShapes()
    {
        FXL_REQUIRE_CORPUS(fxFixture("pytorch_test_aotdispatch_twotensor_symbolic_fw.txt"));
        std::string text = fxltest::readFile(fxFixture("pytorch_test_aotdispatch_twotensor_symbolic_fw.txt"));
        Graph g = parseFxText(text, "sym");
        const Node& p3 = byName(g, "primals_3");
        QCOMPARE(p3.val.kind, ValueMeta::Kind::SymInt);
        QCOMPARE(formatAnnotation(p3.val), std::string("Sym(s0)"));
        const Node& p1 = byName(g, "primals_1");
        QCOMPARE(p1.val.kind, ValueMeta::Kind::Tensor);
        QCOMPARE(p1.val.tensor.sizes.size(), size_t(2));
        QVERIFY(!p1.val.tensor.sizes[0].isConcrete());
        QCOMPARE(p1.val.tensor.sizes[1].str(), std::string("s1"));
        const Node& out = g.node(g.outputNode());
        QCOMPARE(out.args[0].items.size(), size_t(8));
        QCOMPARE(out.args[0].items[3].node, out.args[0].items[4].node);  // outputs may repeat
    }

    void e8UnbackedExportedProgram()
    {
        FXL_REQUIRE_CORPUS(fxFixture("tlparse_v2.7dev_exported_program_unbacked_symints.txt"));
        std::string text = fxltest::readFile(fxFixture("tlparse_v2.7dev_exported_program_unbacked_symints.txt"));
        DiagnosticList diags;
        Graph g = parseFxText(text, "ep", 1, &diags);
        QVERIFY(!diags.items.empty());  // the signature section is reported as skipped
        const Node& neg = byName(g, "neg");
        QVERIFY(neg.isOp("operator.neg"));
        QCOMPARE(formatAnnotation(neg.val), std::string("Sym(-u1)"));
        const Node& fd = byName(g, "floordiv");
        QVERIFY(fd.isOp("operator.floordiv"));
        QCOMPARE(fd.args[1].i, int64_t(3));
        QCOMPARE(byName(g, "add").val.kind, ValueMeta::Kind::SymInt);
        QCOMPARE(formatAnnotation(byName(g, "cat").val), std::string("f32[2*s0]"));
        const Node& sl = byName(g, "slice_1");
        QCOMPARE(sl.args[3].node, byName(g, "add").id);
        QCOMPARE(byName(g, "_local_scalar_dense").meta.source.code, std::string("a = x.item()"));
    }

    // Comment lines of newer versions: custom annotations, SAC tags, autograd_backward.
    void e9SacTagsAndAnnotations()
    {
        const std::string text =
            "class GraphModule(torch.nn.Module):\n"
            "    def forward(self, embedding: \"f32[4, 4096]\", w: \"f32[4096]\"):\n"
            "        # Annotation: {'module_fqn': 'layers.0.attention_norm', 'fusion_class': 'decomposable', "
            "'is_fusible': True} "
            "recompute: PREFER_RECOMPUTE File: /x/torch/nn/modules/normalization.py:427 in forward, code: return "
            "F.rms_norm(x, "
            "self.normalized_shape, self.weight, self.eps)\n"
            "        _fused_rms_norm_default = torch.ops.aten._fused_rms_norm.default(embedding, [4096], w, 1e-05)\n"
            "        getitem = _fused_rms_norm_default[0]\n"
            "\n"
            "        # ac_graph_id: 6 - PREFER_RECOMPUTE File: /x/test_fused_attention.py:376 in sfdp_pattern_5_v2, "
            "code: attn_mask = torch.zeros(\n"
            "        mul = torch.ops.aten.mul.Tensor(getitem, 2)\n"
            "\n"
            "        # # recompute: MUST_SAVE File: /x/a.py:3 in f, code: y = x\n"
            "        mul_1 = torch.ops.aten.mul.Tensor(mul, 3)\n"
            "\n"
            "        # autograd_backward: True # Annotation: {'n': [1, 2.5, None], 'k': (1,)} recompute: "
            "MUST_RECOMPUTE File: /x/b.py:7, code: z\n"
            "        mul_2 = torch.ops.aten.mul.Tensor(mul_1, 4)\n"
            "\n"
            "        # No stacktrace found for following nodes\n"
            "        mul_3 = torch.ops.aten.mul.Tensor(mul_2, 5)\n"
            "        return (mul_3,)\n";
        Graph g = parseFxText(text, "e9");
        const Node& rms = byName(g, "_fused_rms_norm_default");
        QCOMPARE(rms.meta.recompute, Recompute::PreferRecompute);
        QVERIFY(!rms.meta.acGraphId);
        QCOMPARE(rms.meta.custom["module_fqn"].get<std::string>(), std::string("layers.0.attention_norm"));
        QCOMPARE(rms.meta.custom["is_fusible"].get<bool>(), true);
        QCOMPARE(rms.meta.source.line, 427);
        QCOMPARE(rms.meta.source.code,
                 std::string("return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)"));
        QCOMPARE(rms.args[3].f, 1e-05);
        QCOMPARE(byName(g, "getitem").meta.recompute, Recompute::PreferRecompute);
        const Node& mul = byName(g, "mul");
        QCOMPARE(mul.meta.acGraphId.value_or(-1), 6);
        QCOMPARE(mul.meta.recompute, Recompute::PreferRecompute);
        QVERIFY(mul.meta.custom.is_null());
        QCOMPARE(mul.meta.source.code, std::string("attn_mask = torch.zeros("));
        QCOMPARE(byName(g, "mul_1").meta.recompute, Recompute::MustSave);
        const Node& m2 = byName(g, "mul_2");
        QCOMPARE(m2.meta.autogradBackward.value_or(false), true);
        QCOMPARE(m2.meta.recompute, Recompute::MustRecompute);
        QCOMPARE(m2.meta.custom["n"][1].get<double>(), 2.5);
        QVERIFY(m2.meta.custom["n"][2].is_null());
        QCOMPARE(m2.meta.source.file, std::string("/x/b.py"));
        QCOMPARE(m2.meta.source.function, std::string());  // pre-2.4 "File: f:7, code: z" form
        QCOMPARE(m2.meta.source.code, std::string("z"));
        const Node& m3 = byName(g, "mul_3");
        QVERIFY(m3.meta.source.empty());
        QCOMPARE(m3.meta.recompute, Recompute::None);
        QVERIFY(m3.meta.custom.is_null());
        checkRoundTrip(g);
    }

    // 2.1-2.3: unquoted annotations; nested classes named after the child's class.
    void oldUnquotedAnnotations()
    {
        const std::string text =
            "class GraphModule(torch.nn.Module):\n"
            "    def forward(self, arg0_1: f32[s0, 3]):\n"
            "        sym_size: Sym(s0) = torch.ops.aten.sym_size.int(arg0_1, 0)\n"
            "        gt: Sym(s0 > 4) = sym_size > 4;  sym_size = None\n"
            "        true_graph_0 = self.true_graph_0\n"
            "        false_graph_0 = self.false_graph_0\n"
            "        conditional: f32[s0, 3] = torch.ops.higher_order.cond(gt, true_graph_0, false_graph_0, [arg0_1]); "
            " gt = true_graph_0 = false_graph_0 = arg0_1 = None\n"
            "        return (conditional,)\n"
            "\n"
            "    class <lambda>(torch.nn.Module):\n"
            "        def forward(self, arg0_1: f32[s0, 3]):\n"
            "            cos: f32[s0, 3] = torch.ops.aten.cos.default(arg0_1)\n"
            "            sin: f32[s0, 3] = torch.ops.aten.sin.default(arg0_1);  arg0_1 = None\n"
            "            add: f32[s0, 3] = torch.ops.aten.add.Tensor(cos, sin);  cos = sin = None\n"
            "            return add\n"
            "\n"
            "    class <lambda>(torch.nn.Module):\n"
            "        def forward(self, arg0_1: f32[s0, 3]):\n"
            "            sin: f32[s0, 3] = torch.ops.aten.sin.default(arg0_1);  arg0_1 = None\n"
            "            return sin\n";
        Graph g = parseFxText(text, "old");
        QCOMPARE(formatAnnotation(byName(g, "arg0_1").val), std::string("f32[s0, 3]"));
        const Node& gt = byName(g, "gt");
        QCOMPARE(gt.val.kind, ValueMeta::Kind::SymBool);
        QVERIFY(gt.isOp("operator.gt"));
        QCOMPARE(g.subgraphs.size(), size_t(2));
        QVERIFY(g.subgraph("true_graph_0"));
        QVERIFY(g.subgraph("false_graph_0"));
        QCOMPARE(g.subgraph("true_graph_0")->size(), size_t(5));
        QCOMPARE(g.subgraph("false_graph_0")->size(), size_t(3));
        QCOMPARE(g.subgraph("false_graph_0")->className, std::string("<lambda>"));
        QCOMPARE(byName(g, "conditional").args[3].kind, Arg::Kind::List);
        checkRoundTrip(g);

        // pre-2.0 Python type annotations are kept verbatim
        const std::string typed = "class GraphModule(torch.nn.Module):\n"
                                  "    def forward(self, L_a_ : torch.Tensor, L_b_ : torch.Tensor):\n"
                                  "        l_a_ = L_a_\n"
                                  "        l_b_ = L_b_\n"
                                  "\n"
                                  "        # File: /root/dynami.py:9, code: return a + b\n"
                                  "        add = l_a_ + l_b_;  l_a_ = l_b_ = None\n"
                                  "        return (add,)\n";
        Graph t = parseFxText(typed, "typed");
        const Node& a = byName(t, "l_a_");
        QCOMPARE(a.typeExpr, std::string("torch.Tensor"));
        QCOMPARE(a.target, std::string("L_a_"));
        QCOMPARE(a.val.kind, ValueMeta::Kind::Unknown);
        QCOMPARE(byName(t, "add").meta.source.line, 9);
        checkRoundTrip(t);
    }
};

FXL_TEST_APPLESS_MAIN(TestFxTextExamples)
}  // namespace test_fx_text_examples
#include "test_fx_text_examples.moc"
