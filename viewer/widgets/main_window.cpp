#include "viewer/widgets/main_window.hpp"

#include <QAction>
#include <QApplication>
#include <QBuffer>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPainter>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QSaveFile>
#include <QScreen>
#include <QScrollArea>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>
#include <QStyle>
#include <QStyleFactory>
#include <QTabWidget>
#include <QTableView>
#include <QTextBlock>
#include <QTextBrowser>
#include <QTimer>
#include <QToolButton>
#include <QTreeView>
#include <QVBoxLayout>

#include <QRegularExpression>
#include <QThreadPool>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <functional>
#include <iostream>

#include "core/formats/memory_snapshot.hpp"
#include "core/ops/custom_ops.hpp"
#include "viewer/jobs/step_jobs.hpp"
#include "viewer/model/search_results_model.hpp"
#include "viewer/model/snapshot_timeline_model.hpp"
#include "viewer/model/source_tree_model.hpp"
#include "viewer/model/timeline_model.hpp"
#include "viewer/render/painter_canvas.hpp"
#include "viewer/render/timeline_draw.hpp"
#include "viewer/widgets/diff_view.hpp"
#include "viewer/widgets/export_menu.hpp"
#include "viewer/widgets/find_panel.hpp"
#include "viewer/widgets/graph_view.hpp"
#include "viewer/widgets/help_menu.hpp"
#include "viewer/widgets/inspector_panel.hpp"
#include "viewer/widgets/marks_panel.hpp"
#include "viewer/widgets/node_navigator.hpp"
#include "viewer/widgets/open_queue.hpp"
#include "viewer/widgets/overview.hpp"
#include "viewer/widgets/pipeline_editor.hpp"
#include "viewer/widgets/run_panel.hpp"
#include "viewer/widgets/snapshot_panel.hpp"
#include "viewer/widgets/sources_panel.hpp"
#include "viewer/widgets/step_session.hpp"
#include "viewer/widgets/text_panel.hpp"
#include "viewer/widgets/timeline_view.hpp"
#include "viewer/widgets/view_export.hpp"
#include "viewer/widgets/workspace_session.hpp"

