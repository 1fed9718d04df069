// openSource's progress and cancellation over real inputs: TORCH_TRACE logs (bytes), folders
// of per-rank logs (bytes of all files), single graph files and a tlparse output folder (one
// step), and a big log made by concatenating the corpus logs. Progress is monotonic, ends at
// its total and comes at a bounded rate; cancelling at the first, a middle or the last report
// throws CancelledError with nothing left behind; without cancellation the Source is the one
// opened without hooks.
#include <QtTest>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "core/formats/fx/fx_text_writer.hpp"
#include "core/formats/source.hpp"
#include "core/util/progress.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_open_progress {

using namespace fxl;
namespace fs = std::filesystem;

namespace {

const fs::path kCorpus = fxltest::corpusDir();

void writeText(const fs::path& p, const std::string& text)
{
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
}

// Inputs made at test time, once per process.
QTemporaryDir& scratch()
{
    static QTemporaryDir dir;
    return dir;
}

// (12 MB under ASan: the same code paths, half the time it takes there at -O0; enough bytes
// for the 75 progress reports the test asks of it)
constexpr double kBigLogMb = fxltest::kSanitizedBuild ? 12.0 : 24.0;

// A big TORCH_TRACE log: the corpus logs concatenated until it holds kBigLogMb MB ("" when
// the corpus logs are absent).
fs::path bigLog()
{
    const fs::path out = fs::path(scratch().path().toStdString()) / "big_torch_trace.log";
    if (fs::exists(out)) return out;
    std::vector<fs::path> logs;
    for (const char* name : {"simple.log", "artifacts.log", "cache_hit_miss.log", "autotune_with_compile_id.log"})
        if (fs::exists(kCorpus / "tlparse" / name)) logs.push_back(kCorpus / "tlparse" / name);
    if (logs.empty()) return {};
    std::string chunk;
    for (const auto& p : logs) {
        chunk += fxltest::readFile(p);
        if (!chunk.empty() && chunk.back() != '\n') chunk += '\n';  // simple.log has no final newline
    }
    std::ofstream o(out, std::ios::binary);
    for (double written = 0; written < kBigLogMb * 1e6; written += double(chunk.size())) o << chunk;
    return out;
}

// A tlparse output folder with one FX graph (written from the text below, no corpus needed).
fs::path tlparseFolder()
{
    const fs::path out = fs::path(scratch().path().toStdString()) / "tlparse_out";
    if (fs::exists(out)) return out;
    writeText(out / "0_0_0" / "aot_forward_graph_0.txt",
              "class GraphModule(torch.nn.Module):\n"
              "    def forward(self, x: \"f32[4, 8][8, 1]cpu\"):\n"
              "        relu = torch.ops.aten.relu.default(x)\n"
              "        mul = torch.ops.aten.mul.Tensor(relu, 2)\n"
              "        return (mul,)\n");
    writeText(out / "compile_directory.json",
              R"({"[0/0]": {"artifacts": [{"url": "0_0_0/aot_forward_graph_0.txt", "name": "aot_forward_graph_0.txt",
                 "number": 0, "suffix": ""}]}})");
    return out;
}

// The path of a row: a corpus path, or "@big" / "@tlparse" for an input made here. Empty
// (and the row skipped or failed) when the input is missing.
fs::path rowPath(const QString& input)
{
    if (input == "@tlparse") return tlparseFolder();
    if (input == "@big") {
        if (!fxltest::corpusPresent(kCorpus / "tlparse" / "simple.log")) return {};
        return bigLog();
    }
    const fs::path p = kCorpus / input.toStdString();
    return fxltest::corpusPresent(p) ? p : fs::path();
}

// Bytes of a file, or of all the regular files of a folder.
int64_t bytesOf(const fs::path& p)
{
    if (!fs::is_directory(p)) return int64_t(fs::file_size(p));
    int64_t n = 0;
    for (const auto& e : fs::directory_iterator(p))
        if (e.is_regular_file()) n += int64_t(e.file_size());
    return n;
}

struct Call
{
    int64_t done = 0, total = 0;
    std::string what;
};

// Opens `p` recording every report; cancels inside report number `cancelAt` (1-based, 0 = never).
std::unique_ptr<Source> openRecording(const fs::path& p, std::vector<Call>& calls, size_t cancelAt = 0)
{
    std::atomic<bool> cancel{false};
    Progress progress;
    progress.cancel = &cancel;
    progress.report = [&](int64_t done, int64_t total, std::string_view what) {
        calls.push_back({done, total, std::string(what)});
        if (calls.size() == cancelAt) cancel = true;
    };
    return openSource(p.string(), progress);
}

