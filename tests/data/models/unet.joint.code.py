


def forward(self, arg0_1, arg1_1, arg2_1, arg3_1, arg4_1, arg5_1, arg6_1, arg7_1, arg8_1, arg9_1):
    convolution = torch.ops.aten.convolution.default(arg0_1, arg2_1, arg3_1, [1, 1], [1, 1], [1, 1], False, [0, 0], 1);  arg3_1 = None
    relu = torch.ops.aten.relu.default(convolution);  convolution = None
    detach = torch.ops.aten.detach.default(relu)
    max_pool2d_with_indices = torch.ops.aten.max_pool2d_with_indices.default(relu, [2, 2])
    getitem = max_pool2d_with_indices[0]
    getitem_1 = max_pool2d_with_indices[1];  max_pool2d_with_indices = None
    convolution_1 = torch.ops.aten.convolution.default(getitem, arg4_1, arg5_1, [1, 1], [1, 1], [1, 1], False, [0, 0], 1);  arg5_1 = None
    relu_1 = torch.ops.aten.relu.default(convolution_1);  convolution_1 = None
    detach_1 = torch.ops.aten.detach.default(relu_1)
    upsample_nearest2d = torch.ops.aten.upsample_nearest2d.vec(relu_1, None, [2.0, 2.0]);  relu_1 = None
    cat = torch.ops.aten.cat.default([upsample_nearest2d, relu], 1);  upsample_nearest2d = None
    convolution_2 = torch.ops.aten.convolution.default(cat, arg6_1, arg7_1, [1, 1], [1, 1], [1, 1], False, [0, 0], 1);  arg7_1 = None
    relu_2 = torch.ops.aten.relu.default(convolution_2);  convolution_2 = None
    detach_2 = torch.ops.aten.detach.default(relu_2)
    convolution_3 = torch.ops.aten.convolution.default(relu_2, arg8_1, arg9_1, [1, 1], [0, 0], [1, 1], False, [0, 0], 1);  arg9_1 = None
    _log_softmax = torch.ops.aten._log_softmax.default(convolution_3, 1, False);  convolution_3 = None
    detach_3 = torch.ops.aten.detach.default(_log_softmax)
    nll_loss2d_forward = torch.ops.aten.nll_loss2d_forward.default(_log_softmax, arg1_1, None, 1, -100)
    getitem_2 = nll_loss2d_forward[0]
    getitem_3 = nll_loss2d_forward[1];  nll_loss2d_forward = None
    ones_like = torch.ops.aten.ones_like.default(getitem_2, dtype = torch.float32, layout = torch.strided, device = device(type='cpu'), pin_memory = False, memory_format = torch.preserve_format)
    nll_loss2d_backward = torch.ops.aten.nll_loss2d_backward.default(ones_like, _log_softmax, arg1_1, None, 1, -100, getitem_3);  ones_like = _log_softmax = arg1_1 = getitem_3 = None
    detach_4 = torch.ops.aten.detach.default(detach_3);  detach_3 = None
    _log_softmax_backward_data = torch.ops.aten._log_softmax_backward_data.default(nll_loss2d_backward, detach_4, 1, torch.float32);  nll_loss2d_backward = detach_4 = None
    convolution_backward = torch.ops.aten.convolution_backward.default(_log_softmax_backward_data, relu_2, arg8_1, [3], [1, 1], [0, 0], [1, 1], False, [0, 0], 1, [True, True, True]);  _log_softmax_backward_data = relu_2 = arg8_1 = None
    getitem_4 = convolution_backward[0]
    getitem_5 = convolution_backward[1]
    getitem_6 = convolution_backward[2];  convolution_backward = None
    detach_5 = torch.ops.aten.detach.default(detach_2);  detach_2 = None
    threshold_backward = torch.ops.aten.threshold_backward.default(getitem_4, detach_5, 0);  getitem_4 = detach_5 = None
    convolution_backward_1 = torch.ops.aten.convolution_backward.default(threshold_backward, cat, arg6_1, [4], [1, 1], [1, 1], [1, 1], False, [0, 0], 1, [True, True, True]);  threshold_backward = cat = arg6_1 = None
    getitem_7 = convolution_backward_1[0]
    getitem_8 = convolution_backward_1[1]
    getitem_9 = convolution_backward_1[2];  convolution_backward_1 = None
    slice_1 = torch.ops.aten.slice.Tensor(getitem_7, 1, 0, 4)
    slice_2 = torch.ops.aten.slice.Tensor(getitem_7, 1, 4, 8);  getitem_7 = None
    upsample_nearest2d_backward = torch.ops.aten.upsample_nearest2d_backward.vec(slice_1, None, [2, 4, 4, 4], [2.0, 2.0]);  slice_1 = None
    detach_6 = torch.ops.aten.detach.default(detach_1);  detach_1 = None
    threshold_backward_1 = torch.ops.aten.threshold_backward.default(upsample_nearest2d_backward, detach_6, 0);  upsample_nearest2d_backward = detach_6 = None
    convolution_backward_2 = torch.ops.aten.convolution_backward.default(threshold_backward_1, getitem, arg4_1, [4], [1, 1], [1, 1], [1, 1], False, [0, 0], 1, [True, True, True]);  threshold_backward_1 = getitem = arg4_1 = None
    getitem_10 = convolution_backward_2[0]
    getitem_11 = convolution_backward_2[1]
    getitem_12 = convolution_backward_2[2];  convolution_backward_2 = None
    max_pool2d_with_indices_backward = torch.ops.aten.max_pool2d_with_indices_backward.default(getitem_10, relu, [2, 2], [], [0, 0], [1, 1], False, getitem_1);  getitem_10 = relu = getitem_1 = None
    add = torch.ops.aten.add.Tensor(slice_2, max_pool2d_with_indices_backward);  slice_2 = max_pool2d_with_indices_backward = None
    detach_7 = torch.ops.aten.detach.default(detach);  detach = None
    threshold_backward_2 = torch.ops.aten.threshold_backward.default(add, detach_7, 0);  add = detach_7 = None
    convolution_backward_3 = torch.ops.aten.convolution_backward.default(threshold_backward_2, arg0_1, arg2_1, [4], [1, 1], [1, 1], [1, 1], False, [0, 0], 1, [False, True, True]);  threshold_backward_2 = arg0_1 = arg2_1 = None
    getitem_13 = convolution_backward_3[0]
    getitem_14 = convolution_backward_3[1]
    getitem_15 = convolution_backward_3[2];  convolution_backward_3 = None
    return (getitem_2, getitem_14, getitem_15, getitem_11, getitem_12, getitem_8, getitem_9, getitem_5, getitem_6)
    