// The equivalence report of a run (runtime/check/equivalence.hpp) as a table: one row per output,
// bitwise equal or how it differs. QtCore only.
//
// Rules:
//  E1 Rows: the compared outputs in report order, then the states either run wrote in place
//     ("state buffer bn1.running_var"), then the outputs found on one side only. With
//     onlyDiffering, the bitwise-equal rows are left out.
//  E2 Columns: Output, Result ("bitwise", "differs", "shape differs", "dtype differs", "only in
//     <side>"), Differing ("12 / 4096"), Max abs, Max ULP, First difference ("[0, 3]: 0.25 vs
//     0.2500001"), Note (how the reference obtained the output, e.g. for eager chunking "cat
//     along dim 0 of 2 pieces", and why it differs when the chunked graph says so; for a state
//     how often each side wrote it; "" otherwise). A state written a different number of times
//     has the Result "written 1 vs 2 times" whatever its values.
//     BitwiseRole is a bool on every column.
#pragma once

#include <QAbstractTableModel>

#include "runtime/check/equivalence.hpp"

namespace fxl::viewer {

class EquivalenceModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column
    {
        OutputColumn,
        ResultColumn,
        DifferingColumn,
        MaxAbsColumn,
        MaxUlpColumn,
        FirstColumn,
        NoteColumn,
        ColumnCount
    };
    enum Role
    {
        BitwiseRole = Qt::UserRole + 1,
    };
    explicit EquivalenceModel(QObject* parent = nullptr);

    // notes: one per compared output (report order), or none.
    void setReport(const EquivalenceReport& r, const QString& subjectSide = tr("subject"),
                   const QString& referenceSide = tr("reference"), const std::vector<std::string>& notes = {});
    void clear();
    void setOnlyDiffering(bool on);
    bool onlyDiffering() const { return onlyDiffering_; }
    size_t outputCount() const { return report_.outputs.size() + report_.onlyInA.size() + report_.onlyInB.size(); }
    size_t stateCount() const { return report_.states.size(); }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    QString dump() const;

private:
    struct Row
    {
        int output = -1;  // index into report_.outputs, -1: a state or one side only
        int state = -1;  // index into report_.states
        QString onlyName, onlySide;
    };
    EquivalenceReport report_;
    std::vector<std::string> notes_;
    QString subjectSide_, referenceSide_;
    bool onlyDiffering_ = false;
    std::vector<Row> rows_;
    void rebuild();
};

}  // namespace fxl::viewer
