class GraphModule(torch.nn.Module):
    def forward(self, L_x_: "f32[4, 8]", L_w_: "f32[8, 8]"):
        l_x_ = L_x_
        l_w_ = L_w_
        mm: "f32[4, 8]" = torch.ops.aten.mm.default(l_x_, l_w_);  l_x_ = None
        gelu: "f32[4, 8]" = torch.ops.aten.gelu.default(mm);  mm = None
        mm_1: "f32[4, 8]" = torch.ops.aten.mm.default(gelu, l_w_);  gelu = l_w_ = None
        neg: "f32[4, 8]" = torch.ops.aten.neg.default(mm_1);  mm_1 = None
        return (neg,)
