class GraphModule(torch.nn.Module):
    def forward(self, L_x_: "f32[2, 3, 8]", L_w_: "f32[6, 8]", L_b_: "f32[6]", L_m_: "f32[8, 5]", L_v_: "f32[8]", L_p_: "f32[4, 8]", L_q_: "f32[2, 8, 5]"):
        l_x_ = L_x_
        a: "f32[2, 3, 5]" = torch.matmul(l_x_, L_m_)
        b: "f32[4, 5]" = L_p_ @ L_m_
        c: "f32[2, 3, 5]" = torch.matmul(l_x_, L_q_)
        d: "f32[4]" = L_p_.matmul(L_v_)
        e: "f32[4, 6]" = torch._C._nn.linear(L_p_, L_w_, L_b_)
        f: "f32[2, 3, 6]" = torch.nn.functional.linear(l_x_, L_w_, L_b_)
        g: "f32[4, 6]" = torch.nn.functional.linear(L_p_, L_w_)
        m0: "f32[5]" = L_m_[0]
        h: "f32[4, 5]" = torch.addmm(m0, L_p_, L_m_, beta = 2)
        k: "f32[2, 5]" = torch.matmul(L_v_, L_q_)
        return (a, b, c, d, e, f, g, h, k)
