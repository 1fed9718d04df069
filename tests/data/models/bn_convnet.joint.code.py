


def forward(self, arg0_1, arg1_1, arg2_1, arg3_1, arg4_1, arg5_1, arg6_1, arg7_1, arg8_1, arg9_1, arg10_1, arg11_1, arg12_1, arg13_1, arg14_1, arg15_1):
    convolution = torch.ops.aten.convolution.default(arg0_1, arg2_1, None, [1, 1], [1, 1], [1, 1], False, [0, 0], 1)
    add_ = torch.ops.aten.add_.Tensor(arg12_1, 1);  arg12_1 = None
    empty = torch.ops.aten.empty.memory_format([0], dtype = torch.uint8, layout = torch.strided, device = device(type='cpu'))
    native_batch_norm = torch.ops.aten.native_batch_norm.default(convolution, arg3_1, arg4_1, arg10_1, arg11_1, True, 0.1, 1e-05);  arg4_1 = None
    getitem = native_batch_norm[0]
    getitem_1 = native_batch_norm[1]
    getitem_2 = native_batch_norm[2];  native_batch_norm = None
    relu = torch.ops.aten.relu.default(getitem);  getitem = None
    detach = torch.ops.aten.detach.default(relu)
    convolution_1 = torch.ops.aten.convolution.default(relu, arg5_1, None, [1, 1], [1, 1], [1, 1], False, [0, 0], 1)
    add__1 = torch.ops.aten.add_.Tensor(arg15_1, 1);  arg15_1 = None
    empty_1 = torch.ops.aten.empty.memory_format([0], dtype = torch.uint8, layout = torch.strided, device = device(type='cpu'))
    native_batch_norm_1 = torch.ops.aten.native_batch_norm.default(convolution_1, arg6_1, arg7_1, arg13_1, arg14_1, True, 0.1, 1e-05);  arg7_1 = None
    getitem_3 = native_batch_norm_1[0]
    getitem_4 = native_batch_norm_1[1]
    getitem_5 = native_batch_norm_1[2];  native_batch_norm_1 = None
    add = torch.ops.aten.add.Tensor(getitem_3, relu);  getitem_3 = None
    relu_1 = torch.ops.aten.relu.default(add);  add = None
    detach_1 = torch.ops.aten.detach.default(relu_1)
    mean = torch.ops.aten.mean.dim(relu_1, [2, 3]);  relu_1 = None
    t = torch.ops.aten.t.default(arg8_1);  arg8_1 = None
    addmm = torch.ops.aten.addmm.default(arg9_1, mean, t);  arg9_1 = None
    _log_softmax = torch.ops.aten._log_softmax.default(addmm, 1, False);  addmm = None
    detach_2 = torch.ops.aten.detach.default(_log_softmax)
    nll_loss_forward = torch.ops.aten.nll_loss_forward.default(_log_softmax, arg1_1, None, 1, -100)
    getitem_6 = nll_loss_forward[0]
    getitem_7 = nll_loss_forward[1];  nll_loss_forward = None
    ones_like = torch.ops.aten.ones_like.default(getitem_6, dtype = torch.float32, layout = torch.strided, device = device(type='cpu'), pin_memory = False, memory_format = torch.preserve_format)
    nll_loss_backward = torch.ops.aten.nll_loss_backward.default(ones_like, _log_softmax, arg1_1, None, 1, -100, getitem_7);  ones_like = _log_softmax = arg1_1 = getitem_7 = None
    detach_3 = torch.ops.aten.detach.default(detach_2);  detach_2 = None
    _log_softmax_backward_data = torch.ops.aten._log_softmax_backward_data.default(nll_loss_backward, detach_3, 1, torch.float32);  nll_loss_backward = detach_3 = None
    t_1 = torch.ops.aten.t.default(t);  t = None
    mm = torch.ops.aten.mm.default(_log_softmax_backward_data, t_1);  t_1 = None
    t_2 = torch.ops.aten.t.default(_log_softmax_backward_data)
    mm_1 = torch.ops.aten.mm.default(t_2, mean);  t_2 = mean = None
    t_3 = torch.ops.aten.t.default(mm_1);  mm_1 = None
    sum_1 = torch.ops.aten.sum.dim_IntList(_log_softmax_backward_data, [0], True);  _log_softmax_backward_data = None
    view = torch.ops.aten.view.default(sum_1, [5]);  sum_1 = None
    t_4 = torch.ops.aten.t.default(t_3);  t_3 = None
    unsqueeze = torch.ops.aten.unsqueeze.default(mm, 2);  mm = None
    unsqueeze_1 = torch.ops.aten.unsqueeze.default(unsqueeze, 3);  unsqueeze = None
    expand = torch.ops.aten.expand.default(unsqueeze_1, [4, 4, 6, 6]);  unsqueeze_1 = None
    div = torch.ops.aten.div.Scalar(expand, 36);  expand = None
    detach_4 = torch.ops.aten.detach.default(detach_1);  detach_1 = None
    threshold_backward = torch.ops.aten.threshold_backward.default(div, detach_4, 0);  div = detach_4 = None
    native_batch_norm_backward = torch.ops.aten.native_batch_norm_backward.default(threshold_backward, convolution_1, arg6_1, arg13_1, arg14_1, getitem_4, getitem_5, True, 1e-05, [True, True, True]);  convolution_1 = arg6_1 = arg13_1 = arg14_1 = getitem_4 = getitem_5 = None
    getitem_8 = native_batch_norm_backward[0]
    getitem_9 = native_batch_norm_backward[1]
    getitem_10 = native_batch_norm_backward[2];  native_batch_norm_backward = None
    convolution_backward = torch.ops.aten.convolution_backward.default(getitem_8, relu, arg5_1, [0], [1, 1], [1, 1], [1, 1], False, [0, 0], 1, [True, True, False]);  getitem_8 = relu = arg5_1 = None
    getitem_11 = convolution_backward[0]
    getitem_12 = convolution_backward[1]
    getitem_13 = convolution_backward[2];  convolution_backward = None
    add_1 = torch.ops.aten.add.Tensor(threshold_backward, getitem_11);  threshold_backward = getitem_11 = None
    detach_5 = torch.ops.aten.detach.default(detach);  detach = None
    threshold_backward_1 = torch.ops.aten.threshold_backward.default(add_1, detach_5, 0);  add_1 = detach_5 = None
    native_batch_norm_backward_1 = torch.ops.aten.native_batch_norm_backward.default(threshold_backward_1, convolution, arg3_1, arg10_1, arg11_1, getitem_1, getitem_2, True, 1e-05, [True, True, True]);  threshold_backward_1 = convolution = arg3_1 = arg10_1 = arg11_1 = getitem_1 = getitem_2 = None
    getitem_14 = native_batch_norm_backward_1[0]
    getitem_15 = native_batch_norm_backward_1[1]
    getitem_16 = native_batch_norm_backward_1[2];  native_batch_norm_backward_1 = None
    convolution_backward_1 = torch.ops.aten.convolution_backward.default(getitem_14, arg0_1, arg2_1, [0], [1, 1], [1, 1], [1, 1], False, [0, 0], 1, [False, True, False]);  getitem_14 = arg0_1 = arg2_1 = None
    getitem_17 = convolution_backward_1[0]
    getitem_18 = convolution_backward_1[1]
    getitem_19 = convolution_backward_1[2];  convolution_backward_1 = None
    return (getitem_6, getitem_18, getitem_15, getitem_16, getitem_12, getitem_9, getitem_10, t_4, view)
    