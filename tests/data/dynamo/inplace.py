class GraphModule(torch.nn.Module):
    def forward(self, L_x_: "f32[4, 8]", L_y_: "f32[4, 8]"):
        a: "f32[4, 8]" = L_x_.clone()
        add_: "f32[4, 8]" = a.add_(1)
        mul_: "f32[4, 8]" = a.mul_(L_y_)
        sub_: "f32[4, 8]" = a.sub_(L_y_, alpha = 2)
        b: "f32[4, 8]" = L_y_ * 2
        iadd: "f32[4, 8]" = operator.iadd(b, L_x_)
        imul: "f32[4, 8]" = operator.imul(b, 0.5)
        c: "f32[4, 8]" = L_y_.clone()
        copy_: "f32[4, 8]" = c.copy_(L_x_)
        div_: "f32[4, 8]" = c.div_(3)
        return (a, b, c, mul_)
