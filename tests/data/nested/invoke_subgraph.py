class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[4, 8]", w: "f32[8, 8]", b: "f32[8]"):
        repeated_subgraph0 = self.repeated_subgraph0
        invoke_subgraph = torch.ops.higher_order.invoke_subgraph(repeated_subgraph0, 'subgraph_0', x, w, b);  repeated_subgraph0 = x = None
        getitem: "f32[4, 8]" = invoke_subgraph[0]
        getitem_1: "f32[4, 1]" = invoke_subgraph[1];  invoke_subgraph = None
        repeated_subgraph0_1 = self.repeated_subgraph0
        invoke_subgraph_1 = torch.ops.higher_order.invoke_subgraph(repeated_subgraph0_1, 'subgraph_0', getitem, w, b);  repeated_subgraph0_1 = getitem = w = b = None
        getitem_2: "f32[4, 8]" = invoke_subgraph_1[0]
        getitem_3: "f32[4, 1]" = invoke_subgraph_1[1];  invoke_subgraph_1 = None
        add: "f32[4, 1]" = torch.ops.aten.add.Tensor(getitem_1, getitem_3);  getitem_1 = getitem_3 = None
        return (getitem_2, add)

    class repeated_subgraph0(torch.nn.Module):
        def forward(self, arg0_1: "f32[4, 8]", arg1_1: "f32[8, 8]", arg2_1: "f32[8]"):
            addmm: "f32[4, 8]" = torch.ops.aten.addmm.default(arg2_1, arg0_1, arg1_1);  arg2_1 = arg0_1 = arg1_1 = None
            tanh: "f32[4, 8]" = torch.ops.aten.tanh.default(addmm);  addmm = None
            sum_1: "f32[4, 1]" = torch.ops.aten.sum.dim_IntList(tanh, [1], True)
            return (tanh, sum_1)