namespace fxl::viewer {

namespace {

// The legend dock: scene_draw's legend, painted in the graph view's theme.
class LegendWidget : public QWidget
{
public:
    explicit LegendWidget(GraphView* view, QWidget* parent = nullptr)
        : QWidget(parent)
        , view_(view)
    {
        const Box b = legendSize();
        setMinimumSize(static_cast<int>(b.w) + 8, static_cast<int>(b.h) + 8);
    }

protected:
    void paintEvent(QPaintEvent*) override
    {
        QPainter p(this);
        const Rgb bg = theme(view_->dark()).background;
        p.fillRect(rect(), QColor(bg.r, bg.g, bg.b));
        p.setRenderHint(QPainter::Antialiasing);
        PainterCanvas c(p);
        drawLegend(c, 4, 4, view_->dark());
    }

private:
    GraphView* view_;
};

}  // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent)
{
    setWindowTitle(QStringLiteral("fxlens"));
    setAcceptDrops(true);
    jobs_ = new ViewJobs(this);
    opens_ = new OpenQueue(*this, jobs_);
    model_ = new SourceTreeModel(this);

    // central: breadcrumbs over the graph view
    view_ = new GraphView(jobs_, this);
    crumbs_ = new QLabel(this);
    crumbs_->setTextFormat(Qt::RichText);
    crumbs_->setContentsMargins(6, 3, 6, 3);
    connect(crumbs_, &QLabel::linkActivated, this, [this](const QString& link) {
        if (link.startsWith(QLatin1String("group:"))) view_->showGroup(link.mid(6).toInt());
    });
    auto* central = new QWidget(this);
    auto* layout = new QVBoxLayout(central);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(crumbs_);
    layout->addWidget(view_, 1);
    // the graph and, when a step or two graphs are compared, the diff
    diff_ = new DiffView(this);
    tabs_ = new QTabWidget(this);
    tabs_->setDocumentMode(true);
    tabs_->addTab(central, tr("Graph"));
    tabs_->addTab(diff_, tr("Diff"));
    // CUDA memory snapshots: a tab that shows once one is opened
    snapshots_ = new SnapshotPanel(*this);
    tabs_->addTab(snapshots_, tr("Memory snapshot"));
    tabs_->setTabVisible(tabs_->indexOf(snapshots_), false);
    connect(snapshots_, &SnapshotPanel::wantsFront, this, [this] {
        tabs_->setTabVisible(tabs_->indexOf(snapshots_), true);
        tabs_->setCurrentWidget(snapshots_);
    });
    setCentralWidget(tabs_);
    connect(view_, &GraphView::nodeSelected, this, &MainWindow::inspect);

    // the pass stepper: pipeline editor and step list; the memory timeline of the step shown
    runner_ = new StepRunner(this);
    passes_ = new PipelineEditor(runner_, this);
    auto* passesDock = new QDockWidget(tr("Passes"), this);
    passesDock->setObjectName(QStringLiteral("passes"));
    passesDock->setWidget(passes_);
    addDockWidget(Qt::LeftDockWidgetArea, passesDock);
    timelineModel_ = new TimelineModel(this);
    timeline_ = new TimelineView(timelineModel_, this);
    auto* timelineDock = new QDockWidget(tr("Memory timeline"), this);
    timelineDock->setObjectName(QStringLiteral("timeline"));
    timelineDock->setWidget(timeline_);
    addDockWidget(Qt::BottomDockWidgetArea, timelineDock);
    run_ = new RunPanel(this);
    auto* runDock = new QDockWidget(tr("Run"), this);
    runDock->setObjectName(QStringLiteral("run"));
    runDock->setWidget(run_);
    addDockWidget(Qt::BottomDockWidgetArea, runDock);
    // the steps shown, the Diff tab's two graphs and the Run panel's checks of either
    steps_ = new StepSession(*this);
    connect(timeline_, &TimelineView::nodeClicked, this, [this](const QString& name) {
        if (tabs_->currentWidget() == diff_)
            diff_->selectB(name);
        else
            view_->showNode(name);
    });
    connect(view_, &GraphView::nodeSelected, timeline_, &TimelineView::setSelectedNode);
    // a node selected on the diff's right side (the step shown) shows in the inspector too
    connect(diff_, &DiffView::nodeSelected, this, [this](const QString& name, bool sideB) {
        if (sideB && diff_->viewB()->graph() == view_->graph()) {
            inspect(name);
            timeline_->setSelectedNode(name);
        }
    });

    // the workspace: its file, actions, autosave and restore
    session_ = new WorkspaceSession(*this);
    connect(run_, &RunPanel::finished, session_,
            [this](std::shared_ptr<const RunOutcome> o) { session_->recordRun(*o); });

    // sources: a double click shows the graph (in the Graph tab, whatever was in front);
    // the context menu compares
    sourcesPanel_ = new SourcesPanel(model_, this);
    auto* treeDock = new QDockWidget(tr("Sources"), this);
    treeDock->setObjectName(QStringLiteral("sources"));
    treeDock->setWidget(sourcesPanel_);
    addDockWidget(Qt::LeftDockWidgetArea, treeDock);
    connect(sourcesPanel_, &SourcesPanel::graphRequested, this, [this](int source, const QString& id) {
        tabs_->setCurrentIndex(0);
        requestGraph(source, id);
    });
    connect(sourcesPanel_, &SourcesPanel::diffRequested, this,
            [this](int sa, const QString& a, int sb, const QString& b) { diffGraphs(sa, a, sb, b); });
    connect(sourcesPanel_, &SourcesPanel::pairDiffRequested, this,
            [this](int source, const QString& id) { diffPair(source, id); });

    // find
    find_ = new FindPanel(view_, this);
    auto* findDock = new QDockWidget(tr("Find"), this);
    findDock->setObjectName(QStringLiteral("find"));
    findDock->setWidget(find_);
    addDockWidget(Qt::LeftDockWidgetArea, findDock);

    // inspector
    inspector_ = new InspectorPanel(this);
    connect(inspector_, &InspectorPanel::nodeLinkActivated, view_, &GraphView::showNode);
    connect(inspector_, &InspectorPanel::groupLinkActivated, view_, &GraphView::showGroup);
    connect(inspector_, &InspectorPanel::stepLinkActivated, this,
            [this](int step, const QString& role, const QString& node) { showInStep(step, role, node); });
    auto* inspectorDock = new QDockWidget(tr("Inspector"), this);
    inspectorDock->setObjectName(QStringLiteral("inspector"));
    inspectorDock->setWidget(inspector_);
    addDockWidget(Qt::RightDockWidgetArea, inspectorDock);

    // bookmarks and notes of the workspace
    marks_ = new MarksPanel(this);
    auto* marksDock = new QDockWidget(tr("Bookmarks and notes"), this);
    marksDock->setObjectName(QStringLiteral("marks"));
    marksDock->setWidget(marks_);
    addDockWidget(Qt::BottomDockWidgetArea, marksDock);
    connect(marks_, &MarksPanel::nodeRequested, this, [this](const QString& role, const QString& node) {
        if (role.toStdString() != steps_->role()) steps_->setRole(role);
        tabs_->setCurrentIndex(0);
        view_->showNode(node);
    });

    // walking and tracing from the selected node
    nav_ = new NodeNavigator(view_, this);
    connect(nav_, &NodeNavigator::message, this, [this](const QString& m) { status_->setText(m); });

    // overview and legend
    overview_ = new Overview(view_, this);
    auto* overviewDock = new QDockWidget(tr("Overview"), this);
    overviewDock->setObjectName(QStringLiteral("overview"));
    overviewDock->setWidget(overview_);
    addDockWidget(Qt::RightDockWidgetArea, overviewDock);
    auto* legendDock = new QDockWidget(tr("Legend"), this);
    legendDock->setObjectName(QStringLiteral("legend"));
    // every colour and mark on screen; it scrolls, so that its height never sets the window's
    auto* legendScroll = new QScrollArea(this);
    legend_ = new LegendWidget(view_, legendScroll);
    legendScroll->setWidget(legend_);
    legendScroll->setFrameShape(QFrame::NoFrame);
    legendDock->setWidget(legendScroll);
    addDockWidget(Qt::RightDockWidgetArea, legendDock);
    tabifyDockWidget(overviewDock, legendDock);
    overviewDock->raise();

    // original text
    text_ = new TextPanel(this);
    connect(text_, &TextPanel::nodeClicked, view_, &GraphView::showNode);
    auto* textDock = new QDockWidget(tr("Original text"), this);
    textDock->setObjectName(QStringLiteral("text"));
    textDock->setWidget(text_);
    addDockWidget(Qt::BottomDockWidgetArea, textDock);

    // status bar: message, progress, cancel
    status_ = new QLabel(this);
    statusBar()->addWidget(status_, 1);
    progress_ = new QProgressBar(this);
    progress_->setMaximumWidth(220);
    progress_->setRange(0, 1000);
    progress_->hide();
    cancel_ = new QToolButton(this);
    cancel_->setText(tr("Cancel"));
    cancel_->hide();
    statusBar()->addPermanentWidget(progress_);
    statusBar()->addPermanentWidget(cancel_);
    connect(cancel_, &QToolButton::clicked, this, [this] {
        opens_->dropWaiting();
        for (int k = 0; k < ViewJobs::KindCount; ++k) jobs_->cancel(static_cast<ViewJobs::Kind>(k));
        snapshots_->cancel();
        status_->setText(tr("cancelled"));
    });

    connect(jobs_, &ViewJobs::progress, this, &MainWindow::onProgress);
    connect(jobs_, &ViewJobs::sourceAvailable, this,
            [this](quint64, std::shared_ptr<Source> s, const QString& path) { onSourceAvailable(s, path); });
    connect(jobs_, &ViewJobs::graphAvailable, this,
            [this](quint64, std::shared_ptr<const PreparedGraph> g) { onGraphAvailable(g); });
    connect(jobs_, &ViewJobs::failed, this, [this](quint64, int kind, const QString& message) {
        if (kind == ViewJobs::Prepare)
            showError(message + tr("\n(graph %1 is not shown)").arg(showingId_));
        else
            showError(message);
    });
    connect(jobs_, &ViewJobs::finished, this, [this] { updateBusy(); });
    connect(snapshots_->jobs(), &SnapshotJobs::progress, this,
            [this](quint64, int kind, qint64 done, qint64 total, const QString&) {
                progress_->setRange(0, 1000);
                progress_->setValue(total > 0 ? static_cast<int>(done * 1000 / total) : 0);
                progress_->setFormat(SnapshotJobs::kindName(static_cast<SnapshotJobs::Kind>(kind))
                                     + QStringLiteral(" %p%"));
            });
    connect(snapshots_->jobs(), &SnapshotJobs::finished, this, [this] { updateBusy(); });

    view_->setFoldIdentical(QSettings(QStringLiteral("fxlens"), QStringLiteral("fxlens"))
                                .value(QStringLiteral("view/fold"), true)
                                .toBool());
    // the default layout gives the graph most of the window: one column of tabbed docks on each
    // side and one row below (docks side by side in a column squeezed the step list away)
    tabifyDockWidget(passesDock, treeDock);
    tabifyDockWidget(treeDock, findDock);
    passesDock->raise();
    tabifyDockWidget(inspectorDock, overviewDock);
    tabifyDockWidget(overviewDock, legendDock);
    inspectorDock->raise();
    // the bookmarks and notes below, where a list has the width (a fourth tab in the right
    // column squeezed every tab's name)
    tabifyDockWidget(textDock, timelineDock);
    tabifyDockWidget(timelineDock, runDock);
    tabifyDockWidget(runDock, marksDock);
    timelineDock->raise();
    // the docks the menus show and toggle: members, because the menus' actions outlive this
    // constructor (a lambda holding a local array of them crashed Find and Check)
    docks_ = {treeDock,  findDock, inspectorDock, overviewDock, legendDock,
              marksDock, textDock, passesDock,    timelineDock, runDock};
    viewMenu_ = new ViewMenu(*this, docks_);
    connect(viewMenu_, &ViewMenu::themeChanged, this, &MainWindow::applyTheme);
    help_ = new HelpMenu(*this);
    buildMenus();

    // each side column at least as wide as its tabs' names: narrower (the Diff tab's panes and
    // change list take what they can) would elide them, "Inspe..."
    auto tabsWidth = [this](std::initializer_list<QDockWidget*> column) {
        int px = 8;
        for (QDockWidget* d : column)
            px += fontMetrics().horizontalAdvance(d->windowTitle())
                + style()->pixelMetric(QStyle::PM_TabBarTabHSpace, nullptr, this) + 4;
        return px;
    };
    for (QDockWidget* d : {passesDock, treeDock, findDock})
        d->setMinimumWidth(tabsWidth({passesDock, treeDock, findDock}));
    for (QDockWidget* d : {inspectorDock, overviewDock, legendDock})
        d->setMinimumWidth(tabsWidth({inspectorDock, overviewDock, legendDock}));

    QSettings settings(QStringLiteral("fxlens"), QStringLiteral("fxlens"));
    restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
    restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
    const QRect screen = availableScreen();
    if (!settings.contains(QStringLiteral("window/geometry"))) {
        // most of the screen, the graph most of the window
        const int w = std::min(1900, screen.width() * 92 / 100), h = std::min(1150, screen.height() * 90 / 100);
        resize(w, h);
        resizeDocks({passesDock, inspectorDock},
                    {std::clamp(w * 22 / 100, 260, 420), std::clamp(w * 16 / 100, 200, 320)}, Qt::Horizontal);
        resizeDocks({timelineDock}, {std::clamp(h * 24 / 100, 150, 260)}, Qt::Vertical);
    }
    fitInto(screen);
    setTheme(ViewMenu::savedTheme());
    updateCrumbs({});
}

MainWindow::~MainWindow() = default;

QRect MainWindow::availableScreen() const
{
    const QScreen* s = screen() ? screen() : QGuiApplication::primaryScreen();
    return s ? s->availableGeometry() : QRect(0, 0, 1366, 768);
}

void MainWindow::fitInto(const QRect& area)
{
    // a window saved on a bigger screen (or made bigger than this one) is clamped and moved in
    const QSize frame = frameGeometry().size() - geometry().size();
    const int w = std::min(width(), area.width() - frame.width()),
              h = std::min(height(), area.height() - frame.height());
    if (w != width() || h != height()) resize(std::max(w, 400), std::max(h, 300));
    QPoint at = pos();
    at.setX(std::clamp(at.x(), area.left(), std::max(area.left(), area.right() + 1 - frameGeometry().width())));
    at.setY(std::clamp(at.y(), area.top(), std::max(area.top(), area.bottom() + 1 - frameGeometry().height())));
    if (at != pos()) move(at);
}

void MainWindow::setFocusMode(bool on) { viewMenu_->setFocusMode(on); }
bool MainWindow::focusMode() const { return viewMenu_->focusMode(); }

void MainWindow::buildMenus()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    opens_->addActions(file);
    file->addSeparator();
    file->addAction(session_->saveAction());
    file->addAction(session_->saveAsAction());
    QMenu* exportMenu = file->addMenu(tr("&Export"));
    for (QAction* a : (new ExportMenu(*this))->actions()) exportMenu->addAction(a);
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);

    QMenu* find = menuBar()->addMenu(tr("F&ind"));
    find->addAction(find_->findAction());
    find->addAction(find_->nextAction());
    find->addAction(find_->previousAction());

    QMenu* nav = menuBar()->addMenu(tr("&Navigate"));
    for (QAction* a : nav_->actions()) {
        if (a)
            nav->addAction(a);
        else
            nav->addSeparator();
    }
    nav->addSeparator();
    nav->addAction(session_->bookmarkAction());
    nav->addAction(session_->noteAction());

    QMenu* passes = menuBar()->addMenu(tr("&Passes"));
    for (QAction* a : steps_->actions()) {
        if (a)
            passes->addAction(a);
        else
            passes->addSeparator();
    }

    snapshots_->addActions(menuBar()->addMenu(tr("&Memory")));

    viewMenu_->addActions(menuBar()->addMenu(tr("&View")));
    help_->addActions(menuBar()->addMenu(tr("&Help")));
}

