// TORCH_TRACE logs: MD5 against the RFC 1321 vectors, the index of every corpus log against
// counts taken independently with Python, lazy payloads against their has_payload digests,
// per-rank directories and tlparse output folders (malformed logs: test_torch_trace_robustness).
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

namespace test_torch_trace {

using namespace fxl;
using namespace torchtracetest;
namespace fs = std::filesystem;

class TestTorchTrace : public QObject
{
    Q_OBJECT

private slots:
    // ---------------------------------------------------------------- MD5 (RFC 1321 A.5)
    void md5_data()
    {
        QTest::addColumn<std::string>("input");
        QTest::addColumn<std::string>("digest");
        QTest::newRow("empty") << std::string("") << std::string("d41d8cd98f00b204e9800998ecf8427e");
        QTest::newRow("a") << std::string("a") << std::string("0cc175b9c0f1b6a831c399e269772661");
        QTest::newRow("abc") << std::string("abc") << std::string("900150983cd24fb0d6963f7d28e17f72");
        QTest::newRow("message digest") << std::string("message digest")
                                        << std::string("f96b697d7cb7938d525a2f31aaf161d0");
        QTest::newRow("a-z") << std::string("abcdefghijklmnopqrstuvwxyz")
                             << std::string("c3fcd3d76192e4007dfb496cca67e13b");
        QTest::newRow("A-Za-z0-9") << std::string("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
                                   << std::string("d174ab98d277d9f5a5611c2c9f419d9f");
        QTest::newRow("8x1234567890") << std::string(
            "12345678901234567890123456789012345678901234567890123456789012345678901234567890")
                                      << std::string("57edf4a22be3c955ac49da2e2107b67a");
    }

    void md5()
    {
        QFETCH(std::string, input);
        QFETCH(std::string, digest);
        QCOMPARE(md5Hex(input), digest);
        // Any split of the input into update() calls gives the same digest.
        for (size_t cut = 0; cut <= input.size(); ++cut) {
            Md5 m;
            m.update(input.substr(0, cut));
            m.update(input.substr(cut));
            QCOMPARE(m.finishHex(), digest);
        }
    }

    void md5LongInput()
    {
        // Python: hashlib.md5(b'x' * 1000003).hexdigest()
        std::string s(1000003, 'x');
        Md5 m;
        for (size_t i = 0; i < s.size(); i += 777) m.update(s.data() + i, std::min<size_t>(777, s.size() - i));
        QCOMPARE(m.finishHex(), std::string("55a76be3046fa1e602ae663deccfcd78"));
    }

    // ---------------------------------------------------------------- corpus logs
    void corpusLogs_data()
    {
        QTest::addColumn<std::string>("file");
        QTest::addColumn<int>("events");  // envelopes other than "str"
        QTest::addColumn<int>("payloads");  // envelopes with has_payload
        QTest::addColumn<int>("strs");  // "str" intern entries
        QTest::addColumn<int>("md5bad");
        QTest::addColumn<int>("graphs");  // FX payloads (fx_graph_runnable not counted)
        QTest::addColumn<int>("runnable");  // fx_graph_runnable payloads
        QTest::addColumn<std::string>("graphKinds");
        QTest::addColumn<std::string>("compileIds");  // events per compile id
        QTest::addColumn<std::string>("ranks");
        QTest::addColumn<int>("pairs");  // before_X/after_X pairs
        // Every number below was obtained with this Python script (regex + json + hashlib,
        // no fxlens code), run as `python3 survey.py FILE`:
        //   import re,json,hashlib,sys,collections as C
        //   H=re.compile(r'^[VIWEC]\d{4} \d\d:\d\d:\d\d\.\d+ +\d+ [^\]]+:\d+\] (\{.*\})$')
        //   X={'frame_id','frame_compile_id','attempt','compiled_autograd_id','rank','stack','has_payload','subgraph_name'}
        //   FX=set('dynamo_output_graph aot_joint_graph aot_forward_graph aot_backward_graph aot_inference_graph
        //   inductor_pre_grad_graph inductor_post_grad_graph'.split()) FX|={p+s for p in('before_','after_') for s
        //   in('pre_grad_graph','post_grad_graph','recompile_pre_grad','recompile_post_grad')} def cid(e):
        //     f,c,a=e.get('frame_id'),e.get('frame_compile_id'),e.get('attempt')
        //     return '[-/-]' if f is None and c is None else '[%s/%s%s]'%(f,c,'_%d'%a if a else '')
        //   L=open(sys.argv[1],'rb').read().split(b'\n'); n=C.Counter(); g=C.Counter(); ids=C.Counter(); ranks=set();
        //   i=0 while i<len(L):
        //     m=H.match(L[i].decode()); i+=1
        //     if not m: continue
        //     e=json.loads(m.group(1)); k=[k for k in e if k not in X][0]; k=e[k].get('name',k) if k=='artifact' else k
        //     p=[]
        //     while i<len(L) and L[i][:1] in (b'\t',b''): p+=[L[i][1:]]*(L[i]!=b''); i+=1
        //     if k=='str': n['str']+=1; continue
        //     n['events']+=1; ids[cid(e)]+=1; ranks|={e['rank']} if 'rank' in e else set()
        //     if 'has_payload' in e: n['payloads']+=1;
        //     n['md5bad']+=hashlib.md5(b'\n'.join(p)).hexdigest()!=e['has_payload']; g[k]+=k in FX;
        //     n['runnable']+=k=='fx_graph_runnable'
        //   print(dict(n),sum(g.values()),' '.join('%s=%d'%kv for kv in sorted(g.items()) if kv[1]),' '.join('%s=%d'%kv
        //   for kv in sorted(ids.items())),sorted(ranks))
        // and the pairs by matching before_X with the next after_X of the same (rank, compile id).
        // Cross-checks with shared/corpus/tlparse/SOURCES.md: its per-file kind lists and md5
        // notes agree. docs/formats.md section 4 counts fx_graph_runnable as a graph for simple (4),
        // autotune (9), cache_hit_miss (13) and the jit log (9) but not for the multi-rank
        // files (12, where SOURCES.md's list gives 14 with the two fx_graph_runnable).
        QTest::newRow("artifacts.log") << std::string("artifacts.log") << 7 << 5 << 13 << 0 << 2 << 0
                                       << std::string("aot_forward_graph=1 dynamo_output_graph=1")
                                       << std::string("[0/0]=7") << std::string("") << 0;
        QTest::newRow("autotune_with_compile_id.log")
            << std::string("autotune_with_compile_id.log") << 81 << 75 << 2 << 0 << 8 << 1
            << std::string("after_recompile_post_grad=1 after_recompile_pre_grad=1 aot_inference_graph=1 "
                           "before_recompile_post_grad=1 before_recompile_pre_grad=1 dynamo_output_graph=1 "
                           "inductor_post_grad_graph=1 inductor_pre_grad_graph=1")
            << std::string("[-/-]=12 [0/0]=69") << std::string("") << 2;
        QTest::newRow("cache_hit_miss.log")
            << std::string("cache_hit_miss.log") << 369 << 159 << 11 << 0 << 11 << 2
            << std::string("aot_inference_graph=3 dynamo_output_graph=6 inductor_post_grad_graph=2")
            << std::string("[0/0]=129 [1/0]=240") << std::string("") << 0;
        QTest::newRow("links.log") << std::string("links.log") << 9 << 6 << 3 << 0 << 3 << 0
                                   << std::string(
                                          "aot_forward_graph=1 dynamo_output_graph=1 inductor_post_grad_graph=1")
                                   << std::string("[0/0]=9") << std::string("") << 0;
        QTest::newRow("simple.log") << std::string("simple.log") << 64 << 59 << 12 << 0 << 3 << 1
                                    << std::string(
                                           "aot_inference_graph=1 dynamo_output_graph=1 inductor_post_grad_graph=1")
                                    << std::string("[-/-]=6 [0/0]=58") << std::string("") << 0;
        QTest::newRow("inductor_provenance_aot_cuda_log.txt")
            << std::string("inductor_provenance_aot_cuda_log.txt") << 105 << 92 << 29 << 0 << 5 << 1
            << std::string("after_post_grad_graph=1 after_pre_grad_graph=1 aot_inference_graph=1 "
                           "before_post_grad_graph=1 before_pre_grad_graph=1")
            << std::string("[-/-]=105") << std::string("") << 2;
        QTest::newRow("inductor_provenance_jit_debug_handle_log.txt")
            << std::string("inductor_provenance_jit_debug_handle_log.txt") << 146 << 125 << 15 << 0 << 8 << 1
            << std::string("after_post_grad_graph=1 after_pre_grad_graph=1 aot_backward_graph=1 aot_forward_graph=1 "
                           "aot_joint_graph=1 before_post_grad_graph=1 before_pre_grad_graph=1 dynamo_output_graph=1")
            << std::string("[-/-]=12 [0/0]=134") << std::string("") << 2;
        const std::string sixKinds =
            "after_post_grad_graph=2 after_pre_grad_graph=2 aot_inference_graph=2 before_post_grad_graph=2 "
            "before_pre_grad_graph=2 dynamo_output_graph=2";
        QTest::newRow("graph_exec_order rank 0")
            << std::string("graph_exec_order/dedicated_log_torch_trace_rank_0_a74od7a1.log") << 245 << 212 << 5 << 2
            << 12 << 2 << sixKinds << std::string("[-/-]=25 [0/0]=104 [0/1]=116") << std::string("0") << 4;
        QTest::newRow("graph_exec_order rank 1")
            << std::string("graph_exec_order/dedicated_log_torch_trace_rank_1_fglwclht.log") << 245 << 212 << 5 << 0
            << 12 << 2 << sixKinds << std::string("[-/-]=25 [0/0]=104 [0/1]=116") << std::string("1") << 4;
        QTest::newRow("multi_rank_schedule rank 0")
            << std::string("multi_rank_schedule/dedicated_log_torch_trace_rank_0_6u3fubwl.log") << 159 << 146 << 2 << 0
            << 12 << 2 << sixKinds << std::string("[-/-]=8 [0/0]=79 [1/0]=72") << std::string("0") << 4;
        QTest::newRow("fx/tlparse_v2.4dev_raw_structured_log_links.log")
            << std::string("../fx/tlparse_v2.4dev_raw_structured_log_links.log") << 9 << 6 << 3 << 0 << 3 << 0
            << std::string("aot_forward_graph=1 dynamo_output_graph=1 inductor_post_grad_graph=1")
            << std::string("[0/0]=9") << std::string("") << 0;
    }

    void corpusLogs()
    {
        QFETCH(std::string, file);
        FXL_REQUIRE_CORPUS(kTlparse / file);
        QFETCH(int, events);
        QFETCH(int, payloads);
        QFETCH(int, strs);
        QFETCH(int, md5bad);
        QFETCH(int, graphs);
        QFETCH(int, runnable);
        QFETCH(std::string, graphKinds);
        QFETCH(std::string, compileIds);
        QFETCH(std::string, ranks);
        QFETCH(int, pairs);
        const fs::path path = kTlparse / file;
        DiagnosticList d;
        TraceIndex ix = indexTorchTrace(path.string(), d);
        QCOMPARE(int(ix.events.size()), events);
        QCOMPARE(int(ix.strings.size()), strs);
        QCOMPARE(int(ix.md5Mismatches), md5bad);
        QCOMPARE(int(ix.graphCount()), graphs);
        QCOMPARE(ix.fileSize, int64_t(fs::file_size(path)));
        QCOMPARE(ix.badHeaderLines, int64_t(0));
        QCOMPARE(ix.badJsonLines, int64_t(0));
        QCOMPARE(countDiags(d, Severity::Warning, "does not match its MD5"), md5bad);
        QCOMPARE(int(d.items.size()), md5bad);  // nothing else to say about a real log

        int withPayload = 0, run = 0, pairCount = 0;
        std::map<std::string, int> kinds, cids;
        for (const auto& e : ix.events) {
            withPayload += e.hasPayload;
            cids[e.compileId.str()]++;
            if (e.isGraph) kinds[std::string(ix.kind(e))]++;
            if (ix.kind(e) == "fx_graph_runnable") {
                ++run;
                QVERIFY(!e.isGraph);
            }
            if (e.pairedWith >= 0) {
                const TraceEvent& p = ix.events[size_t(e.pairedWith)];
                QCOMPARE(p.pairedWith, int32_t(&e - ix.events.data()));
                QVERIFY(p.compileId.sameCompile(e.compileId));
                if (ix.kind(e).rfind("before_", 0) == 0) {
                    ++pairCount;
                    QVERIFY(p.line > e.line);
                    QCOMPARE(std::string(ix.kind(p)), "after_" + std::string(ix.kind(e).substr(7)));
                }
            }
            if (e.hasPayload) QVERIFY(e.md5 != Md5Check::None);
        }
        auto join = [](const std::map<std::string, int>& m) {
            std::string s;
            for (const auto& [k, v] : m) s += (s.empty() ? "" : " ") + k + "=" + std::to_string(v);
            return s;
        };
        QCOMPARE(withPayload, payloads);
        QCOMPARE(run, runnable);
        QCOMPARE(join(kinds), graphKinds);
        QCOMPARE(join(cids), compileIds);
        std::string rs;
        for (int r : ix.ranks()) rs += (rs.empty() ? "" : " ") + std::to_string(r);
        QCOMPARE(rs, ranks);
        QCOMPARE(pairCount, pairs);

        // The Source view: one artifact per payload, graphs as in the index.
        auto src = loadTorchTrace(path.string());
        QVERIFY(src->format == SourceFormat::TorchTrace);
        QCOMPARE(int(src->artifacts.size()), payloads);
        QCOMPARE(int(src->graphs().size()), graphs);
        QCOMPARE(src->ranks.empty(), ranks.empty());
        int bad = 0;
        for (const auto& a : src->artifacts) {
            QVERIFY(src->find(a.id) == &a);
            if (a.md5Ok && !*a.md5Ok) ++bad;
            if (!a.pairedWith.empty()) QCOMPARE(src->find(a.pairedWith)->pairedWith, a.id);
        }
        QCOMPARE(bad, md5bad);
    }

    // Every payload read back lazily hashes to the has_payload digest that the test reads
    // itself from the envelope line (except the known mismatches).
    void payloadsMatchTheirDigest_data() { corpusLogs_data(); }

    void payloadsMatchTheirDigest()
    {
        QFETCH(std::string, file);
        FXL_REQUIRE_CORPUS(kTlparse / file);
        QFETCH(int, md5bad);
        const fs::path path = kTlparse / file;
        const std::string text = readFile(path);
        auto src = loadTorchTrace(path.string());
        const std::regex digest("\"has_payload\": \"([0-9a-f]{32})\"");
        int mismatches = 0;
        for (const auto& a : src->artifacts) {
            std::string envelope =
                text.substr(size_t(a.byteOffset), text.find('\n', size_t(a.byteOffset)) - size_t(a.byteOffset));
            QVERIFY2(envelope.rfind("V", 0) == 0 || envelope.rfind("I", 0) == 0, envelope.c_str());
            std::smatch m;
            QVERIFY(std::regex_search(envelope, m, digest));
            const std::string payload = src->readPayload(a);
            if (md5Hex(payload) != m[1].str()) ++mismatches;
            if (a.isGraph)
                QVERIFY2(payload.rfind("class ", 0) == 0 || payload.rfind("ExportedProgram", 0) == 0,
                         payload.substr(0, 80).c_str());
        }
        QCOMPARE(mismatches, md5bad);
    }

    // Header fields of the first event of simple.log:
    // V1206 15:18:15.925000 1500233 torch/_dynamo/utils.py:1288] {"chromium_event": {}, ...}
    void headerFields()
    {
        FXL_REQUIRE_CORPUS(kTlparse / "simple.log");
        DiagnosticList d;
        TraceIndex ix = indexTorchTrace((kTlparse / "simple.log").string(), d);
        const TraceEvent& e = ix.events.at(0);
        QCOMPARE(e.line, int64_t(1));
        QCOMPARE(e.offset, int64_t(0));
        QVERIFY(e.level == 'V');
        QCOMPARE(TraceIndex::timeString(e), std::string("1206 15:18:15.925000"));
        QCOMPARE(e.pid, int64_t(1500233));
        QCOMPARE(std::string(ix.name(e.sourcePath)), std::string("torch/_dynamo/utils.py"));
        QCOMPARE(e.sourceLine, 1288);
        QCOMPARE(std::string(ix.kind(e)), std::string("chromium_event"));
        QCOMPARE(e.compileId.str(), std::string("[-/-]"));
        QCOMPARE(e.payloadOffset,
                 int64_t(std::string("V1206 15:18:15.925000 1500233 torch/_dynamo/utils.py:1288] "
                                     "{\"chromium_event\": {}, \"has_payload\": "
                                     "\"490a3a38ce10390374e403dd6e063c7f\"}\n")
                             .size()));
        QCOMPARE(e.payloadLines, int64_t(11));
        // The intern table: {"str": ["/data/users/xmfan/a/pytorch/torch/_dynamo/convert_frame.py", 0]}
        QCOMPARE(ix.strings.at(0), std::string("/data/users/xmfan/a/pytorch/torch/_dynamo/convert_frame.py"));
        // The artifact envelope keeps its name as the kind and "artifact" as the key.
        bool found = false;
        for (const auto& ev : ix.events)
            if (ix.kind(ev) == "fx_graph_runnable") {
                QCOMPARE(std::string(ix.name(ev.eventKey)), std::string("artifact"));
                QCOMPARE(std::string(ix.name(ev.encoding)), std::string("string"));
                QCOMPARE(ev.compileId.str(), std::string("[0/0]"));
                found = true;
            }
        QVERIFY(found);
    }

    // Runtime events carry frame_id/frame_compile_id without attempt: listed as [0/0].
    void runtimeEventsWithoutAttempt()
    {
        FXL_REQUIRE_CORPUS(kTlparse / "autotune_with_compile_id.log");
        DiagnosticList d;
        TraceIndex ix = indexTorchTrace((kTlparse / "autotune_with_compile_id.log").string(), d);
        int noAttempt = 0;
        for (const auto& e : ix.events)
            if (e.compileId.frame >= 0 && e.compileId.attempt < 0) {
                ++noAttempt;
                QCOMPARE(e.compileId.str(), std::string("[0/0]"));
                QCOMPARE(e.compileId.directoryName(), std::string("-_0_0_-"));
            }
        // python: sum('frame_id' in e and 'attempt' not in e for e in envelopes) == 1
        // (the compilation_metrics_runtime entry on the last line)
        QCOMPARE(noAttempt, 1);
    }

    void compileIdNotation_data()
    {
        QTest::addColumn<std::string>("envelope");
        QTest::addColumn<std::string>("id");
        QTest::addColumn<std::string>("dir");
        QTest::newRow("plain") << std::string(R"({"x": {}, "frame_id": 0, "frame_compile_id": 1, "attempt": 0})")
                               << std::string("[0/1]") << std::string("-_0_1_0");
        QTest::newRow("attempt") << std::string(R"({"x": {}, "frame_id": 2, "frame_compile_id": 0, "attempt": 1})")
                                 << std::string("[2/0_1]") << std::string("-_2_0_1");
        QTest::newRow("compiled autograd")
            << std::string(R"({"compiled_autograd_graph": {}, "compiled_autograd_id": 0})") << std::string("[!0/-/-]")
            << std::string("0_-_-_-");
        QTest::newRow("ca + dynamo") << std::string(
            R"({"x": {}, "compiled_autograd_id": 3, "frame_id": 1, "frame_compile_id": 2, "attempt": 4})")
                                     << std::string("[!3/1/2_4]") << std::string("3_1_2_4");
        QTest::newRow("null ca") << std::string(
            R"({"x": {}, "compiled_autograd_id": null, "frame_id": 5, "frame_compile_id": 0, "attempt": 0})")
                                 << std::string("[5/0]") << std::string("-_5_0_0");
        QTest::newRow("stack only") << std::string(R"({"x": {}, "stack": [{"line": 1, "name": "f", "filename": 2}]})")
                                    << std::string("[-/-]") << std::string("-_-_-_-");
    }

    void compileIdNotation()
    {
        QFETCH(std::string, envelope);
        QFETCH(std::string, id);
        QFETCH(std::string, dir);
        DiagnosticList d;
        TraceIndex ix = indexTorchTraceText("V0101 00:00:00.000000 1 a.py:1] " + envelope + "\n", "<m>", d);
        QCOMPARE(int(ix.events.size()), 1);
        QCOMPARE(ix.events[0].compileId.str(), id);
        QCOMPARE(ix.events[0].compileId.directoryName(), dir);
        QVERIFY2(d.items.empty(), dumpDiags(d).c_str());
    }

    // Kinds: artifact / graph_dump take their name; unknown artifacts that print a
    // GraphModule class are graphs, C++ graph dumps are not; subgraph_name is kept.
    void kindsAndGraphDetection()
    {
        const std::string h = "V0101 00:00:00.000000 1 a.py:1] ";
        auto withPayload = [&](const std::string& env, const std::string& payload) {
            return h + env.substr(0, env.size() - 1) + ", \"has_payload\": \"" + md5Hex(payload) + "\"}\n\t"
                + std::regex_replace(payload, std::regex("\n"), "\n\t") + "\n";
        };
        const std::string gm = "class GraphModule(torch.nn.Module):\n    def forward(self, x):\n        return (x,)\n";
        std::string log =
            withPayload(R"({"graph_dump": {"name": "vllm_submod_0"}})", gm)
            + withPayload(R"({"graph_dump": {"name": "inductor_aot_wrapper_code", "type": "cpp"}})",
                          "class X(torch.nn.Module):\n")
            + withPayload(R"({"artifact": {"name": "vllm_post_grad.3.FusionPass", "encoding": "string"}})", gm)
            + withPayload(R"({"artifact": {"name": "fx_graph_runnable", "encoding": "string"}})",
                          "\nimport torch\n" + gm)
            + withPayload(
                R"({"optimize_ddp_split_child": {"name": "submod_0"}, "frame_id": 0, "frame_compile_id": 0, "attempt": 0})",
                gm)
            + withPayload(R"({"dynamo_output_graph": {"sizes": {}}, "subgraph_name": "repeated_subgraph0"})", gm) + h
            + R"({"dynamo_start": {"stack": []}, "frame_id": 0, "frame_compile_id": 0, "attempt": 0})" + "\n";
        DiagnosticList d;
        TraceIndex ix = indexTorchTraceText(log, "<m>", d);
        QVERIFY2(d.items.empty(), dumpDiags(d).c_str());
        QCOMPARE(int(ix.events.size()), 7);
        std::vector<std::pair<std::string, bool>> want = {{"vllm_submod_0", true},
                                                          {"inductor_aot_wrapper_code", false},
                                                          {"vllm_post_grad.3.FusionPass", true},
                                                          {"fx_graph_runnable", false},
                                                          {"optimize_ddp_split_child_submod_0", true},
                                                          {"dynamo_output_graph", true},
                                                          {"dynamo_start", false}};
        for (size_t i = 0; i < want.size(); ++i) {
            QCOMPARE(std::string(ix.kind(ix.events[i])), want[i].first);
            QCOMPARE(ix.events[i].isGraph, want[i].second);
            if (i < 6) QVERIFY(ix.events[i].md5 == Md5Check::Ok);
        }
        QCOMPARE(std::string(ix.name(ix.events[5].subgraphName)), std::string("repeated_subgraph0"));
        auto src = sourceFromTraceIndex(ix, d);
        QCOMPARE(int(src->artifacts.size()), 6);  // dynamo_start has no payload
        QCOMPARE(src->artifacts[5].subgraphName, std::string("repeated_subgraph0"));
    }

    // ---------------------------------------------------------------- directories
    void rankDirectory()
    {
        FXL_REQUIRE_CORPUS(kTlparse / "graph_exec_order");
        auto src = loadTorchTrace((kTlparse / "graph_exec_order").string());
        QVERIFY(src->format == SourceFormat::TorchTraceDir);
        QCOMPARE(src->ranks, std::vector<int>({0, 1}));
        QCOMPARE(int(src->graphs().size()), 24);  // 12 per rank (corpusLogs rows)
        QCOMPARE(int(src->artifacts.size()), 424);  // 212 payloads per rank
        std::map<int, int> perRank;
        for (const auto* a : src->graphs()) {
            QVERIFY(a->rank.has_value());
            perRank[*a->rank]++;
            QVERIFY(a->id.rfind("rank" + std::to_string(*a->rank) + "/", 0) == 0);
        }
        QCOMPARE(perRank[0], 12);
        QCOMPARE(perRank[1], 12);
        QCOMPARE(countDiags(src->diagnostics, Severity::Warning, "does not match its MD5"), 2);
        QCOMPARE(countDiags(src->diagnostics, Severity::Warning, "rank"), 0);
    }

    // Renamed copies whose envelopes say another rank, an empty log and a non-log file
    // (the layout of tlparse's multi_rank_messy_input / multi_rank_schedule fixtures).
    void messyRankDirectory()
    {
        FXL_REQUIRE_CORPUS(kTlparse / "multi_rank_schedule/dedicated_log_torch_trace_rank_0_6u3fubwl.log");
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const fs::path dir = tmp.path().toStdString();
        const std::string rank0 =
            readFile(kTlparse / "multi_rank_schedule/dedicated_log_torch_trace_rank_0_6u3fubwl.log");
        writeText(dir / "dedicated_log_torch_trace_rank_0_6u3fubwl.log", rank0);
        writeText(dir / "dedicated_log_torch_trace_rank_1_n8zycf07.log", rank0);  // says "rank": 0 inside
        writeText(dir / "dedicated_log_torch_trace_rank_2_empty.log", "");
        writeText(dir / "notes.txt", "just some notes\n");
        auto src = loadTorchTrace(dir.string());
        QCOMPARE(src->ranks, std::vector<int>({0, 1}));
        QCOMPARE(int(src->graphs().size()), 24);
        QCOMPARE(countDiags(src->diagnostics, Severity::Warning, "the file name says rank 1"), 1);
        QCOMPARE(countDiags(src->diagnostics, Severity::Note, "empty file skipped"), 1);
        QCOMPARE(countDiags(src->diagnostics, Severity::Note, "not a TORCH_TRACE log"), 1);
        for (const auto& a : src->artifacts) QCOMPARE(*a.rank, a.file.find("rank_1_") != std::string::npos ? 1 : 0);
        // Graph payloads of the copy equal the original's.
        for (const auto* a : src->graphs())
            if (a->rank == 1) {
                const Artifact* orig = src->find("rank0/" + a->id.substr(6));
                QVERIFY(orig);
                QCOMPARE(src->readPayload(*a), src->readPayload(*orig));
            }
    }

    void emptyDirectoryIsAnError()
    {
        QTemporaryDir tmp;
        writeText(fs::path(tmp.path().toStdString()) / "readme.md", "# nothing here\n");
        QVERIFY_THROWS_EXCEPTION(InputError, loadTorchTrace(tmp.path().toStdString()));
    }

    // ---------------------------------------------------------------- tlparse output folders
    // A folder laid out like tlparse's (compile_directory.json, <ca>_<f>_<c>_<a>/<kind>_<N>.txt),
    // written at test time from the payloads of real logs, optionally as rank_<N>/ subfolders.
    void tlparseOutput_data()
    {
        QTest::addColumn<QStringList>("logs");
        QTest::addColumn<bool>("perRank");
        QTest::addColumn<int>("graphs");
        QTest::addColumn<int>("pairs");
        QTest::newRow("jit training log")
            << QStringList{"inductor_provenance_jit_debug_handle_log.txt"} << false << 8 << 2;
        QTest::newRow("two ranks") << QStringList{"graph_exec_order/dedicated_log_torch_trace_rank_0_a74od7a1.log",
                                                  "graph_exec_order/dedicated_log_torch_trace_rank_1_fglwclht.log"}
                                   << true << 24 << 8;
    }

    void tlparseOutput()
    {
        QFETCH(QStringList, logs);
        for (const QString& log : logs) FXL_REQUIRE_CORPUS(kTlparse / log.toStdString());
        QFETCH(bool, perRank);
        QFETCH(int, graphs);
        QFETCH(int, pairs);
        QTemporaryDir tmp;
        const fs::path out = tmp.path().toStdString();
        std::map<std::string, std::string> expectedText;  // url -> payload
        for (int r = 0; r < logs.size(); ++r) {
            auto src = loadTorchTrace((kTlparse / logs[r].toStdString()).string());
            const fs::path root = perRank ? out / ("rank_" + std::to_string(r)) : out;
            nlohmann::ordered_json dir = nlohmann::ordered_json::object();
            int n = 0;
            for (const auto& a : src->artifacts) {
                if (a.kind == "chromium_event") continue;  // tlparse merges these into one file
                std::string cdir = a.compileId == "[-/-]" ? "-_-_-_-" : a.compileId;
                for (char& c : cdir)
                    if (c == '[' || c == ']')
                        c = '_';
                    else if (c == '/')
                        c = '_';
                const std::string url = cdir + "/" + a.kind + "_" + std::to_string(n) + ".txt";
                const std::string text = src->readPayload(a);
                writeText(root / url, text);
                dir[a.compileId]["artifacts"].push_back({{"url", url},
                                                         {"name", a.kind + "_" + std::to_string(n) + ".txt"},
                                                         {"number", n},
                                                         {"suffix", ""},
                                                         {"readable_url", nullptr}});
                expectedText[(perRank ? "rank_" + std::to_string(r) + "/" : "") + url] = text;
                ++n;
            }
            dir["[-/-]"]["artifacts"].push_back({{"url", "https://example.com/x"}, {"name", "link"}});
            writeText(root / "compile_directory.json", dir.dump(2));
        }
        QVERIFY(isTlparseOutputDir(out.string()));
        auto src = loadTlparseOutput(out.string());
        QVERIFY(src->format == SourceFormat::TlparseOutput);
        QVERIFY2(src->diagnostics.items.empty(), dumpDiags(src->diagnostics).c_str());
        QCOMPARE(src->artifacts.size(), expectedText.size());
        QCOMPARE(int(src->graphs().size()), graphs);
        int pairCount = 0;
        for (const auto& a : src->artifacts) {
            QVERIFY(expectedText.count(a.id));
            QCOMPARE(src->readPayload(a), expectedText[a.id]);
            if (!a.pairedWith.empty() && a.kind.rfind("before_", 0) == 0) ++pairCount;
            QCOMPARE(a.rank.has_value(), perRank);
        }
        QCOMPARE(pairCount, pairs);
        if (perRank) QCOMPARE(src->ranks, std::vector<int>({0, 1}));
        // loadTorchTrace on the folder dispatches to the same loader.
        QCOMPARE(loadTorchTrace(out.string())->artifacts.size(), src->artifacts.size());
        // openSource (what the CLI and GUI call) recognises the folder, rank_<N>/ layout included.
        {
            auto opened = openSource(out.string());
            QVERIFY(opened->format == SourceFormat::TlparseOutput);
            QCOMPARE(opened->artifacts.size(), src->artifacts.size());
        }

        // A listed file that is gone is a warning; broken JSON is an InputError with a line.
        fs::remove(fs::path(src->graphs().front()->file));
        QCOMPARE(countDiags(loadTlparseOutput(out.string())->diagnostics, Severity::Warning, "is missing"), 1);
        const fs::path cd = perRank ? out / "rank_0" / "compile_directory.json" : out / "compile_directory.json";
        writeText(cd, "{\n  \"[0/0]\": {\"artifacts\": [\n}\n");
        try {
            loadTlparseOutput(out.string());
            QFAIL("expected InputError");
        } catch (const InputError& e) {
            QCOMPARE(e.diagnostic().line, 3);
        }
    }

    // ---------------------------------------------------------------- graphs through Source
    // Every graph payload of every corpus log goes through Source::graph (lazy read + the FX
    // text parser) and gives a non-empty graph with an output node.
    void allCorpusGraphsParse_data() { corpusLogs_data(); }
    void allCorpusGraphsParse()
    {
        QFETCH(std::string, file);
        FXL_REQUIRE_CORPUS(kTlparse / file);
        QFETCH(int, graphs);
        auto src = loadTorchTrace((kTlparse / file).string());
        int parsed = 0;
        for (const Artifact* a : src->graphs()) {
            try {
                auto g = src->graph(a->id);
                QVERIFY(g && g->size() > 1);
                ++parsed;
            } catch (const InputError& e) {
                QFAIL(qPrintable(QString("%1 (%2 %3)").arg(e.what(), a->kind.c_str(), a->compileId.c_str())));
            }
        }
        QCOMPARE(parsed, graphs);
    }

    void parsedGraphsAreCached()
    {
        FXL_REQUIRE_CORPUS(kTlparse / "simple.log");
        auto src = loadTorchTrace((kTlparse / "simple.log").string());
        const Artifact* g = nullptr;
        const Artifact* nonGraph = nullptr;
        for (const auto& a : src->artifacts) {
            if (a.kind == "dynamo_output_graph") g = &a;
            if (a.kind == "fx_graph_runnable") nonGraph = &a;
        }
        QVERIFY(g && nonGraph);
        auto g1 = src->graph(g->id);
        QVERIFY(g1);
        QVERIFY(g1->size() > 0);
        QCOMPARE(src->graph(g->id).get(), g1.get());
        QVERIFY_THROWS_EXCEPTION(InputError, src->graph(nonGraph->id));
        QVERIFY_THROWS_EXCEPTION(InputError, src->graph("no-such-id"));
    }
};

FXL_TEST_APPLESS_MAIN(TestTorchTrace)
}  // namespace test_torch_trace
#include "test_torch_trace.moc"
