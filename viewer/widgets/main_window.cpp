#include "viewer/widgets/main_window.hpp"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QSettings>
#include <QStatusBar>
#include <QTextBrowser>
#include <QTreeView>

#include <iostream>

#include "viewer/model/source_tree_model.hpp"
#include "viewer/widgets/graph_view.hpp"

namespace fxl::viewer {

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent)
{
    setWindowTitle(QStringLiteral("fxlens"));
    setAcceptDrops(true);
    model_ = new SourceTreeModel(this);
    view_ = new GraphView(this);
    setCentralWidget(view_);

    tree_ = new QTreeView(this);
    tree_->setModel(model_);
    tree_->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    tree_->header()->setStretchLastSection(false);
    auto* treeDock = new QDockWidget(tr("Sources"), this);
    treeDock->setObjectName(QStringLiteral("sources"));
    treeDock->setWidget(tree_);
    addDockWidget(Qt::LeftDockWidgetArea, treeDock);
    connect(tree_, &QTreeView::activated, this, [this](const QModelIndex& i) {
        const QModelIndex n = i.siblingAtColumn(0);
        if (model_->data(n, SourceTreeModel::IsGraphRole).toBool())
            showGraph(model_->data(n, SourceTreeModel::SourceRole).toInt(),
                      model_->data(n, SourceTreeModel::ArtifactIdRole).toString());
    });

    inspector_ = new QTextBrowser(this);
    auto* inspectorDock = new QDockWidget(tr("Inspector"), this);
    inspectorDock->setObjectName(QStringLiteral("inspector"));
    inspectorDock->setWidget(inspector_);
    addDockWidget(Qt::RightDockWidgetArea, inspectorDock);
    connect(view_, &GraphView::nodeSelected, this, &MainWindow::inspect);

    status_ = new QLabel(this);
    statusBar()->addWidget(status_);

    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&Open..."), QKeySequence::Open, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Open a graph or a TORCH_TRACE log"));
        if (!path.isEmpty()) openPath(path);
    });
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);
    QMenu* viewMenu = menuBar()->addMenu(tr("&View"));
    viewMenu->addAction(tr("&Fit"), QKeySequence(Qt::Key_F), view_, &GraphView::fit);
    viewMenu->addAction(tr("Zoom &in"), QKeySequence::ZoomIn, this, [this] { view_->setZoom(view_->zoom() * 1.25); });
    viewMenu->addAction(tr("Zoom &out"), QKeySequence::ZoomOut, this, [this] { view_->setZoom(view_->zoom() / 1.25); });
    viewMenu->addAction(tr("&Collapse all"), QKeySequence(Qt::CTRL | Qt::Key_0), view_, &GraphView::collapseAll);
    viewMenu->addSeparator();
    viewMenu->addAction(treeDock->toggleViewAction());
    viewMenu->addAction(inspectorDock->toggleViewAction());
    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&Keyboard shortcuts"), QKeySequence::HelpContents, this, &MainWindow::showShortcuts);

    QSettings settings(QStringLiteral("fxlens"), QStringLiteral("fxlens"));
    restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
    restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
    if (!settings.contains(QStringLiteral("window/geometry"))) resize(1400, 850);
}

MainWindow::~MainWindow() = default;

QString MainWindow::openPath(const QString& path)
{
    std::shared_ptr<Source> src;
    try {
        src = openSource(path.toStdString());
    } catch (const InputError& e) {
        showError(QString::fromStdString(e.diagnostic().format()));
        return lastError_;
    } catch (const std::exception& e) {
        showError(path + QStringLiteral(": ") + QString::fromUtf8(e.what()));
        return lastError_;
    }
    model_->addSource(src);
    const int index = model_->sourceCount() - 1;
    tree_->expand(model_->index(index, 0));
    QSettings settings(QStringLiteral("fxlens"), QStringLiteral("fxlens"));
    QStringList recent = settings.value(QStringLiteral("recent")).toStringList();
    recent.removeAll(QFileInfo(path).absoluteFilePath());
    recent.prepend(QFileInfo(path).absoluteFilePath());
    settings.setValue(QStringLiteral("recent"), recent.mid(0, 10));
    if (!graph_) {
        const auto graphs = src->graphs();
        if (!graphs.empty()) showGraph(index, QString::fromStdString(graphs.front()->id));
    }
    return {};
}

bool MainWindow::showGraph(int source, const QString& id)
{
    const Source* src = model_->source(source);
    if (!src) return false;
    // as the CLI: a graph that came with error-level diagnostics (a broken meta.json, ...) is not
    // shown, since what it shows would silently lack what the input meant to give
    const size_t from = src->diagnostics.items.size();
    std::shared_ptr<Graph> g;
    try {
        g = const_cast<Source*>(src)->graph(id.toStdString());
    } catch (const InputError& e) {
        showError(QString::fromStdString(e.diagnostic().format()));
        return false;
    }
    const auto& items = src->diagnostics.items;
    for (size_t i = from; i < items.size(); ++i)
        if (items[i].severity == Severity::Error) {
            showError(QString::fromStdString(items[i].format())
                      + tr("\n(graph %1 came with errors: not shown)").arg(id));
            return false;
        }
    // warnings of the file and of this graph (skipped log lines, MD5 mismatches, annotations
    // not understood): counted in the status bar, the first one named
    int warnings = 0;
    QString first;
    for (const Diagnostic& d : items)
        if (d.severity == Severity::Warning && warnings++ == 0) first = QString::fromStdString(d.format());
    if (!g) {
        showError(tr("%1: graph %2 could not be read").arg(QString::fromStdString(src->path), id));
        return false;
    }
    graph_ = g;
    view_->setGraph(graph_);
    status_->setText(
        tr("%1, graph %2: %3 nodes%4")
            .arg(QFileInfo(QString::fromStdString(src->path)).fileName(), id)
            .arg(graph_->size())
            .arg(warnings ? tr("; %1 warning(s) while reading, first: %2").arg(warnings).arg(first) : QString()));
    inspector_->clear();
    return true;
}