QString MainWindow::suggestedName(const QString& suffix) const
{
    // what is shown: "gpt2_tiny.joint_step3_remat.png", "simple.log_dynamo_output_graph_0_0.svg"
    const auto g = view_->prepared();
    if (!g) return QStringLiteral("fxlens") + suffix;
    QString base = graphTitle(*g->source, g->artifactId);
    for (const char* ext : {".code.py", ".py", ".txt", ".json"})
        if (base.endsWith(QLatin1String(ext))) base.chop(static_cast<int>(strlen(ext)));
    if (steps_->current() > 0)
        if (const auto st = steps_->currentState())
            base += QStringLiteral("_step%1_%2").arg(steps_->current()).arg(QString::fromStdString(st->pass));
    base.replace(QRegularExpression(QStringLiteral("[^A-Za-z0-9._-]+")), QStringLiteral("_"));
    return base + suffix;
}

QString MainWindow::askSavePath(const QString& title, const QString& filter, const QString& name)
{
    // the folder the user saved in last
    QSettings settings(QStringLiteral("fxlens"), QStringLiteral("fxlens"));
    const QString dir = settings.value(QStringLiteral("dialogs/saveDir"), QDir::homePath()).toString();
    const QString path = QFileDialog::getSaveFileName(this, title, QDir(dir).filePath(name), filter);
    if (!path.isEmpty()) settings.setValue(QStringLiteral("dialogs/saveDir"), QFileInfo(path).absolutePath());
    return path;
}

