class GraphModule(torch.nn.Module):
    def forward(self, primals_1: "f32[2, 3][3, 1]cpu", tangents_1: "f32[][]cpu"):
        t: "f32[3, 2][1, 3]cpu" = torch.ops.aten.t.default(primals_1)
        sum_1: "f32[][]cpu" = torch.ops.aten.sum.default(t)
        _reshape_alias: "f32[3, 2][1, 3]cpu" = torch.ops.aten._reshape_alias.default(t, [3, 2], [1, 3])
        mul: "f32[3, 2][2, 1]cpu" = torch.ops.aten.mul.Tensor(_reshape_alias, tangents_1)
        return (sum_1, mul)
