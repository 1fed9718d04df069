class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[3, 5]", y: "f32[3, 5]"):
        submod_0 = self.submod_0
        wrap_with_set_grad_enabled = torch.ops.higher_order.wrap_with_set_grad_enabled(False, submod_0, x, y);  submod_0 = None
        getitem: "f32[3, 5]" = wrap_with_set_grad_enabled[0];  wrap_with_set_grad_enabled = None
        submod_1 = self.submod_1
        wrap_with_autocast = torch.ops.higher_order.wrap_with_autocast('cpu', torch.bfloat16, False, None, submod_1, getitem, y);  submod_1 = getitem = y = None
        getitem_1: "f32[3, 5]" = wrap_with_autocast[0];  wrap_with_autocast = None
        return (getitem_1,)

    class submod_0(torch.nn.Module):
        def forward(self, x: "f32[3, 5]", y: "f32[3, 5]"):
            mul: "f32[3, 5]" = torch.ops.aten.mul.Tensor(x, y);  x = None
            sigmoid: "f32[3, 5]" = torch.ops.aten.sigmoid.default(mul);  mul = None
            return (sigmoid,)

    class submod_1(torch.nn.Module):
        def forward(self, getitem: "f32[3, 5]", y: "f32[3, 5]"):
            sub: "f32[3, 5]" = torch.ops.aten.sub.Tensor(getitem, y);  getitem = y = None
            exp: "f32[3, 5]" = torch.ops.aten.exp.default(sub);  sub = None
            return (exp,)