QString MainWindow::shortcutList() const
{
    QString out;
    for (const auto& [key, what] : HelpMenu::shortcuts(menuBar()))
        out += key + QLatin1Char('\t') + what + QLatin1Char('\n');
    return out;
}

// ------------------------------------------------------------------ opening

void MainWindow::open(const QString& path) { opens_->open(path); }

bool MainWindow::waitIdle(int timeoutMs)
{
    QElapsedTimer timer;
    timer.start();
    while (jobs_->busy() || snapshots_->busy() || opens_->busy() || runner_->busy() || (steps_ && steps_->busy())
           || run_->busy() || view_->layoutPending() || diff_->viewA()->layoutPending()
           || diff_->viewB()->layoutPending()) {
        if (timer.elapsed() > timeoutMs) return false;
        QEventLoop loop;
        QTimer::singleShot(5, &loop, &QEventLoop::quit);
        connect(jobs_, &ViewJobs::finished, &loop, &QEventLoop::quit);
        loop.exec();
    }
    QCoreApplication::processEvents();
    return true;
}

QString MainWindow::openPath(const QString& path, bool showFirst)
{
    return opens_->openAndWait(path, showFirst ? OpenQueue::Show::First : OpenQueue::Show::IfNone);
}

void MainWindow::setStatus(const QString& text) { status_->setText(text); }