// The folder's entries with their sizes: what openSource must leave as it was.
std::vector<std::string> listing(const fs::path& p)
{
    std::vector<std::string> out;
    const fs::path dir = fs::is_directory(p) ? p : p.parent_path();
    for (const auto& e : fs::recursive_directory_iterator(dir))
        out.push_back(e.path().string() + " " + (e.is_regular_file() ? std::to_string(e.file_size()) : "dir"));
    std::sort(out.begin(), out.end());
    return out;
}

std::vector<std::string> artifactLines(const Source& s)
{
    std::vector<std::string> out;
    for (const Artifact& a : s.artifacts) {
        std::ostringstream o;
        o << a.id << " | " << a.kind << " | " << (a.rank ? std::to_string(*a.rank) : "-") << " | " << a.compileId
          << " | " << a.file << ":" << a.line << " @" << a.byteOffset << " payload " << a.payloadOffset << "+"
          << a.payloadLength << " | graph " << a.isGraph << " | md5 " << (a.md5Ok ? (*a.md5Ok ? "ok" : "bad") : "-")
          << " | paired " << a.pairedWith << " | sub " << a.subgraphName << " | " << a.inputsPath << " "
          << a.constantsPath << " " << a.metaPath << " " << a.paramsPath;
        out.push_back(o.str());
    }
    return out;
}

std::vector<std::string> diagnosticLines(const DiagnosticList& d)
{
    std::vector<std::string> out;
    for (const auto& x : d.items) out.push_back(x.format());
    return out;
}

}  // namespace

class TestOpenProgress : public QObject
{
    Q_OBJECT

    void rows()
    {
        QTest::addColumn<QString>("input");
        QTest::addColumn<bool>("bytes");  // progress counts bytes (logs) or one step (graph files)
        QTest::addColumn<bool>("parse");  // sameResultWithHooks parses the first graphs (not a 100k-node one)
        for (const char* log : {"tlparse/simple.log", "tlparse/artifacts.log", "tlparse/links.log",
                                "tlparse/cache_hit_miss.log", "tlparse/inductor_provenance_aot_cuda_log.txt"})
            QTest::newRow(log) << log << true << true;
        QTest::newRow("per-rank folder: multi_rank_schedule") << "tlparse/multi_rank_schedule" << true << true;
        QTest::newRow("per-rank folder: graph_exec_order") << "tlparse/graph_exec_order" << true << true;
        QTest::newRow("big log (corpus logs concatenated)") << "@big" << true << true;
        QTest::newRow("fx graph") << "fx/tlparse_v2.9dev_mlp_aot_joint_graph_expanded.txt" << false << true;
        QTest::newRow("graph listing") << "pytorch/gpt2_tiny.joint.graph.txt" << false << true;
        QTest::newRow("joint code with sidecars") << "pytorch/gpt2_tiny.joint.code.py" << false << true;
        QTest::newRow("large joint code") << "pytorch/large/gpt2_deep640.joint.code.py" << false << false;
        QTest::newRow("tlparse output folder") << "@tlparse" << false << true;
    }

    void cancelRows()
    {
        QTest::addColumn<QString>("input");
        QTest::addColumn<QString>("when");
        const QStringList inputs = {"tlparse/simple.log",
                                    "tlparse/cache_hit_miss.log",
                                    "tlparse/multi_rank_schedule",
                                    "tlparse/graph_exec_order",
                                    "@big",
                                    "pytorch/gpt2_tiny.joint.code.py",
                                    "fx/tlparse_v2.9dev_mlp_dynamo_output_graph.txt",
                                    "@tlparse"};
        for (const QString& in : inputs)
            for (const char* when : {"first", "middle", "last"})
                QTest::newRow(qPrintable(in + " | " + when)) << in << QString(when);
    }

private slots:
    void progressMonotonicEndsAtTotal_data() { rows(); }
    void progressMonotonicEndsAtTotal()
    {
        QFETCH(QString, input);
        QFETCH(bool, bytes);
        const fs::path p = rowPath(input);
        if (p.empty()) return;
        std::vector<Call> calls;
        auto src = openRecording(p, calls);
        QVERIFY(src);
        QVERIFY(!calls.empty());
        const int64_t total = bytes ? bytesOf(p) : 1;
        QCOMPARE(calls.front().done, int64_t(0));  // the first report sets the range
        QCOMPARE(calls.back().done, total);
        int64_t between = 0;
        for (size_t k = 0; k < calls.size(); ++k) {
            QCOMPARE(calls[k].total, total);
            QVERIFY2(!calls[k].what.empty(), qPrintable(QString("report %1 names nothing").arg(k)));
            if (k > 0) QVERIFY2(calls[k].done >= calls[k - 1].done, qPrintable(QString("report %1 went back").arg(k)));
            if (calls[k].done > 0 && calls[k].done < total) ++between;
        }
        // Bounded: about one report per 1% plus the first and the last, however big the input.
        QVERIFY2(calls.size() <= 103, qPrintable(QString("%1 reports").arg(calls.size())));
        if (!bytes) {
            QCOMPARE(calls.size(), size_t(2));
            return;
        }
        // Meaningful: a log reports while it is indexed (the indexer tells every 64 KiB).
        QVERIFY2(between >= std::min<int64_t>(total / (128 * 1024), 50),
                 qPrintable(QString("%1 reports in between for %2 bytes").arg(between).arg(total)));
        if (input == "@big") QVERIFY2(between >= 75, qPrintable(QString("%1 reports in between").arg(between)));
        if (fs::is_directory(p)) {  // `what` is the file being indexed
            for (const Call& c : calls) QVERIFY2(fs::is_regular_file(p / c.what), c.what.c_str());
        }
    }

