#include "viewer/widgets/view_export.hpp"

#include <QBuffer>
#include <QFileInfo>
#include <QImage>
#include <QPainter>
#include <QSaveFile>

#include "viewer/model/timeline_model.hpp"
#include "viewer/render/painter_canvas.hpp"
#include "viewer/render/scene_draw.hpp"
#include "viewer/render/timeline_draw.hpp"
#include "viewer/widgets/diff_view.hpp"
#include "viewer/widgets/graph_view.hpp"

namespace fxl::viewer {

QString writeExport(const QString& path, const QByteArray& bytes, bool replace)
{
    if (QFileInfo::exists(path) && !replace)
        return QObject::tr("%1 exists: not replaced (choose another name, or confirm the replacement)").arg(path);
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size() || !f.commit())
        return QObject::tr("%1: cannot be written: %2").arg(path, f.errorString());
    return {};
}

namespace {

QByteArray pngBytes(const QImage& img)
{
    QByteArray out;
    QBuffer b(&out);
    b.open(QIODevice::WriteOnly);
    img.save(&b, "PNG");
    return out;
}

bool isSvg(const QString& path) { return path.endsWith(QLatin1String(".svg"), Qt::CaseInsensitive); }

}  // namespace

QString exportGraphView(const GraphView& view, const QString& path, bool replace)
{
    const GraphView* view_ = &view;
    const PreparedView* shown = view_->shown();
    if (!shown || !view_->tree()) return QObject::tr("no graph is shown");
    if (isSvg(path)) {
        SvgCanvas c;
        drawScene(c, *view_->tree(), shown->view, shown->layout, view_->drawOptions());
        return writeExport(path, QByteArray::fromStdString(c.svg()), replace);
    }
    return writeExport(
        path, pngBytes(renderImage(*view_->tree(), shown->view, shown->layout, 2.0, view_->drawOptions())), replace);
}

