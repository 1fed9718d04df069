class GraphModule(torch.nn.Module):
    def forward(self, xs: "f32[3, 2, 5]", w: "f32[5]"):
        body_graph_0 = self.body_graph_0
        map_impl = torch.ops.higher_order.map_impl(body_graph_0, [xs], [w]);  body_graph_0 = xs = w = None
        getitem: "f32[3, 2, 5]" = map_impl[0]
        getitem_1: "f32[3, 2]" = map_impl[1];  map_impl = None
        return (getitem, getitem_1)

    class body_graph_0(torch.nn.Module):
        def forward(self, x: "f32[2, 5]", w: "f32[5]"):
            mul: "f32[2, 5]" = torch.ops.aten.mul.Tensor(x, w);  x = w = None
            sum_1: "f32[2]" = torch.ops.aten.sum.dim_IntList(mul, [1])
            return (mul, sum_1)
