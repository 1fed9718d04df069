class GraphModule(torch.nn.Module):
    def forward(self, L_x_: "f32[4, 8]", L_y_: "f32[1, 8, 1]"):
        l_x_ = L_x_
        s = l_x_.size(1)
        a: "f32[2, 16]" = l_x_.view(2, 16)
        b: "f32[32]" = l_x_.view(-1)
        c: "f32[8, 4]" = l_x_.reshape((s, 4))
        tr: "f32[8, 4][1, 8]" = l_x_.transpose(0, 1)
        d: "f32[8, 4]" = tr.contiguous()
        e: "f32[8, 4]" = l_x_.permute(1, 0)
        f: "f32[8, 4]" = l_x_.t()
        g: "f32[1, 4, 8]" = l_x_.unsqueeze(0)
        h: "f32[8]" = L_y_.squeeze()
        i: "f32[32]" = l_x_.flatten()
        j: "f32[4, 8]" = h.expand(4, 8)
        k: "f32[8]" = l_x_[0]
        m: "f32[4, 2]" = l_x_[(slice(None, None, None), slice(1, 3, None))]
        n: "f32[1, 4]" = l_x_[(None, Ellipsis, 2)]
        o: "f32[4, 4]" = l_x_[(Ellipsis, slice(None, None, 2))]
        p: "f16[4, 8]" = l_x_.to(torch.float16)
        q: "f32[4, 8]" = l_x_.float()
        r: "f32[8, 8]" = l_x_.repeat(2, 1)
        t: "f32[4, 16]" = torch.cat([l_x_, j], 1)
        u: "f32[4, 8]" = l_x_.to(dtype = torch.float32)
        v: "f32[4, 8]" = torch.transpose(tr, 1, 0)
        return (a, b, c, d, e, f, g, h, i, j, k, m, n, o, p, q, r, t, u, v)
