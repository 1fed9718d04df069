class GraphModule(torch.nn.Module):
    def forward(self, L_x_: "f32[4, 8]", L_w_: "f32[8]", L_b_: "f32[8]"):
        a: "f32[4, 8]" = torch.ops.aten._softmax.default(L_x_, -1, False)
        b: "f32[4, 8]" = torch.ops.aten._log_softmax.default(L_x_, 1, False)
        x64: "f64[4, 8]" = torch.ops.aten.to.dtype(L_x_, torch.float64)
        c: "f64[4, 8]" = torch.ops.aten._softmax.default(x64, -1, False)
        ln = torch.ops.aten.native_layer_norm.default(L_x_, [8], L_w_, L_b_, 1e-05)
        d: "f32[4, 8]" = ln[0]
        e: "f32[]" = torch.ops.aten.sum.default(L_x_)
        f: "f32[4, 1]" = torch.ops.aten.sum.dim_IntList(L_x_, [1], True)
        g: "f32[8]" = torch.ops.aten.mean.dim(L_x_, [0])
        h: "f32[4]" = torch.ops.aten.amax.default(L_x_, [-1])
        i: "f32[]" = torch.ops.aten.mean.default(L_x_)
        return (a, b, c, d, e, f, g, h, i)
