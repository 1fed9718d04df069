#include "viewer/widgets/node_navigator.hpp"

#include <QAction>

#include "viewer/model/node_search.hpp"
#include "viewer/widgets/graph_view.hpp"

namespace fxl::viewer {

NodeNavigator::NodeNavigator(GraphView* view, QObject* parent)
    : QObject(parent)
    , view_(view)
{
    connect(add(tr("Go to &producer"), QKeySequence(Qt::ALT | Qt::Key_Up)), &QAction::triggered, this,
            [this] { walkProducer(); });
    connect(add(tr("Go to &consumer"), QKeySequence(Qt::ALT | Qt::Key_Down)), &QAction::triggered, this,
            [this] { walkConsumer(); });
    connect(add(tr("&Next producer / consumer"), QKeySequence(Qt::ALT | Qt::Key_Right)), &QAction::triggered, this,
            [this] { walkNext(1); });
    connect(add(tr("P&revious producer / consumer"), QKeySequence(Qt::ALT | Qt::Key_Left)), &QAction::triggered, this,
            [this] { walkNext(-1); });
    actions_.push_back(nullptr);  // a separator
    connect(add(tr("Trace &upstream"), QKeySequence(Qt::CTRL | Qt::Key_U)), &QAction::triggered, this,
            [this] { traceUpstream(); });
    connect(add(tr("Trace &downstream"), QKeySequence(Qt::CTRL | Qt::Key_D)), &QAction::triggered, this,
            [this] { traceDownstream(); });
    connect(add(tr("C&lear trace"), QKeySequence(Qt::Key_Escape)), &QAction::triggered, this,
            &NodeNavigator::clearTrace);
}

QAction* NodeNavigator::add(const QString& text, const QKeySequence& key)
{
    auto* a = new QAction(text, this);
    a->setShortcut(key);
    actions_.push_back(a);
    return a;
}

void NodeNavigator::reset()
{
    walkList_.clear();
    walkGraph_ = nullptr;
}

NodeId NodeNavigator::selectedNode() const
{
    const Graph* g = view_->graph();
    return g ? g->findByName(view_->selected().toStdString()) : kNoNode;
}

bool NodeNavigator::walkTo(const QString& from, std::vector<NodeId> list, const QString& what)
{
    if (list.empty()) {
        emit message(tr("%1 has no %2").arg(from, what));
        return false;
    }
    walkGraph_ = view_->graph();
    walkFrom_ = from;
    walkList_ = std::move(list);
    walkIndex_ = 0;
    view_->showNode(QString::fromStdString(view_->graph()->node(walkList_[0]).name));
    emit message(
        tr("%1 1 of %2 of %3 (Alt+Right / Alt+Left for the others)").arg(what).arg(walkList_.size()).arg(from));
    return true;
}

bool NodeNavigator::walkProducer()
{
    const NodeId id = selectedNode();
    return id != kNoNode && walkTo(view_->selected(), producersOf(*view_->graph(), id), tr("producers"));
}

bool NodeNavigator::walkConsumer()
{
    const NodeId id = selectedNode();
    return id != kNoNode && walkTo(view_->selected(), consumersOf(*view_->graph(), id), tr("consumers"));
}

bool NodeNavigator::walkNext(int step)
{
    // a walk belongs to the graph it was made on (another step shown since: it is over)
    if (walkList_.empty() || !view_->graph() || view_->graph() != walkGraph_) return false;
    const long n = static_cast<long>(walkList_.size());
    walkIndex_ = static_cast<size_t>(((static_cast<long>(walkIndex_) + step) % n + n) % n);
    view_->showNode(QString::fromStdString(view_->graph()->node(walkList_[walkIndex_]).name));
    emit message(tr("%1 of %2 from %3").arg(walkIndex_ + 1).arg(walkList_.size()).arg(walkFrom_));
    return true;
}

size_t NodeNavigator::trace(bool upstream)
{
    const Graph* g = view_->graph();
    const NodeId id = selectedNode();
    if (id == kNoNode) return 0;
    std::vector<NodeId> cone = upstream ? upstreamCone(*g, id) : downstreamCone(*g, id);
    cone.push_back(id);
    view_->setHighlights(cone);
    emit message(tr("%1 of %2: %3 nodes (Esc clears)")
                     .arg(upstream ? tr("upstream") : tr("downstream"), view_->selected())
                     .arg(cone.size() - 1));
    return cone.size() - 1;
}

void NodeNavigator::clearTrace() { view_->setHighlights({}); }

}  // namespace fxl::viewer
