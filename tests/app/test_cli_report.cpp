// fxlens report end to end (app/cli_report.cpp, viewer/render/html_report.hpp): the real binary
// on real graphs, the HTML it writes read back. The step table's counts are those of
// `fxlens diff --json` between the step files `fxlens passes run --out` writes for the same
// pipeline, its peaks those of `fxlens mem --json`; one decodable PNG per step graph; nothing
// external; --check finds the sac+remat pipeline bitwise; a failing pass still gives a report;
// an existing report is kept without --force; a bad spec names its column.
#include <QByteArray>
#include <QDir>
#include <QFileInfo>
#include <QImage>
#include <QJsonArray>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <map>

#include "cli_test_util.hpp"
#include "core/util/format.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_cli_report {

using namespace clitest;

namespace {

const QString kSacPipeline = QStringLiteral("remove_detach,sac(policy=alternate_mm),remat,dce");
// fails at stage 3: the second partition finds no joint graph
const QString kFailingPipeline = QStringLiteral("dce,partition,partition");

using clitest::describe;

// The inputs: the bundled test graph always, gpt2_tiny from the corpus (skipped or failed by the
// corpus rule when absent).
void addInputs()
{
    QTest::addColumn<QString>("input");
    QTest::addColumn<bool>("corpus");
    QTest::newRow("mlp_gelu") << QString::fromStdString(
        fxltest::testDataPath("pytorch/mlp_gelu.joint.code.py").string())
                              << false;
    QTest::newRow("gpt2_tiny") << QString::fromStdString(
        fxltest::corpusPath("pytorch/gpt2_tiny.joint.code.py").string())
                               << true;
}

#define FXL_FETCH_INPUT()                                                                                              \
    QFETCH(QString, input);                                                                                            \
    QFETCH(bool, corpus);                                                                                              \
    if (corpus) FXL_REQUIRE_CORPUS(input)

struct StepRow
{
    int step = -1;
    bool failed = false;
    qint64 added = 0, removed = 0, changed = 0, rewired = 0, peak = 0;
    QString check;
    QStringList cells;  // the visible texts
};

QString unescape(QString s)
{
    s.replace(QStringLiteral("&lt;"), QStringLiteral("<"));
    s.replace(QStringLiteral("&gt;"), QStringLiteral(">"));
    s.replace(QStringLiteral("&quot;"), QStringLiteral("\""));
    s.replace(QStringLiteral("&#39;"), QStringLiteral("'"));
    s.replace(QStringLiteral("&amp;"), QStringLiteral("&"));
    return s;
}

std::vector<StepRow> stepRows(const QString& html)
{
    static const QRegularExpression tr(QStringLiteral(
        "<tr class=\"step( failed)?\" data-step=\"(\\d+)\" data-added=\"(\\d+)\" data-removed=\"(\\d+)\" "
        "data-changed=\"(\\d+)\" data-rewired=\"(\\d+)\" data-peak-bytes=\"(\\d+)\" data-check=\"(\\w+)\">(.*)</tr>"));
    static const QRegularExpression td(QStringLiteral("<td[^>]*>(.*?)</td>"));
    static const QRegularExpression tag(QStringLiteral("<[^>]*>"));
    std::vector<StepRow> rows;
    for (auto it = tr.globalMatch(html); it.hasNext();) {
        const auto m = it.next();
        StepRow r;
        r.failed = !m.captured(1).isEmpty();
        r.step = m.captured(2).toInt();
        r.added = m.captured(3).toLongLong();
        r.removed = m.captured(4).toLongLong();
        r.changed = m.captured(5).toLongLong();
        r.rewired = m.captured(6).toLongLong();
        r.peak = m.captured(7).toLongLong();
        r.check = m.captured(8);
        for (auto c = td.globalMatch(m.captured(9)); c.hasNext();)
            r.cells << unescape(c.next().captured(1).remove(tag));
        rows.push_back(r);
    }
    return rows;
}

// step index -> the sizes of its timeline images, each decoded
std::map<int, std::vector<QSize>> timelineImages(const QString& html, QString& error)
{
    static const QRegularExpression img(
        QStringLiteral("<img class=\"timeline\" data-step=\"(\\d+)\" "
                       "data-role=\"([^\"]*)\"[^>]*src=\"data:image/png;base64,([^\"]*)\""));
    std::map<int, std::vector<QSize>> out;
    for (auto it = img.globalMatch(html); it.hasNext();) {
        const auto m = it.next();
        QImage image;
        if (!image.loadFromData(QByteArray::fromBase64(m.captured(3).toLatin1()), "PNG")) {
            error = QStringLiteral("step %1 [%2]: the PNG does not decode").arg(m.captured(1), m.captured(2));
            return {};
        }
        out[m.captured(1).toInt()].push_back(image.size());
    }
    return out;
}

QJsonObject jsonOf(const Run& r) { return parseJsonDoc(r.out); }

// The graph files (.py) of each step that `passes run --out` wrote, from its summary.
std::vector<QStringList> stepFiles(const QJsonObject& summary, const QString& dir)
{
    std::vector<QStringList> files;
    for (const auto& s : summary.value("steps").toArray()) {
        QStringList py;
        for (const auto& f : s.toObject().value("files").toArray())
            if (f.toString().endsWith(QLatin1String(".py"))) py << QDir(dir).filePath(f.toString());
        files.push_back(py);
    }
    return files;
}

// The file of the step before that a step's graph file was made from: the same role, else the
// only graph.
QString previousOf(const QString& file, const QStringList& before)
{
    if (before.size() == 1) return before.front();
    const QStringList parts = QFileInfo(file).fileName().split(QLatin1Char('.'));  // NN_pass.role.py
    for (const QString& b : before)
        if (parts.size() == 3 && QFileInfo(b).fileName().endsWith(QLatin1Char('.') + parts[1] + QStringLiteral(".py")))
            return b;
    return before.front();
}

// Every step row of `html` against the step files of `passes run` for the same pipeline: the
// diff counts summed over the step's graphs, the largest peak, one PNG per graph.
void compareWithStepFiles(const QString& input, const QString& pipeline, const QString& html, const QString& dir)
{
    const Run passes = fxlens({"passes", "run", input, "--pipeline", pipeline, "--out", dir, "--json"});
    QVERIFY2(!passes.crashed, qPrintable(describe(passes)));
    const std::vector<QStringList> files = stepFiles(jsonOf(passes), dir);
    QVERIFY(!files.empty());
    const std::vector<StepRow> rows = stepRows(html);
    QVERIFY2(rows.size() >= files.size(),
             qPrintable(QStringLiteral("%1 rows, %2 steps").arg(rows.size()).arg(files.size())));
    QString imageError;
    const auto images = timelineImages(html, imageError);
    QVERIFY2(imageError.isEmpty(), qPrintable(imageError));
    for (size_t i = 0; i < files.size(); ++i) {
        const StepRow& row = rows[i];
        QCOMPARE(row.step, int(i));
        QVERIFY(!row.failed);
        qint64 added = 0, removed = 0, changed = 0, rewired = 0, peak = 0;
        for (const QString& f : files[i]) {
            const Run mem = fxlens({"mem", f, "--json"});
            FXL_EXPECT_EXIT(mem, 0);
            peak = std::max<qint64>(
                peak, jsonOf(mem).value("timeline").toObject().value("peak").toObject().value("bytes").toInteger());
            // A partition's graphs are compared in memory only: its backward's placeholders for the
            // saved values carry their producer's name as provenance, which the written file leaves
            // out (core/formats/fx/summary_comment.cpp), so `fxlens diff` of the files cannot pair
            // them with the joint's nodes; the counts of those steps are checked against --json.
            if (i == 0 || files[i].size() > 1) continue;
            const Run diff = fxlens({"diff", previousOf(f, files[i - 1]), f, "--json"});
            FXL_EXPECT_EXIT(diff, 0);
            const QJsonObject c = jsonOf(diff).value("total_counts").toObject();
            added += c.value("added").toInteger();
            removed += c.value("removed").toInteger();
            changed += c.value("changed").toInteger();
            rewired += c.value("rewired").toInteger();
        }
        const QString what = QStringLiteral("step %1").arg(i);
        if (files[i].size() > 1) {
            QVERIFY2(row.removed > 0,
                     qPrintable(what + QStringLiteral(": a partition removes the other side's nodes")));
            added = row.added, removed = row.removed, changed = row.changed, rewired = row.rewired;
        }
        QVERIFY2(row.added == added && row.removed == removed && row.changed == changed && row.rewired == rewired,
                 qPrintable(what
                            + QStringLiteral(": report +%1 -%2 ~%3 rewired %4, fxlens diff +%5 -%6 ~%7 rewired %8")
                                  .arg(row.added)
                                  .arg(row.removed)
                                  .arg(row.changed)
                                  .arg(row.rewired)
                                  .arg(added)
                                  .arg(removed)
                                  .arg(changed)
                                  .arg(rewired)));
        QCOMPARE(row.peak, peak);
        // the visible cells: "N spec", the counts (none on the input), the peak as fxlens prints bytes
        QVERIFY2(row.cells.size() >= 9, qPrintable(row.cells.join(QLatin1Char('|'))));
        QVERIFY2(row.cells[0].startsWith(QString::number(i) + QLatin1Char(' ')), qPrintable(row.cells[0]));
        if (i > 0 && files[i].size() == 1) {
            QCOMPARE(row.cells[1], QString::number(added));
            QCOMPARE(row.cells[2], QString::number(removed));
            QCOMPARE(row.cells[3], QString::number(changed));
            QCOMPARE(row.cells[4], QString::number(rewired));
        }
        QCOMPARE(row.cells[7], QString::fromStdString(fxl::formatByteSize(peak)));
        // one timeline per graph of the step, each a plausible picture
        const auto found = images.find(int(i));
        QVERIFY2(found != images.end(), qPrintable(what + QStringLiteral(": no timeline image")));
        QCOMPARE(found->second.size(), size_t(files[i].size()));
        for (const QSize& s : found->second)
            QVERIFY2(s.width() >= 400 && s.width() <= 4000 && s.height() >= 100 && s.height() <= 2000,
                     qPrintable(what + QStringLiteral(": image %1 x %2").arg(s.width()).arg(s.height())));
    }
}

void expectSelfContained(const QString& html)
{
    QVERIFY(html.startsWith(QLatin1String("<!DOCTYPE html>")));
    QVERIFY(html.trimmed().endsWith(QLatin1String("</html>")));
    for (const char* bad :
         {"src=\"http", "src=\"file", "src='http", "href=\"http", "href=\"file", "<script", "<link", "url(", "@import"})
        QVERIFY2(!html.contains(QLatin1String(bad), Qt::CaseInsensitive), bad);
    // every src is inline
    static const QRegularExpression src(QStringLiteral("src=\"([^\"]{0,30})"));
    for (auto it = src.globalMatch(html); it.hasNext();) {
        const QString s = it.next().captured(1);
        QVERIFY2(s.startsWith(QLatin1String("data:image/png;base64,")), qPrintable(s));
    }
}

}  // namespace