void MainWindow::openSnapshot(const QString& path) { snapshots_->open(path); }

void MainWindow::raiseDock(QWidget* panel)
{
    for (QDockWidget* d : docks_)
        if (d->widget() == panel) {
            d->show();
            d->raise();
        }
}

void MainWindow::refreshInspector()
{
    if (!view_->selected().isEmpty()) inspect(view_->selected());
}

void MainWindow::onSourceAvailable(std::shared_ptr<Source> src, const QString& path)
{
    sources_.push_back(src);
    model_->addSource(src);
    const int index = model_->sourceCount() - 1;
    sourcesPanel_->tree()->expand(model_->index(index, 0));
    rememberRecent(path);
    const auto graphs = src->graphs();
    status_->setText(tr("%1: %2 graphs, %3 artifacts")
                         .arg(QFileInfo(path).fileName())
                         .arg(graphs.size())
                         .arg(src->artifacts.size()));
    // a file with nothing to show says why (an AOTInductor package holds compiled code only)
    if (graphs.empty() && src->about.contains("no_graph"))
        showError(QFileInfo(path).fileName() + ": "
                  + QString::fromStdString(src->about["no_graph"].get<std::string>()));
    // what was opened comes to the front: its row in the tree, its first graph in the Graph tab
    // (a file opened only to be compared, or by a workspace, shows when nothing else is shown)
    const bool show = opens_->showing() == OpenQueue::Show::First || (!view_->prepared() && showingSource_ < 0);
    if (!show) return;
    sourcesPanel_->reveal(index);
    // a log's index (the Sources tree) comes to the front
    if (src->format != SourceFormat::FxCode && src->format != SourceFormat::GraphListing
        && src->format != SourceFormat::Json) {
        raiseDock(sourcesPanel_);
    }
    if (!graphs.empty()) {
        tabs_->setCurrentIndex(0);
        requestGraph(index, QString::fromStdString(graphs.front()->id));
    }
}

void MainWindow::rememberRecent(const QString& path) { OpenQueue::remember(path); }

void MainWindow::requestGraph(int source, const QString& id)
{
    if (source < 0 || source >= static_cast<int>(sources_.size())) return;
    showingSource_ = source;
    showingId_ = id;
    status_->setText(tr("reading graph %1...").arg(id));
    jobs_->prepare(sources_[static_cast<size_t>(source)], id);
    updateBusy();
}

bool MainWindow::showGraph(int source, const QString& id)
{
    if (source < 0 || source >= static_cast<int>(sources_.size())) return false;
    lastError_.clear();
    requestGraph(source, id);
    waitIdle();
    const auto g = view_->prepared();
    return lastError_.isEmpty() && g && g->source == sources_[static_cast<size_t>(source)]
        && g->artifactId == id.toStdString();
}

