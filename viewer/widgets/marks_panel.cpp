#include "viewer/widgets/marks_panel.hpp"

#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

namespace fxl::viewer {

namespace {

constexpr int kRoleData = Qt::UserRole + 1;  // on the node cell: the graph role

}  // namespace

MarksPanel::MarksPanel(QWidget* parent)
    : QWidget(parent)
{
    hint_ = new QLabel(this);
    hint_->setWordWrap(true);
    table_ = new QTableWidget(0, 4, this);
    table_->setHorizontalHeaderLabels({tr("What"), tr("Node"), tr("Graph"), tr("Label or note")});
    table_->verticalHeader()->hide();
    table_->horizontalHeader()->setStretchLastSection(true);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    auto* l = new QVBoxLayout(this);
    l->setContentsMargins(4, 4, 4, 4);
    l->addWidget(hint_);
    l->addWidget(table_, 1);
    connect(table_, &QTableWidget::activated, this, [this](const QModelIndex& i) {
        const QTableWidgetItem* node = table_->item(i.row(), 1);
        if (node) emit nodeRequested(node->data(kRoleData).toString(), node->text());
    });
    setEntries({}, {}, false);
}

void MarksPanel::setEntries(const std::vector<BookmarkRecord>& bookmarks, const std::vector<NoteRecord>& notes,
                            bool inWorkspace)
{
    table_->setRowCount(0);
    hint_->setText(!inWorkspace ? tr("Bookmarks (Ctrl+B) and notes (Ctrl+N) live in a workspace: save one first "
                                     "(File > Save workspace).")
                       : bookmarks.empty() && notes.empty()
                       ? tr("No bookmark or note yet: select a node, then Ctrl+B or Ctrl+N.")
                       : tr("Double click a row to show its node."));
    auto add = [this](const QString& what, const std::string& node, const std::string& graph, const std::string& text) {
        const int row = table_->rowCount();
        table_->insertRow(row);
        table_->setItem(row, 0, new QTableWidgetItem(what));
        auto* n = new QTableWidgetItem(QString::fromStdString(node));
        n->setData(kRoleData, QString::fromStdString(graph));
        table_->setItem(row, 1, n);
        table_->setItem(row, 2,
                        new QTableWidgetItem(graph.empty() ? tr("(the graph)") : QString::fromStdString(graph)));
        table_->setItem(row, 3, new QTableWidgetItem(QString::fromStdString(text)));
    };
    for (const BookmarkRecord& b : bookmarks) add(tr("bookmark"), b.node, b.graph, b.label);
    for (const NoteRecord& n : notes) add(tr("note"), n.node, n.graph, n.text);
    table_->resizeColumnsToContents();
}

int MarksPanel::count() const { return table_->rowCount(); }

}  // namespace fxl::viewer
