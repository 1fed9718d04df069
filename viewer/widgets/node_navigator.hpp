// Walking and tracing from the node selected in the graph view, with the window's Navigate
// actions, which it owns: Go to producer (Alt+Up) / consumer (Alt+Down) jumps to the first
// one and Alt+Right / Alt+Left walk through the others; Trace upstream (Ctrl+U) / downstream
// (Ctrl+D) highlight the node's cone; Esc clears it. What happened is said by message().
#pragma once

#include <QObject>

#include <vector>

#include "core/ir/graph.hpp"

class QAction;

namespace fxl::viewer {

class GraphView;

class NodeNavigator : public QObject
{
    Q_OBJECT

public:
    NodeNavigator(GraphView* view, QObject* parent = nullptr);

    bool walkProducer();
    bool walkConsumer();
    bool walkNext(int step = 1);
    size_t traceUpstream() { return trace(true); }
    size_t traceDownstream() { return trace(false); }
    void clearTrace();
    // A new graph is shown: the walk of the old one ends.
    void reset();

    // In the Navigate menu's order.
    const std::vector<QAction*>& actions() const { return actions_; }

signals:
    void message(const QString& text);

private:
    GraphView* view_;
    std::vector<QAction*> actions_;
    const Graph* walkGraph_ = nullptr;  // the graph the walk list is of
    QString walkFrom_;
    std::vector<NodeId> walkList_;
    size_t walkIndex_ = 0;

    bool walkTo(const QString& from, std::vector<NodeId> list, const QString& what);
    size_t trace(bool upstream);
    NodeId selectedNode() const;
    QAction* add(const QString& text, const QKeySequence& key);
};

}  // namespace fxl::viewer
