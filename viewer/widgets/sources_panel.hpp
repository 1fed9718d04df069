// The Sources dock: the tree of the opened files (viewer/model/source_tree_model: file, rank,
// compile id, artifact), several rows selectable. A double click (or Return) on a graph asks
// for it; the context menu compares two selected graphs, or a before_/after_ artifact with its
// partner. It says what the user asked by signals; the window does it. The header's context
// menu shows or hides the Graphs, Artifacts and Line columns (the counts hidden at first).
#pragma once

#include <QWidget>

class QTreeView;

namespace fxl::viewer {

class SourceTreeModel;

class SourcesPanel : public QWidget
{
    Q_OBJECT

public:
    SourcesPanel(SourceTreeModel* model, QWidget* parent = nullptr);

    QTreeView* tree() const { return tree_; }
    // Brings source `index`'s row to the front: expanded, current, scrolled to.
    void reveal(int index);

signals:
    void graphRequested(int source, const QString& id);
    void diffRequested(int sourceA, const QString& idA, int sourceB, const QString& idB);
    void pairDiffRequested(int source, const QString& id);

private:
    SourceTreeModel* model_;
    QTreeView* tree_ = nullptr;

    void contextMenu(const QPoint& pos);
    void headerMenu(const QPoint& pos);
};

}  // namespace fxl::viewer
