


def forward(self, arg0_1, arg1_1, arg2_1, arg3_1, arg4_1, arg5_1, arg6_1, arg7_1, arg8_1, arg9_1, arg10_1, arg11_1):
    _embedding_bag = torch.ops.aten._embedding_bag.default(arg3_1, arg0_1, arg1_1, False, 1, False, None);  arg3_1 = arg1_1 = None
    getitem = _embedding_bag[0]
    getitem_1 = _embedding_bag[1]
    getitem_2 = _embedding_bag[2]
    getitem_3 = _embedding_bag[3];  _embedding_bag = None
    t = torch.ops.aten.t.default(arg4_1);  arg4_1 = None
    addmm = torch.ops.aten.addmm.default(arg5_1, getitem, t);  arg5_1 = None
    _softmax = torch.ops.aten._softmax.default(addmm, -1, False);  addmm = None
    detach = torch.ops.aten.detach.default(_softmax)
    max_1 = torch.ops.aten.max.dim(_softmax, -1);  _softmax = None
    getitem_4 = max_1[0]
    getitem_5 = max_1[1];  max_1 = None
    clone = torch.ops.aten.clone.default(getitem)
    eq = torch.ops.aten.eq.Scalar(getitem_5, 0)
    nonzero = torch.ops.aten.nonzero.default(eq);  eq = None
    _reshape_alias = torch.ops.aten._reshape_alias.default(nonzero, [3], [1]);  nonzero = None
    slice_1 = torch.ops.aten.slice.Tensor(_reshape_alias, 0, 0, 3);  _reshape_alias = None
    index = torch.ops.aten.index.Tensor(getitem, [slice_1])
    t_1 = torch.ops.aten.t.default(arg6_1);  arg6_1 = None
    addmm_1 = torch.ops.aten.addmm.default(arg7_1, index, t_1);  arg7_1 = None
    unsqueeze = torch.ops.aten.unsqueeze.default(getitem_4, 1)
    index_1 = torch.ops.aten.index.Tensor(unsqueeze, [slice_1]);  unsqueeze = None
    mul = torch.ops.aten.mul.Tensor(addmm_1, index_1)
    index_add = torch.ops.aten.index_add.default(clone, 0, slice_1, mul);  clone = mul = None
    eq_1 = torch.ops.aten.eq.Scalar(getitem_5, 1)
    nonzero_1 = torch.ops.aten.nonzero.default(eq_1);  eq_1 = None
    _reshape_alias_1 = torch.ops.aten._reshape_alias.default(nonzero_1, [3], [1]);  nonzero_1 = None
    slice_2 = torch.ops.aten.slice.Tensor(_reshape_alias_1, 0, 0, 3);  _reshape_alias_1 = None
    index_2 = torch.ops.aten.index.Tensor(getitem, [slice_2])
    t_2 = torch.ops.aten.t.default(arg8_1);  arg8_1 = None
    addmm_2 = torch.ops.aten.addmm.default(arg9_1, index_2, t_2);  arg9_1 = None
    unsqueeze_1 = torch.ops.aten.unsqueeze.default(getitem_4, 1);  getitem_4 = None
    index_3 = torch.ops.aten.index.Tensor(unsqueeze_1, [slice_2]);  unsqueeze_1 = None
    mul_1 = torch.ops.aten.mul.Tensor(addmm_2, index_3)
    index_add_1 = torch.ops.aten.index_add.default(index_add, 0, slice_2, mul_1);  index_add = mul_1 = None
    t_3 = torch.ops.aten.t.default(arg10_1);  arg10_1 = None
    addmm_3 = torch.ops.aten.addmm.default(arg11_1, index_add_1, t_3);  arg11_1 = None
    _log_softmax = torch.ops.aten._log_softmax.default(addmm_3, 1, False);  addmm_3 = None
    detach_1 = torch.ops.aten.detach.default(_log_softmax)
    nll_loss_forward = torch.ops.aten.nll_loss_forward.default(_log_softmax, arg2_1, None, 1, -100)
    getitem_6 = nll_loss_forward[0]
    getitem_7 = nll_loss_forward[1];  nll_loss_forward = None
    ones_like = torch.ops.aten.ones_like.default(getitem_6, dtype = torch.float32, layout = torch.strided, device = device(type='cpu'), pin_memory = False, memory_format = torch.preserve_format)
    nll_loss_backward = torch.ops.aten.nll_loss_backward.default(ones_like, _log_softmax, arg2_1, None, 1, -100, getitem_7);  ones_like = _log_softmax = arg2_1 = getitem_7 = None
    detach_2 = torch.ops.aten.detach.default(detach_1);  detach_1 = None
    _log_softmax_backward_data = torch.ops.aten._log_softmax_backward_data.default(nll_loss_backward, detach_2, 1, torch.float32);  nll_loss_backward = detach_2 = None
    t_4 = torch.ops.aten.t.default(t_3);  t_3 = None
    mm = torch.ops.aten.mm.default(_log_softmax_backward_data, t_4);  t_4 = None
    t_5 = torch.ops.aten.t.default(_log_softmax_backward_data)
    mm_1 = torch.ops.aten.mm.default(t_5, index_add_1);  t_5 = index_add_1 = None
    t_6 = torch.ops.aten.t.default(mm_1);  mm_1 = None
    sum_1 = torch.ops.aten.sum.dim_IntList(_log_softmax_backward_data, [0], True);  _log_softmax_backward_data = None
    view = torch.ops.aten.view.default(sum_1, [3]);  sum_1 = None
    t_7 = torch.ops.aten.t.default(t_6);  t_6 = None
    index_select = torch.ops.aten.index_select.default(mm, 0, slice_2)
    expand = torch.ops.aten.expand.default(index_select, [3, 8]);  index_select = None
    mul_2 = torch.ops.aten.mul.Tensor(expand, addmm_2);  addmm_2 = None
    mul_3 = torch.ops.aten.mul.Tensor(expand, index_3);  expand = index_3 = None
    sum_2 = torch.ops.aten.sum.dim_IntList(mul_2, [1], True);  mul_2 = None
    new_zeros = torch.ops.aten.new_zeros.default(sum_2, [6, 1], dtype = torch.float32, layout = torch.strided, device = device(type='cpu'))
    index_put = torch.ops.aten.index_put.default(new_zeros, [slice_2], sum_2, True);  new_zeros = sum_2 = None
    squeeze = torch.ops.aten.squeeze.dim(index_put, 1);  index_put = None
    t_8 = torch.ops.aten.t.default(t_2);  t_2 = None
    mm_2 = torch.ops.aten.mm.default(mul_3, t_8);  t_8 = None
    t_9 = torch.ops.aten.t.default(mul_3)
    mm_3 = torch.ops.aten.mm.default(t_9, index_2);  t_9 = index_2 = None
    t_10 = torch.ops.aten.t.default(mm_3);  mm_3 = None
    sum_3 = torch.ops.aten.sum.dim_IntList(mul_3, [0], True);  mul_3 = None
    view_1 = torch.ops.aten.view.default(sum_3, [8]);  sum_3 = None
    t_11 = torch.ops.aten.t.default(t_10);  t_10 = None
    new_zeros_1 = torch.ops.aten.new_zeros.default(mm_2, [6, 8], dtype = torch.float32, layout = torch.strided, device = device(type='cpu'))
    index_put_1 = torch.ops.aten.index_put.default(new_zeros_1, [slice_2], mm_2, True);  new_zeros_1 = slice_2 = mm_2 = None
    index_select_1 = torch.ops.aten.index_select.default(mm, 0, slice_1)
    expand_1 = torch.ops.aten.expand.default(index_select_1, [3, 8]);  index_select_1 = None
    mul_4 = torch.ops.aten.mul.Tensor(expand_1, addmm_1);  addmm_1 = None
    mul_5 = torch.ops.aten.mul.Tensor(expand_1, index_1);  expand_1 = index_1 = None
    sum_4 = torch.ops.aten.sum.dim_IntList(mul_4, [1], True);  mul_4 = None
    new_zeros_2 = torch.ops.aten.new_zeros.default(sum_4, [6, 1], dtype = torch.float32, layout = torch.strided, device = device(type='cpu'))
    index_put_2 = torch.ops.aten.index_put.default(new_zeros_2, [slice_1], sum_4, True);  new_zeros_2 = sum_4 = None
    squeeze_1 = torch.ops.aten.squeeze.dim(index_put_2, 1);  index_put_2 = None
    add = torch.ops.aten.add.Tensor(squeeze, squeeze_1);  squeeze = squeeze_1 = None
    t_12 = torch.ops.aten.t.default(t_1);  t_1 = None
    mm_4 = torch.ops.aten.mm.default(mul_5, t_12);  t_12 = None
    t_13 = torch.ops.aten.t.default(mul_5)
    mm_5 = torch.ops.aten.mm.default(t_13, index);  t_13 = index = None
    t_14 = torch.ops.aten.t.default(mm_5);  mm_5 = None
    sum_5 = torch.ops.aten.sum.dim_IntList(mul_5, [0], True);  mul_5 = None
    view_2 = torch.ops.aten.view.default(sum_5, [8]);  sum_5 = None
    t_15 = torch.ops.aten.t.default(t_14);  t_14 = None
    new_zeros_3 = torch.ops.aten.new_zeros.default(mm_4, [6, 8], dtype = torch.float32, layout = torch.strided, device = device(type='cpu'))
    index_put_3 = torch.ops.aten.index_put.default(new_zeros_3, [slice_1], mm_4, True);  new_zeros_3 = slice_1 = mm_4 = None
    add_1 = torch.ops.aten.add.Tensor(index_put_1, index_put_3);  index_put_1 = index_put_3 = None
    add_2 = torch.ops.aten.add.Tensor(add_1, mm);  add_1 = mm = None
    unsqueeze_2 = torch.ops.aten.unsqueeze.default(add, -1);  add = None
    unsqueeze_3 = torch.ops.aten.unsqueeze.default(getitem_5, -1);  getitem_5 = None
    zeros = torch.ops.aten.zeros.default([6, 2], dtype = torch.float32, layout = torch.strided, device = device(type='cpu'))
    scatter = torch.ops.aten.scatter.src(zeros, -1, unsqueeze_3, unsqueeze_2);  zeros = unsqueeze_3 = unsqueeze_2 = None
    detach_3 = torch.ops.aten.detach.default(detach);  detach = None
    _softmax_backward_data = torch.ops.aten._softmax_backward_data.default(scatter, detach_3, -1, torch.float32);  scatter = detach_3 = None
    t_16 = torch.ops.aten.t.default(t);  t = None
    mm_6 = torch.ops.aten.mm.default(_softmax_backward_data, t_16);  t_16 = None
    t_17 = torch.ops.aten.t.default(_softmax_backward_data)
    mm_7 = torch.ops.aten.mm.default(t_17, getitem);  t_17 = getitem = None
    t_18 = torch.ops.aten.t.default(mm_7);  mm_7 = None
    sum_6 = torch.ops.aten.sum.dim_IntList(_softmax_backward_data, [0], True);  _softmax_backward_data = None
    view_3 = torch.ops.aten.view.default(sum_6, [2]);  sum_6 = None
    add_3 = torch.ops.aten.add.Tensor(add_2, mm_6);  add_2 = mm_6 = None
    t_19 = torch.ops.aten.t.default(t_18);  t_18 = None
    _embedding_bag_dense_backward = torch.ops.aten._embedding_bag_dense_backward.default(add_3, arg0_1, getitem_1, getitem_2, getitem_3, 13, False, 1, None);  add_3 = arg0_1 = getitem_1 = getitem_2 = getitem_3 = None
    return (getitem_6, _embedding_bag_dense_backward, t_19, view_3, t_15, view_2, t_11, view_1, t_7, view)
    