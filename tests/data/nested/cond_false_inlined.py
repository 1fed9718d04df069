class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[4, 6]", y: "f32[6]"):
        sub: "f32[4, 6]" = torch.ops.aten.sub.Tensor(x, y);  x = y = None
        cos: "f32[4, 6]" = torch.ops.aten.cos.default(sub);  sub = None
        mul: "f32[4, 6]" = torch.ops.aten.mul.Scalar(cos, 2.0);  cos = None
        return (mul,)
