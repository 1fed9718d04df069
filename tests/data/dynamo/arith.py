class GraphModule(torch.nn.Module):
    def forward(self, L_x_: "f32[4, 8]", L_y_: "f32[4, 8]"):
        l_x_ = L_x_
        l_y_ = L_y_
        a: "f32[4, 8]" = l_x_ + 2
        b: "f32[4, 8]" = 2 - l_x_
        c: "f32[4, 8]" = l_x_ * l_y_
        d: "f32[4, 8]" = l_x_ / 3.0
        e: "f32[4, 8]" = 2 / l_y_
        f: "f32[4, 8]" = l_x_ ** 2
        g: "f32[4, 8]" = 2 ** l_y_
        h: "f32[4, 8]" = -l_x_
        i: "f32[4, 8]" = torch.add(l_x_, l_y_, alpha = 2)
        j: "f32[4, 8]" = l_x_.sub(l_y_)
        k: "f32[4, 8]" = l_y_.mul(0.5)
        m: "f32[4, 8]" = torch.div(l_x_, l_y_)
        n: "f32[4, 8]" = torch.mul(l_x_, 3)
        o: "f32[4, 8]" = l_x_ - l_y_
        p: "b8[4, 8]" = l_x_ > 0.5
        q: "b8[4, 8]" = 0.5 < l_y_
        return (a, b, c, d, e, f, g, h, i, j, k, m, n, o, p, q)
