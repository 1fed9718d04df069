#include "viewer/model/equivalence_model.hpp"

#include "viewer/model/table_dump.hpp"

#include <QColor>
#include <QStringList>

namespace fxl::viewer {

namespace {

QString number(double v) { return QString::number(v, 'g', 9); }

}  // namespace

EquivalenceModel::EquivalenceModel(QObject* parent)
    : QAbstractTableModel(parent)
{ }

void EquivalenceModel::setReport(const EquivalenceReport& r, const QString& subjectSide, const QString& referenceSide,
                                 const std::vector<std::string>& notes)
{
    beginResetModel();
    report_ = r;
    notes_ = notes;
    subjectSide_ = subjectSide;
    referenceSide_ = referenceSide;
    rebuild();
    endResetModel();
}

void EquivalenceModel::clear() { setReport({}); }

void EquivalenceModel::setOnlyDiffering(bool on)
{
    if (on == onlyDiffering_) return;
    beginResetModel();
    onlyDiffering_ = on;
    rebuild();
    endResetModel();
}

void EquivalenceModel::rebuild()
{
    rows_.clear();
    for (size_t i = 0; i < report_.outputs.size(); ++i)
        if (!onlyDiffering_ || !report_.outputs[i].bitwiseEqual) rows_.push_back({static_cast<int>(i), -1, {}, {}});
    for (size_t i = 0; i < report_.states.size(); ++i)
        if (!onlyDiffering_ || !report_.states[i].bitwiseEqual()) rows_.push_back({-1, static_cast<int>(i), {}, {}});
    for (const auto& n : report_.onlyInA) rows_.push_back({-1, -1, QString::fromStdString(n), subjectSide_});
    for (const auto& n : report_.onlyInB) rows_.push_back({-1, -1, QString::fromStdString(n), referenceSide_});
}

int EquivalenceModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int EquivalenceModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant EquivalenceModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount()) return {};
    const Row& row = rows_[static_cast<size_t>(index.row())];
    const StateDiff* st = row.state >= 0 ? &report_.states[static_cast<size_t>(row.state)] : nullptr;
    const TensorDiff* d = row.output >= 0 ? &report_.outputs[static_cast<size_t>(row.output)]
        : st && st->values                ? &*st->values
                                          : nullptr;
    const bool bitwise = st ? st->bitwiseEqual() : d && d->bitwiseEqual;
    if (role == BitwiseRole) return bitwise;
    if (role == Qt::ForegroundRole && index.column() == ResultColumn)
        return bitwise ? QColor(0x1a, 0x8f, 0x3a) : QColor(0xc0, 0x20, 0x20);
    if (role == Qt::TextAlignmentRole && index.column() >= DifferingColumn && index.column() <= MaxUlpColumn)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    if (role != Qt::DisplayRole) return {};
    if (st) {
        auto times = [](int n) { return n == 1 ? tr("1 time") : tr("%1 times").arg(n); };
        if (index.column() == OutputColumn) return tr("state %1").arg(QString::fromStdString(st->name));
        if (index.column() == NoteColumn) {
            if (st->writesB < 0) return tr("written %1").arg(times(st->writesA));
            if (st->writesA == st->writesB) return tr("written %1 in each").arg(times(st->writesA));
            return tr("written %1 in %2, %3 in %4")
                .arg(times(st->writesA), subjectSide_, times(st->writesB), referenceSide_);
        }
        if (index.column() == ResultColumn && !st->sameWrites())
            return tr("written %1 vs %2 times").arg(st->writesA).arg(st->writesB);
        if (!d) return index.column() == ResultColumn ? QString::fromStdString(st->missing) : QVariant();
    }
    if (!d) {
        if (index.column() == OutputColumn) return row.onlyName;
        if (index.column() == ResultColumn) return tr("only in %1").arg(row.onlySide);
        return {};
    }
    switch (index.column()) {
    case NoteColumn:
        return static_cast<size_t>(row.output) < notes_.size()
            ? QString::fromStdString(notes_[static_cast<size_t>(row.output)])
            : QString();
    case OutputColumn: return QString::fromStdString(d->name);
    case ResultColumn:
        if (d->shapeMismatch) return tr("shape differs");
        if (d->dtypeMismatch) return tr("dtype differs");
        return bitwise ? tr("bitwise") : tr("differs");
    case DifferingColumn: return QStringLiteral("%1 / %2").arg(d->differing).arg(d->numel);
    case MaxAbsColumn: return bitwise ? QStringLiteral("0") : number(d->maxAbs);
    case MaxUlpColumn: return QString::number(qulonglong(d->maxUlp));
    case FirstColumn: {
        if (bitwise || d->firstIndex < 0) return {};
        QStringList idx;
        for (int64_t i : d->firstIndexNd) idx << QString::number(i);
        return QStringLiteral("[%1]: %2 vs %3")
            .arg(idx.join(QStringLiteral(", ")), number(d->firstA), number(d->firstB));
    }
    default: return {};
    }
}

QVariant EquivalenceModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
    case OutputColumn: return tr("Output");
    case ResultColumn: return tr("Result");
    case DifferingColumn: return tr("Differing");
    case MaxAbsColumn: return tr("Max abs");
    case MaxUlpColumn: return tr("Max ULP");
    case FirstColumn:
        // before any run the sides have no names yet
        return subjectSide_.isEmpty() || referenceSide_.isEmpty()
            ? tr("First difference")
            : tr("First difference (%1 vs %2)").arg(subjectSide_, referenceSide_);
    case NoteColumn: return tr("Note");
    default: return {};
    }
}

QString EquivalenceModel::dump() const { return dumpTable(*this); }

}  // namespace fxl::viewer
