// The diff view: two graphs side by side, before (a) and after (b), with their nodes marked by
// what changed (added, removed, changed, rewired: scene_draw.hpp's diff marks, with a legend),
// the counts, a change list that jumps to each change, and a text diff tab (unified, with
// context: core/analysis/graph_diff.hpp diffToText). Selection is synced both ways through the
// diff's matching: selecting a node selects its counterpart on the other side, and a node
// without one says so ("no counterpart in after: removed by this step"). The viewport is synced
// too: moving one side centres the other on the counterpart of what is at the centre, at the
// same zoom; the groups opened on one side open on the other (by group key).
//
// Any two graphs: the steps of a pipeline, two files (`fxlens A B`), a before/after pair of a
// TORCH_TRACE log, the same compile on two ranks.
#pragma once

#include <QWidget>

#include <map>
#include <memory>
#include <set>
#include <string>

#include "core/analysis/graph_diff.hpp"
#include "viewer/jobs/view_jobs.hpp"

class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QSortFilterProxyModel;
class QTabWidget;
class QTableView;

namespace fxl::viewer {

class ChangeListModel;
class GraphView;

class DiffView : public QWidget
{
    Q_OBJECT

public:
    explicit DiffView(QWidget* parent = nullptr);

    // Shows a against b. `diff` is diffGraphs(a, b) (computed here when null, on the UI thread:
    // callers with big graphs compute it off the UI thread). keepView keeps each side's open
    // groups, selection and viewport (stepping).
    void setGraphs(std::shared_ptr<const PreparedGraph> a, std::shared_ptr<const PreparedGraph> b,
                   std::shared_ptr<const GraphDiff> diff, const QString& labelA, const QString& labelB,
                   bool keepView = false);
    void clear();

    GraphView* viewA() const { return a_; }
    GraphView* viewB() const { return b_; }
    ChangeListModel* changes() const { return changes_; }
    const GraphDiff* diff() const { return diff_.get(); }
    QString countsText() const;
    QString labelA() const { return nameA_; }
    QString labelB() const { return nameB_; }  // "+3 added, -1 removed, 5 changed, 2 rewired edges"
    // Selects a node on one side (and syncs the other). False when the side has no such node.
    bool selectA(const QString& name);
    bool selectB(const QString& name);
    // What the sync said last: "" or "'x' has no counterpart in after (removed by this step)".
    QString syncStatus() const;
    // The text diff (made when its tab is first shown, or when asked here).
    QString textDiff();
    // Jumps to row `row` of the change list (both sides).
    void showChange(int row);
    void setDark(bool dark);
    // Colours both sides by the ULP distance of each node's value in a run (runtime/check/localize.hpp
    // ulpByNameA / ulpByNameB) instead of by the diff; clearUlp() goes back to the diff.
    void setUlp(std::map<std::string, uint64_t> a, std::map<std::string, uint64_t> b);
    void clearUlp();
    bool colouredByUlp() const { return byUlp_; }
    // The switch of the view (its "colour by" box): the diff's marks, or the last run's ULP
    // marks (only while a run coloured it).
    void setColouredByUlp(bool on);
    // Fields left out of the comparison ("device,val", as `fxlens diff --ignore`): the diff is
    // made again without them (kept for the next graphs shown). False (and the status says
    // which) for a field the diff does not know.
    bool setIgnoredFields(const QString& fields);
    void setSyncViewport(bool on) { syncViewport_ = on; }

signals:
    void nodeSelected(const QString& name, bool sideB);

private:
    GraphView* a_ = nullptr;
    GraphView* b_ = nullptr;
    QLabel* labelA_ = nullptr;
    QLabel* labelB_ = nullptr;
    QLabel* counts_ = nullptr;
    QLabel* status_ = nullptr;
    QTabWidget* tabs_ = nullptr;
    QTableView* changeTable_ = nullptr;
    ChangeListModel* changes_ = nullptr;
    QSortFilterProxyModel* changesProxy_ = nullptr;
    QPlainTextEdit* text_ = nullptr;
    bool textMade_ = false;
    std::shared_ptr<const PreparedGraph> ga_, gb_;
    std::shared_ptr<const GraphDiff> diff_;
    QString nameA_, nameB_;
    bool syncing_ = false;
    bool syncViewport_ = true;
    std::set<std::string> lastKeys_[2];
    bool byUlp_ = false;
    std::map<std::string, uint64_t> ulpA_, ulpB_;
    QLabel* legend_ = nullptr;
    QComboBox* colourBy_ = nullptr;
    QLineEdit* ignore_ = nullptr;
    std::set<std::string> ignored_;  // the open groups of each side at its last layout

    void onSelected(const QString& name, bool sideB);
    void syncViewportFrom(bool sideB);
    void syncExpansionFrom(bool sideB);
    void updateMarks(bool force = false);
};

}  // namespace fxl::viewer
