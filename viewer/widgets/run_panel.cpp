#include "viewer/widgets/run_panel.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QTableView>
#include <QTextDocument>
#include <QVBoxLayout>

#include <cstring>

#include "core/util/format.hpp"
#include "viewer/model/equivalence_model.hpp"

namespace fxl::viewer {

RunPanel::RunPanel(QWidget* parent)
    : QWidget(parent)
    , jobs_(new RunJobs(this))
    , model_(new EquivalenceModel(this))
{
    against_ = new QComboBox(this);
    against_->addItems({tr("check against the step before"), tr("check against the input graph"), tr("run it alone"),
                        tr("check against eager chunking of the step before")});
    against_->addItem(tr("check on the CPU vs the device"));
    against_->setItemData(4,
                          tr("the step run on the chosen device (CUDA) and on the CPU reference, every output and node "
                             "value compared bitwise"),
                          Qt::ToolTipRole);
    against_->setItemData(3,
                          tr("for a chunk pass's step: the step before run once per chunk and combined (cat along the "
                             "chunk dim, sums in chunk order), as eager module-level chunking would"),
                          Qt::ToolTipRole);
    against_->setObjectName(QStringLiteral("against"));
    backend_ = new QComboBox(this);
    backend_->setObjectName(QStringLiteral("backend"));
    // long entries shown elided: the combos do not widen the window
    for (QComboBox* c : {against_, backend_}) {
        c->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        c->setMinimumContentsLength(26);
    }
    for (const BackendChoice& b : backendChoices()) {
        backend_->addItem(QString::fromStdString(b.label), QString::fromStdString(b.id));
        const int i = backend_->count() - 1;
        if (!b.available) {
            // listed, not choosable, with the reason
            if (auto* m = qobject_cast<QStandardItemModel*>(backend_->model())) m->item(i)->setEnabled(false);
            backend_->setItemText(i, QString::fromStdString(b.label) + tr(" (unavailable)"));
            backend_->setItemData(i, QString::fromStdString(b.why), Qt::ToolTipRole);
        }
    }
    inputs_ = new QComboBox(this);
    inputs_->addItems({tr("inputs: the graph's sidecar, else generated"), tr("inputs: generated from the seed")});
    seed_ = new QSpinBox(this);
    seed_->setRange(0, 1 << 30);
    seed_->setPrefix(tr("seed "));
    run_ = new QPushButton(tr("Run"), this);
    run_->setObjectName(QStringLiteral("run"));
    cancel_ = new QPushButton(tr("Cancel"), this);
    cancel_->setEnabled(false);
    progress_ = new QProgressBar(this);
    progress_->setRange(0, 1000);
    progress_->setMaximumWidth(200);
    progress_->hide();
    summary_ = new QLabel(tr("no run yet"), this);
    summary_->setWordWrap(true);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    stale_ = new QLabel(this);
    stale_->setWordWrap(true);
    stale_->setObjectName(QStringLiteral("stale"));
    stale_->hide();
    localize_ = new QLabel(this);
    localize_->setWordWrap(true);
    localize_->setTextInteractionFlags(Qt::TextBrowserInteraction);
    connect(localize_, &QLabel::linkActivated, this, [this](const QString& link) {
        if (link.startsWith(QLatin1String("node:"))) emit showNodeRequested(link.mid(5));
    });
    onlyDiffering_ = new QCheckBox(tr("only outputs that are not bitwise equal"), this);
    view_ = new QTableView(this);
    view_->setModel(model_);
    view_->verticalHeader()->hide();
    view_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    view_->horizontalHeader()->setStretchLastSection(true);
    view_->setSelectionBehavior(QAbstractItemView::SelectRows);

    auto* top = new QHBoxLayout;
    top->addWidget(against_);
    top->addWidget(backend_);
    top->addWidget(inputs_);
    top->addWidget(seed_);
    top->addWidget(run_);
    top->addWidget(cancel_);
    top->addWidget(progress_);
    top->addStretch(1);
    auto* l = new QVBoxLayout(this);
    l->setContentsMargins(4, 4, 4, 4);
    l->addLayout(top);
    l->addWidget(stale_);
    l->addWidget(summary_);
    l->addWidget(localize_);
    l->addWidget(onlyDiffering_);
    l->addWidget(view_, 1);

    connect(run_, &QPushButton::clicked, this, [this] { emit runRequested(against()); });
    connect(cancel_, &QPushButton::clicked, this, &RunPanel::cancel);
    connect(onlyDiffering_, &QCheckBox::toggled, model_, &EquivalenceModel::setOnlyDiffering);
    connect(jobs_, &RunJobs::progress, this, [this](quint64, qint64 done, qint64 total) {
        progress_->setValue(total > 0 ? static_cast<int>(done * 1000 / total) : 0);
    });
    connect(jobs_, &RunJobs::finished, this,
            [this](quint64, std::shared_ptr<const RunOutcome> o) { show(std::move(o)); });
}

RunPanel::Against RunPanel::against() const { return static_cast<Against>(against_->currentIndex()); }

void RunPanel::setAgainst(Against a) { against_->setCurrentIndex(static_cast<int>(a)); }

std::string RunPanel::backend() const { return backend_->currentData().toString().toStdString(); }

bool RunPanel::sidecarInputs() const { return inputs_->currentIndex() == 0; }

uint64_t RunPanel::seed() const { return static_cast<uint64_t>(seed_->value()); }

void RunPanel::setSeed(uint64_t seed) { seed_->setValue(static_cast<int>(seed)); }

bool RunPanel::busy() const { return jobs_->busy(); }

void RunPanel::setOnlyDiffering(bool on) { onlyDiffering_->setChecked(on); }

void RunPanel::start(RunRequest r)
{
    r.backend = backend();
    r.sidecarInputs = sidecarInputs();
    r.seed = seed();
    summary_->setText(r.reference
                          ? tr("running %1 and %2...")
                                .arg(QString::fromStdString(r.subjectLabel), QString::fromStdString(r.referenceLabel))
                          : tr("running %1...").arg(QString::fromStdString(r.subjectLabel)));
    progress_->setValue(0);
    progress_->show();
    run_->setEnabled(false);
    cancel_->setEnabled(true);
    jobs_->start(std::move(r));
}

void RunPanel::cancel() { jobs_->cancel(); }

void RunPanel::setStale(const QString& why)
{
    if (why.isEmpty()) {
        stale_->clear();
        stale_->hide();
        return;
    }
    stale_->setText(tr("<b style='color:#b35c00'>stale</b>: the result below is not the step's any more: %1. Run "
                       "checks it again.")
                        .arg(why.toHtmlEscaped()));
    stale_->show();
}

QString RunPanel::staleText() const
{
    QTextDocument d;
    d.setHtml(stale_->text());
    return d.toPlainText();
}

bool RunPanel::stale() const { return !stale_->isHidden() && !stale_->text().isEmpty(); }

QString RunPanel::summaryText() const { return summary_->text(); }

QString RunPanel::localizeText() const { return localize_->text(); }

void RunPanel::show(std::shared_ptr<const RunOutcome> o)
{
    outcome_ = o;
    setStale({});
    progress_->hide();
    run_->setEnabled(true);
    cancel_->setEnabled(false);
    const RunRequest& r = o->request;
    QString text;
    if (!o->ok) {
        text = o->cancelled
            ? tr("cancelled")
            : tr("<span style='color:#c02020'>failed: %1</span>").arg(QString::fromStdString(o->error).toHtmlEscaped());
        model_->clear();
    } else {
        const bool bitwise = o->bitwise();
        const QString verdict = !o->compared ? tr("ran")
            : bitwise                        ? tr("<b style='color:#1a8f3a'>bitwise equal</b>")
                                             : tr("<b style='color:#c02020'>not bitwise equal</b>");
        // the verdict once: "bitwise equal: 3 outputs", not "bitwise equal: bitwise equal: ..."
        QString counts = QString::fromStdString(o->summary());
        for (const char* head : {"bitwise equal: ", "ran: "})
            if (counts.startsWith(QLatin1String(head))) counts = counts.mid(static_cast<int>(strlen(head)));
        text = verdict + QStringLiteral(": ") + counts.toHtmlEscaped();
        text += tr("<br>%1 on %3%2; inputs %4")
                    .arg(QString::fromStdString(r.subjectLabel).toHtmlEscaped(),
                         o->compared ? tr(" against %1").arg(QString::fromStdString(r.referenceLabel).toHtmlEscaped())
                                     : QString(),
                         QString::fromStdString(r.backend), QString::fromStdString(o->inputsFrom).toHtmlEscaped());
        text += tr("<br>measured peak %1 at %2 on %4 (%3); the memory timeline's estimate %5")
                    .arg(QString::fromStdString(formatByteSize(o->subject.peakBytes)),
                         QString::fromStdString(o->subject.peakNode).toHtmlEscaped(),
                         QString::fromStdString(formatDuration(o->subject.seconds)), QString::fromStdString(r.backend),
                         QString::fromStdString(formatByteSize(o->subjectEstimatePeak)));
        if (r.eagerChunks)
            text += tr("<br>reference: eager chunking (%1) of %2")
                        .arg(QString::fromStdString(r.eagerChunks->str()).toHtmlEscaped(),
                             QString::fromStdString(r.referenceLabel).toHtmlEscaped());
        if (o->compared)
            model_->setReport(o->report, QString::fromStdString(r.subjectLabel),
                              QString::fromStdString(r.referenceLabel), o->outputNotes);
        else
            model_->clear();
    }
    summary_->setText(text);
    QString where;
    if (o->ok && o->localize) {
        const LocalizeReport& l = *o->localize;
        const auto& c = l.counts;
        if (const NodeValueDiff* f = l.first()) {
            where = tr("<b>first divergence: <a href=\"node:%1\">%1</a></b> (%2, #%3 of %4) ← %5 of %6: %7 of %8 "
                       "elements differ, max ULP %9")
                        .arg(QString::fromStdString(f->bName).toHtmlEscaped(),
                             QString::fromStdString(f->target).toHtmlEscaped())
                        .arg(f->bIndex)
                        .arg(QString::fromStdString(r.subjectLabel).toHtmlEscaped(),
                             QString::fromStdString(f->aName).toHtmlEscaped(),
                             QString::fromStdString(r.referenceLabel).toHtmlEscaped())
                        .arg(f->differing)
                        .arg(f->numel)
                        .arg(qulonglong(f->maxUlp));
            if (l.firstUncomparedInputs.empty()) {
                where += tr("; its inputs are all bitwise equal: the difference starts here");
            } else {
                QStringList in;
                for (const auto& u : l.firstUncomparedInputs)
                    in << QString::fromStdString(u.bName + " (" + u.reason + ")").toHtmlEscaped();
                where += tr("; inputs not compared: %1").arg(in.join(QStringLiteral(", ")));
            }
        } else {
            where = tr("no intermediate value differs");
        }
        where += tr("<br>%1 shared node values compared, %2 differ; %3 nodes without a counterpart")
                     .arg(c.compared)
                     .arg(c.differing)
                     .arg(c.unmatched);
        if (c.overBudget) where += tr(", %1 not kept (over the byte budget)").arg(c.overBudget);
    }
    localize_->setText(where);
    localize_->setVisible(!where.isEmpty());
    emit finished(o);
}

}  // namespace fxl::viewer
