#include "viewer/widgets/diff_view.hpp"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

#include "viewer/model/change_list_model.hpp"
#include "viewer/render/scene_draw.hpp"
#include "viewer/widgets/graph_view.hpp"

namespace fxl::viewer {

namespace {

QString legendHtml(bool ulp)
{
    QString html;
    auto entry = [&](const Rgb& c, const QString& name) {
        html += QStringLiteral("<span style='background:%1'>&nbsp;&nbsp;&nbsp;</span>&nbsp;%2&nbsp;&nbsp;&nbsp;")
                    .arg(QString::fromStdString(c.hex()), name.toHtmlEscaped());
    };
    if (ulp) {
        const auto colours = ulpMarkColours();
        html += QObject::tr("values of the last run: ");
        for (uint8_t m = 1; m <= 4; ++m) entry(colours[m], QString::fromUtf8(ulpMarkName(m)));
        return html;
    }
    const auto colours = diffMarkColours();
    for (DiffMark m : {MarkAdded, MarkRemoved, MarkChanged, MarkRewired})
        entry(colours[m], QString::fromLatin1(diffMarkName(m)));
    return html;
}

std::set<std::string> openKeys(const GraphView* v)
{
    std::set<std::string> keys;
    if (!v->tree()) return keys;
    for (int k : v->expanded()) keys.insert(v->tree()->group(k).key);
    return keys;
}

}  // namespace

DiffView::DiffView(QWidget* parent)
    : QWidget(parent)
{
    // each side lays out on its own jobs: a layout of one side never makes the other's stale
    a_ = new GraphView(nullptr, this);
    b_ = new GraphView(nullptr, this);
    labelA_ = new QLabel(this);
    labelB_ = new QLabel(this);
    counts_ = new QLabel(this);
    status_ = new QLabel(this);
    legend_ = new QLabel(legendHtml(false), this);
    legend_->setTextFormat(Qt::RichText);
    // a narrow window wraps the counts and the legend and clips the titles and the status line:
    // their one-line widths would otherwise be the Diff tab's minimum, and push the window past
    // a small screen
    counts_->setWordWrap(true);
    legend_->setWordWrap(true);
    for (QLabel* l : {labelA_, labelB_, status_}) l->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);

    auto* sideA = new QWidget(this);
    auto* la = new QVBoxLayout(sideA);
    la->setContentsMargins(0, 0, 0, 0);
    la->addWidget(labelA_);
    la->addWidget(a_, 1);
    auto* sideB = new QWidget(this);
    auto* lb = new QVBoxLayout(sideB);
    lb->setContentsMargins(0, 0, 0, 0);
    lb->addWidget(labelB_);
    lb->addWidget(b_, 1);
    auto* split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(sideA);
    split->addWidget(sideB);
    split->setSizes({1000, 1000});  // equal halves
    split->setChildrenCollapsible(false);

    changes_ = new ChangeListModel(this);
    changesProxy_ = new QSortFilterProxyModel(this);
    changesProxy_->setSourceModel(changes_);
    changesProxy_->setFilterKeyColumn(ChangeListModel::ChangeColumn);
    changeTable_ = new QTableView(this);
    changeTable_->setModel(changesProxy_);
    changeTable_->setSelectionBehavior(QAbstractItemView::SelectRows);
    changeTable_->setSelectionMode(QAbstractItemView::SingleSelection);
    changeTable_->horizontalHeader()->setStretchLastSection(true);
    changeTable_->verticalHeader()->hide();
    // the change list's filter, as `fxlens diff` filters: a class, or the nodes only rewired
    // (their inputs come from another producer, nothing else changed)
    auto* filter = new QComboBox(this);
    filter->setObjectName(QStringLiteral("changeFilter"));
    filter->addItems({tr("all changes"), tr("added"), tr("removed"), tr("changed"), tr("rewired only")});
    connect(filter, &QComboBox::currentIndexChanged, this, [this](int i) {
        static const char* const names[] = {"", "added", "removed", "changed"};
        if (i == 4) {
            changesProxy_->setFilterKeyColumn(ChangeListModel::FieldsColumn);
            changesProxy_->setFilterRegularExpression(QStringLiteral("^inputs$"));
            return;
        }
        changesProxy_->setFilterKeyColumn(ChangeListModel::ChangeColumn);
        changesProxy_->setFilterFixedString(QString::fromLatin1(names[i]));
    });
    // fields left out of the comparison, as `fxlens diff --ignore` (a two-rank diff differs by
    // device alone): the diff is made again without them
    ignore_ = new QLineEdit(this);
    ignore_->setObjectName(QStringLiteral("ignoreFields"));
    ignore_->setPlaceholderText(tr("ignore fields, e.g. device,val"));
    ignore_->setToolTip(tr("Fields left out of the comparison, comma separated: op, target, args, kwargs, inputs, "
                           "val, device, val_known, module_path, source, recompute, ac_graph_id, custom, phase, "
                           "autograd_backward, desc, chunk, default, subgraph"));
    connect(ignore_, &QLineEdit::editingFinished, this, [this] { setIgnoredFields(ignore_->text()); });
    auto* changesPage = new QWidget(this);
    auto* lc = new QVBoxLayout(changesPage);
    lc->setContentsMargins(0, 0, 0, 0);
    lc->addWidget(filter);
    lc->addWidget(ignore_);
    lc->addWidget(changeTable_, 1);
    text_ = new QPlainTextEdit(this);
    text_->setReadOnly(true);
    text_->setLineWrapMode(QPlainTextEdit::NoWrap);
    text_->setFont(QFont(QStringLiteral("DejaVu Sans Mono"), 9));
    tabs_ = new QTabWidget(this);
    tabs_->addTab(changesPage, tr("Changes"));
    tabs_->addTab(text_, tr("Text diff"));
    connect(tabs_, &QTabWidget::currentChanged, this, [this](int i) {
        if (i == 1) textDiff();
    });

