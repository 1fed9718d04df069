


def forward(self, arg0_1, arg1_1, arg2_1, arg3_1, arg4_1, arg5_1, arg6_1, arg7_1, arg8_1, arg9_1, arg10_1, arg11_1, arg12_1, arg13_1, arg14_1):
    embedding = torch.ops.aten.embedding.default(arg2_1, arg14_1);  arg2_1 = None
    permute = torch.ops.aten.permute.default(embedding, [2, 0, 1]);  embedding = None
    unsqueeze = torch.ops.aten.unsqueeze.default(permute, 0);  permute = None
    t = torch.ops.aten.t.default(arg3_1);  arg3_1 = None
    _reshape_alias = torch.ops.aten._reshape_alias.default(arg0_1, [16, 8], [8, 1])
    mm = torch.ops.aten.mm.default(_reshape_alias, t);  t = None
    _unsafe_view = torch.ops.aten._unsafe_view.default(mm, [4, 4, 24]);  mm = None
    view = torch.ops.aten.view.default(_unsafe_view, [4, 4, 3, 2, 4]);  _unsafe_view = None
    permute_1 = torch.ops.aten.permute.default(view, [2, 0, 3, 1, 4]);  view = None
    unbind = torch.ops.aten.unbind.int(permute_1);  permute_1 = None
    getitem = unbind[0]
    getitem_1 = unbind[1]
    getitem_2 = unbind[2];  unbind = None
    transpose = torch.ops.aten.transpose.int(getitem_1, -1, -2);  getitem_1 = None
    expand = torch.ops.aten.expand.default(getitem, [4, 2, 4, 4]);  getitem = None
    clone = torch.ops.aten.clone.default(expand, memory_format = torch.contiguous_format);  expand = None
    _unsafe_view_1 = torch.ops.aten._unsafe_view.default(clone, [8, 4, 4]);  clone = None
    expand_1 = torch.ops.aten.expand.default(transpose, [4, 2, 4, 4]);  transpose = None
    clone_1 = torch.ops.aten.clone.default(expand_1, memory_format = torch.contiguous_format);  expand_1 = None
    _unsafe_view_2 = torch.ops.aten._unsafe_view.default(clone_1, [8, 4, 4]);  clone_1 = None
    bmm = torch.ops.aten.bmm.default(_unsafe_view_1, _unsafe_view_2)
    _unsafe_view_3 = torch.ops.aten._unsafe_view.default(bmm, [4, 2, 4, 4]);  bmm = None
    add = torch.ops.aten.add.Tensor(_unsafe_view_3, unsqueeze);  _unsafe_view_3 = None
    _softmax = torch.ops.aten._softmax.default(add, -1, False);  add = None
    detach = torch.ops.aten.detach.default(_softmax)
    expand_2 = torch.ops.aten.expand.default(_softmax, [4, 2, 4, 4]);  _softmax = None
    _reshape_alias_1 = torch.ops.aten._reshape_alias.default(expand_2, [8, 4, 4], [16, 4, 1]);  expand_2 = None
    expand_3 = torch.ops.aten.expand.default(getitem_2, [4, 2, 4, 4]);  getitem_2 = None
    clone_2 = torch.ops.aten.clone.default(expand_3, memory_format = torch.contiguous_format);  expand_3 = None
    _unsafe_view_4 = torch.ops.aten._unsafe_view.default(clone_2, [8, 4, 4]);  clone_2 = None
    bmm_1 = torch.ops.aten.bmm.default(_reshape_alias_1, _unsafe_view_4)
    _unsafe_view_5 = torch.ops.aten._unsafe_view.default(bmm_1, [4, 2, 4, 4]);  bmm_1 = None
    transpose_1 = torch.ops.aten.transpose.int(_unsafe_view_5, 1, 2);  _unsafe_view_5 = None
    clone_3 = torch.ops.aten.clone.default(transpose_1, memory_format = torch.contiguous_format);  transpose_1 = None
    _unsafe_view_6 = torch.ops.aten._unsafe_view.default(clone_3, [4, 4, 8]);  clone_3 = None
    t_1 = torch.ops.aten.t.default(arg4_1);  arg4_1 = None
    _reshape_alias_2 = torch.ops.aten._reshape_alias.default(_unsafe_view_6, [16, 8], [8, 1]);  _unsafe_view_6 = None
    mm_1 = torch.ops.aten.mm.default(_reshape_alias_2, t_1)
    _unsafe_view_7 = torch.ops.aten._unsafe_view.default(mm_1, [4, 4, 8]);  mm_1 = None
    add_1 = torch.ops.aten.add.Tensor(arg0_1, _unsafe_view_7);  arg0_1 = _unsafe_view_7 = None
    t_2 = torch.ops.aten.t.default(arg5_1);  arg5_1 = None
    _reshape_alias_3 = torch.ops.aten._reshape_alias.default(add_1, [16, 8], [8, 1])
    mm_2 = torch.ops.aten.mm.default(_reshape_alias_3, t_2)
    _unsafe_view_8 = torch.ops.aten._unsafe_view.default(mm_2, [4, 4, 8]);  mm_2 = None
    relu = torch.ops.aten.relu.default(_unsafe_view_8);  _unsafe_view_8 = None
    detach_1 = torch.ops.aten.detach.default(relu)
    add_2 = torch.ops.aten.add.Tensor(add_1, relu);  add_1 = relu = None
    t_3 = torch.ops.aten.t.default(arg6_1);  arg6_1 = None
    _reshape_alias_4 = torch.ops.aten._reshape_alias.default(add_2, [16, 8], [8, 1])
    mm_3 = torch.ops.aten.mm.default(_reshape_alias_4, t_3)
    _unsafe_view_9 = torch.ops.aten._unsafe_view.default(mm_3, [4, 4, 24]);  mm_3 = None
    view_1 = torch.ops.aten.view.default(_unsafe_view_9, [4, 4, 3, 2, 4]);  _unsafe_view_9 = None
    permute_2 = torch.ops.aten.permute.default(view_1, [2, 0, 3, 1, 4]);  view_1 = None
    unbind_1 = torch.ops.aten.unbind.int(permute_2);  permute_2 = None
    getitem_3 = unbind_1[0]
    getitem_4 = unbind_1[1]
    getitem_5 = unbind_1[2];  unbind_1 = None
    transpose_2 = torch.ops.aten.transpose.int(getitem_4, -1, -2);  getitem_4 = None
    expand_4 = torch.ops.aten.expand.default(getitem_3, [4, 2, 4, 4]);  getitem_3 = None
    clone_4 = torch.ops.aten.clone.default(expand_4, memory_format = torch.contiguous_format);  expand_4 = None
    _unsafe_view_10 = torch.ops.aten._unsafe_view.default(clone_4, [8, 4, 4]);  clone_4 = None
    expand_5 = torch.ops.aten.expand.default(transpose_2, [4, 2, 4, 4]);  transpose_2 = None
    clone_5 = torch.ops.aten.clone.default(expand_5, memory_format = torch.contiguous_format);  expand_5 = None
    _unsafe_view_11 = torch.ops.aten._unsafe_view.default(clone_5, [8, 4, 4]);  clone_5 = None
    bmm_2 = torch.ops.aten.bmm.default(_unsafe_view_10, _unsafe_view_11)
    _unsafe_view_12 = torch.ops.aten._unsafe_view.default(bmm_2, [4, 2, 4, 4]);  bmm_2 = None
    add_3 = torch.ops.aten.add.Tensor(_unsafe_view_12, unsqueeze);  _unsafe_view_12 = None
    _softmax_1 = torch.ops.aten._softmax.default(add_3, -1, False);  add_3 = None
    detach_2 = torch.ops.aten.detach.default(_softmax_1)
    expand_6 = torch.ops.aten.expand.default(_softmax_1, [4, 2, 4, 4]);  _softmax_1 = None
    _reshape_alias_5 = torch.ops.aten._reshape_alias.default(expand_6, [8, 4, 4], [16, 4, 1]);  expand_6 = None
    expand_7 = torch.ops.aten.expand.default(getitem_5, [4, 2, 4, 4]);  getitem_5 = None
    clone_6 = torch.ops.aten.clone.default(expand_7, memory_format = torch.contiguous_format);  expand_7 = None
    _unsafe_view_13 = torch.ops.aten._unsafe_view.default(clone_6, [8, 4, 4]);  clone_6 = None
    bmm_3 = torch.ops.aten.bmm.default(_reshape_alias_5, _unsafe_view_13)
    _unsafe_view_14 = torch.ops.aten._unsafe_view.default(bmm_3, [4, 2, 4, 4]);  bmm_3 = None
    transpose_3 = torch.ops.aten.transpose.int(_unsafe_view_14, 1, 2);  _unsafe_view_14 = None
    clone_7 = torch.ops.aten.clone.default(transpose_3, memory_format = torch.contiguous_format);  transpose_3 = None
    _unsafe_view_15 = torch.ops.aten._unsafe_view.default(clone_7, [4, 4, 8]);  clone_7 = None
    t_4 = torch.ops.aten.t.default(arg7_1);  arg7_1 = None
    _reshape_alias_6 = torch.ops.aten._reshape_alias.default(_unsafe_view_15, [16, 8], [8, 1]);  _unsafe_view_15 = None
    mm_4 = torch.ops.aten.mm.default(_reshape_alias_6, t_4)
    _unsafe_view_16 = torch.ops.aten._unsafe_view.default(mm_4, [4, 4, 8]);  mm_4 = None
    add_4 = torch.ops.aten.add.Tensor(add_2, _unsafe_view_16);  add_2 = _unsafe_view_16 = None
    t_5 = torch.ops.aten.t.default(arg8_1);  arg8_1 = None
    _reshape_alias_7 = torch.ops.aten._reshape_alias.default(add_4, [16, 8], [8, 1])
    mm_5 = torch.ops.aten.mm.default(_reshape_alias_7, t_5)
    _unsafe_view_17 = torch.ops.aten._unsafe_view.default(mm_5, [4, 4, 8]);  mm_5 = None
    relu_1 = torch.ops.aten.relu.default(_unsafe_view_17);  _unsafe_view_17 = None
    detach_3 = torch.ops.aten.detach.default(relu_1)
    add_5 = torch.ops.aten.add.Tensor(add_4, relu_1);  add_4 = relu_1 = None
    t_6 = torch.ops.aten.t.default(arg9_1);  arg9_1 = None
    _reshape_alias_8 = torch.ops.aten._reshape_alias.default(add_5, [16, 8], [8, 1])
    mm_6 = torch.ops.aten.mm.default(_reshape_alias_8, t_6)
    _unsafe_view_18 = torch.ops.aten._unsafe_view.default(mm_6, [4, 4, 24]);  mm_6 = None
    view_2 = torch.ops.aten.view.default(_unsafe_view_18, [4, 4, 3, 2, 4]);  _unsafe_view_18 = None
    permute_3 = torch.ops.aten.permute.default(view_2, [2, 0, 3, 1, 4]);  view_2 = None
    unbind_2 = torch.ops.aten.unbind.int(permute_3);  permute_3 = None
    getitem_6 = unbind_2[0]
    getitem_7 = unbind_2[1]
    getitem_8 = unbind_2[2];  unbind_2 = None
    transpose_4 = torch.ops.aten.transpose.int(getitem_7, -1, -2);  getitem_7 = None
    expand_8 = torch.ops.aten.expand.default(getitem_6, [4, 2, 4, 4]);  getitem_6 = None
    clone_8 = torch.ops.aten.clone.default(expand_8, memory_format = torch.contiguous_format);  expand_8 = None
    _unsafe_view_19 = torch.ops.aten._unsafe_view.default(clone_8, [8, 4, 4]);  clone_8 = None
    expand_9 = torch.ops.aten.expand.default(transpose_4, [4, 2, 4, 4]);  transpose_4 = None
    clone_9 = torch.ops.aten.clone.default(expand_9, memory_format = torch.contiguous_format);  expand_9 = None
    _unsafe_view_20 = torch.ops.aten._unsafe_view.default(clone_9, [8, 4, 4]);  clone_9 = None
    bmm_4 = torch.ops.aten.bmm.default(_unsafe_view_19, _unsafe_view_20)
    _unsafe_view_21 = torch.ops.aten._unsafe_view.default(bmm_4, [4, 2, 4, 4]);  bmm_4 = None
    add_6 = torch.ops.aten.add.Tensor(_unsafe_view_21, unsqueeze);  _unsafe_view_21 = unsqueeze = None
    _softmax_2 = torch.ops.aten._softmax.default(add_6, -1, False);  add_6 = None
    detach_4 = torch.ops.aten.detach.default(_softmax_2)
    expand_10 = torch.ops.aten.expand.default(_softmax_2, [4, 2, 4, 4]);  _softmax_2 = None
    _reshape_alias_9 = torch.ops.aten._reshape_alias.default(expand_10, [8, 4, 4], [16, 4, 1]);  expand_10 = None
    expand_11 = torch.ops.aten.expand.default(getitem_8, [4, 2, 4, 4]);  getitem_8 = None
    clone_10 = torch.ops.aten.clone.default(expand_11, memory_format = torch.contiguous_format);  expand_11 = None
    _unsafe_view_22 = torch.ops.aten._unsafe_view.default(clone_10, [8, 4, 4]);  clone_10 = None
    bmm_5 = torch.ops.aten.bmm.default(_reshape_alias_9, _unsafe_view_22)
    _unsafe_view_23 = torch.ops.aten._unsafe_view.default(bmm_5, [4, 2, 4, 4]);  bmm_5 = None
    transpose_5 = torch.ops.aten.transpose.int(_unsafe_view_23, 1, 2);  _unsafe_view_23 = None
    clone_11 = torch.ops.aten.clone.default(transpose_5, memory_format = torch.contiguous_format);  transpose_5 = None
    _unsafe_view_24 = torch.ops.aten._unsafe_view.default(clone_11, [4, 4, 8]);  clone_11 = None
    t_7 = torch.ops.aten.t.default(arg10_1);  arg10_1 = None
    _reshape_alias_10 = torch.ops.aten._reshape_alias.default(_unsafe_view_24, [16, 8], [8, 1]);  _unsafe_view_24 = None
    mm_7 = torch.ops.aten.mm.default(_reshape_alias_10, t_7)
    _unsafe_view_25 = torch.ops.aten._unsafe_view.default(mm_7, [4, 4, 8]);  mm_7 = None
    add_7 = torch.ops.aten.add.Tensor(add_5, _unsafe_view_25);  add_5 = _unsafe_view_25 = None
    t_8 = torch.ops.aten.t.default(arg11_1);  arg11_1 = None
    _reshape_alias_11 = torch.ops.aten._reshape_alias.default(add_7, [16, 8], [8, 1])
    mm_8 = torch.ops.aten.mm.default(_reshape_alias_11, t_8)
    _unsafe_view_26 = torch.ops.aten._unsafe_view.default(mm_8, [4, 4, 8]);  mm_8 = None
    relu_2 = torch.ops.aten.relu.default(_unsafe_view_26);  _unsafe_view_26 = None
    detach_5 = torch.ops.aten.detach.default(relu_2)
    add_8 = torch.ops.aten.add.Tensor(add_7, relu_2);  add_7 = relu_2 = None
    mean = torch.ops.aten.mean.dim(add_8, [1]);  add_8 = None
    t_9 = torch.ops.aten.t.default(arg12_1);  arg12_1 = None
    addmm = torch.ops.aten.addmm.default(arg13_1, mean, t_9);  arg13_1 = None
    _log_softmax = torch.ops.aten._log_softmax.default(addmm, 1, False);  addmm = None
    detach_6 = torch.ops.aten.detach.default(_log_softmax)
    nll_loss_forward = torch.ops.aten.nll_loss_forward.default(_log_softmax, arg1_1, None, 1, -100)
    getitem_9 = nll_loss_forward[0]
    getitem_10 = nll_loss_forward[1];  nll_loss_forward = None
    ones_like = torch.ops.aten.ones_like.default(getitem_9, dtype = torch.float32, layout = torch.strided, device = device(type='cpu'), pin_memory = False, memory_format = torch.preserve_format)
    nll_loss_backward = torch.ops.aten.nll_loss_backward.default(ones_like, _log_softmax, arg1_1, None, 1, -100, getitem_10);  ones_like = _log_softmax = arg1_1 = getitem_10 = None
    detach_7 = torch.ops.aten.detach.default(detach_6);  detach_6 = None
    _log_softmax_backward_data = torch.ops.aten._log_softmax_backward_data.default(nll_loss_backward, detach_7, 1, torch.float32);  nll_loss_backward = detach_7 = None
    t_10 = torch.ops.aten.t.default(t_9);  t_9 = None
    mm_9 = torch.ops.aten.mm.default(_log_softmax_backward_data, t_10);  t_10 = None
    t_11 = torch.ops.aten.t.default(_log_softmax_backward_data)
    mm_10 = torch.ops.aten.mm.default(t_11, mean);  t_11 = mean = None
    t_12 = torch.ops.aten.t.default(mm_10);  mm_10 = None
    sum_1 = torch.ops.aten.sum.dim_IntList(_log_softmax_backward_data, [0], True);  _log_softmax_backward_data = None
    view_3 = torch.ops.aten.view.default(sum_1, [3]);  sum_1 = None
    t_13 = torch.ops.aten.t.default(t_12);  t_12 = None
    unsqueeze_1 = torch.ops.aten.unsqueeze.default(mm_9, 1);  mm_9 = None
    expand_12 = torch.ops.aten.expand.default(unsqueeze_1, [4, 4, 8]);  unsqueeze_1 = None
    div = torch.ops.aten.div.Scalar(expand_12, 4);  expand_12 = None
    detach_8 = torch.ops.aten.detach.default(detach_5);  detach_5 = None
    threshold_backward = torch.ops.aten.threshold_backward.default(div, detach_8, 0);  detach_8 = None
    _reshape_alias_12 = torch.ops.aten._reshape_alias.default(threshold_backward, [16, 8], [8, 1]);  threshold_backward = None
    t_14 = torch.ops.aten.t.default(_reshape_alias_12)
    mm_11 = torch.ops.aten.mm.default(t_14, _reshape_alias_11);  t_14 = _reshape_alias_11 = None
    t_15 = torch.ops.aten.t.default(mm_11);  mm_11 = None
    t_16 = torch.ops.aten.t.default(t_8);  t_8 = None
    mm_12 = torch.ops.aten.mm.default(_reshape_alias_12, t_16);  _reshape_alias_12 = t_16 = None
    _reshape_alias_13 = torch.ops.aten._reshape_alias.default(mm_12, [4, 4, 8], [32, 8, 1]);  mm_12 = None
    add_9 = torch.ops.aten.add.Tensor(div, _reshape_alias_13);  div = _reshape_alias_13 = None
    t_17 = torch.ops.aten.t.default(t_15);  t_15 = None
    _reshape_alias_14 = torch.ops.aten._reshape_alias.default(add_9, [16, 8], [8, 1])
    t_18 = torch.ops.aten.t.default(_reshape_alias_14)
    mm_13 = torch.ops.aten.mm.default(t_18, _reshape_alias_10);  t_18 = _reshape_alias_10 = None
    t_19 = torch.ops.aten.t.default(mm_13);  mm_13 = None
    t_20 = torch.ops.aten.t.default(t_7);  t_7 = None
    mm_14 = torch.ops.aten.mm.default(_reshape_alias_14, t_20);  _reshape_alias_14 = t_20 = None
    _reshape_alias_15 = torch.ops.aten._reshape_alias.default(mm_14, [4, 4, 8], [32, 8, 1]);  mm_14 = None
    t_21 = torch.ops.aten.t.default(t_19);  t_19 = None
    _reshape_alias_16 = torch.ops.aten._reshape_alias.default(_reshape_alias_15, [4, 4, 2, 4], [32, 8, 4, 1]);  _reshape_alias_15 = None
    transpose_6 = torch.ops.aten.transpose.int(_reshape_alias_16, 1, 2);  _reshape_alias_16 = None
    clone_12 = torch.ops.aten.clone.default(transpose_6, memory_format = torch.contiguous_format);  transpose_6 = None
    _unsafe_view_27 = torch.ops.aten._unsafe_view.default(clone_12, [8, 4, 4]);  clone_12 = None
    transpose_7 = torch.ops.aten.transpose.int(_reshape_alias_9, 1, 2);  _reshape_alias_9 = None
    bmm_6 = torch.ops.aten.bmm.default(transpose_7, _unsafe_view_27);  transpose_7 = None
    transpose_8 = torch.ops.aten.transpose.int(_unsafe_view_22, 1, 2);  _unsafe_view_22 = None
    bmm_7 = torch.ops.aten.bmm.default(_unsafe_view_27, transpose_8);  _unsafe_view_27 = transpose_8 = None
    _reshape_alias_17 = torch.ops.aten._reshape_alias.default(bmm_6, [4, 2, 4, 4], [32, 16, 4, 1]);  bmm_6 = None
    _reshape_alias_18 = torch.ops.aten._reshape_alias.default(bmm_7, [4, 2, 4, 4], [32, 16, 4, 1]);  bmm_7 = None
    detach_9 = torch.ops.aten.detach.default(detach_4);  detach_4 = None
    _softmax_backward_data = torch.ops.aten._softmax_backward_data.default(_reshape_alias_18, detach_9, -1, torch.float32);  _reshape_alias_18 = detach_9 = None
    sum_2 = torch.ops.aten.sum.dim_IntList(_softmax_backward_data, [0], True)
    _reshape_alias_19 = torch.ops.aten._reshape_alias.default(_softmax_backward_data, [8, 4, 4], [16, 4, 1]);  _softmax_backward_data = None
    transpose_9 = torch.ops.aten.transpose.int(_unsafe_view_19, 1, 2);  _unsafe_view_19 = None
    bmm_8 = torch.ops.aten.bmm.default(transpose_9, _reshape_alias_19);  transpose_9 = None
    transpose_10 = torch.ops.aten.transpose.int(_unsafe_view_20, 1, 2);  _unsafe_view_20 = None
    bmm_9 = torch.ops.aten.bmm.default(_reshape_alias_19, transpose_10);  _reshape_alias_19 = transpose_10 = None
    _reshape_alias_20 = torch.ops.aten._reshape_alias.default(bmm_8, [4, 2, 4, 4], [32, 16, 4, 1]);  bmm_8 = None
    _reshape_alias_21 = torch.ops.aten._reshape_alias.default(bmm_9, [4, 2, 4, 4], [32, 16, 4, 1]);  bmm_9 = None
    transpose_11 = torch.ops.aten.transpose.int(_reshape_alias_20, -1, -2);  _reshape_alias_20 = None
    stack = torch.ops.aten.stack.default([_reshape_alias_21, transpose_11, _reshape_alias_17]);  _reshape_alias_21 = transpose_11 = _reshape_alias_17 = None
    permute_4 = torch.ops.aten.permute.default(stack, [1, 3, 0, 2, 4]);  stack = None
    clone_13 = torch.ops.aten.clone.default(permute_4, memory_format = torch.contiguous_format);  permute_4 = None
    _unsafe_view_28 = torch.ops.aten._unsafe_view.default(clone_13, [4, 4, 24]);  clone_13 = None
    _reshape_alias_22 = torch.ops.aten._reshape_alias.default(_unsafe_view_28, [16, 24], [24, 1]);  _unsafe_view_28 = None
    t_22 = torch.ops.aten.t.default(_reshape_alias_22)
    mm_15 = torch.ops.aten.mm.default(t_22, _reshape_alias_8);  t_22 = _reshape_alias_8 = None
    t_23 = torch.ops.aten.t.default(mm_15);  mm_15 = None
    t_24 = torch.ops.aten.t.default(t_6);  t_6 = None
    mm_16 = torch.ops.aten.mm.default(_reshape_alias_22, t_24);  _reshape_alias_22 = t_24 = None
    _reshape_alias_23 = torch.ops.aten._reshape_alias.default(mm_16, [4, 4, 8], [32, 8, 1]);  mm_16 = None
    add_10 = torch.ops.aten.add.Tensor(add_9, _reshape_alias_23);  add_9 = _reshape_alias_23 = None
    t_25 = torch.ops.aten.t.default(t_23);  t_23 = None
    detach_10 = torch.ops.aten.detach.default(detach_3);  detach_3 = None
    threshold_backward_1 = torch.ops.aten.threshold_backward.default(add_10, detach_10, 0);  detach_10 = None
    _reshape_alias_24 = torch.ops.aten._reshape_alias.default(threshold_backward_1, [16, 8], [8, 1]);  threshold_backward_1 = None
    t_26 = torch.ops.aten.t.default(_reshape_alias_24)
    mm_17 = torch.ops.aten.mm.default(t_26, _reshape_alias_7);  t_26 = _reshape_alias_7 = None
    t_27 = torch.ops.aten.t.default(mm_17);  mm_17 = None
    t_28 = torch.ops.aten.t.default(t_5);  t_5 = None
    mm_18 = torch.ops.aten.mm.default(_reshape_alias_24, t_28);  _reshape_alias_24 = t_28 = None
    _reshape_alias_25 = torch.ops.aten._reshape_alias.default(mm_18, [4, 4, 8], [32, 8, 1]);  mm_18 = None
    add_11 = torch.ops.aten.add.Tensor(add_10, _reshape_alias_25);  add_10 = _reshape_alias_25 = None
    t_29 = torch.ops.aten.t.default(t_27);  t_27 = None
    _reshape_alias_26 = torch.ops.aten._reshape_alias.default(add_11, [16, 8], [8, 1])
    t_30 = torch.ops.aten.t.default(_reshape_alias_26)
    mm_19 = torch.ops.aten.mm.default(t_30, _reshape_alias_6);  t_30 = _reshape_alias_6 = None
    t_31 = torch.ops.aten.t.default(mm_19);  mm_19 = None
    t_32 = torch.ops.aten.t.default(t_4);  t_4 = None
    mm_20 = torch.ops.aten.mm.default(_reshape_alias_26, t_32);  _reshape_alias_26 = t_32 = None
    _reshape_alias_27 = torch.ops.aten._reshape_alias.default(mm_20, [4, 4, 8], [32, 8, 1]);  mm_20 = None
    t_33 = torch.ops.aten.t.default(t_31);  t_31 = None
    _reshape_alias_28 = torch.ops.aten._reshape_alias.default(_reshape_alias_27, [4, 4, 2, 4], [32, 8, 4, 1]);  _reshape_alias_27 = None
    transpose_12 = torch.ops.aten.transpose.int(_reshape_alias_28, 1, 2);  _reshape_alias_28 = None
    clone_14 = torch.ops.aten.clone.default(transpose_12, memory_format = torch.contiguous_format);  transpose_12 = None
    _unsafe_view_29 = torch.ops.aten._unsafe_view.default(clone_14, [8, 4, 4]);  clone_14 = None
    transpose_13 = torch.ops.aten.transpose.int(_reshape_alias_5, 1, 2);  _reshape_alias_5 = None
    bmm_10 = torch.ops.aten.bmm.default(transpose_13, _unsafe_view_29);  transpose_13 = None
    transpose_14 = torch.ops.aten.transpose.int(_unsafe_view_13, 1, 2);  _unsafe_view_13 = None
    bmm_11 = torch.ops.aten.bmm.default(_unsafe_view_29, transpose_14);  _unsafe_view_29 = transpose_14 = None
    _reshape_alias_29 = torch.ops.aten._reshape_alias.default(bmm_10, [4, 2, 4, 4], [32, 16, 4, 1]);  bmm_10 = None
    _reshape_alias_30 = torch.ops.aten._reshape_alias.default(bmm_11, [4, 2, 4, 4], [32, 16, 4, 1]);  bmm_11 = None
    detach_11 = torch.ops.aten.detach.default(detach_2);  detach_2 = None
    _softmax_backward_data_1 = torch.ops.aten._softmax_backward_data.default(_reshape_alias_30, detach_11, -1, torch.float32);  _reshape_alias_30 = detach_11 = None
    sum_3 = torch.ops.aten.sum.dim_IntList(_softmax_backward_data_1, [0], True)
    add_12 = torch.ops.aten.add.Tensor(sum_2, sum_3);  sum_2 = sum_3 = None
    _reshape_alias_31 = torch.ops.aten._reshape_alias.default(_softmax_backward_data_1, [8, 4, 4], [16, 4, 1]);  _softmax_backward_data_1 = None
    transpose_15 = torch.ops.aten.transpose.int(_unsafe_view_10, 1, 2);  _unsafe_view_10 = None
    bmm_12 = torch.ops.aten.bmm.default(transpose_15, _reshape_alias_31);  transpose_15 = None
    transpose_16 = torch.ops.aten.transpose.int(_unsafe_view_11, 1, 2);  _unsafe_view_11 = None
    bmm_13 = torch.ops.aten.bmm.default(_reshape_alias_31, transpose_16);  _reshape_alias_31 = transpose_16 = None
    _reshape_alias_32 = torch.ops.aten._reshape_alias.default(bmm_12, [4, 2, 4, 4], [32, 16, 4, 1]);  bmm_12 = None
    _reshape_alias_33 = torch.ops.aten._reshape_alias.default(bmm_13, [4, 2, 4, 4], [32, 16, 4, 1]);  bmm_13 = None
    transpose_17 = torch.ops.aten.transpose.int(_reshape_alias_32, -1, -2);  _reshape_alias_32 = None
    stack_1 = torch.ops.aten.stack.default([_reshape_alias_33, transpose_17, _reshape_alias_29]);  _reshape_alias_33 = transpose_17 = _reshape_alias_29 = None
    permute_5 = torch.ops.aten.permute.default(stack_1, [1, 3, 0, 2, 4]);  stack_1 = None
    clone_15 = torch.ops.aten.clone.default(permute_5, memory_format = torch.contiguous_format);  permute_5 = None
    _unsafe_view_30 = torch.ops.aten._unsafe_view.default(clone_15, [4, 4, 24]);  clone_15 = None
    _reshape_alias_34 = torch.ops.aten._reshape_alias.default(_unsafe_view_30, [16, 24], [24, 1]);  _unsafe_view_30 = None
    t_34 = torch.ops.aten.t.default(_reshape_alias_34)
    mm_21 = torch.ops.aten.mm.default(t_34, _reshape_alias_4);  t_34 = _reshape_alias_4 = None
    t_35 = torch.ops.aten.t.default(mm_21);  mm_21 = None
    t_36 = torch.ops.aten.t.default(t_3);  t_3 = None
    mm_22 = torch.ops.aten.mm.default(_reshape_alias_34, t_36);  _reshape_alias_34 = t_36 = None
    _reshape_alias_35 = torch.ops.aten._reshape_alias.default(mm_22, [4, 4, 8], [32, 8, 1]);  mm_22 = None
    add_13 = torch.ops.aten.add.Tensor(add_11, _reshape_alias_35);  add_11 = _reshape_alias_35 = None
    t_37 = torch.ops.aten.t.default(t_35);  t_35 = None
    detach_12 = torch.ops.aten.detach.default(detach_1);  detach_1 = None
    threshold_backward_2 = torch.ops.aten.threshold_backward.default(add_13, detach_12, 0);  detach_12 = None
    _reshape_alias_36 = torch.ops.aten._reshape_alias.default(threshold_backward_2, [16, 8], [8, 1]);  threshold_backward_2 = None
    t_38 = torch.ops.aten.t.default(_reshape_alias_36)
    mm_23 = torch.ops.aten.mm.default(t_38, _reshape_alias_3);  t_38 = _reshape_alias_3 = None
    t_39 = torch.ops.aten.t.default(mm_23);  mm_23 = None
    t_40 = torch.ops.aten.t.default(t_2);  t_2 = None
    mm_24 = torch.ops.aten.mm.default(_reshape_alias_36, t_40);  _reshape_alias_36 = t_40 = None
    _reshape_alias_37 = torch.ops.aten._reshape_alias.default(mm_24, [4, 4, 8], [32, 8, 1]);  mm_24 = None
    add_14 = torch.ops.aten.add.Tensor(add_13, _reshape_alias_37);  add_13 = _reshape_alias_37 = None
    t_41 = torch.ops.aten.t.default(t_39);  t_39 = None
    _reshape_alias_38 = torch.ops.aten._reshape_alias.default(add_14, [16, 8], [8, 1]);  add_14 = None
    t_42 = torch.ops.aten.t.default(_reshape_alias_38)
    mm_25 = torch.ops.aten.mm.default(t_42, _reshape_alias_2);  t_42 = _reshape_alias_2 = None
    t_43 = torch.ops.aten.t.default(mm_25);  mm_25 = None
    t_44 = torch.ops.aten.t.default(t_1);  t_1 = None
    mm_26 = torch.ops.aten.mm.default(_reshape_alias_38, t_44);  _reshape_alias_38 = t_44 = None
    _reshape_alias_39 = torch.ops.aten._reshape_alias.default(mm_26, [4, 4, 8], [32, 8, 1]);  mm_26 = None
    t_45 = torch.ops.aten.t.default(t_43);  t_43 = None
    _reshape_alias_40 = torch.ops.aten._reshape_alias.default(_reshape_alias_39, [4, 4, 2, 4], [32, 8, 4, 1]);  _reshape_alias_39 = None
    transpose_18 = torch.ops.aten.transpose.int(_reshape_alias_40, 1, 2);  _reshape_alias_40 = None
    clone_16 = torch.ops.aten.clone.default(transpose_18, memory_format = torch.contiguous_format);  transpose_18 = None
    _unsafe_view_31 = torch.ops.aten._unsafe_view.default(clone_16, [8, 4, 4]);  clone_16 = None
    transpose_19 = torch.ops.aten.transpose.int(_reshape_alias_1, 1, 2);  _reshape_alias_1 = None
    bmm_14 = torch.ops.aten.bmm.default(transpose_19, _unsafe_view_31);  transpose_19 = None
    transpose_20 = torch.ops.aten.transpose.int(_unsafe_view_4, 1, 2);  _unsafe_view_4 = None
    bmm_15 = torch.ops.aten.bmm.default(_unsafe_view_31, transpose_20);  _unsafe_view_31 = transpose_20 = None
    _reshape_alias_41 = torch.ops.aten._reshape_alias.default(bmm_14, [4, 2, 4, 4], [32, 16, 4, 1]);  bmm_14 = None
    _reshape_alias_42 = torch.ops.aten._reshape_alias.default(bmm_15, [4, 2, 4, 4], [32, 16, 4, 1]);  bmm_15 = None
    detach_13 = torch.ops.aten.detach.default(detach);  detach = None
    _softmax_backward_data_2 = torch.ops.aten._softmax_backward_data.default(_reshape_alias_42, detach_13, -1, torch.float32);  _reshape_alias_42 = detach_13 = None
    sum_4 = torch.ops.aten.sum.dim_IntList(_softmax_backward_data_2, [0], True)
    add_15 = torch.ops.aten.add.Tensor(add_12, sum_4);  add_12 = sum_4 = None
    _reshape_alias_43 = torch.ops.aten._reshape_alias.default(_softmax_backward_data_2, [8, 4, 4], [16, 4, 1]);  _softmax_backward_data_2 = None
    transpose_21 = torch.ops.aten.transpose.int(_unsafe_view_1, 1, 2);  _unsafe_view_1 = None
    bmm_16 = torch.ops.aten.bmm.default(transpose_21, _reshape_alias_43);  transpose_21 = None
    transpose_22 = torch.ops.aten.transpose.int(_unsafe_view_2, 1, 2);  _unsafe_view_2 = None
    bmm_17 = torch.ops.aten.bmm.default(_reshape_alias_43, transpose_22);  _reshape_alias_43 = transpose_22 = None
    _reshape_alias_44 = torch.ops.aten._reshape_alias.default(bmm_16, [4, 2, 4, 4], [32, 16, 4, 1]);  bmm_16 = None
    _reshape_alias_45 = torch.ops.aten._reshape_alias.default(bmm_17, [4, 2, 4, 4], [32, 16, 4, 1]);  bmm_17 = None
    transpose_23 = torch.ops.aten.transpose.int(_reshape_alias_44, -1, -2);  _reshape_alias_44 = None
    stack_2 = torch.ops.aten.stack.default([_reshape_alias_45, transpose_23, _reshape_alias_41]);  _reshape_alias_45 = transpose_23 = _reshape_alias_41 = None
    permute_6 = torch.ops.aten.permute.default(stack_2, [1, 3, 0, 2, 4]);  stack_2 = None
    clone_17 = torch.ops.aten.clone.default(permute_6, memory_format = torch.contiguous_format);  permute_6 = None
    _unsafe_view_32 = torch.ops.aten._unsafe_view.default(clone_17, [4, 4, 24]);  clone_17 = None
    _reshape_alias_46 = torch.ops.aten._reshape_alias.default(_unsafe_view_32, [16, 24], [24, 1]);  _unsafe_view_32 = None
    t_46 = torch.ops.aten.t.default(_reshape_alias_46);  _reshape_alias_46 = None
    mm_27 = torch.ops.aten.mm.default(t_46, _reshape_alias);  t_46 = _reshape_alias = None
    t_47 = torch.ops.aten.t.default(mm_27);  mm_27 = None
    t_48 = torch.ops.aten.t.default(t_47);  t_47 = None
    squeeze = torch.ops.aten.squeeze.dim(add_15, 0);  add_15 = None
    permute_7 = torch.ops.aten.permute.default(squeeze, [1, 2, 0]);  squeeze = None
    embedding_dense_backward = torch.ops.aten.embedding_dense_backward.default(permute_7, arg14_1, 7, -1, False);  permute_7 = arg14_1 = None
    return (getitem_9, embedding_dense_backward, t_48, t_45, t_41, t_37, t_33, t_29, t_25, t_21, t_17, t_13, view_3)
    