void MainWindow::onGraphAvailable(std::shared_ptr<const PreparedGraph> g)
{
    // the graph shown before and its steps are freed on a worker: freeing a 100k-node graph
    // takes the UI thread a tenth of a second or more
    auto before = std::make_shared<std::vector<std::shared_ptr<const void>>>();
    before->push_back(view_->prepared());
    before->push_back(runner_->input());
    for (const auto& s : runner_->steps()) before->push_back(s);
    for (const auto& [key, entry] : session_->takePendingLayouts()) g->cache->insert(key, entry);
    view_->setGraph(g);
    // the stepper starts from this graph: its input step (the timeline) is made at once, the
    // pipeline runs when asked
    steps_->startFrom(g);
    find_->clear();
    nav_->reset();
    inspector_->clear();
    updateCrumbs({});
    text_->setGraph(view_->prepared(), view_->dark());
    const QString title = graphTitle(*g->source, g->artifactId);
    QString text = tr("%1: %2 nodes, %3 groups").arg(title).arg(g->graph->size()).arg(g->tree->groups().size() - 1);
    if (g->warningCount)
        text += tr("; %1 warning(s) while reading, first: %2")
                    .arg(g->warningCount)
                    .arg(g->warnings.section(QLatin1Char('\n'), 0, 0));
    status_->setText(text);
    status_->setToolTip(g->warnings);
    setWindowTitle(tr("%1 - fxlens").arg(title));
    QThreadPool::globalInstance()->start([before] { before->clear(); });
}

// ------------------------------------------------------------------ the pass stepper

std::shared_ptr<const StepState> MainWindow::currentStepState() const { return steps_->currentState(); }
void MainWindow::setStepRole(const QString& role) { steps_->setRole(role); }
std::string MainWindow::stepRole() const { return steps_->role(); }
void MainWindow::setStepRoleQuietly(const std::string& role) { steps_->setRoleQuietly(role); }
bool MainWindow::diffShowsTwoGraphs() const { return steps_->diffShowsTwoGraphs(); }
bool MainWindow::showStep(int index) { return steps_->showStep(index); }
bool MainWindow::stepForward() { return steps_->showStep(steps_->current() + 1); }
bool MainWindow::stepBack() { return steps_->showStep(steps_->current() - 1); }
int MainWindow::currentStep() const { return steps_->current(); }
bool MainWindow::showInStep(int step, const QString& role, const QString& node)
{
    return steps_->showInStep(step, role, node);
}
std::shared_ptr<const RunOutcome> MainWindow::runCheck(int against, int timeoutMs, int stepIndex)
{
    return steps_->runCheck(against, timeoutMs, stepIndex);
}
QString MainWindow::runPipeline(const QString& spec, int timeoutMs) { return steps_->runPipeline(spec, timeoutMs); }

// ------------------------------------------------------------------ the workspace

QString MainWindow::workspacePath() const { return session_->path(); }
QString MainWindow::workspaceNotice() const { return session_->notice(); }
bool MainWindow::autosaveNow() { return session_->autosaveNow(); }
QString MainWindow::saveWorkspace(const QString& path, bool replace) { return session_->save(path, replace); }
QString MainWindow::openWorkspace(const QString& path) { return session_->openFile(path); }
QString MainWindow::openExample(const QString& examplesDir) { return session_->openExample(examplesDir); }
QString MainWindow::restoreExample(const QString& examplesDir) { return session_->restoreExample(examplesDir); }
bool MainWindow::bookmarkSelected(const QString& label) { return session_->bookmarkSelected(label); }
bool MainWindow::noteOnSelected(const QString& text) { return session_->noteOnSelected(text); }
void MainWindow::scheduleAutosave() { session_->scheduleAutosave(); }

QString bundledExamplesDir()
{
    // installed: <prefix>/bin/fxlens beside <prefix>/share/fxlens/examples; a build: the source tree's
    std::error_code ec;
    const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        const auto installed = (exe.parent_path() / ".." / "share" / "fxlens" / "examples").lexically_normal();
        if (std::filesystem::exists(installed / "gpt2_tiny.joint.code.py", ec))
            return QString::fromStdString(installed.string());
    }
    return QStringLiteral(FXLENS_EXAMPLES_DIR);
}

QString exampleCopyDir()
{
    return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + QStringLiteral("/example");
}

// ------------------------------------------------------------------ export

QString MainWindow::exportGraph(const QString& path, bool replace) { return exportGraphView(*view_, path, replace); }

QString MainWindow::exportDiff(const QString& path, bool replace) { return exportDiffView(*diff_, path, replace); }

QString MainWindow::exportTimeline(const QString& path, bool replace) { return steps_->exportTimeline(path, replace); }

QString MainWindow::exportReport(const QString& path, bool replace) { return steps_->exportReport(path, replace); }

// ------------------------------------------------------------------ comparing two graphs

