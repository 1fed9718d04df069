class GraphModule(torch.nn.Module):
    def forward(self, L_x_: "f32[4, 8]", L_y_: "f32[4, 8]"):
        a0: "f32[4, 8]" = torch.ops.aten.clone.default(L_x_)
        a1: "f32[4, 8]" = torch.ops.aten.add.Scalar(a0, 1)
        a2: "f32[4, 8]" = torch.ops.aten.mul.Tensor(a1, L_y_)
        a: "f32[4, 8]" = torch.ops.aten.sub.Tensor(a2, L_y_, alpha = 2)
        b0: "f32[4, 8]" = torch.ops.aten.mul.Scalar(L_y_, 2)
        b1: "f32[4, 8]" = torch.ops.aten.add.Tensor(b0, L_x_)
        b: "f32[4, 8]" = torch.ops.aten.mul.Scalar(b1, 0.5)
        c0: "f32[4, 8]" = torch.ops.aten.clone.default(L_x_)
        c: "f32[4, 8]" = torch.ops.aten.div.Scalar(c0, 3)
        return (a, b, c, a)