QString exportDiffView(const DiffView& diff, const QString& path, bool replace)
{
    const DiffView* diff_ = &diff;
    GraphView* sides[] = {diff_->viewA(), diff_->viewB()};
    if (!sides[0]->shown() || !sides[1]->shown() || !diff_->diff()) return QObject::tr("the Diff tab shows no diff");
    const QString titles[] = {diff_->labelA(), diff_->labelB()};
    // below the two sides: the legend of the marks and the diff's counts, as the Diff tab shows
    const DiffCounts counts = diff_->diff()->totalCounts();
    const std::string countsLine = "+" + std::to_string(counts.added) + " added, \u2212"
        + std::to_string(counts.removed) + " removed, " + std::to_string(counts.changed) + " changed, "
        + std::to_string(counts.unchanged) + " unchanged; " + std::to_string(counts.rewired) + " rewired edges";
    constexpr double gap = 40, head = 28, foot = 34;
    double width = gap, height = 0;
    for (GraphView* v : sides) {
        width += v->shown()->layout.width;
        height = std::max(height, v->shown()->layout.height);
    }
    width = std::max(width, 720.0);  // room for the legend and the counts
    height += head + foot;
    const bool dark = sides[0]->dark();
    const viewer::Theme& th = theme(dark);
    // the legend of the colours on the nodes: the diff's marks, or the run's ULP distances
    auto drawFoot = [&](Canvas& c, double top) {
        double end = 4;
        if (!diff_->colouredByUlp()) {
            const Box legend = drawDiffLegend(c, 4, top + 6, dark);
            end = legend.x + legend.w;
        } else {
            const std::vector<Rgb> colours = ulpMarkColours();
            c.beginItem("legend", "ulp-legend");
            double x = 8;
            for (size_t m = 1; m < colours.size(); ++m) {  // 0: not compared, unmarked
                c.rect({x, top + 12, 12, 10}, colours[m], colours[m], 0, 2);
                const std::string name = ulpMarkName(static_cast<uint8_t>(m));
                c.text(x + 16, top + 21, name, 9, th.text);
                x += 22 + 6.5 * static_cast<double>(name.size());
            }
            c.endItem();
            end = x;
        }
        c.text(end + 12, top + 21, countsLine, 10, th.text);
    };
    if (isSvg(path)) {
        // one document, each side a nested <svg> at its place
        std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(int(width))
            + "\" height=\"" + std::to_string(int(height)) + "\">\n";
        double x = 0;
        for (int k = 0; k < 2; ++k) {
            SvgCanvas c;
            drawScene(c, *sides[k]->tree(), sides[k]->shown()->view, sides[k]->shown()->layout,
                      sides[k]->drawOptions());
            std::string inner = c.svg();
            const size_t open = inner.find("<svg");
            if (open != std::string::npos)
                inner.insert(open + 4, " x=\"" + std::to_string(int(x)) + "\" y=\"" + std::to_string(int(head)) + "\"");
            const size_t decl = inner.find("?>");
            if (inner.rfind("<?xml", 0) == 0 && decl != std::string::npos) inner.erase(0, decl + 2);
            QString title = titles[k];
            svg += "<text x=\"" + std::to_string(int(x) + 4)
                + "\" y=\"18\" font-family=\"DejaVu Sans\" font-size=\"14\" "
                  "font-weight=\"bold\">"
                + title.toHtmlEscaped().toStdString() + "</text>\n" + inner + "\n";
            x += sides[k]->shown()->layout.width + gap;
        }
        SvgCanvas footCanvas;
        footCanvas.begin(width, foot, th.background);
        drawFoot(footCanvas, 0);
        footCanvas.end();
        std::string legend = footCanvas.svg();
        if (const size_t decl = legend.find("?>"); legend.rfind("<?xml", 0) == 0 && decl != std::string::npos)
            legend.erase(0, decl + 2);
        if (const size_t open = legend.find("<svg"); open != std::string::npos)
            legend.insert(open + 4, " x=\"0\" y=\"" + std::to_string(int(height - foot)) + "\"");
        svg += legend + "\n</svg>\n";
        return writeExport(path, QByteArray::fromStdString(svg), replace);
    }
    constexpr double scale = 1.5;
    QImage img(static_cast<int>(width * scale), static_cast<int>(height * scale), QImage::Format_ARGB32_Premultiplied);
    img.setDevicePixelRatio(scale);
    img.fill(QColor(th.background.r, th.background.g, th.background.b));
    QPainter p(&img);
    p.setRenderHint(QPainter::Antialiasing);
    double x = 0;
    for (int k = 0; k < 2; ++k) {
        QFont f(QStringLiteral("DejaVu Sans"), 11);
        f.setBold(true);
        p.setFont(f);
        p.setPen(QColor(th.text.r, th.text.g, th.text.b));
        p.drawText(QPointF(x + 4, 18), titles[k]);
        p.save();
        p.translate(x, head);
        PainterCanvas c(p);
        drawScene(c, *sides[k]->tree(), sides[k]->shown()->view, sides[k]->shown()->layout, sides[k]->drawOptions());
        p.restore();
        x += sides[k]->shown()->layout.width + gap;
    }
    {
        PainterCanvas c(p);
        drawFoot(c, height - foot);
    }
    p.end();
    return writeExport(path, pngBytes(img), replace);
}

QString exportTimelineView(const TimelineModel& model, const Graph& graph, bool dark, const QString& path, bool replace)
{
    const MemoryTimeline* t = model.current();
    if (!t) return QObject::tr("no memory timeline is shown");
    if (path.endsWith(QLatin1String(".csv"), Qt::CaseInsensitive))
        return writeExport(path, QByteArray::fromStdString(timelineToCsv(*t, graph, model.previous())), replace);
    return writeExport(path, pngBytes(renderTimelineImage(model, 1200, 320, 2.0, dark)), replace);
}

}  // namespace fxl::viewer
