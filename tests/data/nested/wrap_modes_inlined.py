class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[3, 5]", y: "f32[3, 5]"):
        mul: "f32[3, 5]" = torch.ops.aten.mul.Tensor(x, y);  x = None
        sigmoid: "f32[3, 5]" = torch.ops.aten.sigmoid.default(mul);  mul = None
        sub: "f32[3, 5]" = torch.ops.aten.sub.Tensor(sigmoid, y);  sigmoid = y = None
        exp: "f32[3, 5]" = torch.ops.aten.exp.default(sub);  sub = None
        return (exp,)
