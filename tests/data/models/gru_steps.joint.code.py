


def forward(self, arg0_1, arg1_1, arg2_1, arg3_1, arg4_1, arg5_1, arg6_1, arg7_1):
    zeros = torch.ops.aten.zeros.default([4, 6], device = device(type='cpu'), pin_memory = False)
    slice_1 = torch.ops.aten.slice.Tensor(arg0_1, 0, 0, 9223372036854775807)
    select = torch.ops.aten.select.int(slice_1, 1, 0);  slice_1 = None
    t = torch.ops.aten.t.default(arg2_1)
    addmm = torch.ops.aten.addmm.default(arg4_1, select, t);  t = None
    unsafe_split = torch.ops.aten.unsafe_split.Tensor(addmm, 6, 1);  addmm = None
    getitem = unsafe_split[0]
    getitem_1 = unsafe_split[1]
    getitem_2 = unsafe_split[2];  unsafe_split = None
    t_1 = torch.ops.aten.t.default(arg3_1)
    addmm_1 = torch.ops.aten.addmm.default(arg5_1, zeros, t_1);  t_1 = None
    unsafe_split_1 = torch.ops.aten.unsafe_split.Tensor(addmm_1, 6, 1);  addmm_1 = None
    getitem_3 = unsafe_split_1[0]
    getitem_4 = unsafe_split_1[1]
    getitem_5 = unsafe_split_1[2];  unsafe_split_1 = None
    add_ = torch.ops.aten.add_.Tensor(getitem_3, getitem);  getitem_3 = getitem = None
    sigmoid_ = torch.ops.aten.sigmoid_.default(add_);  add_ = None
    detach = torch.ops.aten.detach.default(sigmoid_)
    add__1 = torch.ops.aten.add_.Tensor(getitem_4, getitem_1);  getitem_4 = getitem_1 = None
    sigmoid__1 = torch.ops.aten.sigmoid_.default(add__1);  add__1 = None
    detach_1 = torch.ops.aten.detach.default(sigmoid__1)
    clone = torch.ops.aten.clone.default(getitem_5)
    mul_ = torch.ops.aten.mul_.Tensor(getitem_5, sigmoid_);  getitem_5 = None
    add = torch.ops.aten.add.Tensor(getitem_2, mul_);  getitem_2 = mul_ = None
    tanh_ = torch.ops.aten.tanh_.default(add);  add = None
    detach_2 = torch.ops.aten.detach.default(tanh_)
    sub = torch.ops.aten.sub.Tensor(zeros, tanh_)
    clone_1 = torch.ops.aten.clone.default(sub)
    mul__1 = torch.ops.aten.mul_.Tensor(sub, sigmoid__1);  sub = None
    add__2 = torch.ops.aten.add_.Tensor(mul__1, tanh_);  mul__1 = tanh_ = None
    slice_2 = torch.ops.aten.slice.Tensor(arg0_1, 0, 0, 9223372036854775807)
    select_1 = torch.ops.aten.select.int(slice_2, 1, 1);  slice_2 = None
    t_2 = torch.ops.aten.t.default(arg2_1)
    addmm_2 = torch.ops.aten.addmm.default(arg4_1, select_1, t_2);  t_2 = None
    unsafe_split_2 = torch.ops.aten.unsafe_split.Tensor(addmm_2, 6, 1);  addmm_2 = None
    getitem_6 = unsafe_split_2[0]
    getitem_7 = unsafe_split_2[1]
    getitem_8 = unsafe_split_2[2];  unsafe_split_2 = None
    t_3 = torch.ops.aten.t.default(arg3_1)
    addmm_3 = torch.ops.aten.addmm.default(arg5_1, add__2, t_3)
    unsafe_split_3 = torch.ops.aten.unsafe_split.Tensor(addmm_3, 6, 1);  addmm_3 = None
    getitem_9 = unsafe_split_3[0]
    getitem_10 = unsafe_split_3[1]
    getitem_11 = unsafe_split_3[2];  unsafe_split_3 = None
    add__3 = torch.ops.aten.add_.Tensor(getitem_9, getitem_6);  getitem_9 = getitem_6 = None
    sigmoid__2 = torch.ops.aten.sigmoid_.default(add__3);  add__3 = None
    detach_3 = torch.ops.aten.detach.default(sigmoid__2)
    add__4 = torch.ops.aten.add_.Tensor(getitem_10, getitem_7);  getitem_10 = getitem_7 = None
    sigmoid__3 = torch.ops.aten.sigmoid_.default(add__4);  add__4 = None
    detach_4 = torch.ops.aten.detach.default(sigmoid__3)
    clone_2 = torch.ops.aten.clone.default(getitem_11)
    mul__2 = torch.ops.aten.mul_.Tensor(getitem_11, sigmoid__2);  getitem_11 = None
    add_1 = torch.ops.aten.add.Tensor(getitem_8, mul__2);  getitem_8 = mul__2 = None
    tanh__1 = torch.ops.aten.tanh_.default(add_1);  add_1 = None
    detach_5 = torch.ops.aten.detach.default(tanh__1)
    sub_1 = torch.ops.aten.sub.Tensor(add__2, tanh__1)
    clone_3 = torch.ops.aten.clone.default(sub_1)
    mul__3 = torch.ops.aten.mul_.Tensor(sub_1, sigmoid__3);  sub_1 = None
    add__5 = torch.ops.aten.add_.Tensor(mul__3, tanh__1);  mul__3 = tanh__1 = None
    slice_3 = torch.ops.aten.slice.Tensor(arg0_1, 0, 0, 9223372036854775807);  arg0_1 = None
    select_2 = torch.ops.aten.select.int(slice_3, 1, 2);  slice_3 = None
    t_4 = torch.ops.aten.t.default(arg2_1);  arg2_1 = None
    addmm_4 = torch.ops.aten.addmm.default(arg4_1, select_2, t_4);  arg4_1 = t_4 = None
    unsafe_split_4 = torch.ops.aten.unsafe_split.Tensor(addmm_4, 6, 1);  addmm_4 = None
    getitem_12 = unsafe_split_4[0]
    getitem_13 = unsafe_split_4[1]
    getitem_14 = unsafe_split_4[2];  unsafe_split_4 = None
    t_5 = torch.ops.aten.t.default(arg3_1);  arg3_1 = None
    addmm_5 = torch.ops.aten.addmm.default(arg5_1, add__5, t_5);  arg5_1 = None
    unsafe_split_5 = torch.ops.aten.unsafe_split.Tensor(addmm_5, 6, 1);  addmm_5 = None
    getitem_15 = unsafe_split_5[0]
    getitem_16 = unsafe_split_5[1]
    getitem_17 = unsafe_split_5[2];  unsafe_split_5 = None
    add__6 = torch.ops.aten.add_.Tensor(getitem_15, getitem_12);  getitem_15 = getitem_12 = None
    sigmoid__4 = torch.ops.aten.sigmoid_.default(add__6);  add__6 = None
    detach_6 = torch.ops.aten.detach.default(sigmoid__4)
    add__7 = torch.ops.aten.add_.Tensor(getitem_16, getitem_13);  getitem_16 = getitem_13 = None
    sigmoid__5 = torch.ops.aten.sigmoid_.default(add__7);  add__7 = None
    detach_7 = torch.ops.aten.detach.default(sigmoid__5)
    clone_4 = torch.ops.aten.clone.default(getitem_17)
    mul__4 = torch.ops.aten.mul_.Tensor(getitem_17, sigmoid__4);  getitem_17 = None
    add_2 = torch.ops.aten.add.Tensor(getitem_14, mul__4);  getitem_14 = mul__4 = None
    tanh__2 = torch.ops.aten.tanh_.default(add_2);  add_2 = None
    detach_8 = torch.ops.aten.detach.default(tanh__2)
    sub_2 = torch.ops.aten.sub.Tensor(add__5, tanh__2)
    clone_5 = torch.ops.aten.clone.default(sub_2)
    mul__5 = torch.ops.aten.mul_.Tensor(sub_2, sigmoid__5);  sub_2 = None
    add__8 = torch.ops.aten.add_.Tensor(mul__5, tanh__2);  mul__5 = tanh__2 = None
    t_6 = torch.ops.aten.t.default(arg6_1);  arg6_1 = None
    addmm_6 = torch.ops.aten.addmm.default(arg7_1, add__8, t_6);  arg7_1 = None
    _log_softmax = torch.ops.aten._log_softmax.default(addmm_6, 1, False);  addmm_6 = None
    detach_9 = torch.ops.aten.detach.default(_log_softmax)
    nll_loss_forward = torch.ops.aten.nll_loss_forward.default(_log_softmax, arg1_1, None, 1, -100)
    getitem_18 = nll_loss_forward[0]
    getitem_19 = nll_loss_forward[1];  nll_loss_forward = None
    ones_like = torch.ops.aten.ones_like.default(getitem_18, dtype = torch.float32, layout = torch.strided, device = device(type='cpu'), pin_memory = False, memory_format = torch.preserve_format)
    nll_loss_backward = torch.ops.aten.nll_loss_backward.default(ones_like, _log_softmax, arg1_1, None, 1, -100, getitem_19);  ones_like = _log_softmax = arg1_1 = getitem_19 = None
    detach_10 = torch.ops.aten.detach.default(detach_9);  detach_9 = None
    _log_softmax_backward_data = torch.ops.aten._log_softmax_backward_data.default(nll_loss_backward, detach_10, 1, torch.float32);  nll_loss_backward = detach_10 = None
    t_7 = torch.ops.aten.t.default(t_6);  t_6 = None
    mm = torch.ops.aten.mm.default(_log_softmax_backward_data, t_7);  t_7 = None
    t_8 = torch.ops.aten.t.default(_log_softmax_backward_data)
    mm_1 = torch.ops.aten.mm.default(t_8, add__8);  t_8 = add__8 = None
    t_9 = torch.ops.aten.t.default(mm_1);  mm_1 = None
    sum_1 = torch.ops.aten.sum.dim_IntList(_log_softmax_backward_data, [0], True);  _log_softmax_backward_data = None
    view = torch.ops.aten.view.default(sum_1, [3]);  sum_1 = None
    t_10 = torch.ops.aten.t.default(t_9);  t_9 = None
    mul = torch.ops.aten.mul.Tensor(mm, clone_5);  clone_5 = None
    mul_1 = torch.ops.aten.mul.Tensor(mm, sigmoid__5);  sigmoid__5 = None
    neg = torch.ops.aten.neg.default(mul_1)
    add_3 = torch.ops.aten.add.Tensor(mm, neg);  mm = neg = None
    detach_11 = torch.ops.aten.detach.default(detach_8);  detach_8 = None
    tanh_backward = torch.ops.aten.tanh_backward.default(add_3, detach_11);  add_3 = detach_11 = None
    mul_2 = torch.ops.aten.mul.Tensor(tanh_backward, clone_4);  clone_4 = None
    mul_3 = torch.ops.aten.mul.Tensor(tanh_backward, sigmoid__4);  sigmoid__4 = None
    detach_12 = torch.ops.aten.detach.default(detach_7);  detach_7 = None
    sigmoid_backward = torch.ops.aten.sigmoid_backward.default(mul, detach_12);  mul = detach_12 = None
    detach_13 = torch.ops.aten.detach.default(detach_6);  detach_6 = None
    sigmoid_backward_1 = torch.ops.aten.sigmoid_backward.default(mul_2, detach_13);  mul_2 = detach_13 = None
    cat = torch.ops.aten.cat.default([sigmoid_backward_1, sigmoid_backward, mul_3], 1);  mul_3 = None
    t_11 = torch.ops.aten.t.default(t_5);  t_5 = None
    mm_2 = torch.ops.aten.mm.default(cat, t_11);  t_11 = None
    t_12 = torch.ops.aten.t.default(cat)
    mm_3 = torch.ops.aten.mm.default(t_12, add__5);  t_12 = add__5 = None
    t_13 = torch.ops.aten.t.default(mm_3);  mm_3 = None
    sum_2 = torch.ops.aten.sum.dim_IntList(cat, [0], True);  cat = None
    view_1 = torch.ops.aten.view.default(sum_2, [18]);  sum_2 = None
    add_4 = torch.ops.aten.add.Tensor(mul_1, mm_2);  mul_1 = mm_2 = None
    t_14 = torch.ops.aten.t.default(t_13);  t_13 = None
    cat_1 = torch.ops.aten.cat.default([sigmoid_backward_1, sigmoid_backward, tanh_backward], 1);  sigmoid_backward_1 = sigmoid_backward = tanh_backward = None
    t_15 = torch.ops.aten.t.default(cat_1)
    mm_4 = torch.ops.aten.mm.default(t_15, select_2);  t_15 = select_2 = None
    t_16 = torch.ops.aten.t.default(mm_4);  mm_4 = None
    sum_3 = torch.ops.aten.sum.dim_IntList(cat_1, [0], True);  cat_1 = None
    view_2 = torch.ops.aten.view.default(sum_3, [18]);  sum_3 = None
    t_17 = torch.ops.aten.t.default(t_16);  t_16 = None
    mul_4 = torch.ops.aten.mul.Tensor(add_4, clone_3);  clone_3 = None
    mul_5 = torch.ops.aten.mul.Tensor(add_4, sigmoid__3);  sigmoid__3 = None
    neg_1 = torch.ops.aten.neg.default(mul_5)
    add_5 = torch.ops.aten.add.Tensor(add_4, neg_1);  add_4 = neg_1 = None
    detach_14 = torch.ops.aten.detach.default(detach_5);  detach_5 = None
    tanh_backward_1 = torch.ops.aten.tanh_backward.default(add_5, detach_14);  add_5 = detach_14 = None
    mul_6 = torch.ops.aten.mul.Tensor(tanh_backward_1, clone_2);  clone_2 = None
    mul_7 = torch.ops.aten.mul.Tensor(tanh_backward_1, sigmoid__2);  sigmoid__2 = None
    detach_15 = torch.ops.aten.detach.default(detach_4);  detach_4 = None
    sigmoid_backward_2 = torch.ops.aten.sigmoid_backward.default(mul_4, detach_15);  mul_4 = detach_15 = None
    detach_16 = torch.ops.aten.detach.default(detach_3);  detach_3 = None
    sigmoid_backward_3 = torch.ops.aten.sigmoid_backward.default(mul_6, detach_16);  mul_6 = detach_16 = None
    cat_2 = torch.ops.aten.cat.default([sigmoid_backward_3, sigmoid_backward_2, mul_7], 1);  mul_7 = None
    t_18 = torch.ops.aten.t.default(t_3);  t_3 = None
    mm_5 = torch.ops.aten.mm.default(cat_2, t_18);  t_18 = None
    t_19 = torch.ops.aten.t.default(cat_2)
    mm_6 = torch.ops.aten.mm.default(t_19, add__2);  t_19 = add__2 = None
    t_20 = torch.ops.aten.t.default(mm_6);  mm_6 = None
    sum_4 = torch.ops.aten.sum.dim_IntList(cat_2, [0], True);  cat_2 = None
    view_3 = torch.ops.aten.view.default(sum_4, [18]);  sum_4 = None
    add_6 = torch.ops.aten.add.Tensor(view_1, view_3);  view_1 = view_3 = None
    add_7 = torch.ops.aten.add.Tensor(mul_5, mm_5);  mul_5 = mm_5 = None
    t_21 = torch.ops.aten.t.default(t_20);  t_20 = None
    add_8 = torch.ops.aten.add.Tensor(t_14, t_21);  t_14 = t_21 = None
    cat_3 = torch.ops.aten.cat.default([sigmoid_backward_3, sigmoid_backward_2, tanh_backward_1], 1);  sigmoid_backward_3 = sigmoid_backward_2 = tanh_backward_1 = None
    t_22 = torch.ops.aten.t.default(cat_3)
    mm_7 = torch.ops.aten.mm.default(t_22, select_1);  t_22 = select_1 = None
    t_23 = torch.ops.aten.t.default(mm_7);  mm_7 = None
    sum_5 = torch.ops.aten.sum.dim_IntList(cat_3, [0], True);  cat_3 = None
    view_4 = torch.ops.aten.view.default(sum_5, [18]);  sum_5 = None
    add_9 = torch.ops.aten.add.Tensor(view_2, view_4);  view_2 = view_4 = None
    t_24 = torch.ops.aten.t.default(t_23);  t_23 = None
    add_10 = torch.ops.aten.add.Tensor(t_17, t_24);  t_17 = t_24 = None
    mul_8 = torch.ops.aten.mul.Tensor(add_7, clone_1);  clone_1 = None
    mul_9 = torch.ops.aten.mul.Tensor(add_7, sigmoid__1);  sigmoid__1 = None
    neg_2 = torch.ops.aten.neg.default(mul_9);  mul_9 = None
    add_11 = torch.ops.aten.add.Tensor(add_7, neg_2);  add_7 = neg_2 = None
    detach_17 = torch.ops.aten.detach.default(detach_2);  detach_2 = None
    tanh_backward_2 = torch.ops.aten.tanh_backward.default(add_11, detach_17);  add_11 = detach_17 = None
    mul_10 = torch.ops.aten.mul.Tensor(tanh_backward_2, clone);  clone = None
    mul_11 = torch.ops.aten.mul.Tensor(tanh_backward_2, sigmoid_);  sigmoid_ = None
    detach_18 = torch.ops.aten.detach.default(detach_1);  detach_1 = None
    sigmoid_backward_4 = torch.ops.aten.sigmoid_backward.default(mul_8, detach_18);  mul_8 = detach_18 = None
    detach_19 = torch.ops.aten.detach.default(detach);  detach = None
    sigmoid_backward_5 = torch.ops.aten.sigmoid_backward.default(mul_10, detach_19);  mul_10 = detach_19 = None
    cat_4 = torch.ops.aten.cat.default([sigmoid_backward_5, sigmoid_backward_4, mul_11], 1);  mul_11 = None
    t_25 = torch.ops.aten.t.default(cat_4)
    mm_8 = torch.ops.aten.mm.default(t_25, zeros);  t_25 = zeros = None
    t_26 = torch.ops.aten.t.default(mm_8);  mm_8 = None
    sum_6 = torch.ops.aten.sum.dim_IntList(cat_4, [0], True);  cat_4 = None
    view_5 = torch.ops.aten.view.default(sum_6, [18]);  sum_6 = None
    add_12 = torch.ops.aten.add.Tensor(add_6, view_5);  add_6 = view_5 = None
    t_27 = torch.ops.aten.t.default(t_26);  t_26 = None
    add_13 = torch.ops.aten.add.Tensor(add_8, t_27);  add_8 = t_27 = None
    cat_5 = torch.ops.aten.cat.default([sigmoid_backward_5, sigmoid_backward_4, tanh_backward_2], 1);  sigmoid_backward_5 = sigmoid_backward_4 = tanh_backward_2 = None
    t_28 = torch.ops.aten.t.default(cat_5)
    mm_9 = torch.ops.aten.mm.default(t_28, select);  t_28 = select = None
    t_29 = torch.ops.aten.t.default(mm_9);  mm_9 = None
    sum_7 = torch.ops.aten.sum.dim_IntList(cat_5, [0], True);  cat_5 = None
    view_6 = torch.ops.aten.view.default(sum_7, [18]);  sum_7 = None
    add_14 = torch.ops.aten.add.Tensor(add_9, view_6);  add_9 = view_6 = None
    t_30 = torch.ops.aten.t.default(t_29);  t_29 = None
    add_15 = torch.ops.aten.add.Tensor(add_10, t_30);  add_10 = t_30 = None
    return (getitem_18, add_15, add_13, add_14, add_12, t_10, view)
    