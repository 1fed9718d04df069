#include "viewer/model/source_tree_model.hpp"

#include <QFileInfo>

#include <algorithm>
#include <functional>
#include <map>

namespace fxl::viewer {

QString graphTitle(const Source& source, const std::string& artifactId)
{
    QString file = QFileInfo(QString::fromStdString(source.path)).fileName();
    if (file.isEmpty()) file = QString::fromStdString(source.path);
    const Artifact* a = source.find(artifactId);
    if (!a) return QStringLiteral("%1 [%2]").arg(file, QString::fromStdString(artifactId));
    if (a->compileId.empty() && !a->rank) {
        if (source.graphs().size() <= 1) return file;
        // a torch.export archive's programs go by their model names
        if (source.format == SourceFormat::Pt2)
            return QStringLiteral("%1: %2").arg(file, QString::fromStdString(artifactId));
        return QStringLiteral("%1: %2").arg(file, QString::fromStdString(a->kind.empty() ? artifactId : a->kind));
    }
    QString t = QStringLiteral("%1: %2").arg(file, QString::fromStdString(a->kind.empty() ? "graph" : a->kind));
    if (!a->subgraphName.empty()) t += QStringLiteral(" (%1)").arg(QString::fromStdString(a->subgraphName));
    if (!a->compileId.empty()) t += QLatin1Char(' ') + QString::fromStdString(a->compileId);
    if (a->rank) t += QStringLiteral(", rank %1").arg(*a->rank);
    return t;
}

SourceTreeModel::SourceTreeModel(QObject* parent)
    : QAbstractItemModel(parent)
{
    items_.push_back(Item{});
}

int SourceTreeModel::addItem(int parent, Item item)
{
    item.parent = parent;
    item.row = static_cast<int>(items_[static_cast<size_t>(parent)].children.size());
    const int k = static_cast<int>(items_.size());
    items_.push_back(std::move(item));
    items_[static_cast<size_t>(parent)].children.push_back(k);
    return k;
}

void SourceTreeModel::addSource(std::shared_ptr<const Source> src)
{
    const int row = static_cast<int>(items_[0].children.size());
    beginInsertRows({}, row, row);
    const int index = static_cast<int>(sources_.size());
    sources_.push_back(src);
    Item file;
    file.name = QFileInfo(QString::fromStdString(src->path)).fileName();
    if (file.name.isEmpty()) file.name = QString::fromStdString(src->path);
    file.kind = QStringLiteral("file");
    file.source = index;
    const int fileItem = addItem(0, file);

    bool anyCompileId = false;
    for (const Artifact& a : src->artifacts) anyCompileId = anyCompileId || !a.compileId.empty();
    const bool byRank = src->ranks.size() > 1;
    std::map<std::pair<int, std::string>, int> compileItems;  // (rank item, compile id) -> item
    std::map<int, int> rankItems;
    std::map<int, int> otherItems;  // compile id item -> its row of other artifacts
    std::map<int, std::map<std::string, int>> otherKinds;  // that row -> kind -> count
    // graphs first, so that each compile id lists its graphs before the row of the rest
    std::vector<const Artifact*> order;
    for (const Artifact& a : src->artifacts)
        if (a.isGraph || !anyCompileId) order.push_back(&a);
    for (const Artifact& a : src->artifacts)
        if (!a.isGraph && anyCompileId) order.push_back(&a);
    for (const Artifact* ap : order) {
        const Artifact& a = *ap;
        int at = fileItem;
        if (byRank) {
            const int rank = a.rank.value_or(-1);
            auto it = rankItems.find(rank);
            if (it == rankItems.end()) {
                Item r;
                r.name = rank >= 0 ? QStringLiteral("rank %1").arg(rank) : QStringLiteral("(no rank)");
                r.kind = QStringLiteral("rank");
                r.source = index;
                it = rankItems.emplace(rank, addItem(fileItem, r)).first;
            }
            at = it->second;
        }
        if (anyCompileId) {
            const std::string cid = a.compileId.empty() ? "(no compile id)" : a.compileId;
            auto it = compileItems.find({at, cid});
            if (it == compileItems.end()) {
                Item c;
                c.name = QString::fromStdString(cid);
                c.kind = QStringLiteral("compile_id");
                c.source = index;
                it = compileItems.emplace(std::make_pair(at, cid), addItem(at, c)).first;
            }
            at = it->second;
        }
        if (anyCompileId && !a.isGraph) {
            // events and other payloads (most artifacts of a real log are chromium_event) fold
            // into one row per compile id, after its graphs, as tlparse's index keeps them apart
            auto it = otherItems.find(at);
            if (it == otherItems.end()) {
                Item o;
                o.kind = QStringLiteral("other");
                o.source = index;
                it = otherItems.emplace(at, addItem(at, o)).first;
            }
            ++otherKinds[it->second][a.kind.empty() ? std::string("(no kind)") : a.kind];
            at = it->second;
        }
        Item art;
        art.name = QString::fromStdString(a.kind.empty() ? "graph" : a.kind);
        if (src->format == SourceFormat::Pt2)
            art.name = QString::fromStdString(a.id) + QStringLiteral(" (exported program)");
        if (!a.subgraphName.empty()) art.name += QStringLiteral(" (%1)").arg(QString::fromStdString(a.subgraphName));
        art.kind = QStringLiteral("artifact");
        art.artifactId = QString::fromStdString(a.id);
        art.source = index;
        art.line = a.line;
        art.isGraph = a.isGraph;
        art.graphs = a.isGraph ? 1 : 0;
        art.artifacts = 1;
        const int k = addItem(at, art);
        for (int p = items_[static_cast<size_t>(k)].parent; p > 0; p = items_[static_cast<size_t>(p)].parent) {
            items_[static_cast<size_t>(p)].graphs += art.graphs;
            items_[static_cast<size_t>(p)].artifacts += 1;
        }
    }
    // "other artifacts: chromium_event ×12, dynamo_start ×1, ...": the most frequent kinds first
    for (const auto& [item, kinds] : otherKinds) {
        std::vector<std::pair<int, std::string>> byCount;
        int total = 0;
        for (const auto& [kind, n] : kinds) {
            byCount.emplace_back(-n, kind);
            total += n;
        }
        std::sort(byCount.begin(), byCount.end());
        QStringList parts;
        for (size_t k = 0; k < byCount.size() && k < 3; ++k)
            parts
                << QStringLiteral("%1 \u00d7%2").arg(QString::fromStdString(byCount[k].second)).arg(-byCount[k].first);
        if (byCount.size() > 3) parts << QStringLiteral("...");
        items_[static_cast<size_t>(item)].name =
            QStringLiteral("%1 other artifact(s): %2").arg(total).arg(parts.join(QStringLiteral(", ")));
    }
    endInsertRows();
}

void SourceTreeModel::clear()
{
    beginResetModel();
    items_.assign(1, Item{});
    sources_.clear();
    endResetModel();
}

const Source* SourceTreeModel::source(int index) const
{
    return index >= 0 && static_cast<size_t>(index) < sources_.size() ? sources_[static_cast<size_t>(index)].get()
                                                                      : nullptr;
}

int SourceTreeModel::itemOf(const QModelIndex& index) const
{
    if (!index.isValid()) return 0;
    return static_cast<int>(index.internalId());
}

QModelIndex SourceTreeModel::index(int row, int column, const QModelIndex& parent) const
{
    if (column < 0 || column >= ColumnCount || row < 0) return {};
    if (parent.isValid() && parent.column() != 0) return {};
    const Item& p = items_[static_cast<size_t>(itemOf(parent))];
    if (static_cast<size_t>(row) >= p.children.size()) return {};
    return createIndex(row, column, static_cast<quintptr>(p.children[static_cast<size_t>(row)]));
}

QModelIndex SourceTreeModel::parent(const QModelIndex& child) const
{
    if (!child.isValid()) return {};
    const int p = items_[static_cast<size_t>(itemOf(child))].parent;
    if (p <= 0) return {};
    return createIndex(items_[static_cast<size_t>(p)].row, 0, static_cast<quintptr>(p));
}

int SourceTreeModel::rowCount(const QModelIndex& parent) const
{
    if (parent.isValid() && parent.column() != 0) return 0;
    return static_cast<int>(items_[static_cast<size_t>(itemOf(parent))].children.size());
}

int SourceTreeModel::columnCount(const QModelIndex&) const { return ColumnCount; }

QVariant SourceTreeModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid()) return {};
    const Item& it = items_[static_cast<size_t>(itemOf(index))];
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case NameColumn: return it.name;
        case GraphsColumn: return it.graphs;
        case ArtifactsColumn: return it.artifacts;
        case LineColumn:
            return it.kind == QLatin1String("artifact") ? QVariant(static_cast<qlonglong>(it.line)) : QVariant();
        default: return {};
        }
    case Qt::ToolTipRole: {
        // the whole name (a narrow dock elides it) and what the hidden columns say
        if (index.column() != NameColumn) return {};
        QString tip = it.kind == QLatin1String("file") && it.source >= 0
            ? QString::fromStdString(sources_[static_cast<size_t>(it.source)]->path)
            : it.name;
        if (it.kind == QLatin1String("artifact"))
            tip += tr("\nline %1").arg(it.line);
        else
            tip += tr("\n%1 graph(s), %2 artifact(s)").arg(it.graphs).arg(it.artifacts);
        return tip;
    }
    case ArtifactIdRole: return it.artifactId;
    case IsGraphRole: return it.isGraph;
    case SourceRole: return it.source;
    case KindRole: return it.kind;
    default: return {};
    }
}

QVariant SourceTreeModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
    case NameColumn: return tr("Source");
    case GraphsColumn: return tr("Graphs");
    case ArtifactsColumn: return tr("Artifacts");
    case LineColumn: return tr("Line");
    default: return {};
    }
}

QString SourceTreeModel::dump() const
{
    QString out;
    std::function<void(int, int)> walk = [&](int k, int depth) {
        for (int c : items_[static_cast<size_t>(k)].children) {
            const Item& it = items_[static_cast<size_t>(c)];
            out += QString(depth * 2, QLatin1Char(' ')) + it.name
                + QStringLiteral("  %1/%2").arg(it.graphs).arg(it.artifacts)
                + (it.kind == QLatin1String("artifact") ? QStringLiteral("  #%1").arg(it.artifactId) : QString())
                + QLatin1Char('\n');
            walk(c, depth + 1);
        }
    };
    walk(0, 0);
    return out;
}

}  // namespace fxl::viewer
