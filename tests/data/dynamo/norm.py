class GraphModule(torch.nn.Module):
    def forward(self, L_x_: "f32[4, 8]", L_w_: "f32[8]", L_b_: "f32[8]"):
        l_x_ = L_x_
        a: "f32[4, 8]" = torch.nn.functional.softmax(l_x_, dim = -1)
        b: "f32[4, 8]" = l_x_.log_softmax(1)
        c: "f64[4, 8]" = torch.softmax(l_x_, -1, dtype = torch.float64)
        d: "f32[4, 8]" = torch.nn.functional.layer_norm(l_x_, (8,), L_w_, L_b_, 1e-05)
        e: "f32[]" = l_x_.sum()
        f: "f32[4, 1]" = l_x_.sum(1, keepdim = True)
        g: "f32[8]" = torch.mean(l_x_, dim = [0])
        h: "f32[4]" = l_x_.amax(-1)
        i: "f32[]" = torch.mean(l_x_)
        return (a, b, c, d, e, f, g, h, i)
