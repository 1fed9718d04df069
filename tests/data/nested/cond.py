class GraphModule(torch.nn.Module):
    def forward(self, pred: "b8[]", x: "f32[4, 6]", y: "f32[6]"):
        true_graph_0 = self.true_graph_0
        false_graph_0 = self.false_graph_0
        cond = torch.ops.higher_order.cond(pred, true_graph_0, false_graph_0, (x, y));  pred = true_graph_0 = false_graph_0 = x = y = None
        getitem: "f32[4, 6]" = cond[0];  cond = None
        mul: "f32[4, 6]" = torch.ops.aten.mul.Scalar(getitem, 2.0);  getitem = None
        return (mul,)

    class true_graph_0(torch.nn.Module):
        def forward(self, x: "f32[4, 6]", y: "f32[6]"):
            add: "f32[4, 6]" = torch.ops.aten.add.Tensor(x, y);  x = y = None
            sin: "f32[4, 6]" = torch.ops.aten.sin.default(add);  add = None
            return (sin,)

    class false_graph_0(torch.nn.Module):
        def forward(self, x: "f32[4, 6]", y: "f32[6]"):
            sub: "f32[4, 6]" = torch.ops.aten.sub.Tensor(x, y);  x = y = None
            cos: "f32[4, 6]" = torch.ops.aten.cos.default(sub);  sub = None
            return (cos,)
