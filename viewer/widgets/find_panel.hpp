// The Find dock: a query line (viewer/model/node_search.hpp syntax: a name, op:mm,
// module:blocks.0, phase:backward, tag:recompute, meta:key=value), what it found, and the
// results list; Return runs the query and shows the first result in the graph view, a click on
// a result shows it. It owns its actions, for the window's Find menu: Find nodes (Ctrl+F: the
// dock to the front, the query selected), Find next (F3) and Find previous (Shift+F3).
#pragma once

#include <QWidget>

#include <memory>

class QAction;
class QLabel;
class QLineEdit;
class QTableView;

namespace fxl::viewer {

class GraphView;
struct PreparedGraph;
class SearchResultsModel;

class FindPanel : public QWidget
{
    Q_OBJECT

public:
    FindPanel(GraphView* view, QWidget* parent = nullptr);

    // Runs the query (as Return does) and shows the first result; returns the result count.
    int find(const QString& query);
    // Shows the result `step` rows after (before, when negative) the current one, wrapping.
    void findNext(int step = 1);
    // A new graph is shown: the results of the old one go.
    void clear();
    QString status() const;
    SearchResultsModel* results() const { return results_; }
    QLineEdit* queryEdit() const { return edit_; }

    QAction* findAction() const { return findAction_; }
    QAction* nextAction() const { return nextAction_; }
    QAction* previousAction() const { return previousAction_; }

private:
    GraphView* view_;
    QLineEdit* edit_ = nullptr;
    QLabel* label_ = nullptr;
    QTableView* resultsView_ = nullptr;
    SearchResultsModel* results_ = nullptr;
    int row_ = -1;
    // the graph the results are of (kept alive while the list shows them); another graph shown
    // since makes Find next search again
    std::shared_ptr<const PreparedGraph> searched_;
    QAction* findAction_ = nullptr;
    QAction* nextAction_ = nullptr;
    QAction* previousAction_ = nullptr;

    void run();
    void showResult(int row);
};

}  // namespace fxl::viewer
