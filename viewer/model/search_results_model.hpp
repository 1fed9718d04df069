// The viewer's search results: one row per found node (viewer/model/node_search.hpp), with its
// name, its op (the target), its module path and its phase. QtCore only, so the tests drive it
// with QAbstractItemModelTester.
//
// Rules:
//  R1 The model reads the GroupTree given to setResults (and its graph) whenever a view asks:
//     the caller keeps both alive while it shows them, and calls clear() (or setResults with
//     another tree) before the tree goes.
//  R2 Rows keep the order of the ids given (searchNodes gives graph order). NodeIdRole gives a
//     row's NodeId as an int in every column.
#pragma once

#include <QAbstractTableModel>

#include <vector>

#include "viewer/model/view_graph.hpp"

namespace fxl::viewer {

class SearchResultsModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column
    {
        NameColumn,  // "mm_3"
        OpColumn,  // the target: "aten.mm.default"
        ModuleColumn,  // "blocks.0.attn" ("" when none)
        PhaseColumn,  // phaseClassName: "forward", "backward", ...
        ColumnCount
    };
    enum Role
    {
        NodeIdRole = Qt::UserRole + 1,  // int
    };

    explicit SearchResultsModel(QObject* parent = nullptr);

    // R1, R2: shows `ids` (nodes of tree->graph()); a null tree shows nothing.
    void setResults(const GroupTree* tree, std::vector<NodeId> ids);
    // Shows nothing and forgets the tree (R1).
    void clear();
    const GroupTree* tree() const { return tree_; }
    // The node of a row; kNoNode when the row is out of range.
    NodeId nodeAt(int row) const;
    // The row of a node; -1 when it is not among the results.
    int rowOf(NodeId id) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // One line per row, the columns separated by tabs, for tests and debugging.
    QString dump() const;

private:
    const GroupTree* tree_ = nullptr;
    std::vector<NodeId> ids_;

    QString text(int row, int column) const;
};

}  // namespace fxl::viewer
