#include "viewer/model/pipeline_model.hpp"

#include <algorithm>
#include <set>
#include <stdexcept>

#include "core/analysis/phases.hpp"
#include "core/ir/graph.hpp"
#include "passes/pass.hpp"

namespace fxl::viewer {

PipelineModel::PipelineModel(QObject* parent)
    : QAbstractListModel(parent)
    , registry_(PassRegistry::instance())
{ }

std::string PipelineModel::textOf(const Stage& s)
{
    if (s.options.empty()) return s.pass;
    std::string t = s.pass + "(";
    bool first = true;
    for (const auto& [k, v] : s.options) {
        t += (first ? "" : ",") + k + "=" + v;
        first = false;
    }
    return t + ")";
}

void PipelineModel::check(Stage& s) const
{
    s.error.clear();
    const Pass* p = registry_.find(s.pass);
    if (!p) {
        s.error = "unknown pass '" + s.pass + "'";
        return;
    }
    try {
        const PassOptions o = resolveOptions(p->options(), s.options);
        p->checkOptions(o);
    } catch (const std::invalid_argument& e) {
        s.error = e.what();
    }
}

int PipelineModel::addStage(const QString& pass, const std::map<std::string, std::string>& options, int row)
{
    if (!registry_.find(pass.toStdString())) throw std::invalid_argument("unknown pass '" + pass.toStdString() + "'");
    if (row < 0 || row > count()) row = count();
    Stage s{pass.toStdString(), options, {}};
    check(s);
    beginInsertRows({}, row, row);
    stages_.insert(stages_.begin() + row, std::move(s));
    endInsertRows();
    emit specChanged(spec());
    return row;
}

void PipelineModel::removeStage(int row)
{
    if (row < 0 || row >= count()) return;
    beginRemoveRows({}, row, row);
    stages_.erase(stages_.begin() + row);
    endRemoveRows();
    emit specChanged(spec());
}

void PipelineModel::moveStage(int from, int to)
{
    if (from < 0 || from >= count() || to < 0 || to >= count() || from == to) return;
    // Qt's destination is the row before which the moved row lands (in the old numbering)
    if (!beginMoveRows({}, from, from, {}, to > from ? to + 1 : to)) return;
    Stage s = std::move(stages_[static_cast<size_t>(from)]);
    stages_.erase(stages_.begin() + from);
    stages_.insert(stages_.begin() + to, std::move(s));
    endMoveRows();
    emit specChanged(spec());
}

void PipelineModel::setOptions(int row, const std::map<std::string, std::string>& options)
{
    if (row < 0 || row >= count()) return;
    Stage& s = stages_[static_cast<size_t>(row)];
    s.options = options;
    check(s);
    emit dataChanged(index(row), index(row));
    emit specChanged(spec());
}

void PipelineModel::setOption(int row, const QString& name, const QString& value)
{
    if (row < 0 || row >= count()) return;
    auto opts = stages_[static_cast<size_t>(row)].options;
    if (value.isEmpty())
        opts.erase(name.toStdString());
    else
        opts[name.toStdString()] = value.toStdString();
    setOptions(row, opts);
}

const std::map<std::string, std::string>& PipelineModel::options(int row) const
{
    return stages_.at(static_cast<size_t>(row)).options;
}

QString PipelineModel::pass(int row) const
{
    return row >= 0 && row < count() ? QString::fromStdString(stages_[static_cast<size_t>(row)].pass) : QString();
}

QString PipelineModel::stageText(int row) const
{
    return row >= 0 && row < count() ? QString::fromStdString(textOf(stages_[static_cast<size_t>(row)])) : QString();
}

QString PipelineModel::error(int row) const
{
    return row >= 0 && row < count() ? QString::fromStdString(stages_[static_cast<size_t>(row)].error) : QString();
}

QString PipelineModel::spec() const
{
    std::string s;
    for (const Stage& st : stages_) s += (s.empty() ? "" : ",") + textOf(st);
    return QString::fromStdString(s);
}

void PipelineModel::setSpec(const QString& spec)
{
    std::vector<Stage> stages;
    if (!spec.trimmed().isEmpty())
        for (const PipelineStage& ps : parsePipelineSpec(spec.toStdString(), registry_)) {
            Stage s{ps.pass, ps.raw, {}};
            check(s);
            stages.push_back(std::move(s));
        }
    beginResetModel();
    stages_ = std::move(stages);
    endResetModel();
    emit specChanged(this->spec());
}

bool PipelineModel::valid() const
{
    for (const Stage& s : stages_)
        if (!s.error.empty()) return false;
    return true;
}

int PipelineModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : count(); }

QVariant PipelineModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= count()) return {};
    const Stage& s = stages_[static_cast<size_t>(index.row())];
    switch (role) {
    case Qt::DisplayRole: return QString::fromStdString(textOf(s));
    case Qt::ToolTipRole:
        if (!s.error.empty()) return QString::fromStdString(s.error);
        if (const Pass* p = registry_.find(s.pass)) return QString::fromStdString(p->summary());
        return {};
    case PassRole: return QString::fromStdString(s.pass);
    case OptionsRole: {
        QVariantMap m;
        for (const auto& [k, v] : s.options) m.insert(QString::fromStdString(k), QString::fromStdString(v));
        return m;
    }
    case ErrorRole: return QString::fromStdString(s.error);
    default: return {};
    }
}

Qt::ItemFlags PipelineModel::flags(const QModelIndex& index) const
{
    return index.isValid() ? Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemNeverHasChildren : Qt::NoItemFlags;
}

QString PipelineModel::dump() const
{
    QString out;
    for (const Stage& s : stages_) {
        out += QString::fromStdString(textOf(s)) + QLatin1Char('\n');
        if (!s.error.empty()) out += QStringLiteral("  error: ") + QString::fromStdString(s.error) + QLatin1Char('\n');
    }
    return out;
}

QStringList modulePathSuggestions(const Graph& g, int limit)
{
    std::set<std::string> out;
    g.forEachNode([&](const Node& n) {
        const std::string path = nodeModulePath(n);
        if (path.empty()) return;
        std::string prefix, pattern;
        bool numbered = false;
        for (size_t from = 0; from <= path.size();) {
            const size_t dot = std::min(path.find('.', from), path.size());
            const std::string part = path.substr(from, dot - from);
            const bool number =
                !part.empty() && std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; });
            prefix += (prefix.empty() ? "" : ".") + part;
            pattern += (pattern.empty() ? "" : ".") + (number ? std::string("*") : part);
            numbered = numbered || number;
            out.insert(prefix);
            if (numbered) out.insert(pattern);
            from = dot + 1;
        }
    });
    QStringList list;
    for (const std::string& s : out) {
        if (list.size() >= limit) break;
        list << QString::fromStdString(s);
    }
    return list;
}

bool optionNamesModules(const PassOption& o)
{
    return (o.type == OptionType::String || o.type == OptionType::StringList)
        && (o.help.find("module path") != std::string::npos || o.help.find("module-path") != std::string::npos);
}

}  // namespace fxl::viewer
