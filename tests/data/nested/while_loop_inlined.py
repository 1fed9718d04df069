class GraphModule(torch.nn.Module):
    def forward(self, it: "i64[]", x: "f32[3, 4]", w: "f32[4, 4]"):
        add: "i64[]" = torch.ops.aten.add.Tensor(it, 3);  it = None
        mm: "f32[3, 4]" = torch.ops.aten.mm.default(x, w);  x = None
        tanh: "f32[3, 4]" = torch.ops.aten.tanh.default(mm);  mm = None
        mm_1: "f32[3, 4]" = torch.ops.aten.mm.default(tanh, w);  tanh = None
        tanh_1: "f32[3, 4]" = torch.ops.aten.tanh.default(mm_1);  mm_1 = None
        mm_2: "f32[3, 4]" = torch.ops.aten.mm.default(tanh_1, w);  tanh_1 = w = None
        tanh_2: "f32[3, 4]" = torch.ops.aten.tanh.default(mm_2);  mm_2 = None
        return (add, tanh_2)