    // the two panes full height, the change list beside them (below them it left each pane a
    // strip of the window)
    auto* vsplit = new QSplitter(Qt::Horizontal, this);
    vsplit->addWidget(split);
    vsplit->addWidget(tabs_);
    vsplit->setStretchFactor(0, 4);
    vsplit->setStretchFactor(1, 1);
    vsplit->setChildrenCollapsible(true);

    // the switch between the diff's colours and the last run's (enabled once a run coloured it)
    colourBy_ = new QComboBox(this);
    colourBy_->addItems({tr("colour by change"), tr("colour by the run's ULP")});
    colourBy_->setObjectName(QStringLiteral("colourBy"));
    colourBy_->setEnabled(false);
    connect(colourBy_, &QComboBox::currentIndexChanged, this, [this](int i) {
        if ((i == 1) != byUlp_) setColouredByUlp(i == 1);
    });
    auto* top = new QHBoxLayout;
    top->addWidget(counts_, 1);
    top->addWidget(legend_);
    top->addWidget(colourBy_);
    auto* l = new QVBoxLayout(this);
    l->setContentsMargins(2, 2, 2, 2);
    l->addLayout(top);
    l->addWidget(vsplit, 1);
    l->addWidget(status_);

    connect(a_, &GraphView::nodeSelected, this, [this](const QString& n) { onSelected(n, false); });
    connect(b_, &GraphView::nodeSelected, this, [this](const QString& n) { onSelected(n, true); });
    connect(a_, &GraphView::viewportMoved, this, [this] { syncViewportFrom(false); });
    connect(b_, &GraphView::viewportMoved, this, [this] { syncViewportFrom(true); });
    connect(a_, &GraphView::viewChanged, this, [this] {
        syncExpansionFrom(false);
        updateMarks();
    });
    connect(b_, &GraphView::viewChanged, this, [this] {
        syncExpansionFrom(true);
        updateMarks();
    });
    connect(changeTable_, &QTableView::clicked, this,
            [this](const QModelIndex& i) { showChange(changesProxy_->mapToSource(i).row()); });
}

void DiffView::setGraphs(std::shared_ptr<const PreparedGraph> a, std::shared_ptr<const PreparedGraph> b,
                         std::shared_ptr<const GraphDiff> diff, const QString& labelA, const QString& labelB,
                         bool keepView)
{
    if (a && b && !ignored_.empty()) {
        // the fields the user left out stay left out for the next graphs
        DiffOptions o;
        o.ignoreFields = ignored_;
        diff = std::make_shared<GraphDiff>(diffGraphs(*a->graph, *b->graph, o));
    }
    if (!diff && a && b) diff = std::make_shared<GraphDiff>(diffGraphs(*a->graph, *b->graph));
    ga_ = std::move(a);
    gb_ = std::move(b);
    diff_ = std::move(diff);
    nameA_ = labelA;
    nameB_ = labelB;
    lastKeys_[0].clear();
    lastKeys_[1].clear();
    syncing_ = true;
    a_->setGraph(ga_, keepView);
    b_->setGraph(gb_, keepView);
    syncing_ = false;
    byUlp_ = false;
    ulpA_.clear();
    ulpB_.clear();
    colourBy_->setCurrentIndex(0);
    colourBy_->setEnabled(false);
    legend_->setText(legendHtml(false));
    updateMarks();
    labelA_->setText(QStringLiteral("<b>%1</b>").arg(labelA.toHtmlEscaped()));
    labelB_->setText(QStringLiteral("<b>%1</b>").arg(labelB.toHtmlEscaped()));
    changes_->setDiff(diff_.get());
    counts_->setText(countsText());
    status_->clear();
    textMade_ = false;
    text_->clear();
    if (tabs_->currentIndex() == 1) textDiff();
}

