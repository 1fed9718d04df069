#include "viewer/widgets/text_panel.hpp"

#include <QFileInfo>
#include <QLabel>
#include <QPainter>
#include <QPlainTextEdit>
#include <QRegularExpression>
#include <QTextBlock>
#include <QVBoxLayout>

#include "viewer/jobs/view_jobs.hpp"
#include "viewer/model/node_search.hpp"

namespace fxl::viewer {

namespace {

// The editor with the file's line numbers in a margin at its left.
class NumberedText : public QPlainTextEdit
{
public:
    NumberedText(const TextPanel* panel, QWidget* parent)
        : QPlainTextEdit(parent)
        , panel_(panel)
        , margin_(new Margin(this))
    {
        connect(this, &QPlainTextEdit::blockCountChanged, this, [this] { updateWidth(); });
        connect(this, &QPlainTextEdit::updateRequest, this, [this](const QRect& r, int dy) {
            if (dy)
                margin_->scroll(0, dy);
            else
                margin_->update(0, r.y(), margin_->width(), r.height());
        });
        updateWidth();
    }

    int marginWidth() const
    {
        const int last = panel_->firstFileLine() + std::max(1, blockCount());
        return 10 + fontMetrics().horizontalAdvance(QLatin1Char('9')) * static_cast<int>(QString::number(last).size());
    }

    void paintMargin(QPaintEvent* e)
    {
        QPainter p(margin_);
        p.fillRect(e->rect(), palette().color(QPalette::AlternateBase));
        p.setPen(palette().color(QPalette::PlaceholderText));
        QTextBlock block = firstVisibleBlock();
        int top = qRound(blockBoundingGeometry(block).translated(contentOffset()).top());
        const int first = panel_->firstFileLine();
        while (block.isValid() && top <= e->rect().bottom()) {
            const int bottom = top + qRound(blockBoundingRect(block).height());
            if (block.isVisible() && bottom >= e->rect().top())
                p.drawText(0, top, margin_->width() - 5, fontMetrics().height(), Qt::AlignRight,
                           QString::number(first + block.blockNumber()));
            block = block.next();
            top = bottom;
        }
    }

protected:
    void resizeEvent(QResizeEvent* e) override
    {
        QPlainTextEdit::resizeEvent(e);
        const QRect r = contentsRect();
        margin_->setGeometry(QRect(r.left(), r.top(), marginWidth(), r.height()));
    }

private:
    class Margin : public QWidget
    {
    public:
        explicit Margin(NumberedText* text)
            : QWidget(text)
            , text_(text)
        { }
        QSize sizeHint() const override { return {text_->marginWidth(), 0}; }

    protected:
        void paintEvent(QPaintEvent* e) override { text_->paintMargin(e); }

    private:
        NumberedText* text_;
    };
    const TextPanel* panel_;
    Margin* margin_;

    void updateWidth() { setViewportMargins(marginWidth(), 0, 0, 0); }
};

}  // namespace

QString TextPanel::nodeOfLine(const QString& line)
{
    // `name: "f32[4]" = ...` or `name = ...` (FX code), `%name : [...] = ...` (a graph listing)
    static const QRegularExpression code(QStringLiteral("^\\s*([A-Za-z_][A-Za-z0-9_]*)\\s*(:\\s*\"[^\"]*\"\\s*)?="));
    static const QRegularExpression listing(QStringLiteral("^\\s*%([A-Za-z_][A-Za-z0-9_]*)\\s*:"));
    for (const auto* re : {&listing, &code}) {
        const auto m = re->match(line);
        if (m.hasMatch()) return m.captured(1);
    }
    return {};
}

int TextPanel::firstFileLine() const { return payloadFirstLine_ + std::max(0, excerptFrom_); }

TextPanel::TextPanel(QWidget* parent)
    : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    label_ = new QLabel(this);
    label_->setContentsMargins(6, 2, 6, 2);
    text_ = new NumberedText(this, this);
    text_->setReadOnly(true);
    text_->setLineWrapMode(QPlainTextEdit::NoWrap);
    text_->setFont(QFont(QStringLiteral("DejaVu Sans Mono"), 9));
    layout->addWidget(label_);
    layout->addWidget(text_, 1);
    // a click on a line that defines a node selects it
    connect(text_, &QPlainTextEdit::cursorPositionChanged, this, [this] {
        if (settingText_) return;
        const QString node = nodeOfLine(text_->textCursor().block().text());
        if (!node.isEmpty()) emit nodeClicked(node);
    });
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
        settingText_ = true;
        text_->setPlainText(QString::fromUtf8(text.data() + pos, static_cast<qsizetype>(end - pos)));
        settingText_ = false;
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
        settingText_ = true;
        text_->setTextCursor(c);
        settingText_ = false;
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