QString MainWindow::diffGraphs(int sourceA, const QString& idA, int sourceB, const QString& idB)
{
    const int n = static_cast<int>(sources_.size());
    if (sourceA < 0 || sourceA >= n || sourceB < 0 || sourceB >= n) return tr("no such source");
    return steps_->diffGraphs(sources_[static_cast<size_t>(sourceA)], idA, sources_[static_cast<size_t>(sourceB)], idB);
}

QString MainWindow::diffPair(int source, const QString& id)
{
    if (source < 0 || source >= static_cast<int>(sources_.size())) return tr("no such source");
    return steps_->diffPair(sources_[static_cast<size_t>(source)], id);
}

QString MainWindow::openDiff(const QString& pathA, const QString& idA, const QString& pathB, const QString& idB)
{
    const int before = static_cast<int>(sources_.size());
    QString err = opens_->openAndWait(pathA, OpenQueue::Show::IfNone);
    if (!err.isEmpty()) return err;
    const int ia = static_cast<int>(sources_.size()) - 1;
    int ib = ia;
    if (pathB != pathA) {
        err = opens_->openAndWait(pathB, OpenQueue::Show::IfNone);
        if (!err.isEmpty()) return err;
        ib = static_cast<int>(sources_.size()) - 1;
    }
    if (ia < before) return tr("%1 did not open").arg(pathA);
    auto firstGraph = [&](int src, const QString& id) {
        if (!id.isEmpty()) return id;
        const auto graphs = sources_[static_cast<size_t>(src)]->graphs();
        return graphs.empty() ? QString() : QString::fromStdString(graphs.front()->id);
    };
    const QString a = firstGraph(ia, idA), b = firstGraph(ib, idB);
    if (a.isEmpty() || b.isEmpty()) return tr("no graph to compare");
    return diffGraphs(ia, a, ib, b);
}

void MainWindow::onProgress(quint64, int kind, qint64 done, qint64 total, const QString& what)
{
    progress_->setValue(total > 0 ? static_cast<int>(done * 1000 / total) : 0);
    progress_->setFormat(ViewJobs::kindName(static_cast<ViewJobs::Kind>(kind)) + QStringLiteral(" %p%"));
    if (!what.isEmpty() && kind == ViewJobs::Open)
        status_->setText(tr("opening %1...").arg(QFileInfo(what).fileName()));
}

void MainWindow::updateBusy()
{
    const bool busy = jobs_->busy() || snapshots_->busy();
    progress_->setVisible(busy);
    cancel_->setVisible(busy);
    if (busy && jobs_->busy(ViewJobs::Prepare)) {
        progress_->setRange(0, 0);  // reading a graph has no steps to count
    } else {
        progress_->setRange(0, 1000);
    }
}

// ------------------------------------------------------------------ inspector, breadcrumbs

void MainWindow::inspect(const QString& name)
{
    if (!view_->graph()) return;
    updateCrumbs(name);
    text_->showNode(name, view_->dark());
    const QString extra = steps_->historyHtml(name) + session_->inspectorExtra(name);
    inspector_->inspect(*view_, name, text_->line(), extra);
}

void MainWindow::updateCrumbs(const QString& node)
{
    const GroupTree* tree = view_->tree();
    if (!tree) {
        crumbs_->setText(tr("<i>no graph</i>"));
        return;
    }
    const auto g = view_->prepared();
    // the link colour of the current palette (a label keeps the one of when its text was set)
    const QString link = QApplication::palette().color(QPalette::Link).name();
    QString html = QStringLiteral("<a style=\"color:%2\" href=\"group:0\">%1</a>")
                       .arg(graphTitle(*g->source, g->artifactId).toHtmlEscaped(), link);
    const NodeId id = node.isEmpty() ? kNoNode : tree->graph().findByName(node.toStdString());
    if (id != kNoNode) {
        for (int k : tree->chain(tree->groupOf(id)))
            if (k > 0)
                html += QStringLiteral(" &rsaquo; <a style=\"color:%3\" href=\"group:%1\">%2</a>")
                            .arg(k)
                            .arg(QString::fromStdString(tree->group(k).label).toHtmlEscaped(), link);
        html += QStringLiteral(" &rsaquo; <b>%1</b>").arg(node.toHtmlEscaped());
    }
    crumbs_->setText(html);
}

QString MainWindow::breadcrumbText() const
{
    QTextDocument doc;
    doc.setHtml(crumbs_->text());
    return doc.toPlainText();
}

// ------------------------------------------------------------------ text, find, walk, trace

