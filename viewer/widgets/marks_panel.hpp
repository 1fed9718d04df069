// The Bookmarks and notes dock: every bookmark and note of the workspace's main graph, one row
// each (what, node, graph of the step, the label or the note's text); a double click (or
// Return) shows the node. The window fills it from the workspace whenever one changes.
#pragma once

#include <QWidget>

#include <vector>

#include "workspace/workspace_records.hpp"

class QLabel;
class QTableWidget;

namespace fxl::viewer {

class MarksPanel : public QWidget
{
    Q_OBJECT

public:
    explicit MarksPanel(QWidget* parent = nullptr);

    // The rows: the bookmarks in the order they were added, then the notes by graph and node.
    // `inWorkspace` false: no rows, and the panel says that they live in a workspace.
    void setEntries(const std::vector<BookmarkRecord>& bookmarks, const std::vector<NoteRecord>& notes,
                    bool inWorkspace);
    QTableWidget* table() const { return table_; }
    int count() const;

signals:
    // Show node `node` of graph `role` ("" the single graph of a step, "forward" / "backward").
    void nodeRequested(const QString& role, const QString& node);

private:
    QLabel* hint_ = nullptr;
    QTableWidget* table_ = nullptr;
};

}  // namespace fxl::viewer