class TestCliReport : public QObject
{
    Q_OBJECT

private slots:
    // The sac+remat pipeline with --check: the table matches diff and mem of the step files,
    // every step is bitwise equal to the step before, exit code 0, --json agrees.
    void checkedPipeline_data() { addInputs(); }
    void checkedPipeline()
    {
        FXL_FETCH_INPUT();
        QTemporaryDir tmp;
        const QString out = tmp.filePath("report.html");
        const Run r = fxlens({"report", input, "--pipeline", kSacPipeline, "--out", out, "--check", "--json"});
        FXL_EXPECT_EXIT(r, 0);
        const QString html = QString::fromUtf8(readFile(out));
        expectSelfContained(html);
        QVERIFY(html.contains(QStringLiteral("fxlens passes run ")));
        QVERIFY(html.contains(kSacPipeline.toHtmlEscaped()));
        compareWithStepFiles(input, kSacPipeline, html, tmp.filePath("steps"));
        if (QTest::currentTestFailed()) return;
        const std::vector<StepRow> rows = stepRows(html);
        QCOMPARE(rows.size(), size_t(5));
        QCOMPARE(rows[0].check, QStringLiteral("none"));
        for (size_t i = 1; i < rows.size(); ++i) {
            QCOMPARE(rows[i].check, QStringLiteral("bitwise"));
            QCOMPARE(rows[i].cells.last(), QStringLiteral("bitwise"));
        }
        // an equivalence table per step, every output bitwise
        QCOMPARE(html.count(QStringLiteral("<table class=\"equivalence\">")), 4);
        QVERIFY(html.contains(QStringLiteral("<tr class=\"output bitwise\">")));
        QVERIFY(!html.contains(QStringLiteral("<tr class=\"output differs\">")));
        // the summary
        const QJsonObject doc = jsonOf(r);
        QCOMPARE(doc.value("fxlens").toString(), QStringLiteral("report"));
        QCOMPARE(doc.value("out").toString(), out);
        QCOMPARE(doc.value("all_bitwise").toBool(), true);
        const QJsonArray steps = doc.value("steps").toArray();
        QCOMPARE(steps.size(), 5);
        for (int i = 0; i < steps.size(); ++i) {
            const QJsonObject s = steps[i].toObject();
            QCOMPARE(s.value("index").toInt(), i);
            QCOMPARE(s.value("peak_bytes").toInteger(), rows[size_t(i)].peak);
            QCOMPARE(s.value("counts").toObject().value("added").toInteger(), rows[size_t(i)].added);
            if (i > 0) QCOMPARE(s.value("check").toObject().value("verdict").toString(), QStringLiteral("bitwise"));
        }
    }

