class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[4, 8]", w: "f32[8, 8]", b: "f32[8]"):
        addmm: "f32[4, 8]" = torch.ops.aten.addmm.default(b, x, w);  x = None
        tanh: "f32[4, 8]" = torch.ops.aten.tanh.default(addmm);  addmm = None
        sum_1: "f32[4, 1]" = torch.ops.aten.sum.dim_IntList(tanh, [1], True)
        addmm_1: "f32[4, 8]" = torch.ops.aten.addmm.default(b, tanh, w);  b = tanh = w = None
        tanh_1: "f32[4, 8]" = torch.ops.aten.tanh.default(addmm_1);  addmm_1 = None
        sum_2: "f32[4, 1]" = torch.ops.aten.sum.dim_IntList(tanh_1, [1], True)
        add: "f32[4, 1]" = torch.ops.aten.add.Tensor(sum_1, sum_2);  sum_1 = sum_2 = None
        return (tanh_1, add)
