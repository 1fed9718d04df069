


def forward(self, arg0_1, arg1_1, arg2_1, arg3_1, arg4_1, arg5_1, arg6_1, arg7_1, arg8_1, arg9_1, arg10_1, arg11_1, arg12_1, arg13_1, arg14_1, arg15_1, arg16_1, arg17_1, arg18_1, arg19_1):
    convolution = torch.ops.aten.convolution.default(arg0_1, arg4_1, arg5_1, [4, 4], [0, 0], [1, 1], False, [0, 0], 1);  arg5_1 = None
    _reshape_alias = torch.ops.aten._reshape_alias.default(convolution, [4, 16, 4], [64, 4, 1]);  convolution = None
    transpose = torch.ops.aten.transpose.int(_reshape_alias, 1, 2);  _reshape_alias = None
    expand = torch.ops.aten.expand.default(arg2_1, [4, -1, -1]);  arg2_1 = None
    cat = torch.ops.aten.cat.default([expand, transpose], 1);  expand = transpose = None
    add = torch.ops.aten.add.Tensor(cat, arg3_1);  cat = arg3_1 = None
    native_layer_norm = torch.ops.aten.native_layer_norm.default(add, [16], arg6_1, arg7_1, 1e-05)
    getitem = native_layer_norm[0]
    getitem_1 = native_layer_norm[1]
    getitem_2 = native_layer_norm[2];  native_layer_norm = None
    transpose_1 = torch.ops.aten.transpose.int(getitem, 1, 0);  getitem = None
    t = torch.ops.aten.t.default(arg8_1);  arg8_1 = None
    clone = torch.ops.aten.clone.default(transpose_1, memory_format = torch.contiguous_format);  transpose_1 = None
    _unsafe_view = torch.ops.aten._unsafe_view.default(clone, [20, 16]);  clone = None
    mm = torch.ops.aten.mm.default(_unsafe_view, t)
    _unsafe_view_1 = torch.ops.aten._unsafe_view.default(mm, [5, 4, 48]);  mm = None
    add_1 = torch.ops.aten.add.Tensor(_unsafe_view_1, arg9_1);  _unsafe_view_1 = arg9_1 = None
    split = torch.ops.aten.split.Tensor(add_1, 16, -1);  add_1 = None
    getitem_3 = split[0]
    getitem_4 = split[1]
    getitem_5 = split[2];  split = None
    clone_1 = torch.ops.aten.clone.default(getitem_3, memory_format = torch.contiguous_format);  getitem_3 = None
    view = torch.ops.aten.view.default(clone_1, [5, 8, 8]);  clone_1 = None
    transpose_2 = torch.ops.aten.transpose.int(view, 0, 1);  view = None
    clone_2 = torch.ops.aten.clone.default(getitem_4, memory_format = torch.contiguous_format);  getitem_4 = None
    view_1 = torch.ops.aten.view.default(clone_2, [5, 8, 8]);  clone_2 = None
    transpose_3 = torch.ops.aten.transpose.int(view_1, 0, 1);  view_1 = None
    clone_3 = torch.ops.aten.clone.default(getitem_5, memory_format = torch.contiguous_format);  getitem_5 = None
    view_2 = torch.ops.aten.view.default(clone_3, [5, 8, 8]);  clone_3 = None
    transpose_4 = torch.ops.aten.transpose.int(view_2, 0, 1);  view_2 = None
    div = torch.ops.aten.div.Tensor(transpose_2, 2.8284271247461903);  transpose_2 = None
    transpose_5 = torch.ops.aten.transpose.int(transpose_3, -2, -1);  transpose_3 = None
    bmm = torch.ops.aten.bmm.default(div, transpose_5)
    _softmax = torch.ops.aten._softmax.default(bmm, -1, False);  bmm = None
    detach = torch.ops.aten.detach.default(_softmax)
    bmm_1 = torch.ops.aten.bmm.default(_softmax, transpose_4)
    transpose_6 = torch.ops.aten.transpose.int(bmm_1, 0, 1);  bmm_1 = None
    clone_4 = torch.ops.aten.clone.default(transpose_6, memory_format = torch.contiguous_format);  transpose_6 = None
    view_3 = torch.ops.aten.view.default(clone_4, [20, 16]);  clone_4 = None
    t_1 = torch.ops.aten.t.default(arg10_1);  arg10_1 = None
    addmm = torch.ops.aten.addmm.default(arg11_1, view_3, t_1);  arg11_1 = None
    view_4 = torch.ops.aten.view.default(addmm, [5, 4, 16]);  addmm = None
    transpose_7 = torch.ops.aten.transpose.int(view_4, 1, 0);  view_4 = None
    add_2 = torch.ops.aten.add.Tensor(add, transpose_7);  transpose_7 = None
    native_layer_norm_1 = torch.ops.aten.native_layer_norm.default(add_2, [16], arg12_1, arg13_1, 1e-05)
    getitem_6 = native_layer_norm_1[0]
    getitem_7 = native_layer_norm_1[1]
    getitem_8 = native_layer_norm_1[2];  native_layer_norm_1 = None
    t_2 = torch.ops.aten.t.default(arg14_1);  arg14_1 = None
    view_5 = torch.ops.aten.view.default(getitem_6, [20, 16]);  getitem_6 = None
    addmm_1 = torch.ops.aten.addmm.default(arg15_1, view_5, t_2);  arg15_1 = None
    view_6 = torch.ops.aten.view.default(addmm_1, [4, 5, 32]);  addmm_1 = None
    gelu = torch.ops.aten.gelu.default(view_6)
    t_3 = torch.ops.aten.t.default(arg16_1);  arg16_1 = None
    view_7 = torch.ops.aten.view.default(gelu, [20, 32]);  gelu = None
    addmm_2 = torch.ops.aten.addmm.default(arg17_1, view_7, t_3);  arg17_1 = None
    view_8 = torch.ops.aten.view.default(addmm_2, [4, 5, 16]);  addmm_2 = None
    add_3 = torch.ops.aten.add.Tensor(add_2, view_8);  view_8 = None
    slice_1 = torch.ops.aten.slice.Tensor(add_3, 0, 0, 9223372036854775807);  add_3 = None
    select = torch.ops.aten.select.int(slice_1, 1, 0);  slice_1 = None
    t_4 = torch.ops.aten.t.default(arg18_1);  arg18_1 = None
    addmm_3 = torch.ops.aten.addmm.default(arg19_1, select, t_4);  arg19_1 = None
    _log_softmax = torch.ops.aten._log_softmax.default(addmm_3, 1, False);  addmm_3 = None
    detach_1 = torch.ops.aten.detach.default(_log_softmax)
    nll_loss_forward = torch.ops.aten.nll_loss_forward.default(_log_softmax, arg1_1, None, 1, -100)
    getitem_9 = nll_loss_forward[0]
    getitem_10 = nll_loss_forward[1];  nll_loss_forward = None
    ones_like = torch.ops.aten.ones_like.default(getitem_9, dtype = torch.float32, layout = torch.strided, device = device(type='cpu'), pin_memory = False, memory_format = torch.preserve_format)
    nll_loss_backward = torch.ops.aten.nll_loss_backward.default(ones_like, _log_softmax, arg1_1, None, 1, -100, getitem_10);  ones_like = _log_softmax = arg1_1 = getitem_10 = None
    detach_2 = torch.ops.aten.detach.default(detach_1);  detach_1 = None
    _log_softmax_backward_data = torch.ops.aten._log_softmax_backward_data.default(nll_loss_backward, detach_2, 1, torch.float32);  nll_loss_backward = detach_2 = None
    t_5 = torch.ops.aten.t.default(t_4);  t_4 = None
    mm_1 = torch.ops.aten.mm.default(_log_softmax_backward_data, t_5);  t_5 = None
    t_6 = torch.ops.aten.t.default(_log_softmax_backward_data)
    mm_2 = torch.ops.aten.mm.default(t_6, select);  t_6 = select = None
    t_7 = torch.ops.aten.t.default(mm_2);  mm_2 = None
    sum_1 = torch.ops.aten.sum.dim_IntList(_log_softmax_backward_data, [0], True);  _log_softmax_backward_data = None
    view_9 = torch.ops.aten.view.default(sum_1, [5]);  sum_1 = None
    t_8 = torch.ops.aten.t.default(t_7);  t_7 = None
    select_backward = torch.ops.aten.select_backward.default(mm_1, [4, 5, 16], 1, 0);  mm_1 = None
    slice_backward = torch.ops.aten.slice_backward.default(select_backward, [4, 5, 16], 0, 0, 9223372036854775807, 1);  select_backward = None
    _reshape_alias_1 = torch.ops.aten._reshape_alias.default(slice_backward, [20, 16], [16, 1])
    t_9 = torch.ops.aten.t.default(t_3);  t_3 = None
    mm_3 = torch.ops.aten.mm.default(_reshape_alias_1, t_9);  t_9 = None
    t_10 = torch.ops.aten.t.default(_reshape_alias_1)
    mm_4 = torch.ops.aten.mm.default(t_10, view_7);  t_10 = view_7 = None
    t_11 = torch.ops.aten.t.default(mm_4);  mm_4 = None
    sum_2 = torch.ops.aten.sum.dim_IntList(_reshape_alias_1, [0], True);  _reshape_alias_1 = None
    view_10 = torch.ops.aten.view.default(sum_2, [16]);  sum_2 = None
    _reshape_alias_2 = torch.ops.aten._reshape_alias.default(mm_3, [4, 5, 32], [160, 32, 1]);  mm_3 = None
    t_12 = torch.ops.aten.t.default(t_11);  t_11 = None
    gelu_backward = torch.ops.aten.gelu_backward.default(_reshape_alias_2, view_6);  _reshape_alias_2 = view_6 = None
    _reshape_alias_3 = torch.ops.aten._reshape_alias.default(gelu_backward, [20, 32], [32, 1]);  gelu_backward = None
    t_13 = torch.ops.aten.t.default(t_2);  t_2 = None
    mm_5 = torch.ops.aten.mm.default(_reshape_alias_3, t_13);  t_13 = None
    t_14 = torch.ops.aten.t.default(_reshape_alias_3)
    mm_6 = torch.ops.aten.mm.default(t_14, view_5);  t_14 = view_5 = None
    t_15 = torch.ops.aten.t.default(mm_6);  mm_6 = None
    sum_3 = torch.ops.aten.sum.dim_IntList(_reshape_alias_3, [0], True);  _reshape_alias_3 = None
    view_11 = torch.ops.aten.view.default(sum_3, [32]);  sum_3 = None
    _reshape_alias_4 = torch.ops.aten._reshape_alias.default(mm_5, [4, 5, 16], [80, 16, 1]);  mm_5 = None
    t_16 = torch.ops.aten.t.default(t_15);  t_15 = None
    native_layer_norm_backward = torch.ops.aten.native_layer_norm_backward.default(_reshape_alias_4, add_2, [16], getitem_7, getitem_8, arg12_1, arg13_1, [True, True, True]);  _reshape_alias_4 = add_2 = getitem_7 = getitem_8 = arg12_1 = arg13_1 = None
    getitem_11 = native_layer_norm_backward[0]
    getitem_12 = native_layer_norm_backward[1]
    getitem_13 = native_layer_norm_backward[2];  native_layer_norm_backward = None
    add_4 = torch.ops.aten.add.Tensor(slice_backward, getitem_11);  slice_backward = getitem_11 = None
    transpose_8 = torch.ops.aten.transpose.int(add_4, 1, 0)
    clone_5 = torch.ops.aten.clone.default(transpose_8, memory_format = torch.contiguous_format);  transpose_8 = None
    _unsafe_view_2 = torch.ops.aten._unsafe_view.default(clone_5, [20, 16]);  clone_5 = None
    t_17 = torch.ops.aten.t.default(t_1);  t_1 = None
    mm_7 = torch.ops.aten.mm.default(_unsafe_view_2, t_17);  t_17 = None
    t_18 = torch.ops.aten.t.default(_unsafe_view_2)
    mm_8 = torch.ops.aten.mm.default(t_18, view_3);  t_18 = view_3 = None
    t_19 = torch.ops.aten.t.default(mm_8);  mm_8 = None
    sum_4 = torch.ops.aten.sum.dim_IntList(_unsafe_view_2, [0], True);  _unsafe_view_2 = None
    view_12 = torch.ops.aten.view.default(sum_4, [16]);  sum_4 = None
    t_20 = torch.ops.aten.t.default(t_19);  t_19 = None
    _reshape_alias_5 = torch.ops.aten._reshape_alias.default(mm_7, [5, 8, 8], [64, 8, 1]);  mm_7 = None
    transpose_9 = torch.ops.aten.transpose.int(_reshape_alias_5, 0, 1);  _reshape_alias_5 = None
    transpose_10 = torch.ops.aten.transpose.int(_softmax, 1, 2);  _softmax = None
    bmm_2 = torch.ops.aten.bmm.default(transpose_10, transpose_9);  transpose_10 = None
    transpose_11 = torch.ops.aten.transpose.int(transpose_4, 1, 2);  transpose_4 = None
    bmm_3 = torch.ops.aten.bmm.default(transpose_9, transpose_11);  transpose_9 = transpose_11 = None
    detach_3 = torch.ops.aten.detach.default(detach);  detach = None
    _softmax_backward_data = torch.ops.aten._softmax_backward_data.default(bmm_3, detach_3, -1, torch.float32);  bmm_3 = detach_3 = None
    transpose_12 = torch.ops.aten.transpose.int(div, 1, 2);  div = None
    bmm_4 = torch.ops.aten.bmm.default(transpose_12, _softmax_backward_data);  transpose_12 = None
    transpose_13 = torch.ops.aten.transpose.int(transpose_5, 1, 2);  transpose_5 = None
    bmm_5 = torch.ops.aten.bmm.default(_softmax_backward_data, transpose_13);  _softmax_backward_data = transpose_13 = None
    transpose_14 = torch.ops.aten.transpose.int(bmm_4, -2, -1);  bmm_4 = None
    div_1 = torch.ops.aten.div.Tensor(bmm_5, 2.8284271247461903);  bmm_5 = None
    transpose_15 = torch.ops.aten.transpose.int(bmm_2, 0, 1);  bmm_2 = None
    clone_6 = torch.ops.aten.clone.default(transpose_15, memory_format = torch.contiguous_format);  transpose_15 = None
    _unsafe_view_3 = torch.ops.aten._unsafe_view.default(clone_6, [5, 4, 16]);  clone_6 = None
    transpose_16 = torch.ops.aten.transpose.int(transpose_14, 0, 1);  transpose_14 = None
    _reshape_alias_6 = torch.ops.aten._reshape_alias.default(transpose_16, [5, 4, 16], [1, 80, 5]);  transpose_16 = None
    transpose_17 = torch.ops.aten.transpose.int(div_1, 0, 1);  div_1 = None
    clone_7 = torch.ops.aten.clone.default(transpose_17, memory_format = torch.contiguous_format);  transpose_17 = None
    _unsafe_view_4 = torch.ops.aten._unsafe_view.default(clone_7, [5, 4, 16]);  clone_7 = None
    cat_1 = torch.ops.aten.cat.default([_unsafe_view_4, _reshape_alias_6, _unsafe_view_3], 2);  _unsafe_view_4 = _reshape_alias_6 = _unsafe_view_3 = None
    sum_5 = torch.ops.aten.sum.dim_IntList(cat_1, [0, 1], True)
    view_13 = torch.ops.aten.view.default(sum_5, [48]);  sum_5 = None
    _reshape_alias_7 = torch.ops.aten._reshape_alias.default(cat_1, [20, 48], [48, 1]);  cat_1 = None
    t_21 = torch.ops.aten.t.default(_reshape_alias_7)
    mm_9 = torch.ops.aten.mm.default(t_21, _unsafe_view);  t_21 = _unsafe_view = None
    t_22 = torch.ops.aten.t.default(mm_9);  mm_9 = None
    t_23 = torch.ops.aten.t.default(t);  t = None
    mm_10 = torch.ops.aten.mm.default(_reshape_alias_7, t_23);  _reshape_alias_7 = t_23 = None
    _reshape_alias_8 = torch.ops.aten._reshape_alias.default(mm_10, [5, 4, 16], [64, 16, 1]);  mm_10 = None
    t_24 = torch.ops.aten.t.default(t_22);  t_22 = None
    transpose_18 = torch.ops.aten.transpose.int(_reshape_alias_8, 1, 0);  _reshape_alias_8 = None
    native_layer_norm_backward_1 = torch.ops.aten.native_layer_norm_backward.default(transpose_18, add, [16], getitem_1, getitem_2, arg6_1, arg7_1, [True, True, True]);  transpose_18 = add = getitem_1 = getitem_2 = arg6_1 = arg7_1 = None
    getitem_14 = native_layer_norm_backward_1[0]
    getitem_15 = native_layer_norm_backward_1[1]
    getitem_16 = native_layer_norm_backward_1[2];  native_layer_norm_backward_1 = None
    add_5 = torch.ops.aten.add.Tensor(add_4, getitem_14);  add_4 = getitem_14 = None
    sum_6 = torch.ops.aten.sum.dim_IntList(add_5, [0], True)
    slice_2 = torch.ops.aten.slice.Tensor(add_5, 1, 0, 1)
    slice_3 = torch.ops.aten.slice.Tensor(add_5, 1, 1, 5);  add_5 = None
    sum_7 = torch.ops.aten.sum.dim_IntList(slice_2, [0], True);  slice_2 = None
    transpose_19 = torch.ops.aten.transpose.int(slice_3, 1, 2);  slice_3 = None
    _reshape_alias_9 = torch.ops.aten._reshape_alias.default(transpose_19, [4, 16, 2, 2], [80, 1, 32, 16]);  transpose_19 = None
    convolution_backward = torch.ops.aten.convolution_backward.default(_reshape_alias_9, arg0_1, arg4_1, [16], [4, 4], [0, 0], [1, 1], False, [0, 0], 1, [False, True, True]);  _reshape_alias_9 = arg0_1 = arg4_1 = None
    getitem_17 = convolution_backward[0]
    getitem_18 = convolution_backward[1]
    getitem_19 = convolution_backward[2];  convolution_backward = None
    return (getitem_9, sum_7, sum_6, getitem_18, getitem_19, getitem_15, getitem_16, t_24, view_13, t_20, view_12, getitem_12, getitem_13, t_16, view_11, t_12, view_10, t_8, view_9)
    