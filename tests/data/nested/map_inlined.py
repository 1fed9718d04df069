class GraphModule(torch.nn.Module):
    def forward(self, xs: "f32[3, 2, 5]", w: "f32[5]"):
        select: "f32[2, 5]" = torch.ops.aten.select.int(xs, 0, 0)
        mul: "f32[2, 5]" = torch.ops.aten.mul.Tensor(select, w);  select = None
        sum_1: "f32[2]" = torch.ops.aten.sum.dim_IntList(mul, [1])
        select_1: "f32[2, 5]" = torch.ops.aten.select.int(xs, 0, 1)
        mul_1: "f32[2, 5]" = torch.ops.aten.mul.Tensor(select_1, w);  select_1 = None
        sum_2: "f32[2]" = torch.ops.aten.sum.dim_IntList(mul_1, [1])
        select_2: "f32[2, 5]" = torch.ops.aten.select.int(xs, 0, 2);  xs = None
        mul_2: "f32[2, 5]" = torch.ops.aten.mul.Tensor(select_2, w);  select_2 = w = None
        sum_3: "f32[2]" = torch.ops.aten.sum.dim_IntList(mul_2, [1])
        stack: "f32[3, 2, 5]" = torch.ops.aten.stack.default([mul, mul_1, mul_2]);  mul = mul_1 = mul_2 = None
        stack_1: "f32[3, 2]" = torch.ops.aten.stack.default([sum_1, sum_2, sum_3]);  sum_1 = sum_2 = sum_3 = None
        return (stack, stack_1)
