// The pipeline being edited: an ordered list of stages, each a registered pass with its option
// values, fed by the pass registry (passes/pass.hpp). Its spec text is what `fxlens passes run
// --pipeline` takes, so a pipeline built in the window runs the same headless. QtCore only.
//
// Rules:
//  P1 One row per stage, in order. DisplayRole: the stage's text ("sac(policy=alternate_mm)");
//     PassRole: the pass name; OptionsRole: a QVariantMap of the options given (name -> text);
//     ErrorRole: why the stage's options are not valid ("" when they are). A stage keeps only
//     the options given explicitly; the others take the pass's defaults.
//  P2 spec() joins the stages' texts with ","; setSpec() parses a spec (parsePipelineSpec: an
//     InputError with the column for a syntax error, an unknown pass or a bad option) and
//     replaces every stage, or changes nothing when it throws.
//  P3 Options are checked when set (resolveOptions, then the pass's checkOptions): a bad value
//     is kept (so the user sees it and can fix it) and its row carries the error; valid() is
//     false while any row has one.
#pragma once

#include <QAbstractListModel>
#include <QString>
#include <QVariantMap>

#include <map>
#include <string>
#include <vector>

namespace fxl {
class Graph;
class PassRegistry;
struct PassOption;
}  // namespace fxl

namespace fxl::viewer {

class PipelineModel : public QAbstractListModel
{
    Q_OBJECT

public:
    enum Role
    {
        PassRole = Qt::UserRole + 1,
        OptionsRole,
        ErrorRole,
    };
    explicit PipelineModel(QObject* parent = nullptr);

    // P1: appends (row -1) or inserts a stage; throws std::invalid_argument for an unknown pass.
    int addStage(const QString& pass, const std::map<std::string, std::string>& options = {}, int row = -1);
    void removeStage(int row);
    // Moves a stage from `from` to position `to` (both row numbers before the move).
    void moveStage(int from, int to);
    // P3: sets one option ("" removes it: back to the default).
    void setOption(int row, const QString& name, const QString& value);
    void setOptions(int row, const std::map<std::string, std::string>& options);
    const std::map<std::string, std::string>& options(int row) const;
    QString pass(int row) const;
    QString stageText(int row) const;
    QString error(int row) const;

    QString spec() const;  // P2
    void setSpec(const QString& spec);  // P2: throws InputError
    bool valid() const;  // P3
    int count() const { return static_cast<int>(stages_.size()); }

    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;

    QString dump() const;  // one line per stage: "text" and "  error: ..." when invalid

signals:
    void specChanged(const QString& spec);

private:
    struct Stage
    {
        std::string pass;
        std::map<std::string, std::string> options;
        std::string error;
    };
    const PassRegistry& registry_;
    std::vector<Stage> stages_;

    void check(Stage& s) const;
    static std::string textOf(const Stage& s);
};

// What an option naming modules (its help says "module path") is offered as the user types: the
// graph's module paths at every depth ("blocks", "blocks.0", "blocks.0.attn") and, where a
// component is a number, the pattern of the family ("blocks.*", "blocks.*.attn"), sorted, at
// most `limit`.
QStringList modulePathSuggestions(const Graph& g, int limit = 2000);
// True for an option whose value names modules (chunk_region's regions, annotate_regions' prefix).
bool optionNamesModules(const PassOption& o);

}  // namespace fxl::viewer
