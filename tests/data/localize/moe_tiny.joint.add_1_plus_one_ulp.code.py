


def forward(self, arg0_1, arg1_1, arg2_1, arg3_1, arg4_1, arg5_1, arg6_1):
    t = torch.ops.aten.t.default(arg2_1);  arg2_1 = None
    addmm = torch.ops.aten.addmm.default(arg3_1, arg0_1, t);  arg3_1 = t = None
    t_1 = torch.ops.aten.t.default(arg6_1);  arg6_1 = None
    mm = torch.ops.aten.mm.default(addmm, t_1)
    _softmax = torch.ops.aten._softmax.default(mm, -1, False);  mm = None
    detach = torch.ops.aten.detach.default(_softmax)
    topk = torch.ops.aten.topk.default(_softmax, 2)
    getitem = topk[0]
    getitem_1 = topk[1];  topk = None
    zeros_like = torch.ops.aten.zeros_like.default(_softmax, dtype = torch.float32, layout = torch.strided, device = device(type='cpu'), pin_memory = False);  _softmax = None
    scatter = torch.ops.aten.scatter.src(zeros_like, 1, getitem_1, getitem);  zeros_like = getitem = None
    _reshape_alias = torch.ops.aten._reshape_alias.default(getitem_1, [48], [1])
    bincount = torch.ops.aten.bincount.default(_reshape_alias, None, 4);  _reshape_alias = None
    unsqueeze = torch.ops.aten.unsqueeze.default(addmm, 2)
    unsqueeze_1 = torch.ops.aten.unsqueeze.default(unsqueeze, 3);  unsqueeze = None
    permute = torch.ops.aten.permute.default(unsqueeze_1, [2, 0, 3, 1]);  unsqueeze_1 = None
    unsqueeze_2 = torch.ops.aten.unsqueeze.default(arg4_1, 3);  arg4_1 = None
    permute_1 = torch.ops.aten.permute.default(unsqueeze_2, [0, 3, 2, 1]);  unsqueeze_2 = None
    permute_2 = torch.ops.aten.permute.default(permute, [1, 3, 0, 2]);  permute = None
    _reshape_alias_1 = torch.ops.aten._reshape_alias.default(permute_2, [1, 24, 32], [768, 32, 1]);  permute_2 = None
    permute_3 = torch.ops.aten.permute.default(permute_1, [3, 0, 2, 1]);  permute_1 = None
    clone = torch.ops.aten.clone.default(permute_3, memory_format = torch.contiguous_format);  permute_3 = None
    _unsafe_view = torch.ops.aten._unsafe_view.default(clone, [1, 32, 256]);  clone = None
    bmm = torch.ops.aten.bmm.default(_reshape_alias_1, _unsafe_view)
    view = torch.ops.aten.view.default(bmm, [24, 1, 4, 64]);  bmm = None
    permute_4 = torch.ops.aten.permute.default(view, [2, 0, 3, 1]);  view = None
    view_1 = torch.ops.aten.view.default(permute_4, [4, 24, 64]);  permute_4 = None
    silu = torch.ops.aten.silu.default(view_1)
    unsqueeze_3 = torch.ops.aten.unsqueeze.default(silu, 3);  silu = None
    permute_5 = torch.ops.aten.permute.default(unsqueeze_3, [0, 1, 3, 2]);  unsqueeze_3 = None
    unsqueeze_4 = torch.ops.aten.unsqueeze.default(arg5_1, 3);  arg5_1 = None
    permute_6 = torch.ops.aten.permute.default(unsqueeze_4, [0, 3, 2, 1]);  unsqueeze_4 = None
    permute_7 = torch.ops.aten.permute.default(permute_5, [0, 1, 3, 2]);  permute_5 = None
    _reshape_alias_2 = torch.ops.aten._reshape_alias.default(permute_7, [4, 24, 64], [64, 256, 1]);  permute_7 = None
    permute_8 = torch.ops.aten.permute.default(permute_6, [0, 3, 2, 1]);  permute_6 = None
    _reshape_alias_3 = torch.ops.aten._reshape_alias.default(permute_8, [4, 64, 32], [2048, 32, 1]);  permute_8 = None
    bmm_1 = torch.ops.aten.bmm.default(_reshape_alias_2, _reshape_alias_3)
    view_2 = torch.ops.aten.view.default(bmm_1, [4, 24, 1, 32]);  bmm_1 = None
    permute_9 = torch.ops.aten.permute.default(view_2, [0, 1, 3, 2]);  view_2 = None
    view_3 = torch.ops.aten.view.default(permute_9, [4, 24, 32]);  permute_9 = None
    permute_10 = torch.ops.aten.permute.default(view_3, [1, 2, 0]);  view_3 = None
    unsqueeze_5 = torch.ops.aten.unsqueeze.default(scatter, 2);  scatter = None
    permute_11 = torch.ops.aten.permute.default(unsqueeze_5, [0, 2, 1]);  unsqueeze_5 = None
    permute_12 = torch.ops.aten.permute.default(permute_10, [0, 1, 2]);  permute_10 = None
    _reshape_alias_4 = torch.ops.aten._reshape_alias.default(permute_12, [24, 32, 4], [32, 1, 768]);  permute_12 = None
    permute_13 = torch.ops.aten.permute.default(permute_11, [0, 2, 1]);  permute_11 = None
    _reshape_alias_5 = torch.ops.aten._reshape_alias.default(permute_13, [24, 4, 1], [4, 1, 1]);  permute_13 = None
    bmm_2 = torch.ops.aten.bmm.default(_reshape_alias_4, _reshape_alias_5)
    view_4 = torch.ops.aten.view.default(bmm_2, [24, 32, 1]);  bmm_2 = None
    permute_14 = torch.ops.aten.permute.default(view_4, [0, 1, 2]);  view_4 = None
    view_5 = torch.ops.aten.view.default(permute_14, [24, 32]);  permute_14 = None
    add = torch.ops.aten.add.Tensor(addmm, view_5);  view_5 = None
    mse_loss = torch.ops.aten.mse_loss.default(add, arg1_1)
    ones_like = torch.ops.aten.ones_like.default(mse_loss, dtype = torch.float32, layout = torch.strided, device = device(type='cpu'), pin_memory = False, memory_format = torch.preserve_format)
    mse_loss_backward = torch.ops.aten.mse_loss_backward.default(ones_like, add, arg1_1, 1);  ones_like = add = arg1_1 = None
    _reshape_alias_6 = torch.ops.aten._reshape_alias.default(mse_loss_backward, [24, 32, 1], [32, 1, 1])
    permute_15 = torch.ops.aten.permute.default(_reshape_alias_6, [0, 1, 2]);  _reshape_alias_6 = None
    _reshape_alias_7 = torch.ops.aten._reshape_alias.default(permute_15, [24, 32, 1], [32, 1, 1]);  permute_15 = None
    transpose = torch.ops.aten.transpose.int(_reshape_alias_4, 1, 2);  _reshape_alias_4 = None
    bmm_3 = torch.ops.aten.bmm.default(transpose, _reshape_alias_7);  transpose = None
    transpose_1 = torch.ops.aten.transpose.int(_reshape_alias_5, 1, 2);  _reshape_alias_5 = None
    bmm_4 = torch.ops.aten.bmm.default(_reshape_alias_7, transpose_1);  _reshape_alias_7 = transpose_1 = None
    _reshape_alias_8 = torch.ops.aten._reshape_alias.default(bmm_3, [24, 4, 1], [4, 1, 1]);  bmm_3 = None
    permute_16 = torch.ops.aten.permute.default(_reshape_alias_8, [0, 2, 1]);  _reshape_alias_8 = None
    _reshape_alias_9 = torch.ops.aten._reshape_alias.default(bmm_4, [24, 32, 4], [128, 4, 1]);  bmm_4 = None
    permute_17 = torch.ops.aten.permute.default(_reshape_alias_9, [0, 1, 2]);  _reshape_alias_9 = None
    permute_18 = torch.ops.aten.permute.default(permute_16, [0, 2, 1]);  permute_16 = None
    squeeze = torch.ops.aten.squeeze.dim(permute_18, 2);  permute_18 = None
    permute_19 = torch.ops.aten.permute.default(permute_17, [2, 0, 1]);  permute_17 = None
    _reshape_alias_10 = torch.ops.aten._reshape_alias.default(permute_19, [4, 24, 32, 1], [1, 128, 4, 4]);  permute_19 = None
    permute_20 = torch.ops.aten.permute.default(_reshape_alias_10, [0, 1, 3, 2]);  _reshape_alias_10 = None
    _reshape_alias_11 = torch.ops.aten._reshape_alias.default(permute_20, [4, 24, 32], [1, 128, 4]);  permute_20 = None
    transpose_2 = torch.ops.aten.transpose.int(_reshape_alias_2, 1, 2);  _reshape_alias_2 = None
    bmm_5 = torch.ops.aten.bmm.default(transpose_2, _reshape_alias_11);  transpose_2 = None
    transpose_3 = torch.ops.aten.transpose.int(_reshape_alias_3, 1, 2);  _reshape_alias_3 = None
    bmm_6 = torch.ops.aten.bmm.default(_reshape_alias_11, transpose_3);  _reshape_alias_11 = transpose_3 = None
    _reshape_alias_12 = torch.ops.aten._reshape_alias.default(bmm_5, [4, 64, 32, 1], [2048, 32, 1, 1]);  bmm_5 = None
    permute_21 = torch.ops.aten.permute.default(_reshape_alias_12, [0, 3, 2, 1]);  _reshape_alias_12 = None
    _reshape_alias_13 = torch.ops.aten._reshape_alias.default(bmm_6, [4, 24, 64, 1], [1536, 64, 1, 1]);  bmm_6 = None
    permute_22 = torch.ops.aten.permute.default(_reshape_alias_13, [0, 1, 3, 2]);  _reshape_alias_13 = None
    permute_23 = torch.ops.aten.permute.default(permute_21, [0, 3, 2, 1]);  permute_21 = None
    squeeze_1 = torch.ops.aten.squeeze.dim(permute_23, 3);  permute_23 = None
    permute_24 = torch.ops.aten.permute.default(permute_22, [0, 1, 3, 2]);  permute_22 = None
    squeeze_2 = torch.ops.aten.squeeze.dim(permute_24, 3);  permute_24 = None
    sigmoid = torch.ops.aten.sigmoid.default(view_1)
    empty_like = torch.ops.aten.empty_like.default(sigmoid, memory_format = torch.preserve_format)
    fill_ = torch.ops.aten.fill_.Scalar(empty_like, 1);  empty_like = None
    sub_ = torch.ops.aten.sub_.Tensor(fill_, sigmoid);  fill_ = None
    mul = torch.ops.aten.mul.Tensor(view_1, sub_);  view_1 = sub_ = None
    add_1 = torch.ops.aten.add.Scalar(mul, 1.0000001192092896);  mul = None
    mul_1 = torch.ops.aten.mul.Tensor(sigmoid, add_1);  sigmoid = add_1 = None
    mul_2 = torch.ops.aten.mul.Tensor(squeeze_2, mul_1);  squeeze_2 = mul_1 = None
    _reshape_alias_14 = torch.ops.aten._reshape_alias.default(mul_2, [4, 24, 64, 1], [1536, 64, 1, 1]);  mul_2 = None
    permute_25 = torch.ops.aten.permute.default(_reshape_alias_14, [1, 3, 0, 2]);  _reshape_alias_14 = None
    clone_1 = torch.ops.aten.clone.default(permute_25, memory_format = torch.contiguous_format);  permute_25 = None
    _unsafe_view_1 = torch.ops.aten._unsafe_view.default(clone_1, [1, 24, 256]);  clone_1 = None
    transpose_4 = torch.ops.aten.transpose.int(_reshape_alias_1, 1, 2);  _reshape_alias_1 = None
    bmm_7 = torch.ops.aten.bmm.default(transpose_4, _unsafe_view_1);  transpose_4 = None
    transpose_5 = torch.ops.aten.transpose.int(_unsafe_view, 1, 2);  _unsafe_view = None
    bmm_8 = torch.ops.aten.bmm.default(_unsafe_view_1, transpose_5);  _unsafe_view_1 = transpose_5 = None
    _reshape_alias_15 = torch.ops.aten._reshape_alias.default(bmm_7, [32, 4, 64, 1], [256, 64, 1, 1]);  bmm_7 = None
    permute_26 = torch.ops.aten.permute.default(_reshape_alias_15, [1, 3, 2, 0]);  _reshape_alias_15 = None
    _reshape_alias_16 = torch.ops.aten._reshape_alias.default(bmm_8, [24, 32, 1, 1], [32, 1, 1, 1]);  bmm_8 = None
    permute_27 = torch.ops.aten.permute.default(_reshape_alias_16, [2, 0, 3, 1]);  _reshape_alias_16 = None
    permute_28 = torch.ops.aten.permute.default(permute_26, [0, 3, 2, 1]);  permute_26 = None
    squeeze_3 = torch.ops.aten.squeeze.dim(permute_28, 3);  permute_28 = None
    permute_29 = torch.ops.aten.permute.default(permute_27, [1, 3, 0, 2]);  permute_27 = None
    squeeze_4 = torch.ops.aten.squeeze.dim(permute_29, 3);  permute_29 = None
    squeeze_5 = torch.ops.aten.squeeze.dim(squeeze_4, 2);  squeeze_4 = None
    add_2 = torch.ops.aten.add.Tensor(mse_loss_backward, squeeze_5);  mse_loss_backward = squeeze_5 = None
    gather = torch.ops.aten.gather.default(squeeze, 1, getitem_1);  squeeze = None
    zeros = torch.ops.aten.zeros.default([24, 4], dtype = torch.float32, layout = torch.strided, device = device(type='cpu'))
    scatter_1 = torch.ops.aten.scatter.src(zeros, -1, getitem_1, gather);  zeros = getitem_1 = gather = None
    detach_1 = torch.ops.aten.detach.default(detach);  detach = None
    _softmax_backward_data = torch.ops.aten._softmax_backward_data.default(scatter_1, detach_1, -1, torch.float32);  scatter_1 = detach_1 = None
    t_2 = torch.ops.aten.t.default(_softmax_backward_data)
    mm_1 = torch.ops.aten.mm.default(t_2, addmm);  t_2 = addmm = None
    t_3 = torch.ops.aten.t.default(mm_1);  mm_1 = None
    t_4 = torch.ops.aten.t.default(t_1);  t_1 = None
    mm_2 = torch.ops.aten.mm.default(_softmax_backward_data, t_4);  _softmax_backward_data = t_4 = None
    add_3 = torch.ops.aten.add.Tensor(add_2, mm_2);  add_2 = mm_2 = None
    t_5 = torch.ops.aten.t.default(t_3);  t_3 = None
    t_6 = torch.ops.aten.t.default(add_3)
    mm_3 = torch.ops.aten.mm.default(t_6, arg0_1);  t_6 = arg0_1 = None
    t_7 = torch.ops.aten.t.default(mm_3);  mm_3 = None
    sum_1 = torch.ops.aten.sum.dim_IntList(add_3, [0], True);  add_3 = None
    view_6 = torch.ops.aten.view.default(sum_1, [32]);  sum_1 = None
    t_8 = torch.ops.aten.t.default(t_7);  t_7 = None
    return (mse_loss, bincount, t_8, view_6, squeeze_3, squeeze_1, t_5)
    