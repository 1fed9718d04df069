class GraphModule(torch.nn.Module):
    def forward(self, L_x_: "f32[4, 8]"):
        l_x_ = L_x_
        a: "f32[4, 8]" = l_x_.sin()
        b: "f32[4, 8]" = torch.cos(l_x_)
        c: "f32[4, 8]" = torch.exp(l_x_)
        ab: "f32[4, 8]" = torch.abs(l_x_)
        d: "f32[4, 8]" = ab.log()
        e: "f32[4, 8]" = l_x_.tanh()
        f: "f32[4, 8]" = torch.sigmoid(l_x_)
        g: "f32[4, 8]" = torch.nn.functional.relu(l_x_, inplace = False)
        h: "f32[4, 8]" = torch.nn.functional.gelu(l_x_, approximate = 'tanh')
        i: "f32[4, 8]" = torch._C._nn.gelu(l_x_)
        j: "f32[4, 8]" = torch.nn.functional.silu(l_x_)
        k: "f32[4, 8]" = l_x_.relu()
        m: "f32[4, 8]" = torch.nn.functional.dropout(l_x_, 0.5, False, False)
        return (a, b, c, d, e, f, g, h, i, j, k, m)
