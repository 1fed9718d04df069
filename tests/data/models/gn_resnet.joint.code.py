


def forward(self, arg0_1, arg1_1, arg2_1, arg3_1, arg4_1, arg5_1, arg6_1, arg7_1, arg8_1, arg9_1, arg10_1, arg11_1):
    convolution = torch.ops.aten.convolution.default(arg0_1, arg2_1, arg3_1, [1, 1], [1, 1], [1, 1], False, [0, 0], 1);  arg3_1 = None
    native_group_norm = torch.ops.aten.native_group_norm.default(convolution, arg4_1, arg5_1, 4, 8, 64, 2, 1e-05);  arg5_1 = None
    getitem = native_group_norm[0]
    getitem_1 = native_group_norm[1]
    getitem_2 = native_group_norm[2];  native_group_norm = None
    detach = torch.ops.aten.detach.default(getitem_1);  getitem_1 = None
    detach_1 = torch.ops.aten.detach.default(getitem_2);  getitem_2 = None
    relu = torch.ops.aten.relu.default(getitem);  getitem = None
    detach_2 = torch.ops.aten.detach.default(relu)
    convolution_1 = torch.ops.aten.convolution.default(relu, arg6_1, arg7_1, [1, 1], [1, 1], [1, 1], False, [0, 0], 1);  arg7_1 = None
    native_group_norm_1 = torch.ops.aten.native_group_norm.default(convolution_1, arg8_1, arg9_1, 4, 8, 64, 2, 1e-05);  arg9_1 = None
    getitem_3 = native_group_norm_1[0]
    getitem_4 = native_group_norm_1[1]
    getitem_5 = native_group_norm_1[2];  native_group_norm_1 = None
    detach_3 = torch.ops.aten.detach.default(getitem_4);  getitem_4 = None
    detach_4 = torch.ops.aten.detach.default(getitem_5);  getitem_5 = None
    add = torch.ops.aten.add.Tensor(getitem_3, relu);  getitem_3 = None
    relu_1 = torch.ops.aten.relu.default(add);  add = None
    detach_5 = torch.ops.aten.detach.default(relu_1)
    max_pool2d_with_indices = torch.ops.aten.max_pool2d_with_indices.default(relu_1, [2, 2], [2, 2])
    getitem_6 = max_pool2d_with_indices[0]
    getitem_7 = max_pool2d_with_indices[1];  max_pool2d_with_indices = None
    mean = torch.ops.aten.mean.dim(getitem_6, [-1, -2], True);  getitem_6 = None
    _reshape_alias = torch.ops.aten._reshape_alias.default(mean, [4, 8], [8, 1]);  mean = None
    t = torch.ops.aten.t.default(arg10_1);  arg10_1 = None
    addmm = torch.ops.aten.addmm.default(arg11_1, _reshape_alias, t);  arg11_1 = None
    _log_softmax = torch.ops.aten._log_softmax.default(addmm, 1, False);  addmm = None
    detach_6 = torch.ops.aten.detach.default(_log_softmax)
    nll_loss_forward = torch.ops.aten.nll_loss_forward.default(_log_softmax, arg1_1, None, 1, -100)
    getitem_8 = nll_loss_forward[0]
    getitem_9 = nll_loss_forward[1];  nll_loss_forward = None
    ones_like = torch.ops.aten.ones_like.default(getitem_8, dtype = torch.float32, layout = torch.strided, device = device(type='cpu'), pin_memory = False, memory_format = torch.preserve_format)
    nll_loss_backward = torch.ops.aten.nll_loss_backward.default(ones_like, _log_softmax, arg1_1, None, 1, -100, getitem_9);  ones_like = _log_softmax = arg1_1 = getitem_9 = None
    detach_7 = torch.ops.aten.detach.default(detach_6);  detach_6 = None
    _log_softmax_backward_data = torch.ops.aten._log_softmax_backward_data.default(nll_loss_backward, detach_7, 1, torch.float32);  nll_loss_backward = detach_7 = None
    t_1 = torch.ops.aten.t.default(t);  t = None
    mm = torch.ops.aten.mm.default(_log_softmax_backward_data, t_1);  t_1 = None
    t_2 = torch.ops.aten.t.default(_log_softmax_backward_data)
    mm_1 = torch.ops.aten.mm.default(t_2, _reshape_alias);  t_2 = _reshape_alias = None
    t_3 = torch.ops.aten.t.default(mm_1);  mm_1 = None
    sum_1 = torch.ops.aten.sum.dim_IntList(_log_softmax_backward_data, [0], True);  _log_softmax_backward_data = None
    view = torch.ops.aten.view.default(sum_1, [5]);  sum_1 = None
    t_4 = torch.ops.aten.t.default(t_3);  t_3 = None
    _reshape_alias_1 = torch.ops.aten._reshape_alias.default(mm, [4, 8, 1, 1], [8, 1, 1, 1]);  mm = None
    expand = torch.ops.aten.expand.default(_reshape_alias_1, [4, 8, 4, 4]);  _reshape_alias_1 = None
    div = torch.ops.aten.div.Scalar(expand, 16);  expand = None
    max_pool2d_with_indices_backward = torch.ops.aten.max_pool2d_with_indices_backward.default(div, relu_1, [2, 2], [2, 2], [0, 0], [1, 1], False, getitem_7);  div = relu_1 = getitem_7 = None
    detach_8 = torch.ops.aten.detach.default(detach_5);  detach_5 = None
    threshold_backward = torch.ops.aten.threshold_backward.default(max_pool2d_with_indices_backward, detach_8, 0);  max_pool2d_with_indices_backward = detach_8 = None
    detach_9 = torch.ops.aten.detach.default(detach_3);  detach_3 = None
    detach_10 = torch.ops.aten.detach.default(detach_4);  detach_4 = None
    native_group_norm_backward = torch.ops.aten.native_group_norm_backward.default(threshold_backward, convolution_1, detach_9, detach_10, arg8_1, 4, 8, 64, 2, [True, True, True]);  convolution_1 = detach_9 = detach_10 = arg8_1 = None
    getitem_10 = native_group_norm_backward[0]
    getitem_11 = native_group_norm_backward[1]
    getitem_12 = native_group_norm_backward[2];  native_group_norm_backward = None
    convolution_backward = torch.ops.aten.convolution_backward.default(getitem_10, relu, arg6_1, [8], [1, 1], [1, 1], [1, 1], False, [0, 0], 1, [True, True, True]);  getitem_10 = relu = arg6_1 = None
    getitem_13 = convolution_backward[0]
    getitem_14 = convolution_backward[1]
    getitem_15 = convolution_backward[2];  convolution_backward = None
    add_1 = torch.ops.aten.add.Tensor(threshold_backward, getitem_13);  threshold_backward = getitem_13 = None
    detach_11 = torch.ops.aten.detach.default(detach_2);  detach_2 = None
    threshold_backward_1 = torch.ops.aten.threshold_backward.default(add_1, detach_11, 0);  add_1 = detach_11 = None
    detach_12 = torch.ops.aten.detach.default(detach);  detach = None
    detach_13 = torch.ops.aten.detach.default(detach_1);  detach_1 = None
    native_group_norm_backward_1 = torch.ops.aten.native_group_norm_backward.default(threshold_backward_1, convolution, detach_12, detach_13, arg4_1, 4, 8, 64, 2, [True, True, True]);  threshold_backward_1 = convolution = detach_12 = detach_13 = arg4_1 = None
    getitem_16 = native_group_norm_backward_1[0]
    getitem_17 = native_group_norm_backward_1[1]
    getitem_18 = native_group_norm_backward_1[2];  native_group_norm_backward_1 = None
    convolution_backward_1 = torch.ops.aten.convolution_backward.default(getitem_16, arg0_1, arg2_1, [8], [1, 1], [1, 1], [1, 1], False, [0, 0], 1, [False, True, True]);  getitem_16 = arg0_1 = arg2_1 = None
    getitem_19 = convolution_backward_1[0]
    getitem_20 = convolution_backward_1[1]
    getitem_21 = convolution_backward_1[2];  convolution_backward_1 = None
    return (getitem_8, getitem_20, getitem_21, getitem_17, getitem_18, getitem_14, getitem_15, getitem_11, getitem_12, t_4, view)
    