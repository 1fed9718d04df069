// The run panel: execute the graph of the step shown, or check it against the step before or
// against the input graph, on a chosen backend (the list says which are compiled in and usable,
// and why not), with the inputs of the graph's sidecar or generated from a seed; progress and
// cancel; the equivalence report as a table per output (bitwise, max abs, max ULP, differing
// count, first differing index with both values) with a filter for the rows that are not
// bitwise equal. The runs themselves are viewer/jobs/run_jobs.hpp's.
#pragma once

#include <QWidget>

#include <memory>

#include "viewer/jobs/run_jobs.hpp"

class QCheckBox;
class QComboBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTableView;

namespace fxl::viewer {

class EquivalenceModel;

class RunPanel : public QWidget
{
    Q_OBJECT

public:
    enum class Against
    {
        Previous,  // the step before
        Input,  // the input graph (step 0)
        Nothing,  // run the step alone
        EagerChunking,  // eager chunking of the step before (a chunk pass's step)
        OnCpu,  // the same step on the CPU reference (the step run on the chosen device)
    };
    explicit RunPanel(QWidget* parent = nullptr);

    Against against() const;
    void setAgainst(Against a);
    std::string backend() const;
    bool sidecarInputs() const;
    uint64_t seed() const;
    void setSeed(uint64_t seed);
    // Starts a run (the window fills in the graphs); the outcome arrives with finished().
    void start(RunRequest r);
    void cancel();
    bool busy() const;
    std::shared_ptr<const RunOutcome> outcome() const { return outcome_; }
    EquivalenceModel* table() const { return model_; }
    QString summaryText() const;
    // Where the two runs diverge (runtime/check/localize.hpp): "" when they do not, or nothing ran.
    QString localizeText() const;
    void setOnlyDiffering(bool on);
    // Marks the result shown as stale, with why (the window knows: the pipeline changed, the
    // Diff tab shows other graphs, a workspace's check was of other steps); "" clears it.
    void setStale(const QString& why);
    QString staleText() const;
    bool stale() const;

signals:
    // Run was pressed: the window builds the request for the step shown.
    void runRequested(fxl::viewer::RunPanel::Against against);
    void finished(std::shared_ptr<const fxl::viewer::RunOutcome> outcome);
    // The link of the first divergence: show that node of the subject.
    void showNodeRequested(const QString& subjectNode);

private:
    RunJobs* jobs_;
    EquivalenceModel* model_;
    QComboBox* against_ = nullptr;
    QComboBox* backend_ = nullptr;
    QComboBox* inputs_ = nullptr;
    QSpinBox* seed_ = nullptr;
    QPushButton* run_ = nullptr;
    QPushButton* cancel_ = nullptr;
    QProgressBar* progress_ = nullptr;
    QLabel* summary_ = nullptr;
    QLabel* localize_ = nullptr;
    QLabel* stale_ = nullptr;
    QCheckBox* onlyDiffering_ = nullptr;
    QTableView* view_ = nullptr;
    std::shared_ptr<const RunOutcome> outcome_;

    void show(std::shared_ptr<const RunOutcome> o);
};

}  // namespace fxl::viewer
