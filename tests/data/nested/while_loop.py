class GraphModule(torch.nn.Module):
    def forward(self, it: "i64[]", x: "f32[3, 4]", w: "f32[4, 4]"):
        cond_fn_0 = self.cond_fn_0
        body_fn_0 = self.body_fn_0
        while_loop = torch.ops.higher_order.while_loop(cond_fn_0, body_fn_0, (it, x), (w,));  cond_fn_0 = body_fn_0 = it = x = w = None
        getitem: "i64[]" = while_loop[0]
        getitem_1: "f32[3, 4]" = while_loop[1];  while_loop = None
        return (getitem, getitem_1)

    class cond_fn_0(torch.nn.Module):
        def forward(self, it: "i64[]", x: "f32[3, 4]", w: "f32[4, 4]"):
            lt: "b8[]" = torch.ops.aten.lt.Scalar(it, 3);  it = None
            return lt

    class body_fn_0(torch.nn.Module):
        def forward(self, it: "i64[]", x: "f32[3, 4]", w: "f32[4, 4]"):
            add: "i64[]" = torch.ops.aten.add.Tensor(it, 1);  it = None
            mm: "f32[3, 4]" = torch.ops.aten.mm.default(x, w);  x = w = None
            tanh: "f32[3, 4]" = torch.ops.aten.tanh.default(mm);  mm = None
            return (add, tanh)
