// The change list of a diff (core/analysis/graph_diff.hpp): one row per node that was added,
// removed or changed, in the diff's merged order, so the diff view can jump to each. QtCore only.
//
// Rules:
//  C1 Rows: the nodes of GraphDiff::nodes whose class is not unchanged, in that order (nested
//     graphs are not listed). Columns: Change ("added", "removed", "changed"), Node (b's name;
//     a's for a removed node; "a → b" when renamed), Fields (changed fields, comma separated),
//     Details (the diff's detail lines joined with "; ").
//  C2 NameARole / NameBRole give the names on each side ("" where the node is missing);
//     ClassRole the DiffClass as an int.
//  C3 The model copies what it shows: the diff may go away after setDiff.
#pragma once

#include <QAbstractTableModel>

#include "core/analysis/graph_diff.hpp"

namespace fxl::viewer {

class ChangeListModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column
    {
        ChangeColumn,
        NodeColumn,
        FieldsColumn,
        DetailsColumn,
        ColumnCount
    };
    enum Role
    {
        NameARole = Qt::UserRole + 1,
        NameBRole,
        ClassRole,
    };
    explicit ChangeListModel(QObject* parent = nullptr);

    void setDiff(const GraphDiff* diff);  // null: empty
    // The row of a node by its name on side a or b; -1 when it is not a change.
    int rowOfName(const QString& name, bool sideB) const;
    size_t count(DiffClass c) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    QString dump() const;

private:
    struct Row
    {
        DiffClass cls;
        QString a, b, fields, details;
    };
    std::vector<Row> rows_;
};

}  // namespace fxl::viewer
