// The Original text dock: the text the graph shown was read from (the file, or the payload of
// its TORCH_TRACE artifact), with the selected node's line highlighted and the file and line
// numbers above it. A graph of 100k nodes has megabytes of text, so the dock shows an excerpt
// of at most 1,500 lines around the node, cut again when the node leaves it. Each line shows its
// line number in the file; a click on a line that defines a node selects that node.
#pragma once

#include <QWidget>

#include <memory>

class QLabel;
class QPlainTextEdit;
class QPaintEvent;

namespace fxl::viewer {

struct PreparedGraph;

class TextPanel : public QWidget
{
    Q_OBJECT

public:
    explicit TextPanel(QWidget* parent = nullptr);

    // The graph whose text shows (its first lines until a node is shown).
    void setGraph(std::shared_ptr<const PreparedGraph> g, bool dark);
    // Highlights `node`'s line ("" or a node not in the text: none).
    void showNode(const QString& node, bool dark);
    QString text() const;
    // The file line of the highlighted line (0 when none).
    int line() const { return line_; }
    // The node a text line defines ("mm" for `mm = torch.ops.aten.mm.default(...)` or
    // `%mm : [...] = call_function[...]`), "" when it defines none.
    static QString nodeOfLine(const QString& line);
    QPlainTextEdit* editor() const { return text_; }
    int firstFileLine() const;  // the file line of the excerpt's first line

signals:
    // A click on a line that defines a node.
    void nodeClicked(const QString& node);

private:
    QLabel* label_ = nullptr;
    QPlainTextEdit* text_ = nullptr;
    std::shared_ptr<const PreparedGraph> graph_;
    int payloadFirstLine_ = 1;  // file line of the payload's first line
    int excerptFrom_ = 0;  // payload line (0-based) of the dock's first line
    int line_ = 0;
    bool settingText_ = false;  // the panel moves the cursor itself: no click
};

}  // namespace fxl::viewer
