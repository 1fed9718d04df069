#include "viewer/widgets/sources_panel.hpp"

#include <QHeaderView>
#include <QMenu>
#include <QSettings>
#include <QTreeView>
#include <QVBoxLayout>

#include "viewer/model/source_tree_model.hpp"

namespace fxl::viewer {

SourcesPanel::SourcesPanel(SourceTreeModel* model, QWidget* parent)
    : QWidget(parent)
    , model_(model)
{
    tree_ = new QTreeView(this);
    tree_->setModel(model_);
    QHeaderView* header = tree_->header();
    header->setSectionResizeMode(0, QHeaderView::Stretch);
    header->setStretchLastSection(false);
    for (int c = 1; c < SourceTreeModel::ColumnCount; ++c)
        header->setSectionResizeMode(c, QHeaderView::ResizeToContents);
    // The counts' columns shown only when asked for (the header's context menu; remembered):
    // in the dock's width at 1366 x 768 they left the names 60 px ("dynam...", "aot_inf...").
    // Each name's tooltip says its counts. A name still too wide loses its middle, not its end.
    const QStringList hidden = QSettings(QStringLiteral("fxlens"), QStringLiteral("fxlens"))
                                   .value(QStringLiteral("sources/hiddenColumns"), QStringList{"1", "2"})
                                   .toStringList();
    for (int c = 1; c < SourceTreeModel::ColumnCount; ++c)
        header->setSectionHidden(c, hidden.contains(QString::number(c)));
    header->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(header, &QWidget::customContextMenuRequested, this, &SourcesPanel::headerMenu);
    tree_->setTextElideMode(Qt::ElideMiddle);
    // a level indented by a line's height (Qt's 20 px took 60 px from an artifact's name)
    tree_->setIndentation(tree_->fontMetrics().height());
    tree_->setSelectionMode(QAbstractItemView::ExtendedSelection);
    tree_->setContextMenuPolicy(Qt::CustomContextMenu);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(tree_);
    connect(tree_, &QWidget::customContextMenuRequested, this, &SourcesPanel::contextMenu);
    connect(tree_, &QTreeView::activated, this, [this](const QModelIndex& i) {
        const QModelIndex n = i.siblingAtColumn(0);
        if (model_->data(n, SourceTreeModel::IsGraphRole).toBool())
            emit graphRequested(model_->data(n, SourceTreeModel::SourceRole).toInt(),
                                model_->data(n, SourceTreeModel::ArtifactIdRole).toString());
    });
}

void SourcesPanel::reveal(int index)
{
    const QModelIndex row = model_->index(index, 0);
    if (!row.isValid()) return;
    // the file and its compile ids (or ranks) open: the graphs of a log in sight, as in
    // tlparse's index
    tree_->expand(row);
    for (int r = 0; r < model_->rowCount(row); ++r) tree_->expand(model_->index(r, 0, row));
    tree_->setCurrentIndex(row);
    tree_->scrollTo(row);
}

void SourcesPanel::contextMenu(const QPoint& pos)
{
    const QModelIndex at = tree_->indexAt(pos);
    QMenu menu(this);
    std::vector<QModelIndex> graphs;
    for (const QModelIndex& i : tree_->selectionModel()->selectedRows(0))
        if (model_->data(i, SourceTreeModel::IsGraphRole).toBool()) graphs.push_back(i);
    auto sourceOf = [this](const QModelIndex& i) { return model_->data(i, SourceTreeModel::SourceRole).toInt(); };
    auto idOf = [this](const QModelIndex& i) { return model_->data(i, SourceTreeModel::ArtifactIdRole).toString(); };
    if (graphs.size() == 2) {
        const int sa = sourceOf(graphs[0]), sb = sourceOf(graphs[1]);
        const QString a = idOf(graphs[0]), b = idOf(graphs[1]);
        menu.addAction(tr("Diff the two selected graphs"), this,
                       [this, sa, a, sb, b] { emit diffRequested(sa, a, sb, b); });
    }
    if (at.isValid() && model_->data(at, SourceTreeModel::IsGraphRole).toBool()) {
        const int src = sourceOf(at);
        const QString id = idOf(at);
        const Source* s = model_->source(src);
        const Artifact* a = s ? s->find(id.toStdString()) : nullptr;
        if (a && !a->pairedWith.empty())
            menu.addAction(
                tr("Diff with its %1 partner").arg(a->kind.rfind("before_", 0) == 0 ? tr("after_") : tr("before_")),
                this, [this, src, id] { emit pairDiffRequested(src, id); });
    }
    if (menu.isEmpty())
        menu.addAction(tr("(select two graphs, or a before_/after_ artifact, to compare)"))->setEnabled(false);
    menu.exec(tree_->viewport()->mapToGlobal(pos));
}

void SourcesPanel::headerMenu(const QPoint& pos)
{
    QMenu menu(this);
    QHeaderView* header = tree_->header();
    for (int c = 1; c < SourceTreeModel::ColumnCount; ++c) {
        QAction* a = menu.addAction(model_->headerData(c, Qt::Horizontal).toString());
        a->setCheckable(true);
        a->setChecked(!header->isSectionHidden(c));
        connect(a, &QAction::toggled, this, [header, c](bool on) {
            header->setSectionHidden(c, !on);
            QStringList hidden;
            for (int k = 1; k < SourceTreeModel::ColumnCount; ++k)
                if (header->isSectionHidden(k)) hidden << QString::number(k);
            QSettings(QStringLiteral("fxlens"), QStringLiteral("fxlens"))
                .setValue(QStringLiteral("sources/hiddenColumns"), hidden);
        });
    }
    menu.exec(header->mapToGlobal(pos));
}

}  // namespace fxl::viewer
