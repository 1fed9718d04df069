// The QPainter side of scene_draw.hpp's canvas: the window's graph view and
// `fxlens render --out x.png` paint through it.
#pragma once

#include <QImage>
#include <QPainter>
#include <QString>

#include <functional>

#include "viewer/render/scene_draw.hpp"

namespace fxl::viewer {

class PainterCanvas : public Canvas
{
public:
    explicit PainterCanvas(QPainter& p)
        : p_(p)
    { }
    void begin(double, double, Rgb) override { }
    void beginItem(const std::string&, const std::string&) override { }
    void endItem() override { }
    void rect(const Box& b, Rgb fill, Rgb stroke, double strokeWidth, double radius, bool dashed) override;
    void text(double x, double y, const std::string& s, double size, Rgb colour, bool bold) override;
    void bezier(const std::vector<Point>& pts, Rgb colour, double width) override;
    void end() override { }

private:
    QPainter& p_;
};

// An image of width x height points, `scale` device pixels per point, filled with the theme's
// background, drawn by `draw` on a PainterCanvas.
QImage renderImage(double width, double height, double scale, bool dark, const std::function<void(Canvas&)>& draw);

// The whole drawing as an image, `scale` device pixels per point (white background).
QImage renderImage(const GroupTree& tree, const ViewGraph& v, const Layout& l, double scale = 1.0,
                   const DrawOptions& opts = {});

}  // namespace fxl::viewer