    // --check --device: every step and the step before it run on the device; the report, its
    // text and its JSON name it; the steps are bitwise equal there too.
    void checkedOnDevice()
    {
        // a small graph: the emulated device runs the CUDA kernels' code one thread at a time
        const QString input = QString::fromStdString(fxltest::testDataPath("pytorch/mlp_gelu.joint.code.py").string());
        QTemporaryDir tmp;
        const QString out = tmp.filePath("report.html");
        const Run r =
            fxlens({"report", input, "--pipeline", kSacPipeline, "--out", out, "--check", "--device", "cuda-emu"});
        FXL_EXPECT_EXIT(r, 0);
        QVERIFY2(r.out.contains("\nchecks on cuda-emu:0\n"), r.out.constData());
        const QString html = QString::fromUtf8(readFile(out));
        QCOMPARE(html.count(QStringLiteral("; device cuda-emu:0</p>")), 4);
        const std::vector<StepRow> rows = stepRows(html);
        QCOMPARE(rows.size(), size_t(5));
        for (size_t i = 1; i < rows.size(); ++i) QCOMPARE(rows[i].check, QStringLiteral("bitwise"));
        const Run j = fxlens({"report", input, "--pipeline", kSacPipeline, "--out", tmp.filePath("again.html"),
                              "--check", "--device", "cuda-emu:0", "--json"});
        FXL_EXPECT_EXIT(j, 0);
        const QJsonObject doc = jsonOf(j);
        QCOMPARE(doc.value("device").toString(), QStringLiteral("cuda-emu:0"));
        const QJsonArray steps = doc.value("steps").toArray();
        for (int i = 1; i < steps.size(); ++i) {
            const QJsonObject c = steps[i].toObject().value("check").toObject();
            QCOMPARE(c.value("device").toString(), QStringLiteral("cuda-emu:0"));
            QCOMPARE(c.value("verdict").toString(), QStringLiteral("bitwise"));
        }
    }