    void cancelLeavesNothing_data() { cancelRows(); }
    void cancelLeavesNothing()
    {
        FXL_SANITIZER_ROWS(3);
        QFETCH(QString, input);
        QFETCH(QString, when);
        const fs::path p = rowPath(input);
        if (p.empty()) return;
        std::vector<Call> all;
        QVERIFY(openRecording(p, all));
        const size_t n = all.size();
        const size_t cancelAt = when == "first" ? 1 : when == "last" ? n : (n + 1) / 2;
        const std::vector<std::string> before = listing(p);

        std::vector<Call> calls;
        std::unique_ptr<Source> src;
        bool cancelled = false;
        try {
            src = openRecording(p, calls, cancelAt);
        } catch (const CancelledError&) {
            cancelled = true;
        }
        QVERIFY2(cancelled, qPrintable(QString("not cancelled at report %1 of %2").arg(cancelAt).arg(n)));
        QVERIFY(!src);
        QCOMPARE(calls.size(), cancelAt);  // no report after the one that cancelled
        for (size_t k = 0; k < calls.size(); ++k) QCOMPARE(calls[k].done, all[k].done);
        QCOMPARE(listing(p), before);  // nothing written beside the input
    }

    // A flag already set when the open starts: it stops at the first check.
    void cancelledBeforeStart_data() { rows(); }
    void cancelledBeforeStart()
    {
        QFETCH(QString, input);
        const fs::path p = rowPath(input);
        if (p.empty()) return;
        std::atomic<bool> cancel{true};
        Progress progress;
        progress.cancel = &cancel;
        int calls = 0;
        progress.report = [&](int64_t, int64_t, std::string_view) { ++calls; };
        QVERIFY_THROWS_EXCEPTION(CancelledError, openSource(p.string(), progress));
        QCOMPARE(calls, 1);
    }

    void sameResultWithHooks_data() { rows(); }
    void sameResultWithHooks()
    {
        QFETCH(QString, input);
        QFETCH(bool, parse);
        const fs::path p = rowPath(input);
        if (p.empty()) return;
        std::vector<Call> calls;
        auto plain = openSource(p.string());
        auto hooked = openRecording(p, calls);
        QVERIFY(plain && hooked);
        QCOMPARE(int(hooked->format), int(plain->format));
        QCOMPARE(hooked->path, plain->path);
        QCOMPARE(hooked->ranks, plain->ranks);
        QCOMPARE(artifactLines(*hooked), artifactLines(*plain));
        QCOMPARE(diagnosticLines(hooked->diagnostics), diagnosticLines(plain->diagnostics));
        // The first graphs parse alike.
        const auto graphs = plain->graphs();
        QVERIFY(!graphs.empty());
        for (size_t k = 0; parse && k < std::min<size_t>(graphs.size(), 3); ++k) {
            const std::string id = graphs[k]->id;
            QCOMPARE(printReadable(*hooked->graph(id)), printReadable(*plain->graph(id)));
        }
        QCOMPARE(diagnosticLines(hooked->diagnostics), diagnosticLines(plain->diagnostics));
    }
};

FXL_TEST_APPLESS_MAIN(TestOpenProgress)
}  // namespace test_open_progress
#include "test_open_progress.moc"