void DiffView::clear() { setGraphs(nullptr, nullptr, nullptr, {}, {}); }

QString DiffView::countsText() const
{
    if (!diff_) return {};
    const DiffCounts c = diff_->totalCounts();
    return tr("<b>+%1 added, \u2212%2 removed, %3 changed</b>, %4 unchanged; %5 rewired edges")
        .arg(c.added)
        .arg(c.removed)
        .arg(c.changed)
        .arg(c.unchanged)
        .arg(c.rewired);
}

void DiffView::updateMarks(bool force)
{
    if (!diff_) return;
    // marks are set again whenever a side shows a new layout of a new graph (setGraph clears them)
    if (ga_ && (force || a_->nodeMarks().empty()))
        a_->setMarks(byUlp_ ? ulpMarks(*ga_->graph, ulpA_) : diffMarks(*diff_, *ga_->graph, false),
                     byUlp_ ? ulpMarkColours() : diffMarkColours());
    if (gb_ && (force || b_->nodeMarks().empty()))
        b_->setMarks(byUlp_ ? ulpMarks(*gb_->graph, ulpB_) : diffMarks(*diff_, *gb_->graph, true),
                     byUlp_ ? ulpMarkColours() : diffMarkColours());
}

void DiffView::setUlp(std::map<std::string, uint64_t> a, std::map<std::string, uint64_t> b)
{
    ulpA_ = std::move(a);
    ulpB_ = std::move(b);
    colourBy_->setEnabled(true);
    setColouredByUlp(true);
}

void DiffView::clearUlp()
{
    ulpA_.clear();
    ulpB_.clear();
    setColouredByUlp(false);
    colourBy_->setEnabled(false);
}

void DiffView::setColouredByUlp(bool on)
{
    on = on && (!ulpA_.empty() || !ulpB_.empty());
    byUlp_ = on;
    if (colourBy_->currentIndex() != (on ? 1 : 0)) colourBy_->setCurrentIndex(on ? 1 : 0);
    legend_->setText(legendHtml(on));
    updateMarks(true);
}

QString DiffView::syncStatus() const { return status_->text(); }

bool DiffView::setIgnoredFields(const QString& fields)
{
    std::set<std::string> ignore;
    for (const QString& f : fields.split(QLatin1Char(','), Qt::SkipEmptyParts))
        ignore.insert(f.trimmed().toStdString());
    if (ignore_->text() != fields) ignore_->setText(fields);
    if (ignore == ignored_) return true;
    static const std::set<std::string> known = {
        "op",        "target",      "args",      "kwargs",      "inputs",
        "val",       "device",      "val_known", "module_path", "source",
        "recompute", "ac_graph_id", "custom",    "phase",       "autograd_backward",
        "desc",      "chunk",       "default",   "subgraph"};
    for (const std::string& f : ignore)
        if (!known.count(f)) {
            status_->setText(tr("no field named '%1' to ignore").arg(QString::fromStdString(f)));
            return false;
        }
    ignored_ = ignore;
    if (!ga_ || !gb_) return true;
    DiffOptions o;
    o.ignoreFields = ignored_;
    diff_ = std::make_shared<GraphDiff>(diffGraphs(*ga_->graph, *gb_->graph, o));
    changes_->setDiff(diff_.get());
    counts_->setText(countsText());
    textMade_ = false;
    if (tabs_->currentIndex() == 1) textDiff();
    updateMarks(true);
    status_->setText(ignored_.empty() ? QString() : tr("ignoring %1").arg(fields));
    return true;
}

bool DiffView::selectA(const QString& name) { return a_->showNode(name); }

bool DiffView::selectB(const QString& name) { return b_->showNode(name); }

