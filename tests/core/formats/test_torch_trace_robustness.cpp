// TORCH_TRACE logs, malformed: truncated logs, garbage and bad JSON, invalid UTF-8, blank
// lines and CRLF, files that are no log, random mutations of real logs: warnings with line
// numbers or InputError, never a crash.
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <regex>
#include <set>
#include <sstream>

#include "core/formats/source.hpp"
#include "core/formats/torch_trace/md5.hpp"
#include "core/formats/torch_trace/tlparse_output.hpp"
#include "core/formats/torch_trace/torch_trace.hpp"
#include "core/ir/diagnostics.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"
#include "torch_trace_test_util.hpp"

namespace test_torch_trace_robustness {

using namespace fxl;
using namespace torchtracetest;
namespace fs = std::filesystem;

class TestTorchTraceRobustness : public QObject
{
    Q_OBJECT

private slots:
    // ---------------------------------------------------------------- malformed logs
    void truncatedLogs()
    {
        FXL_REQUIRE_CORPUS(kTlparse / "links.log");
        const std::string full = readFile(kTlparse / "links.log");
        // Every cut point (step 37 bytes): a warning or an InputError, never a crash, and any
        // md5 warning names a line that exists.
        for (size_t cut = 0; cut < full.size(); cut += 37) {
            DiagnosticList d;
            try {
                TraceIndex ix = indexTorchTraceText(std::string_view(full).substr(0, cut), "cut", d);
                QVERIFY(ix.events.size() <= 9);
                for (const auto& x : d.items)
                    QVERIFY(x.severity == Severity::Note || (x.line >= 1 && x.line <= ix.lineCount));
            } catch (const InputError& e) {
                QCOMPARE(e.diagnostic().line, 1);  // only when not even the first header is whole
            }
        }
        // Cut inside the dynamo_output_graph payload: that payload fails its md5 check,
        // reported at its envelope line, and the graph is still indexed.
        auto lines = splitLines(full);
        const int env = lineOf(lines, "{\"dynamo_output_graph\"");
        QVERIFY(env > 0);
        std::vector<std::string> cutLines(lines.begin(), lines.begin() + env + 3);
        DiagnosticList d;
        TraceIndex ix = indexTorchTraceText(joinLines(cutLines), "cut", d);
        QCOMPARE(countDiags(d, Severity::Warning, "does not match its MD5", env), 1);
        QCOMPARE(std::string(ix.kind(ix.events.back())), std::string("dynamo_output_graph"));
        QVERIFY(ix.events.back().isGraph);
        QCOMPARE(ix.events.back().payloadLines, int64_t(3));
    }

    void garbageAndBadJson()
    {
        FXL_REQUIRE_CORPUS(kTlparse / "simple.log");
        auto lines = splitLines(readFile(kTlparse / "simple.log"));
        DiagnosticList d0;
        const size_t events = indexTorchTraceText(joinLines(lines), "orig", d0).events.size();
        const int graphLine = lineOf(lines, "{\"dynamo_output_graph\"");
        const int postLine = lineOf(lines, "{\"inductor_post_grad_graph\"");
        QVERIFY(graphLine > 0 && postLine > graphLine);

        auto mutated = lines;
        // 1) bad JSON in the dynamo_output_graph envelope: event skipped with its payload.
        mutated[size_t(graphLine - 1)].pop_back();  // drop the closing brace
        // 2) wrong md5 in the post-grad graph: one payload character changed.
        std::string& pl = mutated[size_t(postLine)];
        pl.back() = pl.back() == 'x' ? 'y' : 'x';
        // 3) a garbage line (with a NUL and invalid UTF-8) between two records.
        mutated.insert(mutated.begin() + (postLine - 1), std::string("garbage \x00\xff here", 15));
        DiagnosticList d;
        TraceIndex ix = indexTorchTraceText(joinLines(mutated), "m", d);
        QCOMPARE(ix.events.size(), events - 1);
        QCOMPARE(countDiags(d, Severity::Warning, "not valid JSON", graphLine), 1);
        QCOMPARE(countDiags(d, Severity::Warning, "not a TORCH_TRACE header", postLine), 1);
        QCOMPARE(countDiags(d, Severity::Warning, "does not match its MD5", postLine + 1), 1);
        QCOMPARE(countDiags(d, Severity::Warning, "payload lines after"), 0);
        QCOMPARE(int(d.items.size()), 3);
        QCOMPARE(int(ix.graphCount()), 2);  // aot_inference_graph and the post-grad graph remain
        for (const auto& x : d.items) QCOMPARE(x.file, std::string("m"));
    }

