


def forward(self, arg0_1, arg1_1, arg2_1):
    mm = torch.ops.aten.mm.default(arg0_1, arg1_1);  arg1_1 = None
    gelu = torch.ops.aten.gelu.default(mm, approximate = 'tanh')
    mm_1 = torch.ops.aten.mm.default(gelu, arg2_1)
    sum_1 = torch.ops.aten.sum.default(mm_1);  mm_1 = None
    ones_like = torch.ops.aten.ones_like.default(sum_1, dtype = torch.float32, layout = torch.strided, device = device(type='cpu'), pin_memory = False, memory_format = torch.preserve_format)
    expand = torch.ops.aten.expand.default(ones_like, [2, 4]);  ones_like = None
    t = torch.ops.aten.t.default(gelu);  gelu = None
    mm_2 = torch.ops.aten.mm.default(t, expand);  t = None
    t_1 = torch.ops.aten.t.default(arg2_1);  arg2_1 = None
    mm_3 = torch.ops.aten.mm.default(expand, t_1);  expand = t_1 = None
    gelu_backward = torch.ops.aten.gelu_backward.default(mm_3, mm);  mm_3 = mm = None
    t_2 = torch.ops.aten.t.default(arg0_1);  arg0_1 = None
    mm_4 = torch.ops.aten.mm.default(t_2, gelu_backward);  t_2 = gelu_backward = None
    return (sum_1, mm_4, mm_2)
    