    // --device: a name no backend has (usage, 2), without --check (usage, 2), a device that is not
    // there (1, with the reason); no report is written.
    void deviceRefusals()
    {
        QTemporaryDir tmp;
        const QString input = QString::fromStdString(fxltest::testDataPath("pytorch/mlp_gelu.joint.code.py").string());
        const QString out = tmp.filePath("report.html");
        Run r = fxlens({"report", input, "--pipeline", "dce", "--out", out, "--check", "--device", "tpu:0"});
        FXL_EXPECT_EXIT(r, 2);
        QVERIFY2(r.err.contains("--device expects cpu, cuda:N or cuda-emu:N, got 'tpu:0'"), r.err.constData());
        r = fxlens({"report", input, "--pipeline", "dce", "--out", out, "--device", "cuda-emu"});
        FXL_EXPECT_EXIT(r, 2);
        QVERIFY2(r.err.contains("--device is where --check runs the steps: add --check"), r.err.constData());
        r = runProcess(kFxlensBinary,
                       {"report", input, "--pipeline", "dce", "--out", out, "--check", "--device", "cuda:3"}, 300000,
                       {{"FXLENS_CUDA_DRIVER", "/nonexistent/libcuda.so.1"}});
        FXL_EXPECT_EXIT(r, 1);
        QVERIFY2(r.err.contains("--device cuda:3: "), r.err.constData());
        QVERIFY(!QFileInfo::exists(out));
    }

