# Eager chunking of a graph with dropout draws each chunk's mask on its own, so the reference
# computes another function than the graph (the masks differ): its difference from the unchunked
# run must not be labelled "reduction order" (tests/app/test_cli_check_chunks.cpp).
class GraphModule(torch.nn.Module):
    def forward(self, arg0_1: "f32[4, 3]", arg1_1: "f32[3, 5]"):
        mm: "f32[4, 5]" = torch.ops.aten.mm.default(arg0_1, arg1_1);  arg0_1 = arg1_1 = None
        native_dropout = torch.ops.aten.native_dropout.default(mm, 0.5, True);  mm = None
        getitem: "f32[4, 5]" = native_dropout[0]
        getitem_1: "b8[4, 5]" = native_dropout[1];  native_dropout = None
        sum_1: "f32[]" = torch.ops.aten.sum.default(getitem);  getitem = None
        return (sum_1,)