void MainWindow::inspect(const QString& name)
{
    if (!graph_) return;
    const NodeId id = graph_->findByName(name.toStdString());
    if (id == kNoNode) return;
    const Node& n = graph_->node(id);
    QString html = QStringLiteral("<h3>%1</h3><table>").arg(name.toHtmlEscaped());
    auto row = [&](const QString& k, const QString& v) {
        html += QStringLiteral("<tr><td><b>%1</b></td><td>%2</td></tr>").arg(k, v.toHtmlEscaped());
    };
    row(tr("op"), QString::fromLatin1(nodeOpName(n.op).data(), static_cast<int>(nodeOpName(n.op).size())));
    row(tr("target"), QString::fromStdString(n.target));
    QStringList args;
    for (const Arg& a : n.args) a.forEachNode([&](NodeId p) { args << QString::fromStdString(graph_->node(p).name); });
    row(tr("inputs"), args.join(QStringLiteral(", ")));
    QStringList users;
    for (NodeId u : n.users) users << QString::fromStdString(graph_->node(u).name);
    row(tr("users"), users.join(QStringLiteral(", ")));
    if (n.val.isTensor()) {
        QString shape;
        for (const auto& d : n.val.tensor.sizes)
            shape += (shape.isEmpty() ? "" : ", ") + QString::fromStdString(d.str());
        row(tr("value"),
            QString::fromLatin1(dtypeAbbr(n.val.tensor.dtype).data()) + QStringLiteral("[") + shape
                + QStringLiteral("] ") + QString::fromStdString(n.val.tensor.device));
    }
    row(tr("module"), QString::fromStdString(n.meta.modulePath));
    row(tr("phase"), QString::fromLatin1(phaseClassName(view_->tree()->phaseOf(id))));
    if (!n.meta.source.empty())
        row(tr("source"),
            QString::fromStdString(n.meta.source.file) + QStringLiteral(":") + QString::number(n.meta.source.line));
    if (n.meta.recompute != Recompute::None)
        row(tr("recompute"), QString::fromLatin1(recomputeName(n.meta.recompute).data()));
    if (!n.meta.provenance.empty()) row(tr("provenance"), QString::fromStdString(n.meta.provenance));
    if (!n.meta.custom.is_null()) row(tr("custom"), QString::fromStdString(n.meta.custom.dump()));
    html += QStringLiteral("</table>");
    inspector_->setHtml(html);
}

QString MainWindow::inspectorText() const { return inspector_->toPlainText(); }

QString MainWindow::statusText() const { return status_->text(); }

void MainWindow::showError(const QString& text)
{
    lastError_ = text;
    status_->setText(text.section(QLatin1Char('\n'), 0, 0));
    if (!quietErrors_) QMessageBox::warning(this, tr("fxlens"), text);
}

void MainWindow::showShortcuts()
{
    QMessageBox::information(this, tr("Keyboard shortcuts"),
                             tr("Ctrl+O  open a file\nF  fit the graph\nCtrl++ / Ctrl+-  zoom\nCtrl+0  collapse "
                                "all groups\nWheel  zoom at the cursor\nDrag  pan\nDouble click  expand or collapse a "
                                "group\nClick a stub  jump to the node it names\nF1  this list"));
}

void MainWindow::closeEvent(QCloseEvent* e)
{
    QSettings settings(QStringLiteral("fxlens"), QStringLiteral("fxlens"));
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("window/state"), saveState());
    QMainWindow::closeEvent(e);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* e)
{
    if (e->mimeData()->hasUrls()) e->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* e)
{
    for (const QUrl& u : e->mimeData()->urls())
        if (u.isLocalFile()) openPath(u.toLocalFile());
}

bool hasDisplay()
{
    // an offscreen or minimal platform draws for nobody: a window there would wait forever
    const QByteArray platform = qgetenv("QT_QPA_PLATFORM");
    if (platform.startsWith("offscreen") || platform.startsWith("minimal")) return false;
    return !qEnvironmentVariableIsEmpty("DISPLAY") || !qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY")
        || !platform.isEmpty();
}

int runMainWindow(int argc, char** argv, const std::vector<std::string>& files)
{
    if (!hasDisplay()) {
        std::cerr << "fxlens: no display (DISPLAY and WAYLAND_DISPLAY unset, or an offscreen Qt platform): the window "
                     "cannot open.\n"
                  << "Draw the graph instead: fxlens render FILE --out view.png; see fxlens --help for the verbs.\n";
        return 1;
    }
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("fxlens"));
    MainWindow w;
    w.show();
    for (const std::string& f : files) w.openPath(QString::fromStdString(f));
    return app.exec();
}

}  // namespace fxl::viewer
