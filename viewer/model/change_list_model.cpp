#include "viewer/model/change_list_model.hpp"

#include "viewer/model/table_dump.hpp"

#include <QColor>
#include <QStringList>

namespace fxl::viewer {

ChangeListModel::ChangeListModel(QObject* parent)
    : QAbstractTableModel(parent)
{ }

void ChangeListModel::setDiff(const GraphDiff* diff)
{
    beginResetModel();
    rows_.clear();
    if (diff)
        for (const NodeDiff& n : diff->nodes) {
            if (n.cls == DiffClass::Unchanged) continue;
            Row r;
            r.cls = n.cls;
            r.a = QString::fromStdString(n.aName);
            r.b = QString::fromStdString(n.bName);
            QStringList f, d;
            for (const auto& x : n.fields) f << QString::fromStdString(x);
            for (const auto& x : n.details) d << QString::fromStdString(x);
            r.fields = f.join(QStringLiteral(", "));
            r.details = d.join(QStringLiteral("; "));
            rows_.push_back(std::move(r));
        }
    endResetModel();
}

int ChangeListModel::rowOfName(const QString& name, bool sideB) const
{
    for (size_t i = 0; i < rows_.size(); ++i)
        if ((sideB ? rows_[i].b : rows_[i].a) == name) return static_cast<int>(i);
    return -1;
}

size_t ChangeListModel::count(DiffClass c) const
{
    size_t n = 0;
    for (const Row& r : rows_) n += r.cls == c ? 1 : 0;
    return n;
}

int ChangeListModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int ChangeListModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant ChangeListModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount()) return {};
    const Row& r = rows_[static_cast<size_t>(index.row())];
    switch (role) {
    case NameARole: return r.a;
    case NameBRole: return r.b;
    case ClassRole: return int(r.cls);
    case Qt::ForegroundRole:
        if (index.column() != ChangeColumn) return {};
        return r.cls == DiffClass::Added  ? QColor(0x1a, 0x8f, 0x3a)
            : r.cls == DiffClass::Removed ? QColor(0xc0, 0x20, 0x20)
                                          : QColor(0xb0, 0x70, 0x00);
    case Qt::ToolTipRole:
        if (index.column() == DetailsColumn) return r.details;
        return {};
    case Qt::DisplayRole:
        switch (index.column()) {
        case ChangeColumn: return QString::fromLatin1(diffClassName(r.cls).data());
        case NodeColumn:
            if (r.a.isEmpty()) return r.b;
            if (r.b.isEmpty() || r.a == r.b) return r.a;
            return r.a + QStringLiteral(" \u2192 ") + r.b;
        case FieldsColumn: return r.fields;
        case DetailsColumn: return r.details;
        default: return {};
        }
    default: return {};
    }
}

QVariant ChangeListModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
    case ChangeColumn: return tr("Change");
    case NodeColumn: return tr("Node");
    case FieldsColumn: return tr("Fields");
    case DetailsColumn: return tr("Details");
    default: return {};
    }
}

QString ChangeListModel::dump() const { return dumpTable(*this); }

}  // namespace fxl::viewer
