#include "viewer/widgets/find_panel.hpp"

#include <QAction>
#include <QDockWidget>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QTableView>
#include <QVBoxLayout>

#include "viewer/model/node_search.hpp"
#include "viewer/model/search_results_model.hpp"
#include "viewer/widgets/graph_view.hpp"

namespace fxl::viewer {

FindPanel::FindPanel(GraphView* view, QWidget* parent)
    : QWidget(parent)
    , view_(view)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    edit_ = new QLineEdit(this);
    edit_->setPlaceholderText(tr("name, op:mm, module:blocks.0, phase:backward, tag:recompute, meta:key=value"));
    edit_->setClearButtonEnabled(true);
    label_ = new QLabel(this);
    label_->setWordWrap(true);
    results_ = new SearchResultsModel(this);
    resultsView_ = new QTableView(this);
    resultsView_->setModel(results_);
    resultsView_->setSelectionBehavior(QAbstractItemView::SelectRows);
    resultsView_->setSelectionMode(QAbstractItemView::SingleSelection);
    resultsView_->verticalHeader()->hide();
    resultsView_->verticalHeader()->setDefaultSectionSize(20);
    resultsView_->horizontalHeader()->setStretchLastSection(true);
    layout->addWidget(edit_);
    layout->addWidget(label_);
    layout->addWidget(resultsView_, 1);
    connect(edit_, &QLineEdit::returnPressed, this, &FindPanel::run);
    connect(resultsView_, &QTableView::activated, this, [this](const QModelIndex& i) { showResult(i.row()); });
    connect(resultsView_, &QTableView::clicked, this, [this](const QModelIndex& i) { showResult(i.row()); });

    findAction_ = new QAction(tr("&Find nodes..."), this);
    findAction_->setShortcut(QKeySequence::Find);
    connect(findAction_, &QAction::triggered, this, [this] {
        // the dock this panel sits in comes to the front
        if (auto* dock = qobject_cast<QDockWidget*>(parentWidget())) {
            dock->show();
            dock->raise();
        }
        edit_->setFocus();
        edit_->selectAll();
    });
    nextAction_ = new QAction(tr("Find &next"), this);
    nextAction_->setShortcut(QKeySequence::FindNext);
    connect(nextAction_, &QAction::triggered, this, [this] { findNext(1); });
    previousAction_ = new QAction(tr("Find &previous"), this);
    previousAction_->setShortcut(QKeySequence::FindPrevious);
    connect(previousAction_, &QAction::triggered, this, [this] { findNext(-1); });
}

int FindPanel::find(const QString& query)
{
    edit_->setText(query);
    run();
    return results_->rowCount();
}

void FindPanel::clear()
{
    results_->clear();
    label_->clear();
    row_ = -1;
    searched_.reset();
}

void FindPanel::run()
{
    const GroupTree* tree = view_->tree();
    row_ = -1;
    if (!tree) {
        label_->setText(tr("no graph is shown"));
        return;
    }
    const SearchQuery q = parseSearchQuery(edit_->text().toStdString());
    if (!q.ok()) {
        results_->clear();
        label_->setText(QString::fromStdString(q.error));
        return;
    }
    searched_ = view_->prepared();
    results_->setResults(tree, searchNodes(*tree, q));
    const int n = results_->rowCount();
    label_->setText(n == 0 ? tr("no node matches") : tr("%n node(s)", nullptr, n));
    if (n > 0) showResult(0);
}

void FindPanel::showResult(int row)
{
    if (row < 0 || row >= results_->rowCount() || !view_->graph() || view_->prepared() != searched_) return;
    row_ = row;
    resultsView_->selectRow(row);
    view_->showNode(QString::fromStdString(view_->graph()->node(results_->nodeAt(row)).name));
}

void FindPanel::findNext(int step)
{
    if (searched_ && view_->prepared() != searched_) {
        run();  // another graph (a step) is shown: the same query on it
        return;
    }
    const int n = results_->rowCount();
    if (n == 0) return;
    showResult(((row_ + step) % n + n) % n);
}

QString FindPanel::status() const { return label_->text(); }

}  // namespace fxl::viewer