void DiffView::onSelected(const QString& name, bool sideB)
{
    emit nodeSelected(name, sideB);
    if (syncing_ || !diff_ || !ga_ || !gb_) return;
    const Graph& from = sideB ? *gb_->graph : *ga_->graph;
    const Graph& to = sideB ? *ga_->graph : *gb_->graph;
    const NodeId id = from.findByName(name.toStdString());
    if (id == kNoNode) return;
    const NodeId other = sideB ? diff_->matchOfB(id) : diff_->matchOfA(id);
    const int row = changes_->rowOfName(name, sideB);
    if (row >= 0) {
        const QModelIndex i = changesProxy_->mapFromSource(changes_->index(row, 0));
        if (i.isValid()) changeTable_->selectRow(i.row());
    }
    if (other == kNoNode) {
        status_->setText(tr("'%1' has no counterpart in %2 (%3)")
                             .arg(name, sideB ? nameA_ : nameB_, sideB ? tr("added") : tr("removed")));
        return;
    }
    const QString otherName = QString::fromStdString(to.node(other).name);
    status_->setText(otherName == name ? tr("'%1' on both sides").arg(name)
                                       : tr("'%1' is '%2' in %3").arg(name, otherName, sideB ? nameA_ : nameB_));
    syncing_ = true;
    (sideB ? a_ : b_)->showNode(otherName);
    syncing_ = false;
}

void DiffView::syncViewportFrom(bool sideB)
{
    if (syncing_ || !syncViewport_ || !diff_) return;
    GraphView* from = sideB ? b_ : a_;
    GraphView* to = sideB ? a_ : b_;
    const PreparedView* fv = from->shown();
    const PreparedView* tv = to->shown();
    if (!fv || !tv || !from->graph() || !to->graph()) return;
    // the item nearest the centre of `from` that `to` shows too
    const QPointF c = from->visibleRect().center();
    double best = 1e300;
    QPointF target, offset;
    for (size_t k = 0; k < fv->view.items.size(); ++k) {
        const ViewItem& it = fv->view.items[k];
        int other = -1;
        if (it.kind == ItemKind::Node) {
            const NodeId o = sideB ? diff_->matchOfB(it.node) : diff_->matchOfA(it.node);
            if (o != kNoNode) other = tv->view.itemOfNode(o);
        } else if (it.kind == ItemKind::Group) {
            const int g = to->tree()->find(from->tree()->group(it.group).key);
            if (g >= 0) other = tv->view.itemOfGroup(g);
        }
        if (other < 0) continue;
        const Box& b = fv->layout.items[k];
        const QPointF centre(b.x + b.w / 2, b.y + b.h / 2);
        const double d = QLineF(centre, c).length();
        if (d < best) {
            best = d;
            const Box& ob = tv->layout.items[static_cast<size_t>(other)];
            target = QPointF(ob.x + ob.w / 2, ob.y + ob.h / 2);
            offset = c - centre;
        }
    }
    if (best == 1e300) return;
    syncing_ = true;
    if (std::abs(to->zoom() - from->zoom()) > 1e-9) to->setZoom(from->zoom());
    to->centreOnPoint(target + offset);
    syncing_ = false;
}

void DiffView::syncExpansionFrom(bool sideB)
{
    GraphView* from = sideB ? b_ : a_;
    GraphView* to = sideB ? a_ : b_;
    if (!from->tree() || !to->tree()) return;
    // carry across what changed on this side since its last layout: groups opened, groups
    // closed (by key; a key the other side lacks is left out). The other side's arrival then
    // carries back only what it already has, so nothing bounces.
    std::set<std::string>& last = lastKeys_[sideB ? 1 : 0];
    const std::set<std::string> keys = openKeys(from);
    if (keys == last) return;
    std::set<std::string> target = openKeys(to);
    for (const std::string& k : keys)
        if (!last.count(k)) target.insert(k);
    for (const std::string& k : last)
        if (!keys.count(k)) target.erase(k);
    last = keys;
    if (syncing_) return;
    std::set<int> groups;
    for (const std::string& key : target)
        if (const int g = to->tree()->find(key); g >= 0) groups.insert(g);
    if (groups == to->expanded()) return;
    syncing_ = true;
    to->setExpanded(groups);
    syncing_ = false;
}

void DiffView::showChange(int row)
{
    if (row < 0 || row >= changes_->rowCount()) return;
    const QString a = changes_->data(changes_->index(row, 0), ChangeListModel::NameARole).toString();
    const QString b = changes_->data(changes_->index(row, 0), ChangeListModel::NameBRole).toString();
    if (!b.isEmpty())
        selectB(b);
    else
        selectA(a);
}

QString DiffView::textDiff()
{
    if (!textMade_ && diff_ && ga_ && gb_) {
        DiffTextOptions o;
        o.aLabel = nameA_.toStdString();
        o.bLabel = nameB_.toStdString();
        text_->setPlainText(QString::fromStdString(diffToText(*diff_, *ga_->graph, *gb_->graph, o)));
        textMade_ = true;
    }
    return text_->toPlainText();
}

void DiffView::setDark(bool dark)
{
    a_->setDark(dark);
    b_->setDark(dark);
}

}  // namespace fxl::viewer
