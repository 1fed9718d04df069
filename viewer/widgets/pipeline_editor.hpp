// The pass stepper's panel: a pipeline editor fed by the pass registry (add, remove, reorder
// stages; each stage's options in a form with their types, defaults and help; the spec text,
// editable; pipelines saved by name), a Run / Cancel pair that runs it off the UI thread
// (viewer/jobs/step_jobs.hpp StepRunner), and the step list (viewer/model/step_list_model.hpp)
// with each step's change counts, verifier result, time and memory peak. Choosing a step in
// the list, or stepping (Ctrl+Left / Ctrl+Right in the window), emits stepChosen.
#pragma once

#include <QWidget>

class QComboBox;
class QFormLayout;
class QGroupBox;
class QLabel;
class QLineEdit;
class QListView;
class QPushButton;
class QTableView;

namespace fxl::viewer {

class PipelineModel;
class StepListModel;
class StepRunner;

class PipelineEditor : public QWidget
{
    Q_OBJECT

public:
    PipelineEditor(StepRunner* runner, QWidget* parent = nullptr);

    PipelineModel* pipeline() const { return pipeline_; }
    StepListModel* stepList() const { return steps_; }
    QTableView* stepView() const { return stepView_; }
    QListView* stageView() const { return stageView_; }
    QLineEdit* specEdit() const { return specEdit_; }
    QGroupBox* optionsBox() const { return optionsBox_; }
    QPushButton* runButton() const { return run_; }

    // Sets the pipeline from a spec; false (and the message in the panel) when it is bad.
    bool setSpec(const QString& spec);
    // Runs the pipeline on the runner's input; false (with the message) when it cannot start.
    bool run();
    QString message() const;
    // The spec field differs from the pipeline (typed, not applied yet).
    bool specPending() const;
    // Applies the spec field's text when it differs; false (with the message) when it is wrong.
    bool applyTypedSpec();
    // Named pipelines (QSettings "pipelines/NAME").
    void savePipeline(const QString& name);
    bool loadPipeline(const QString& name);
    QStringList savedPipelines() const;
    // Shows step `index` as the current one in the list.
    void setCurrentStep(int index);
    int currentStep() const { return current_; }

signals:
    void stepChosen(int index);

private:
    StepRunner* runner_;
    PipelineModel* pipeline_;
    StepListModel* steps_;
    QComboBox* passes_ = nullptr;
    QComboBox* saved_ = nullptr;
    QListView* stageView_ = nullptr;
    QLineEdit* specEdit_ = nullptr;
    QLabel* message_ = nullptr;
    QGroupBox* optionsBox_ = nullptr;
    QFormLayout* optionsForm_ = nullptr;
    QPushButton* run_ = nullptr;
    QPushButton* cancel_ = nullptr;
    QTableView* stepView_ = nullptr;
    int current_ = 0;
    bool updating_ = false;

    int selectedStage() const;
    // Checks a typed spec without applying it: the message says what is wrong, or that it is
    // not applied yet.
    bool checkTypedSpec(const QString& text);
    void rebuildOptions();
    void refreshSteps();
    void setMessage(const QString& text, bool error);
};

}  // namespace fxl::viewer
