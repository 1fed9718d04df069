// The Inspector dock: everything known of the node selected, as a table: op, target, the
// arguments (each node it names a link to that node), users (links), value, sizes (with hints
// when symbolic), strides, dtype, device, bytes, phase, group (a link that opens it), module,
// source line and code, recompute policy, tags, chunking and custom meta; then what the window
// adds below (the node's history through the steps, its note and bookmarks). Links are said by
// signals; the window follows them.
#pragma once

#include <QWidget>

class QTextBrowser;

namespace fxl::viewer {

class GraphView;

class InspectorPanel : public QWidget
{
    Q_OBJECT

public:
    explicit InspectorPanel(QWidget* parent = nullptr);

    // Shows node `name` of the graph in `view` ("" or no graph: nothing). `textLine` is where
    // the node is in its original text (0: unknown); `extraHtml` goes below the table.
    void inspect(const GraphView& view, const QString& name, int textLine, const QString& extraHtml);
    void clear();
    QString text() const;
    QString html() const;

signals:
    void nodeLinkActivated(const QString& node);
    void groupLinkActivated(int group);
    // "show in step N": node `node` of graph `role` of step `step`
    void stepLinkActivated(int step, const QString& role, const QString& node);

private:
    QTextBrowser* browser_ = nullptr;
};

}  // namespace fxl::viewer
