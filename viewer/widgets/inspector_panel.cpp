#include "viewer/widgets/inspector_panel.hpp"

#include <QFileInfo>
#include <QRegularExpression>
#include <QTextBrowser>
#include <QVBoxLayout>

#include "core/formats/fx/fx_text_writer.hpp"
#include "core/ops/op_registry.hpp"
#include "viewer/model/view_graph.hpp"
#include "viewer/widgets/graph_view.hpp"

namespace fxl::viewer {

namespace {

QString qs(const std::string& s) { return QString::fromStdString(s); }
QString qs(std::string_view s) { return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size())); }

}  // namespace

InspectorPanel::InspectorPanel(QWidget* parent)
    : QWidget(parent)
{
    browser_ = new QTextBrowser(this);
    browser_->setOpenLinks(false);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(browser_);
    connect(browser_, &QTextBrowser::anchorClicked, this, [this](const QUrl& url) {
        const QString s = url.toString();
        if (s.startsWith(QLatin1String("node:")))
            emit nodeLinkActivated(s.mid(5));
        else if (s.startsWith(QLatin1String("step:")))  // step:N:role:name
            emit stepLinkActivated(s.section(QLatin1Char(':'), 1, 1).toInt(), s.section(QLatin1Char(':'), 2, 2),
                                   s.section(QLatin1Char(':'), 3));
        else if (s.startsWith(QLatin1String("group:")))
            emit groupLinkActivated(s.mid(6).toInt());
    });
}

void InspectorPanel::clear() { browser_->clear(); }
QString InspectorPanel::text() const { return browser_->toPlainText(); }
QString InspectorPanel::html() const { return browser_->toHtml(); }

void InspectorPanel::inspect(const GraphView& view, const QString& name, int textLine, const QString& extraHtml)
{
    const Graph* g = view.graph();
    if (!g) return;
    const NodeId id = g->findByName(name.toStdString());
    if (id == kNoNode) return;
    const Node& n = g->node(id);
    auto link = [&](NodeId p) {
        const QString pn = qs(g->node(p).name);
        return QStringLiteral("<a href=\"node:%1\">%1</a>").arg(pn.toHtmlEscaped());
    };
    QString html = QStringLiteral("<h3>%1</h3><table cellspacing=\"3\">").arg(name.toHtmlEscaped());
    auto row = [&](const QString& k, const QString& htmlValue) {
        html += QStringLiteral("<tr><td valign=\"top\"><b>%1</b></td><td>%2</td></tr>").arg(k, htmlValue);
    };
    auto text = [](const QString& s) { return s.toHtmlEscaped(); };
    row(tr("op"), text(qs(nodeOpName(n.op))));
    row(tr("target"), text(qs(n.target)));
    // arguments: each printed as in the graph's text, node references as links to their
    // producers, named by the operator's schema where it has one ("mat1=mm")
    const OpInfo* op = n.op == NodeOp::CallFunction ? OpRegistry::instance().find(n.target) : nullptr;
    QStringList args;
    for (size_t i = 0; i < n.args.size(); ++i) {
        const Arg& a = n.args[i];
        QString s = text(qs(formatArgPython(a, *g)));
        a.forEachNode([&](NodeId p) {
            const QString pn = qs(g->node(p).name).toHtmlEscaped();
            s.replace(QRegularExpression(QStringLiteral("\\b%1\\b").arg(QRegularExpression::escape(pn))), link(p));
        });
        if (op && !op->schema.varargs && i < op->schema.args.size() && !op->schema.args[i].name.empty())
            s = text(qs(op->schema.args[i].name)) + QStringLiteral("=") + s;
        args << s;
    }
    for (const auto& [k, a] : n.kwargs) args << text(qs(k)) + QStringLiteral("=") + text(qs(formatArgPython(a, *g)));
    row(tr("arguments"), args.join(QStringLiteral("<br>")));
    QStringList users;
    for (NodeId u : n.users) users << link(u);
    row(tr("users"), users.isEmpty() ? tr("(none)") : users.join(QStringLiteral(", ")));
    if (n.val.kind != ValueMeta::Kind::Unknown) row(tr("value"), text(qs(formatAnnotation(n.val))));
    if (n.val.isTensor()) {
        const TensorMeta& t = n.val.tensor;
        QStringList sizes, hints;
        bool symbolic = false;
        for (const SymInt& d : t.sizes) {
            sizes << qs(d.str());
            const auto v = d.maybeValue();
            hints << (v ? QString::number(*v) : QStringLiteral("?"));
            symbolic = symbolic || !d.isConcrete();
        }
        row(tr("sizes"), text(QStringLiteral("[") + sizes.join(QStringLiteral(", ")) + QStringLiteral("]")));
        if (symbolic)
            row(tr("size hints"), text(QStringLiteral("[") + hints.join(QStringLiteral(", ")) + QStringLiteral("]")));
        if (!t.strides.empty()) {
            QStringList st;
            for (const SymInt& d : t.strides) st << qs(d.str());
            row(tr("strides"), text(QStringLiteral("[") + st.join(QStringLiteral(", ")) + QStringLiteral("]")));
        }
        row(tr("dtype"), text(qs(dtypeAbbr(t.dtype))));
        if (!t.device.empty()) row(tr("device"), text(qs(t.device)));
        row(tr("bytes"), QString::number(t.bytesHint()));
    }
    const GroupTree* tree = view.tree();
    row(tr("phase"), text(QString::fromLatin1(phaseClassName(tree->phaseOf(id)))));
    row(tr("group"),
        QStringLiteral("<a href=\"group:%1\">%2</a>")
            .arg(tree->groupOf(id))
            .arg(text(qs(tree->group(tree->groupOf(id)).key))));
    if (!n.meta.modulePath.empty()) row(tr("module"), text(qs(n.meta.modulePath)));
    if (!n.meta.source.empty()) {
        row(tr("source"),
            text(qs(n.meta.source.file) + QStringLiteral(":") + QString::number(n.meta.source.line)
                 + (n.meta.source.function.empty() ? QString() : QStringLiteral(" in ") + qs(n.meta.source.function))));
        if (!n.meta.source.code.empty())
            row(tr("code"), QStringLiteral("<code>%1</code>").arg(text(qs(n.meta.source.code))));
    }
    if (n.meta.recompute != Recompute::None) row(tr("recompute"), text(qs(recomputeName(n.meta.recompute))));
    if (n.meta.acGraphId) row(tr("ac graph id"), QString::number(*n.meta.acGraphId));
    if (n.meta.phase != Phase::Unknown) row(tr("phase (meta)"), text(qs(phaseName(n.meta.phase))));
    if (n.meta.autogradBackward) row(tr("autograd_backward"), *n.meta.autogradBackward ? tr("True") : tr("False"));
    if (!n.meta.desc.empty()) row(tr("descriptor"), text(qs(n.meta.desc)));
    if (!n.meta.provenance.empty()) row(tr("provenance"), text(qs(n.meta.provenance)));
    if (!n.meta.chunk.is_null()) row(tr("chunk"), text(qs(n.meta.chunk.dump())));
    if (!n.meta.custom.is_null())
        row(tr("custom"), QStringLiteral("<code>%1</code>").arg(text(qs(n.meta.custom.dump()))));
    if (textLine > 0)
        row(tr("text"),
            text(QFileInfo(QString::fromStdString(view.prepared()->source->path)).fileName() + QStringLiteral(":")
                 + QString::number(textLine)));
    html += QStringLiteral("</table>");
    html += extraHtml;
    browser_->setHtml(html);
}

}  // namespace fxl::viewer
