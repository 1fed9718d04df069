#include "viewer/widgets/pipeline_editor.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QCompleter>
#include <QDoubleValidator>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QIntValidator>
#include <QLabel>
#include <QLineEdit>
#include <QListView>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QStringListModel>
#include <QTableView>
#include <QVBoxLayout>

#include "core/ir/diagnostics.hpp"
#include "core/util/format.hpp"
#include "passes/pass.hpp"
#include "viewer/jobs/step_jobs.hpp"
#include "viewer/model/pipeline_model.hpp"
#include "viewer/model/step_list_model.hpp"

namespace fxl::viewer {

namespace {

// Completes the item being typed: the whole text, or in a list ("a;b") the part after the last
// ';' (the items before it kept).
class ItemCompleter : public QCompleter
{
public:
    ItemCompleter(const QStringList& items, bool list, QLineEdit* edit)
        : QCompleter(new QStringListModel(items, edit), edit)
        , edit_(edit)
        , list_(list)
    {
        setCaseSensitivity(Qt::CaseInsensitive);
        setFilterMode(Qt::MatchContains);
    }
    QStringList splitPath(const QString& path) const override
    {
        return {list_ ? path.section(QLatin1Char(';'), -1).trimmed() : path};
    }
    QString pathFromIndex(const QModelIndex& index) const override
    {
        const QString item = QCompleter::pathFromIndex(index);
        if (!list_) return item;
        const QString text = edit_->text();
        const int cut = text.lastIndexOf(QLatin1Char(';'));
        return cut < 0 ? item : text.left(cut + 1) + item;
    }

private:
    QLineEdit* edit_;
    bool list_;
};

}  // namespace

PipelineEditor::PipelineEditor(StepRunner* runner, QWidget* parent)
    : QWidget(parent)
    , runner_(runner)
    , pipeline_(new PipelineModel(this))
    , steps_(new StepListModel(this))
{
    // the picker says what each pass does ("dce: ..."); Add takes the pass name (its data)
    passes_ = new QComboBox(this);
    passes_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    passes_->setMinimumContentsLength(12);
    for (const auto& p : PassRegistry::instance().all()) {
        passes_->addItem(QString::fromStdString(p->name() + ": " + p->summary()), QString::fromStdString(p->name()));
        passes_->setItemData(passes_->count() - 1, QString::fromStdString(p->description()), Qt::ToolTipRole);
    }
    auto* add = new QPushButton(tr("Add"), this);
    add->setToolTip(tr("Add the pass at the end of the pipeline"));
    saved_ = new QComboBox(this);
    saved_->setEditable(true);
    saved_->setInsertPolicy(QComboBox::NoInsert);
    saved_->lineEdit()->setPlaceholderText(tr("pipeline name"));
    saved_->addItems(savedPipelines());
    saved_->setCurrentIndex(-1);
    auto* save = new QPushButton(tr("Save"), this);
    save->setToolTip(tr("Save the pipeline under this name"));

    stageView_ = new QListView(this);
    stageView_->setModel(pipeline_);
    stageView_->setSelectionMode(QAbstractItemView::SingleSelection);
    stageView_->setMaximumHeight(90);
    auto* up = new QPushButton(tr("Up"), this);
    auto* down = new QPushButton(tr("Down"), this);
    auto* remove = new QPushButton(tr("Remove"), this);

    specEdit_ = new QLineEdit(this);
    specEdit_->setPlaceholderText(tr("pipeline spec, e.g. remove_detach,sac(policy=alternate_mm),remat,dce"));
    message_ = new QLabel(this);
    message_->setWordWrap(true);
    message_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    optionsBox_ = new QGroupBox(tr("Options"), this);
    optionsForm_ = new QFormLayout(optionsBox_);
    // a pass with many options scrolls inside its box: the panel (and the window) keeps its size
    auto* optionsScroll = new QScrollArea(this);
    optionsScroll->setWidget(optionsBox_);
    optionsScroll->setWidgetResizable(true);
    optionsScroll->setFrameShape(QFrame::NoFrame);
    optionsScroll->setMaximumHeight(170);
    optionsScroll->setMinimumHeight(60);

    run_ = new QPushButton(tr("Run"), this);
    // Ctrl+Return is the window's Passes > Run the pipeline (one binding: a second one on this
    // button made the key ambiguous, and it ran nothing)
    run_->setToolTip(tr("Run the pipeline on the graph shown (Ctrl+Return)"));
    cancel_ = new QPushButton(tr("Cancel"), this);
    cancel_->setEnabled(false);

    stepView_ = new QTableView(this);
    stepView_->setModel(steps_);
    stepView_->setSelectionBehavior(QAbstractItemView::SelectRows);
    stepView_->setSelectionMode(QAbstractItemView::SingleSelection);
    stepView_->verticalHeader()->hide();
    stepView_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    stepView_->horizontalHeader()->setStretchLastSection(true);
    stepView_->verticalHeader()->setDefaultSectionSize(22);
    stepView_->setMinimumHeight(90);

    auto* rowAdd = new QHBoxLayout;
    rowAdd->addWidget(passes_, 1);
    rowAdd->addWidget(add);
    auto* rowSaved = new QHBoxLayout;
    rowSaved->addWidget(saved_, 1);
    rowSaved->addWidget(save);
    auto* rowMove = new QHBoxLayout;
    rowMove->addWidget(up);
    rowMove->addWidget(down);
    rowMove->addWidget(remove);
    rowMove->addStretch(1);
    auto* rowRun = new QHBoxLayout;
    rowRun->addWidget(run_);
    rowRun->addWidget(cancel_);
    rowRun->addStretch(1);
    auto* l = new QVBoxLayout(this);
    l->setContentsMargins(4, 4, 4, 4);
    l->addLayout(rowSaved);
    l->addLayout(rowAdd);
    l->addWidget(stageView_);
    l->addLayout(rowMove);
    l->addWidget(specEdit_);
    l->addWidget(message_);
    l->addLayout(rowRun);  // above the options: a long form never moves Run
    l->addWidget(optionsScroll);
    l->addWidget(new QLabel(tr("<b>Steps</b> (Ctrl+Left / Ctrl+Right to step)"), this));
    l->addWidget(stepView_, 1);

    connect(add, &QPushButton::clicked, this, [this] {
        const int row = pipeline_->addStage(passes_->currentData().toString());
        stageView_->setCurrentIndex(pipeline_->index(row));
    });
    connect(remove, &QPushButton::clicked, this, [this] { pipeline_->removeStage(selectedStage()); });
    connect(up, &QPushButton::clicked, this, [this] {
        const int r = selectedStage();
        if (r <= 0) return;
        pipeline_->moveStage(r, r - 1);
        stageView_->setCurrentIndex(pipeline_->index(r - 1));
    });
    connect(down, &QPushButton::clicked, this, [this] {
        const int r = selectedStage();
        if (r < 0 || r + 1 >= pipeline_->count()) return;
        pipeline_->moveStage(r, r + 1);
        stageView_->setCurrentIndex(pipeline_->index(r + 1));
    });
    connect(save, &QPushButton::clicked, this, [this] { savePipeline(saved_->currentText()); });
    connect(saved_, &QComboBox::activated, this, [this](int i) { loadPipeline(saved_->itemText(i)); });
    connect(stageView_->selectionModel(), &QItemSelectionModel::currentChanged, this, [this] { rebuildOptions(); });
    connect(pipeline_, &PipelineModel::specChanged, this, [this](const QString& spec) {
        if (!updating_) specEdit_->setText(spec);
        QString errors;
        for (int r = 0; r < pipeline_->count(); ++r)
            if (!pipeline_->error(r).isEmpty())
                errors += tr("stage %1 (%2): %3\n").arg(r + 1).arg(pipeline_->pass(r), pipeline_->error(r));
        setMessage(errors.trimmed(), !errors.isEmpty());
        refreshSteps();
    });
    connect(pipeline_, &QAbstractItemModel::modelReset, this, [this] {
        // a new pipeline: its first stage's options show
        if (pipeline_->count() > 0) stageView_->setCurrentIndex(pipeline_->index(0));
        rebuildOptions();
    });
    // the spec as typed: checked at each key (the message says what is wrong, or that it is
    // not applied yet), applied by Return, by leaving the field and by Run
    connect(specEdit_, &QLineEdit::textEdited, this, [this](const QString& text) { checkTypedSpec(text); });
    // queued: leaving the field can be the window closing (the focus leaves as it hides), and
    // the panel must not rebuild its forms while it is taken down (a queued call to a deleted
    // receiver is dropped)
    connect(
        specEdit_, &QLineEdit::editingFinished, this, [this] { applyTypedSpec(); }, Qt::QueuedConnection);
    connect(run_, &QPushButton::clicked, this, [this] { run(); });
    connect(cancel_, &QPushButton::clicked, runner_, &StepRunner::cancel);
    connect(runner_, &StepRunner::stepAvailable, this, [this] { refreshSteps(); });
    connect(runner_, &StepRunner::stepsReset, this, [this] { refreshSteps(); });
    connect(runner_, &StepRunner::finished, this, [this](quint64, bool ok, const QString& message) {
        cancel_->setEnabled(false);
        refreshSteps();
        if (!ok) {
            setMessage(message, true);
            return;
        }
        double seconds = 0;
        for (const auto& s : runner_->steps()) seconds += s->passSeconds;
        const int made = static_cast<int>(runner_->steps().size()) - 1;
        setMessage(tr("%1 steps made, %2 in passes (%3 kept from the run before)")
                       .arg(made)
                       .arg(QString::fromStdString(formatDuration(seconds)))
                       .arg(std::max(0, runner_->stepsKept() - 1)),
                   false);
    });
    connect(stepView_, &QTableView::clicked, this, [this](const QModelIndex& i) {
        const int step = steps_->data(i, StepListModel::StepRole).toInt();
        if (step >= 0) emit stepChosen(step);
    });
}

QStringList PipelineEditor::savedPipelines() const
{
    QSettings s(QStringLiteral("fxlens"), QStringLiteral("fxlens"));
    s.beginGroup(QStringLiteral("pipelines"));
    return s.childKeys();
}

void PipelineEditor::savePipeline(const QString& name)
{
    const QString n = name.trimmed();
    if (n.isEmpty()) {
        setMessage(tr("name the pipeline to save it"), true);
        return;
    }
    QSettings s(QStringLiteral("fxlens"), QStringLiteral("fxlens"));
    s.setValue(QStringLiteral("pipelines/") + n, pipeline_->spec());
    if (saved_->findText(n) < 0) saved_->addItem(n);
    setMessage(tr("saved as '%1'").arg(n), false);
}

bool PipelineEditor::loadPipeline(const QString& name)
{
    QSettings s(QStringLiteral("fxlens"), QStringLiteral("fxlens"));
    const QVariant v = s.value(QStringLiteral("pipelines/") + name);
    if (!v.isValid()) {
        setMessage(tr("no pipeline named '%1'").arg(name), true);
        return false;
    }
    return setSpec(v.toString());
}

bool PipelineEditor::setSpec(const QString& spec)
{
    try {
        updating_ = true;
        pipeline_->setSpec(spec);
        updating_ = false;
        specEdit_->setText(pipeline_->spec());
        return true;
    } catch (const InputError& e) {
        updating_ = false;
        setMessage(QString::fromStdString(e.diagnostic().format()), true);
        return false;
    }
}

bool PipelineEditor::specPending() const { return specEdit_->text() != pipeline_->spec(); }

bool PipelineEditor::checkTypedSpec(const QString& text)
{
    if (text == pipeline_->spec()) {
        setMessage({}, false);
        return true;
    }
    try {
        parsePipelineSpec(text.toStdString());
        setMessage(tr("not applied yet: Return, Run or leaving the field applies it"), false);
        return true;
    } catch (const InputError& e) {
        setMessage(QString::fromStdString(e.diagnostic().format()), true);
        return false;
    }
}

bool PipelineEditor::applyTypedSpec()
{
    if (!specPending()) return pipeline_->valid();
    const QString text = specEdit_->text();
    if (!checkTypedSpec(text)) return false;
    return setSpec(text);
}

bool PipelineEditor::run()
{
    if (!runner_->input()) {
        setMessage(tr("open a graph first"), true);
        return false;
    }
    // never run what is not on screen: the text typed is the pipeline (or, when it is wrong,
    // nothing runs and the message says why)
    if (specPending() && !applyTypedSpec()) return false;
    if (!pipeline_->valid()) {
        setMessage(tr("fix the stages' options first"), true);
        return false;
    }
    try {
        runner_->run(pipeline_->spec());
    } catch (const InputError& e) {
        setMessage(QString::fromStdString(e.diagnostic().format()), true);
        return false;
    }
    cancel_->setEnabled(true);
    setMessage(tr("running %1 stages").arg(pipeline_->count()), false);
    refreshSteps();
    return true;
}

QString PipelineEditor::message() const { return message_->text(); }

void PipelineEditor::setMessage(const QString& text, bool error)
{
    message_->setText(text);
    message_->setStyleSheet(error ? QStringLiteral("color: #c02020") : QString());
}

int PipelineEditor::selectedStage() const
{
    const QModelIndex i = stageView_->currentIndex();
    return i.isValid() ? i.row() : -1;
}

void PipelineEditor::setCurrentStep(int index)
{
    current_ = index;
    if (index >= 0 && index < steps_->rowCount()) stepView_->selectRow(index);
}

void PipelineEditor::refreshSteps()
{
    QStringList stages;
    // the stages the runner is making (or made), else the pipeline as edited
    const bool running = runner_->busy();
    for (int r = 0; r < pipeline_->count(); ++r) stages << pipeline_->stageText(r);
    steps_->setSteps(runner_->steps(), stages, running);
    if (current_ >= 0 && current_ < steps_->rowCount()) stepView_->selectRow(current_);
}

void PipelineEditor::rebuildOptions()
{
    while (optionsForm_->rowCount() > 0) optionsForm_->removeRow(0);
    const int row = selectedStage();
    const Pass* pass = row >= 0 ? PassRegistry::instance().find(pipeline_->pass(row).toStdString()) : nullptr;
    if (!pass) {
        optionsBox_->setTitle(tr("Options"));
        return;
    }
    optionsBox_->setTitle(tr("Options of %1").arg(QString::fromStdString(pass->name())));
    optionsBox_->setToolTip(QString::fromStdString(pass->description()));
    auto* summary = new QLabel(QString::fromStdString(pass->summary()), this);
    summary->setWordWrap(true);
    summary->setStyleSheet(QStringLiteral("color: gray"));
    optionsForm_->addRow(summary);
    const auto& given = pipeline_->options(row);
    if (pass->options().empty()) optionsForm_->addRow(new QLabel(tr("(no options)")));
    for (const PassOption& o : pass->options()) {
        const QString name = QString::fromStdString(o.name);
        const auto it = given.find(o.name);
        const QString value = QString::fromStdString(it != given.end() ? it->second : o.defaultValue);
        const QString def = QString::fromStdString(o.defaultValue);
        const QString tip = QStringLiteral("%1 (%2, default %3)")
                                .arg(QString::fromStdString(o.help), QString::fromLatin1(optionTypeName(o.type).data()),
                                     def.isEmpty() ? tr("empty") : def);
        QWidget* editor = nullptr;
        // the value is stored only when it differs from the default (the spec stays short)
        auto set = [this, row, name, def](const QString& v) {
            updating_ = false;
            pipeline_->setOption(row, name, v == def ? QString() : v);
        };
        switch (o.type) {
        case OptionType::Bool: {
            auto* c = new QCheckBox(this);
            c->setChecked(value == QLatin1String("true") || value == QLatin1String("1"));
            connect(c, &QCheckBox::toggled, this,
                    [set](bool on) { set(on ? QStringLiteral("true") : QStringLiteral("false")); });
            editor = c;
            break;
        }
        case OptionType::Enum: {
            auto* c = new QComboBox(this);
            for (const auto& ch : o.choices) c->addItem(QString::fromStdString(ch));
            c->setCurrentText(value);
            connect(c, &QComboBox::currentTextChanged, this, set);
            editor = c;
            break;
        }
        default: {
            auto* e = new QLineEdit(value, this);
            if (o.type == OptionType::Int) e->setValidator(new QIntValidator(e));
            if (o.type == OptionType::Float) e->setValidator(new QDoubleValidator(e));
            if (o.type == OptionType::StringList) e->setPlaceholderText(tr("a;b;c"));
            // an option that names modules offers the graph's module paths and their families
            if (optionNamesModules(o) && runner_->input() && runner_->input()->graph) {
                auto* c = new ItemCompleter(modulePathSuggestions(*runner_->input()->graph),
                                            o.type == OptionType::StringList, e);
                e->setCompleter(c);
            }
            connect(e, &QLineEdit::editingFinished, this, [set, e] { set(e->text()); });
            editor = e;
            break;
        }
        }
        editor->setToolTip(tip);
        editor->setObjectName(QStringLiteral("option_") + name);
        auto* label = new QLabel(QStringLiteral("%1 <span style='color:gray'>(%2)</span>")
                                     .arg(name, QString::fromLatin1(optionTypeName(o.type).data())),
                                 this);
        label->setToolTip(tip);
        optionsForm_->addRow(label, editor);
    }
}

}  // namespace fxl::viewer