QString MainWindow::originalText() const { return text_->text(); }
int MainWindow::originalLine() const { return text_->line(); }
QTreeView* MainWindow::sourceView() const { return sourcesPanel_->tree(); }
SearchResultsModel* MainWindow::searchModel() const { return find_->results(); }
int MainWindow::find(const QString& query) { return find_->find(query); }
void MainWindow::findNext(int step) { find_->findNext(step); }
QString MainWindow::findStatus() const { return find_->status(); }
bool MainWindow::walkProducer() { return nav_->walkProducer(); }
bool MainWindow::walkConsumer() { return nav_->walkConsumer(); }
bool MainWindow::walkNext(int step) { return nav_->walkNext(step); }
size_t MainWindow::traceUpstream() { return nav_->traceUpstream(); }
size_t MainWindow::traceDownstream() { return nav_->traceDownstream(); }
void MainWindow::clearTrace() { nav_->clearTrace(); }

// ------------------------------------------------------------------ theme, errors, events

void MainWindow::setTheme(Theme t) { viewMenu_->setTheme(t); }

void MainWindow::applyTheme(bool dark)
{
    view_->setDark(dark);
    snapshots_->setDark(dark);
    overview_->update();
    // rich texts keep the link colour of when they were set: set them again
    updateCrumbs(view_->selected());
    if (!view_->selected().isEmpty()) inspect(view_->selected());
    legend_->update();
}

QString MainWindow::inspectorText() const { return inspector_->text(); }
QString MainWindow::inspectorHtml() const { return inspector_->html(); }
QString MainWindow::statusText() const { return status_->text(); }

void MainWindow::showError(const QString& text)
{
    lastError_ = text;
    status_->setText(text.section(QLatin1Char('\n'), 0, 0));
    if (!quietErrors_) QMessageBox::warning(this, tr("fxlens"), text);
}

void MainWindow::closeEvent(QCloseEvent* e)
{
    QSettings settings(QStringLiteral("fxlens"), QStringLiteral("fxlens"));
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("window/state"), saveState());
    session_->close();  // the last view, so that the workspace reopens here
    QMainWindow::closeEvent(e);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* e)
{
    if (e->mimeData()->hasUrls()) e->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* e)
{
    for (const QUrl& u : e->mimeData()->urls())
        if (u.isLocalFile()) open(u.toLocalFile());
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
                  << "Draw the graph instead: fxlens render FILE --out view.png; see fxlens --help for the verbs.\n"
                  << "The bundled example: " << bundledExamplesDir().toStdString() << "/gpt2_tiny.joint.code.py\n";
        return 1;
    }
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("fxlens"));
    QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
    // custom operators (docs/custom_ops.md): the ops files of the setting "ops/files", loaded
    // before any graph, as the CLI's --ops; one with a mistake is reported and skipped
    QStringList opsErrors;
    const QStringList opsFiles =
        QSettings(QStringLiteral("fxlens"), QStringLiteral("fxlens")).value(QStringLiteral("ops/files")).toStringList();
    for (const QString& p : opsFiles) {
        try {
            loadOpsFile(p.toStdString());
        } catch (const std::exception& e) {
            opsErrors << QString::fromStdString(e.what());
        }
    }
    MainWindow w;
    w.show();
    if (!opsErrors.isEmpty())
        QTimer::singleShot(0, &w, [&w, opsErrors] {
            QMessageBox::warning(&w, QObject::tr("fxlens"),
                                 QObject::tr("Ops files (setting ops/files) not loaded:\n") + opsErrors.join('\n'));
        });
    if (files.empty()) {
        QTimer::singleShot(0, &w, [&w] {
            const QString err = w.openExample(bundledExamplesDir());
            if (!err.isEmpty()) QMessageBox::warning(&w, QObject::tr("fxlens"), err);
        });
        return app.exec();
    }
    if (files.size() == 2 && looksLikePickle(files[0]) && looksLikePickle(files[1])) {
        // two CUDA memory snapshots: the first, compared with the second (`fxlens mem A --compare B`)
        const QString a = QString::fromStdString(files[0]), b = QString::fromStdString(files[1]);
        QTimer::singleShot(0, &w, [&w, a, b] {
            w.openSnapshot(a);
            w.waitIdle();
            if (w.snapshotPanel()->model()->snapshot()) w.snapshotPanel()->compareWith(b);
        });
        return app.exec();
    }
    if (files.size() == 2 && !std::filesystem::is_directory(files[0]) && !std::filesystem::is_directory(files[1])
        && !looksLikePickle(files[0]) && !looksLikePickle(files[1])) {
        // two graphs: their diff (heaptrack's -d), each also in the source tree
        const QString a = QString::fromStdString(files[0]), b = QString::fromStdString(files[1]);
        QTimer::singleShot(0, &w, [&w, a, b] {
            const QString err = w.openDiff(a, {}, b, {});
            if (!err.isEmpty()) QMessageBox::warning(&w, QObject::tr("fxlens"), err);
        });
        return app.exec();
    }
    for (const std::string& f : files) w.open(QString::fromStdString(f));
    return app.exec();
}

}  // namespace fxl::viewer
