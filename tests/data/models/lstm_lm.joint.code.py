


def forward(self, arg0_1, arg1_1, arg2_1, arg3_1, arg4_1, arg5_1, arg6_1, arg7_1, arg8_1):
    embedding = torch.ops.aten.embedding.default(arg2_1, arg0_1);  arg2_1 = None
    zeros = torch.ops.aten.zeros.default([1, 2, 8], dtype = torch.float32, device = device(type='cpu'), pin_memory = False)
    zeros_1 = torch.ops.aten.zeros.default([1, 2, 8], dtype = torch.float32, device = device(type='cpu'), pin_memory = False)
    transpose = torch.ops.aten.transpose.int(embedding, 0, 1);  embedding = None
    unbind = torch.ops.aten.unbind.int(zeros);  zeros = None
    getitem = unbind[0];  unbind = None
    unbind_1 = torch.ops.aten.unbind.int(zeros_1);  zeros_1 = None
    getitem_1 = unbind_1[0];  unbind_1 = None
    _param_constant0 = self._param_constant0
    t = torch.ops.aten.t.default(_param_constant0);  _param_constant0 = None
    clone = torch.ops.aten.clone.default(transpose, memory_format = torch.contiguous_format);  transpose = None
    _unsafe_view = torch.ops.aten._unsafe_view.default(clone, [10, 8]);  clone = None
    mm = torch.ops.aten.mm.default(_unsafe_view, t);  _unsafe_view = None
    _unsafe_view_1 = torch.ops.aten._unsafe_view.default(mm, [5, 2, 32]);  mm = None
    _param_constant1 = self._param_constant1
    add = torch.ops.aten.add.Tensor(_unsafe_view_1, _param_constant1);  _unsafe_view_1 = _param_constant1 = None
    unbind_2 = torch.ops.aten.unbind.int(add);  add = None
    getitem_2 = unbind_2[0]
    getitem_3 = unbind_2[1]
    getitem_4 = unbind_2[2]
    getitem_5 = unbind_2[3]
    getitem_6 = unbind_2[4];  unbind_2 = None
    _param_constant2 = self._param_constant2
    t_1 = torch.ops.aten.t.default(_param_constant2);  _param_constant2 = None
    _param_constant3 = self._param_constant3
    addmm = torch.ops.aten.addmm.default(_param_constant3, getitem, t_1);  _param_constant3 = getitem = t_1 = None
    add_ = torch.ops.aten.add_.Tensor(addmm, getitem_2);  addmm = getitem_2 = None
    unsafe_split = torch.ops.aten.unsafe_split.Tensor(add_, 8, 1);  add_ = None
    getitem_7 = unsafe_split[0]
    getitem_8 = unsafe_split[1]
    getitem_9 = unsafe_split[2]
    getitem_10 = unsafe_split[3];  unsafe_split = None
    sigmoid_ = torch.ops.aten.sigmoid_.default(getitem_7);  getitem_7 = None
    detach = torch.ops.aten.detach.default(sigmoid_)
    sigmoid__1 = torch.ops.aten.sigmoid_.default(getitem_8);  getitem_8 = None
    detach_1 = torch.ops.aten.detach.default(sigmoid__1)
    tanh_ = torch.ops.aten.tanh_.default(getitem_9);  getitem_9 = None
    detach_2 = torch.ops.aten.detach.default(tanh_)
    sigmoid__2 = torch.ops.aten.sigmoid_.default(getitem_10);  getitem_10 = None
    detach_3 = torch.ops.aten.detach.default(sigmoid__2)
    mul = torch.ops.aten.mul.Tensor(sigmoid__1, getitem_1);  sigmoid__1 = None
    mul_1 = torch.ops.aten.mul.Tensor(sigmoid_, tanh_)
    add__1 = torch.ops.aten.add_.Tensor(mul, mul_1);  mul = mul_1 = None
    tanh = torch.ops.aten.tanh.default(add__1)
    detach_4 = torch.ops.aten.detach.default(tanh)
    mul_2 = torch.ops.aten.mul.Tensor(sigmoid__2, tanh)
    _param_constant2_1 = self._param_constant2
    t_2 = torch.ops.aten.t.default(_param_constant2_1);  _param_constant2_1 = None
    _param_constant3_1 = self._param_constant3
    addmm_1 = torch.ops.aten.addmm.default(_param_constant3_1, mul_2, t_2);  _param_constant3_1 = None
    add__2 = torch.ops.aten.add_.Tensor(addmm_1, getitem_3);  addmm_1 = getitem_3 = None
    unsafe_split_1 = torch.ops.aten.unsafe_split.Tensor(add__2, 8, 1);  add__2 = None
    getitem_11 = unsafe_split_1[0]
    getitem_12 = unsafe_split_1[1]
    getitem_13 = unsafe_split_1[2]
    getitem_14 = unsafe_split_1[3];  unsafe_split_1 = None
    sigmoid__3 = torch.ops.aten.sigmoid_.default(getitem_11);  getitem_11 = None
    detach_5 = torch.ops.aten.detach.default(sigmoid__3)
    sigmoid__4 = torch.ops.aten.sigmoid_.default(getitem_12);  getitem_12 = None
    detach_6 = torch.ops.aten.detach.default(sigmoid__4)
    tanh__1 = torch.ops.aten.tanh_.default(getitem_13);  getitem_13 = None
    detach_7 = torch.ops.aten.detach.default(tanh__1)
    sigmoid__5 = torch.ops.aten.sigmoid_.default(getitem_14);  getitem_14 = None
    detach_8 = torch.ops.aten.detach.default(sigmoid__5)
    mul_3 = torch.ops.aten.mul.Tensor(sigmoid__4, add__1)
    mul_4 = torch.ops.aten.mul.Tensor(sigmoid__3, tanh__1)
    add__3 = torch.ops.aten.add_.Tensor(mul_3, mul_4);  mul_3 = mul_4 = None
    tanh_1 = torch.ops.aten.tanh.default(add__3)
    detach_9 = torch.ops.aten.detach.default(tanh_1)
    mul_5 = torch.ops.aten.mul.Tensor(sigmoid__5, tanh_1)
    _param_constant2_2 = self._param_constant2
    t_3 = torch.ops.aten.t.default(_param_constant2_2);  _param_constant2_2 = None
    _param_constant3_2 = self._param_constant3
    addmm_2 = torch.ops.aten.addmm.default(_param_constant3_2, mul_5, t_3);  _param_constant3_2 = None
    add__4 = torch.ops.aten.add_.Tensor(addmm_2, getitem_4);  addmm_2 = getitem_4 = None
    unsafe_split_2 = torch.ops.aten.unsafe_split.Tensor(add__4, 8, 1);  add__4 = None
    getitem_15 = unsafe_split_2[0]
    getitem_16 = unsafe_split_2[1]
    getitem_17 = unsafe_split_2[2]
    getitem_18 = unsafe_split_2[3];  unsafe_split_2 = None
    sigmoid__6 = torch.ops.aten.sigmoid_.default(getitem_15);  getitem_15 = None
    detach_10 = torch.ops.aten.detach.default(sigmoid__6)
    sigmoid__7 = torch.ops.aten.sigmoid_.default(getitem_16);  getitem_16 = None
    detach_11 = torch.ops.aten.detach.default(sigmoid__7)
    tanh__2 = torch.ops.aten.tanh_.default(getitem_17);  getitem_17 = None
    detach_12 = torch.ops.aten.detach.default(tanh__2)
    sigmoid__8 = torch.ops.aten.sigmoid_.default(getitem_18);  getitem_18 = None
    detach_13 = torch.ops.aten.detach.default(sigmoid__8)
    mul_6 = torch.ops.aten.mul.Tensor(sigmoid__7, add__3)
    mul_7 = torch.ops.aten.mul.Tensor(sigmoid__6, tanh__2)
    add__5 = torch.ops.aten.add_.Tensor(mul_6, mul_7);  mul_6 = mul_7 = None
    tanh_2 = torch.ops.aten.tanh.default(add__5)
    detach_14 = torch.ops.aten.detach.default(tanh_2)
    mul_8 = torch.ops.aten.mul.Tensor(sigmoid__8, tanh_2)
    _param_constant2_3 = self._param_constant2
    t_4 = torch.ops.aten.t.default(_param_constant2_3);  _param_constant2_3 = None
    _param_constant3_3 = self._param_constant3
    addmm_3 = torch.ops.aten.addmm.default(_param_constant3_3, mul_8, t_4);  _param_constant3_3 = None
    add__6 = torch.ops.aten.add_.Tensor(addmm_3, getitem_5);  addmm_3 = getitem_5 = None
    unsafe_split_3 = torch.ops.aten.unsafe_split.Tensor(add__6, 8, 1);  add__6 = None
    getitem_19 = unsafe_split_3[0]
    getitem_20 = unsafe_split_3[1]
    getitem_21 = unsafe_split_3[2]
    getitem_22 = unsafe_split_3[3];  unsafe_split_3 = None
    sigmoid__9 = torch.ops.aten.sigmoid_.default(getitem_19);  getitem_19 = None
    detach_15 = torch.ops.aten.detach.default(sigmoid__9)
    sigmoid__10 = torch.ops.aten.sigmoid_.default(getitem_20);  getitem_20 = None
    detach_16 = torch.ops.aten.detach.default(sigmoid__10)
    tanh__3 = torch.ops.aten.tanh_.default(getitem_21);  getitem_21 = None
    detach_17 = torch.ops.aten.detach.default(tanh__3)
    sigmoid__11 = torch.ops.aten.sigmoid_.default(getitem_22);  getitem_22 = None
    detach_18 = torch.ops.aten.detach.default(sigmoid__11)
    mul_9 = torch.ops.aten.mul.Tensor(sigmoid__10, add__5)
    mul_10 = torch.ops.aten.mul.Tensor(sigmoid__9, tanh__3)
    add__7 = torch.ops.aten.add_.Tensor(mul_9, mul_10);  mul_9 = mul_10 = None
    tanh_3 = torch.ops.aten.tanh.default(add__7)
    detach_19 = torch.ops.aten.detach.default(tanh_3)
    mul_11 = torch.ops.aten.mul.Tensor(sigmoid__11, tanh_3)
    _param_constant2_4 = self._param_constant2
    t_5 = torch.ops.aten.t.default(_param_constant2_4);  _param_constant2_4 = None
    _param_constant3_4 = self._param_constant3
    addmm_4 = torch.ops.aten.addmm.default(_param_constant3_4, mul_11, t_5);  _param_constant3_4 = None
    add__8 = torch.ops.aten.add_.Tensor(addmm_4, getitem_6);  addmm_4 = getitem_6 = None
    unsafe_split_4 = torch.ops.aten.unsafe_split.Tensor(add__8, 8, 1);  add__8 = None
    getitem_23 = unsafe_split_4[0]
    getitem_24 = unsafe_split_4[1]
    getitem_25 = unsafe_split_4[2]
    getitem_26 = unsafe_split_4[3];  unsafe_split_4 = None
    sigmoid__12 = torch.ops.aten.sigmoid_.default(getitem_23);  getitem_23 = None
    detach_20 = torch.ops.aten.detach.default(sigmoid__12)
    sigmoid__13 = torch.ops.aten.sigmoid_.default(getitem_24);  getitem_24 = None
    detach_21 = torch.ops.aten.detach.default(sigmoid__13)
    tanh__4 = torch.ops.aten.tanh_.default(getitem_25);  getitem_25 = None
    detach_22 = torch.ops.aten.detach.default(tanh__4)
    sigmoid__14 = torch.ops.aten.sigmoid_.default(getitem_26);  getitem_26 = None
    detach_23 = torch.ops.aten.detach.default(sigmoid__14)
    mul_12 = torch.ops.aten.mul.Tensor(sigmoid__13, add__7)
    mul_13 = torch.ops.aten.mul.Tensor(sigmoid__12, tanh__4)
    add__9 = torch.ops.aten.add_.Tensor(mul_12, mul_13);  mul_12 = mul_13 = None
    tanh_4 = torch.ops.aten.tanh.default(add__9)
    detach_24 = torch.ops.aten.detach.default(tanh_4)
    mul_14 = torch.ops.aten.mul.Tensor(sigmoid__14, tanh_4)
    stack = torch.ops.aten.stack.default([mul_2, mul_5, mul_8, mul_11, mul_14]);  mul_2 = mul_5 = mul_8 = mul_11 = None
    stack_1 = torch.ops.aten.stack.default([add__9]);  add__9 = None
    stack_2 = torch.ops.aten.stack.default([mul_14]);  mul_14 = None
    transpose_1 = torch.ops.aten.transpose.int(stack, 0, 1);  stack = None
    t_6 = torch.ops.aten.t.default(arg7_1);  arg7_1 = None
    clone_1 = torch.ops.aten.clone.default(transpose_1, memory_format = torch.contiguous_format);  transpose_1 = None
    _unsafe_view_2 = torch.ops.aten._unsafe_view.default(clone_1, [10, 8]);  clone_1 = None
    mm_1 = torch.ops.aten.mm.default(_unsafe_view_2, t_6)
    _unsafe_view_3 = torch.ops.aten._unsafe_view.default(mm_1, [2, 5, 11]);  mm_1 = None
    add_1 = torch.ops.aten.add.Tensor(_unsafe_view_3, arg8_1);  _unsafe_view_3 = arg8_1 = None
    _reshape_alias = torch.ops.aten._reshape_alias.default(add_1, [10, 11], [11, 1]);  add_1 = None
    _reshape_alias_1 = torch.ops.aten._reshape_alias.default(arg1_1, [10], [1]);  arg1_1 = None
    _log_softmax = torch.ops.aten._log_softmax.default(_reshape_alias, 1, False);  _reshape_alias = None
    detach_25 = torch.ops.aten.detach.default(_log_softmax)
    nll_loss_forward = torch.ops.aten.nll_loss_forward.default(_log_softmax, _reshape_alias_1, None, 1, -100)
    getitem_27 = nll_loss_forward[0]
    getitem_28 = nll_loss_forward[1];  nll_loss_forward = None
    ones_like = torch.ops.aten.ones_like.default(getitem_27, dtype = torch.float32, layout = torch.strided, device = device(type='cpu'), pin_memory = False, memory_format = torch.preserve_format)
    nll_loss_backward = torch.ops.aten.nll_loss_backward.default(ones_like, _log_softmax, _reshape_alias_1, None, 1, -100, getitem_28);  ones_like = _log_softmax = _reshape_alias_1 = getitem_28 = None
    detach_26 = torch.ops.aten.detach.default(detach_25);  detach_25 = None
    _log_softmax_backward_data = torch.ops.aten._log_softmax_backward_data.default(nll_loss_backward, detach_26, 1, torch.float32);  nll_loss_backward = detach_26 = None
    _reshape_alias_2 = torch.ops.aten._reshape_alias.default(_log_softmax_backward_data, [2, 5, 11], [55, 11, 1]);  _log_softmax_backward_data = None
    sum_1 = torch.ops.aten.sum.dim_IntList(_reshape_alias_2, [0, 1], True)
    view = torch.ops.aten.view.default(sum_1, [11]);  sum_1 = None
    _reshape_alias_3 = torch.ops.aten._reshape_alias.default(_reshape_alias_2, [10, 11], [11, 1]);  _reshape_alias_2 = None
    t_7 = torch.ops.aten.t.default(_reshape_alias_3)
    mm_2 = torch.ops.aten.mm.default(t_7, _unsafe_view_2);  t_7 = _unsafe_view_2 = None
    t_8 = torch.ops.aten.t.default(mm_2);  mm_2 = None
    t_9 = torch.ops.aten.t.default(t_6);  t_6 = None
    mm_3 = torch.ops.aten.mm.default(_reshape_alias_3, t_9);  _reshape_alias_3 = t_9 = None
    _reshape_alias_4 = torch.ops.aten._reshape_alias.default(mm_3, [2, 5, 8], [40, 8, 1]);  mm_3 = None
    t_10 = torch.ops.aten.t.default(t_8);  t_8 = None
    transpose_2 = torch.ops.aten.transpose.int(_reshape_alias_4, 0, 1);  _reshape_alias_4 = None
    select = torch.ops.aten.select.int(transpose_2, 0, 0)
    select_1 = torch.ops.aten.select.int(transpose_2, 0, 1)
    select_2 = torch.ops.aten.select.int(transpose_2, 0, 2)
    select_3 = torch.ops.aten.select.int(transpose_2, 0, 3)
    select_4 = torch.ops.aten.select.int(transpose_2, 0, 4);  transpose_2 = None
    mul_15 = torch.ops.aten.mul.Tensor(select_4, sigmoid__14);  sigmoid__14 = None
    mul_16 = torch.ops.aten.mul.Tensor(select_4, tanh_4);  select_4 = tanh_4 = None
    detach_27 = torch.ops.aten.detach.default(detach_24);  detach_24 = None
    tanh_backward = torch.ops.aten.tanh_backward.default(mul_15, detach_27);  mul_15 = detach_27 = None
    mul_17 = torch.ops.aten.mul.Tensor(tanh_backward, sigmoid__12);  sigmoid__12 = None
    mul_18 = torch.ops.aten.mul.Tensor(tanh_backward, tanh__4);  tanh__4 = None
    mul_19 = torch.ops.aten.mul.Tensor(tanh_backward, sigmoid__13);  sigmoid__13 = None
    mul_20 = torch.ops.aten.mul.Tensor(tanh_backward, add__7);  tanh_backward = add__7 = None
    detach_28 = torch.ops.aten.detach.default(detach_23);  detach_23 = None
    sigmoid_backward = torch.ops.aten.sigmoid_backward.default(mul_16, detach_28);  mul_16 = detach_28 = None
    detach_29 = torch.ops.aten.detach.default(detach_22);  detach_22 = None
    tanh_backward_1 = torch.ops.aten.tanh_backward.default(mul_17, detach_29);  mul_17 = detach_29 = None
    detach_30 = torch.ops.aten.detach.default(detach_21);  detach_21 = None
    sigmoid_backward_1 = torch.ops.aten.sigmoid_backward.default(mul_20, detach_30);  mul_20 = detach_30 = None
    detach_31 = torch.ops.aten.detach.default(detach_20);  detach_20 = None
    sigmoid_backward_2 = torch.ops.aten.sigmoid_backward.default(mul_18, detach_31);  mul_18 = detach_31 = None
    cat = torch.ops.aten.cat.default([sigmoid_backward_2, sigmoid_backward_1, tanh_backward_1, sigmoid_backward], 1);  sigmoid_backward_2 = sigmoid_backward_1 = tanh_backward_1 = sigmoid_backward = None
    t_11 = torch.ops.aten.t.default(t_5);  t_5 = None
    mm_4 = torch.ops.aten.mm.default(cat, t_11);  t_11 = None
    add_2 = torch.ops.aten.add.Tensor(select_3, mm_4);  select_3 = mm_4 = None
    mul_21 = torch.ops.aten.mul.Tensor(add_2, sigmoid__11);  sigmoid__11 = None
    mul_22 = torch.ops.aten.mul.Tensor(add_2, tanh_3);  add_2 = tanh_3 = None
    detach_32 = torch.ops.aten.detach.default(detach_19);  detach_19 = None
    tanh_backward_2 = torch.ops.aten.tanh_backward.default(mul_21, detach_32);  mul_21 = detach_32 = None
    add_3 = torch.ops.aten.add.Tensor(mul_19, tanh_backward_2);  mul_19 = tanh_backward_2 = None
    mul_23 = torch.ops.aten.mul.Tensor(add_3, sigmoid__9);  sigmoid__9 = None
    mul_24 = torch.ops.aten.mul.Tensor(add_3, tanh__3);  tanh__3 = None
    mul_25 = torch.ops.aten.mul.Tensor(add_3, sigmoid__10);  sigmoid__10 = None
    mul_26 = torch.ops.aten.mul.Tensor(add_3, add__5);  add_3 = add__5 = None
    detach_33 = torch.ops.aten.detach.default(detach_18);  detach_18 = None
    sigmoid_backward_3 = torch.ops.aten.sigmoid_backward.default(mul_22, detach_33);  mul_22 = detach_33 = None
    detach_34 = torch.ops.aten.detach.default(detach_17);  detach_17 = None
    tanh_backward_3 = torch.ops.aten.tanh_backward.default(mul_23, detach_34);  mul_23 = detach_34 = None
    detach_35 = torch.ops.aten.detach.default(detach_16);  detach_16 = None
    sigmoid_backward_4 = torch.ops.aten.sigmoid_backward.default(mul_26, detach_35);  mul_26 = detach_35 = None
    detach_36 = torch.ops.aten.detach.default(detach_15);  detach_15 = None
    sigmoid_backward_5 = torch.ops.aten.sigmoid_backward.default(mul_24, detach_36);  mul_24 = detach_36 = None
    cat_1 = torch.ops.aten.cat.default([sigmoid_backward_5, sigmoid_backward_4, tanh_backward_3, sigmoid_backward_3], 1);  sigmoid_backward_5 = sigmoid_backward_4 = tanh_backward_3 = sigmoid_backward_3 = None
    t_12 = torch.ops.aten.t.default(t_4);  t_4 = None
    mm_5 = torch.ops.aten.mm.default(cat_1, t_12);  t_12 = None
    add_4 = torch.ops.aten.add.Tensor(select_2, mm_5);  select_2 = mm_5 = None
    mul_27 = torch.ops.aten.mul.Tensor(add_4, sigmoid__8);  sigmoid__8 = None
    mul_28 = torch.ops.aten.mul.Tensor(add_4, tanh_2);  add_4 = tanh_2 = None
    detach_37 = torch.ops.aten.detach.default(detach_14);  detach_14 = None
    tanh_backward_4 = torch.ops.aten.tanh_backward.default(mul_27, detach_37);  mul_27 = detach_37 = None
    add_5 = torch.ops.aten.add.Tensor(mul_25, tanh_backward_4);  mul_25 = tanh_backward_4 = None
    mul_29 = torch.ops.aten.mul.Tensor(add_5, sigmoid__6);  sigmoid__6 = None
    mul_30 = torch.ops.aten.mul.Tensor(add_5, tanh__2);  tanh__2 = None
    mul_31 = torch.ops.aten.mul.Tensor(add_5, sigmoid__7);  sigmoid__7 = None
    mul_32 = torch.ops.aten.mul.Tensor(add_5, add__3);  add_5 = add__3 = None
    detach_38 = torch.ops.aten.detach.default(detach_13);  detach_13 = None
    sigmoid_backward_6 = torch.ops.aten.sigmoid_backward.default(mul_28, detach_38);  mul_28 = detach_38 = None
    detach_39 = torch.ops.aten.detach.default(detach_12);  detach_12 = None
    tanh_backward_5 = torch.ops.aten.tanh_backward.default(mul_29, detach_39);  mul_29 = detach_39 = None
    detach_40 = torch.ops.aten.detach.default(detach_11);  detach_11 = None
    sigmoid_backward_7 = torch.ops.aten.sigmoid_backward.default(mul_32, detach_40);  mul_32 = detach_40 = None
    detach_41 = torch.ops.aten.detach.default(detach_10);  detach_10 = None
    sigmoid_backward_8 = torch.ops.aten.sigmoid_backward.default(mul_30, detach_41);  mul_30 = detach_41 = None
    cat_2 = torch.ops.aten.cat.default([sigmoid_backward_8, sigmoid_backward_7, tanh_backward_5, sigmoid_backward_6], 1);  sigmoid_backward_8 = sigmoid_backward_7 = tanh_backward_5 = sigmoid_backward_6 = None
    t_13 = torch.ops.aten.t.default(t_3);  t_3 = None
    mm_6 = torch.ops.aten.mm.default(cat_2, t_13);  t_13 = None
    add_6 = torch.ops.aten.add.Tensor(select_1, mm_6);  select_1 = mm_6 = None
    mul_33 = torch.ops.aten.mul.Tensor(add_6, sigmoid__5);  sigmoid__5 = None
    mul_34 = torch.ops.aten.mul.Tensor(add_6, tanh_1);  add_6 = tanh_1 = None
    detach_42 = torch.ops.aten.detach.default(detach_9);  detach_9 = None
    tanh_backward_6 = torch.ops.aten.tanh_backward.default(mul_33, detach_42);  mul_33 = detach_42 = None
    add_7 = torch.ops.aten.add.Tensor(mul_31, tanh_backward_6);  mul_31 = tanh_backward_6 = None
    mul_35 = torch.ops.aten.mul.Tensor(add_7, sigmoid__3);  sigmoid__3 = None
    mul_36 = torch.ops.aten.mul.Tensor(add_7, tanh__1);  tanh__1 = None
    mul_37 = torch.ops.aten.mul.Tensor(add_7, sigmoid__4);  sigmoid__4 = None
    mul_38 = torch.ops.aten.mul.Tensor(add_7, add__1);  add_7 = add__1 = None
    detach_43 = torch.ops.aten.detach.default(detach_8);  detach_8 = None
    sigmoid_backward_9 = torch.ops.aten.sigmoid_backward.default(mul_34, detach_43);  mul_34 = detach_43 = None
    detach_44 = torch.ops.aten.detach.default(detach_7);  detach_7 = None
    tanh_backward_7 = torch.ops.aten.tanh_backward.default(mul_35, detach_44);  mul_35 = detach_44 = None
    detach_45 = torch.ops.aten.detach.default(detach_6);  detach_6 = None
    sigmoid_backward_10 = torch.ops.aten.sigmoid_backward.default(mul_38, detach_45);  mul_38 = detach_45 = None
    detach_46 = torch.ops.aten.detach.default(detach_5);  detach_5 = None
    sigmoid_backward_11 = torch.ops.aten.sigmoid_backward.default(mul_36, detach_46);  mul_36 = detach_46 = None
    cat_3 = torch.ops.aten.cat.default([sigmoid_backward_11, sigmoid_backward_10, tanh_backward_7, sigmoid_backward_9], 1);  sigmoid_backward_11 = sigmoid_backward_10 = tanh_backward_7 = sigmoid_backward_9 = None
    t_14 = torch.ops.aten.t.default(t_2);  t_2 = None
    mm_7 = torch.ops.aten.mm.default(cat_3, t_14);  t_14 = None
    add_8 = torch.ops.aten.add.Tensor(select, mm_7);  select = mm_7 = None
    mul_39 = torch.ops.aten.mul.Tensor(add_8, sigmoid__2);  sigmoid__2 = None
    mul_40 = torch.ops.aten.mul.Tensor(add_8, tanh);  add_8 = tanh = None
    detach_47 = torch.ops.aten.detach.default(detach_4);  detach_4 = None
    tanh_backward_8 = torch.ops.aten.tanh_backward.default(mul_39, detach_47);  mul_39 = detach_47 = None
    add_9 = torch.ops.aten.add.Tensor(mul_37, tanh_backward_8);  mul_37 = tanh_backward_8 = None
    mul_41 = torch.ops.aten.mul.Tensor(add_9, sigmoid_);  sigmoid_ = None
    mul_42 = torch.ops.aten.mul.Tensor(add_9, tanh_);  tanh_ = None
    mul_43 = torch.ops.aten.mul.Tensor(add_9, getitem_1);  add_9 = getitem_1 = None
    detach_48 = torch.ops.aten.detach.default(detach_3);  detach_3 = None
    sigmoid_backward_12 = torch.ops.aten.sigmoid_backward.default(mul_40, detach_48);  mul_40 = detach_48 = None
    detach_49 = torch.ops.aten.detach.default(detach_2);  detach_2 = None
    tanh_backward_9 = torch.ops.aten.tanh_backward.default(mul_41, detach_49);  mul_41 = detach_49 = None
    detach_50 = torch.ops.aten.detach.default(detach_1);  detach_1 = None
    sigmoid_backward_13 = torch.ops.aten.sigmoid_backward.default(mul_43, detach_50);  mul_43 = detach_50 = None
    detach_51 = torch.ops.aten.detach.default(detach);  detach = None
    sigmoid_backward_14 = torch.ops.aten.sigmoid_backward.default(mul_42, detach_51);  mul_42 = detach_51 = None
    cat_4 = torch.ops.aten.cat.default([sigmoid_backward_14, sigmoid_backward_13, tanh_backward_9, sigmoid_backward_12], 1);  sigmoid_backward_14 = sigmoid_backward_13 = tanh_backward_9 = sigmoid_backward_12 = None
    stack_3 = torch.ops.aten.stack.default([cat_4, cat_3, cat_2, cat_1, cat]);  cat_4 = cat_3 = cat_2 = cat_1 = cat = None
    _reshape_alias_5 = torch.ops.aten._reshape_alias.default(stack_3, [10, 32], [32, 1]);  stack_3 = None
    t_15 = torch.ops.aten.t.default(t);  t = None
    mm_8 = torch.ops.aten.mm.default(_reshape_alias_5, t_15);  _reshape_alias_5 = t_15 = None
    _reshape_alias_6 = torch.ops.aten._reshape_alias.default(mm_8, [5, 2, 8], [16, 8, 1]);  mm_8 = None
    transpose_3 = torch.ops.aten.transpose.int(_reshape_alias_6, 0, 1);  _reshape_alias_6 = None
    embedding_dense_backward = torch.ops.aten.embedding_dense_backward.default(transpose_3, arg0_1, 11, -1, False);  transpose_3 = arg0_1 = None
    return (getitem_27, embedding_dense_backward, None, None, None, None, t_10, view)
    