    void invalidUtf8InPayload()
    {
        FXL_REQUIRE_CORPUS(kTlparse / "simple.log");
        auto lines = splitLines(readFile(kTlparse / "simple.log"));
        const int env = lineOf(lines, "{\"aot_inference_graph\"");
        QVERIFY(env > 0);
        lines[size_t(env + 1)].insert(3, "\xC3\x28");  // a lead byte followed by ASCII
        DiagnosticList d;
        TraceIndex ix = indexTorchTraceText(joinLines(lines), "u", d);
        QCOMPARE(countDiags(d, Severity::Warning, "is not valid UTF-8", env + 2), 1);
        for (const auto& x : d.items)
            if (x.message.find("UTF-8") != std::string::npos) QCOMPARE(x.column, 4);
        QCOMPARE(countDiags(d, Severity::Warning, "does not match its MD5", env), 1);
        QCOMPARE(int(ix.graphCount()), 3);
    }

    // Blank lines anywhere (log collectors "stutter") and CRLF line ends change nothing.
    void blankLinesAndCrlf()
    {
        FXL_REQUIRE_CORPUS(kTlparse / "cache_hit_miss.log");
        const std::string orig = readFile(kTlparse / "cache_hit_miss.log");
        DiagnosticList d0;
        TraceIndex ref = indexTorchTraceText(orig, "o", d0);
        std::string stutter, crlf;
        for (const auto& l : splitLines(orig)) {
            stutter += l + "\n\n";
            crlf += l + "\r\n";
        }
        for (const std::string* variant : {&stutter, &crlf}) {
            DiagnosticList d;
            TraceIndex ix = indexTorchTraceText(*variant, "v", d);
            QVERIFY2(d.items.empty(), dumpDiags(d).c_str());
            QCOMPARE(ix.events.size(), ref.events.size());
            QCOMPARE(ix.graphCount(), ref.graphCount());
            QCOMPARE(ix.md5Mismatches, int64_t(0));
            if (variant == &stutter) QCOMPARE(ix.blankLines, int64_t(splitLines(orig).size()));
            for (size_t i = 0; i < ix.events.size(); ++i) {
                const auto& a = ix.events[i];
                const auto& b = ref.events[i];
                if (!a.isGraph) continue;
                std::string_view va(*variant), vb(orig);
                QCOMPARE(payloadFromRaw(va.substr(size_t(a.payloadOffset), size_t(a.payloadLength))),
                         payloadFromRaw(vb.substr(size_t(b.payloadOffset), size_t(b.payloadLength))));
            }
        }
    }

    void notALog()
    {
        DiagnosticList d;
        try {
            indexTorchTraceText("hello\nworld\n", "n", d);
            QFAIL("expected InputError");
        } catch (const InputError& e) {
            QCOMPARE(e.diagnostic().line, 1);
            QCOMPARE(e.diagnostic().column, 1);
        }
        QVERIFY_THROWS_EXCEPTION(InputError, indexTorchTrace("/nonexistent/trace.log", d));
        // An empty log is not an error, just empty.
        TraceIndex ix = indexTorchTraceText("", "e", d);
        QVERIFY(ix.events.empty());
        QVERIFY(!looksLikeTorchTrace("hello"));
        QVERIFY(looksLikeTorchTrace("\nV0101 00:00:00.000000 1 a.py:1] {\"x\": {}}"));
        QCOMPARE(rankFromTraceFileName("dedicated_log_torch_trace_rank_12_ab3x.log"), std::optional<int>(12));
        QCOMPARE(rankFromTraceFileName("dedicated_log_torch_trace_ab3x.log"), std::optional<int>());
    }

    // Random byte edits of a real log: warnings or InputError, never a crash (ASan build).
    void randomMutations()
    {
        FXL_REQUIRE_CORPUS(kTlparse / "artifacts.log");
        const std::string orig = readFile(kTlparse / "artifacts.log");
        std::mt19937 rng(12345);
        for (int iter = 0; iter < 300; ++iter) {
            std::string s = orig;
            int edits = 1 + int(rng() % 8);
            for (int k = 0; k < edits; ++k) {
                size_t at = rng() % s.size();
                switch (rng() % 4) {
                case 0: s[at] = char(rng() & 0xFF); break;
                case 1: s.erase(at, rng() % 64); break;
                case 2: s.insert(at, 1, "\n\t{}[]\":,"[rng() % 9]); break;
                default: s.resize(at); break;
                }
                if (s.empty()) s = "x";
            }
            DiagnosticList d;
            try {
                TraceIndex ix = indexTorchTraceText(s, "r", d);
                for (const auto& e : ix.events) {
                    QVERIFY(e.payloadOffset + e.payloadLength <= int64_t(s.size()));
                    (void)payloadFromRaw(std::string_view(s).substr(size_t(e.payloadOffset), size_t(e.payloadLength)));
                }
            } catch (const InputError& e) {
                QVERIFY(e.diagnostic().line >= 1);
            }
        }
    }
};

FXL_TEST_APPLESS_MAIN(TestTorchTraceRobustness)
}  // namespace test_torch_trace_robustness
#include "test_torch_trace_robustness.moc"
