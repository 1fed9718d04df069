// The viewer's source tree: what each opened file holds, as file -> rank -> compile id ->
// artifact, with the number of graphs and of artifacts under every row (the counts `fxlens info`
// prints). A plain graph file is one row with its graph under it; a TORCH_TRACE log of one rank
// skips the rank level; artifacts without a compile id sit under "(no compile id)". QtCore
// only, so the tests drive it with QAbstractItemModelTester.
#pragma once

#include <QAbstractItemModel>

#include <memory>
#include <string>
#include <vector>

#include "core/formats/source.hpp"

namespace fxl::viewer {

// How a graph of a source is named on screen (titles, breadcrumbs, the diff's and the run
// panel's labels): "gpt2_tiny.joint.code.py" for a file with one graph, "simple.log:
// before_pre_grad_graph [0/10]" (", rank 1" on a rank) for an artifact of a log, never the
// artifact's internal id alone.
QString graphTitle(const Source& source, const std::string& artifactId);

class SourceTreeModel : public QAbstractItemModel
{
    Q_OBJECT

public:
    enum Column
    {
        NameColumn,  // "simple.log", "rank 1", "[0/0]", "aot_joint_graph"
        GraphsColumn,  // graphs in the row's subtree
        ArtifactsColumn,  // artifacts in the row's subtree
        LineColumn,  // artifacts: the line of the envelope ("" for other rows)
        ColumnCount
    };
    enum Role
    {
        ArtifactIdRole = Qt::UserRole + 1,  // QString, artifacts only ("" elsewhere)
        IsGraphRole,  // bool
        SourceRole,  // int: index of the source (addSource order)
        KindRole,  // QString: "file", "rank", "compile_id", "artifact", "other" (a log's non-graph artifacts of one
                   // compile id)
    };

    explicit SourceTreeModel(QObject* parent = nullptr);

    // Appends one top-level row for the source.
    void addSource(std::shared_ptr<const Source> source);
    void clear();
    const Source* source(int index) const;
    int sourceCount() const { return static_cast<int>(sources_.size()); }

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // The tree as indented text ("name  graphs/artifacts"), for tests and debugging.
    QString dump() const;

private:
    struct Item
    {
        int parent = -1;
        int row = 0;  // among the parent's children
        std::vector<int> children;
        QString name, kind, artifactId;
        int source = -1;
        int graphs = 0, artifacts = 0;
        int64_t line = 0;
        bool isGraph = false;
    };
    std::vector<Item> items_;  // [0] is the invisible root
    std::vector<std::shared_ptr<const Source>> sources_;

    int addItem(int parent, Item item);
    int itemOf(const QModelIndex& index) const;
};

}  // namespace fxl::viewer
