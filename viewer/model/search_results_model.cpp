// The search results table (viewer/model/search_results_model.hpp: rules R1-R2).
#include "viewer/model/search_results_model.hpp"

#include <algorithm>

#include "core/analysis/phases.hpp"

namespace fxl::viewer {

SearchResultsModel::SearchResultsModel(QObject* parent)
    : QAbstractTableModel(parent)
{ }

void SearchResultsModel::setResults(const GroupTree* tree, std::vector<NodeId> ids)
{
    beginResetModel();
    tree_ = tree;
    ids_ = tree ? std::move(ids) : std::vector<NodeId>{};
    endResetModel();
}

void SearchResultsModel::clear() { setResults(nullptr, {}); }

NodeId SearchResultsModel::nodeAt(int row) const
{
    return row >= 0 && static_cast<size_t>(row) < ids_.size() ? ids_[static_cast<size_t>(row)] : kNoNode;
}

int SearchResultsModel::rowOf(NodeId id) const
{
    auto it = std::find(ids_.begin(), ids_.end(), id);
    return it == ids_.end() ? -1 : static_cast<int>(it - ids_.begin());
}

int SearchResultsModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(ids_.size());
}

int SearchResultsModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QString SearchResultsModel::text(int row, int column) const
{
    const Node& n = tree_->graph().node(ids_[static_cast<size_t>(row)]);
    switch (column) {
    case NameColumn: return QString::fromStdString(n.name);
    case OpColumn: return QString::fromStdString(n.target);
    case ModuleColumn: return QString::fromStdString(nodeModulePath(n));
    case PhaseColumn: return QString::fromLatin1(phaseClassName(tree_->phaseOf(n.id)));
    default: return {};
    }
}

QVariant SearchResultsModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount) return {};
    switch (role) {
    case Qt::DisplayRole:
    case Qt::ToolTipRole: return text(index.row(), index.column());
    case NodeIdRole: return static_cast<int>(ids_[static_cast<size_t>(index.row())]);
    default: return {};
    }
}

QVariant SearchResultsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
    case NameColumn: return tr("Name");
    case OpColumn: return tr("Op");
    case ModuleColumn: return tr("Module");
    case PhaseColumn: return tr("Phase");
    default: return {};
    }
}

QString SearchResultsModel::dump() const
{
    QString out;
    for (int r = 0; r < rowCount(); ++r) {
        for (int c = 0; c < ColumnCount; ++c) {
            if (c) out += QLatin1Char('\t');
            out += text(r, c);
        }
        out += QLatin1Char('\n');
    }
    return out;
}

}  // namespace fxl::viewer