    // dce,partition,partition fails at stage 3: the report holds the input, dce, the partition
    // (forward and backward, each with its timeline) and the failed step with its error; the
    // exit code is 1; the partition is not checked (said why).
    void failingPipeline_data() { addInputs(); }
    void failingPipeline()
    {
        FXL_FETCH_INPUT();
        QTemporaryDir tmp;
        const QString out = tmp.filePath("failed.html");
        const Run r = fxlens({"report", input, "--pipeline", kFailingPipeline, "--out", out, "--check", "--json"});
        FXL_EXPECT_EXIT(r, 1);
        QVERIFY2(r.err.contains("stage 3 (partition)"), r.err.constData());
        QVERIFY2(QFileInfo::exists(out), "no report written");
        const QString html = QString::fromUtf8(readFile(out));
        expectSelfContained(html);
        compareWithStepFiles(input, kFailingPipeline, html, tmp.filePath("steps"));
        if (QTest::currentTestFailed()) return;
        const std::vector<StepRow> rows = stepRows(html);
        QCOMPARE(rows.size(), size_t(4));
        QVERIFY(rows[3].failed);
        QCOMPARE(rows[3].step, 3);
        QVERIFY2(rows[3].cells[5].startsWith(QLatin1String("failed: ")), qPrintable(rows[3].cells[5]));
        // the partition's counts: its forward's and its backward's diffs from the joint, summed
        const QJsonArray steps = jsonOf(r).value("steps").toArray();
        QCOMPARE(steps.size(), 4);
        const QJsonArray graphs = steps[2].toObject().value("graphs").toArray();
        QCOMPARE(graphs.size(), 2);
        qint64 removed = 0, changed = 0;
        for (const auto& g : graphs) {
            removed += g.toObject().value("counts").toObject().value("removed").toInteger();
            changed += g.toObject().value("counts").toObject().value("changed").toInteger();
        }
        QCOMPARE(rows[2].removed, removed);
        QCOMPARE(rows[2].changed, changed);
        QCOMPARE(steps[3].toObject().value("failed").toBool(), true);
        QCOMPARE(rows[1].check, QStringLiteral("bitwise"));
        QCOMPARE(rows[2].check, QStringLiteral("skipped"));
        QCOMPARE(rows[3].check, QStringLiteral("none"));
        QVERIFY(html.contains(QStringLiteral("<p class=\"error\">The pass failed: ")));
        QVERIFY(html.contains(QStringLiteral("<h3>Graph forward: ")));
        QVERIFY(html.contains(QStringLiteral("<h3>Graph backward: ")));
    }

    // An existing report is not replaced without --force (its bytes unchanged), and is with it.
    void existingOut()
    {
        const QString input = QString::fromStdString(fxltest::testDataPath("pytorch/mlp_gelu.joint.code.py").string());
        QTemporaryDir tmp;
        const QString out = tmp.filePath("report.html");
        const QByteArray kept("an earlier report <keep>\n");
        QVERIFY(writeFile(out, kept));
        const Run refused = fxlens({"report", input, "--pipeline", "dce", "--out", out});
        FXL_EXPECT_EXIT(refused, 1);
        QVERIFY2(refused.err.contains("exists") && refused.err.contains("--force"), refused.err.constData());
        QVERIFY2(refused.err.contains(out.toUtf8()), refused.err.constData());
        QCOMPARE(readFile(out), kept);
        QCOMPARE(QDir(tmp.path()).entryList(QDir::Files | QDir::Hidden).size(), 1);  // no temporary left
        const Run forced = fxlens({"report", input, "--pipeline", "dce", "--out", out, "--force"});
        FXL_EXPECT_EXIT(forced, 0);
        QVERIFY(readFile(out).startsWith("<!DOCTYPE html>"));
    }

    // A bad spec is a usage error naming the column (exit code 2), before anything is written.
    void badSpec_data()
    {
        QTest::addColumn<QString>("spec");
        QTest::addColumn<int>("column");
        QTest::newRow("unknown pass") << QStringLiteral("dce,frobnicate") << 5;
        QTest::newRow("bad option value") << QStringLiteral("remove_detach,sac(policy=alternat_mm)") << 19;
    }
    void badSpec()
    {
        QFETCH(QString, spec);
        QFETCH(int, column);
        const QString input = QString::fromStdString(fxltest::testDataPath("pytorch/mlp_gelu.joint.code.py").string());
        QTemporaryDir tmp;
        const QString out = tmp.filePath("report.html");
        const Run r = fxlens({"report", input, "--pipeline", spec, "--out", out});
        FXL_EXPECT_EXIT(r, 2);
        const QString where = QStringLiteral("<pipeline>:1:%1:").arg(column);
        QVERIFY2(r.err.contains(where.toUtf8()), r.err.constData());
        QVERIFY2(r.err.contains(QByteArray(column + 1, ' ') + "^"), r.err.constData());
        QVERIFY(!QFileInfo::exists(out));
    }
};

FXL_TEST_GUILESS_MAIN(TestCliReport)
}  // namespace test_cli_report
#include "test_cli_report.moc"
