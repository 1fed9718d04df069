#include "viewer/widgets/text_panel.hpp"

#include <QFileInfo>
#include <QLabel>
#include <QPlainTextEdit>
#include <QTextBlock>
#include <QVBoxLayout>

#include "viewer/jobs/view_jobs.hpp"
#include "viewer/model/node_search.hpp"

namespace fxl::viewer {

TextPanel::TextPanel(QWidget* parent)
    : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    label_ = new QLabel(this);
    label_->setContentsMargins(6, 2, 6, 2);
    text_ = new QPlainTextEdit(this);
    text_->setReadOnly(true);
    text_->setLineWrapMode(QPlainTextEdit::NoWrap);
    text_->setFont(QFont(QStringLiteral("DejaVu Sans Mono"), 9));
    layout->addWidget(label_);
    layout->addWidget(text_, 1);
}

void TextPanel::setGraph(std::shared_ptr<const PreparedGraph> g, bool dark)
{
    line_ = 0;
    graph_ = std::move(g);
    label_->clear();
    if (!graph_) {
        text_->clear();
        return;
    }
    if (!graph_->textError.empty())
        label_->setText(tr("the original text cannot be read: %1").arg(QString::fromStdString(graph_->textError)));
    const Artifact* a = graph_->source->find(graph_->artifactId);
    const bool inLog =
        graph_->source->format == SourceFormat::TorchTrace || graph_->source->format == SourceFormat::TorchTraceDir;
    payloadFirstLine_ = a && inLog ? static_cast<int>(a->line) + 1 : 1;
    excerptFrom_ = -1;
    showNode({}, dark);
}

void TextPanel::showNode(const QString& node, bool dark)
{
    constexpr int kLines = 1500;
    const auto g = graph_;
    static const std::string kNoText;
    const std::string& text = g ? g->text : kNoText;
    if (!g || text.empty()) {
        text_->clear();
        line_ = 0;
        return;
    }
    const int line = node.isEmpty() ? 0 : findNodeLine(text, node.toStdString());  // 1-based, 0 = none
    const int at = line > 0 ? line - 1 : 0;
    int from = std::max(0, at - kLines / 2);
    if (excerptFrom_ < 0 || at < excerptFrom_ || at >= excerptFrom_ + kLines - 100
        || (excerptFrom_ > 0 && at < excerptFrom_ + 100)) {
        // (re)cut the excerpt around the line
        size_t pos = 0;
        for (int l = 0; l < from && pos != std::string::npos; ++l) {
            pos = text.find('\n', pos);
            if (pos != std::string::npos) ++pos;
        }
        if (pos == std::string::npos) pos = text.size();
        size_t end = pos;
        int count = 0;
        while (end < text.size() && count < kLines) {
            end = text.find('\n', end);
            end = end == std::string::npos ? text.size() : end + 1;
            ++count;
        }
        text_->setPlainText(QString::fromUtf8(text.data() + pos, static_cast<qsizetype>(end - pos)));
        excerptFrom_ = from;
        const Artifact* a = g->source->find(g->artifactId);
        label_->setText(tr("%1, lines %2-%3%4")
                            .arg(QFileInfo(QString::fromStdString(a ? a->file : g->source->path)).fileName())
                            .arg(payloadFirstLine_ + from)
                            .arg(payloadFirstLine_ + from + count - 1)
                            .arg(payloadFirstLine_ > 1
                                     ? tr(" (payload of artifact %1)").arg(QString::fromStdString(g->artifactId))
                                     : QString()));
    } else {
        from = excerptFrom_;
    }
    line_ = line > 0 ? payloadFirstLine_ + at : 0;
    QList<QTextEdit::ExtraSelection> marks;
    if (line > 0) {
        const QTextBlock block = text_->document()->findBlockByNumber(at - excerptFrom_);
        QTextCursor c(block);
        text_->setTextCursor(c);
        text_->centerCursor();
        QTextEdit::ExtraSelection mark;
        mark.cursor = c;
        mark.format.setBackground(QColor(255, 200, 80, dark ? 90 : 140));
        mark.format.setProperty(QTextFormat::FullWidthSelection, true);
        marks << mark;
    }
    text_->setExtraSelections(marks);
}

QString TextPanel::text() const { return text_->toPlainText(); }

}  // namespace fxl::viewer
