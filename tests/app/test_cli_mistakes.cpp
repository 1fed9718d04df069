// User mistakes that fxlens used to accept in silence, hints that sent users wrong, and output
// that misled: each row runs the fxlens binary as a user would and checks that the mistake is
// refused with a message naming it and the nearest valid choice (exit code 2 for a bad command
// line or pipeline spec, 1 for a file that does not fit), that the right spelling works, and
// that tables and JSON say what they mean.
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include "cli_test_util.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_cli_mistakes {

using namespace clitest;

namespace {

// "{pytorch}/x" and "{tlparse}/x" in a row's arguments name corpus files.
QStringList withCorpus(const QStringList& args)
{
    const QString pytorch = QString::fromStdString(fxltest::corpusPath("pytorch").string());
    const QString tlparse = QString::fromStdString(fxltest::corpusPath("tlparse").string());
    QStringList out;
    for (QString a : args)
        out << a.replace(QStringLiteral("{pytorch}"), pytorch).replace(QStringLiteral("{tlparse}"), tlparse);
    return out;
}

// The corpus files a row reads (arguments that start with a placeholder).
// The sanitizer stage runs these corpus-wide rows on gpt2_tiny and mlp_gelu of pytorch/ and on
// the fx dumps with small tensors only (the release stage runs every corpus graph): under ASan
// each fxlens run is ~10x slower, and running a dump of 1x320x128x128 activations (gelu_dropout,
// collectives) or a Megatron GPT takes half a minute or more there.
bool sanitizerSkips(const std::filesystem::path& p)
{
    if (!fxltest::kSanitizedBuild || !std::filesystem::exists(p)) return false;
    const std::string name = p.filename().string();
    if (p.parent_path().filename() == "pytorch")
        return name.rfind("gpt2_tiny.", 0) != 0 && name.rfind("mlp_gelu.", 0) != 0;
    return name.rfind("entangle_megatron", 0) == 0 || name.find("gelu_dropout") != std::string::npos
        || name.find("collectives") != std::string::npos;
}

QStringList corpusFilesOf(const QStringList& args)
{
    QStringList files;
    for (const QString& a : withCorpus(args))
        if (a.startsWith(QString::fromStdString(fxltest::corpusDir().string()))) files << a;
    return files;
}

const QString kJoint = QStringLiteral("{pytorch}/gpt2_tiny.joint.code.py");

}  // namespace

class TestCliMistakes : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QVERIFY2(QFileInfo(kFxlensBinary).isExecutable(), qPrintable("fxlens binary missing: " + kFxlensBinary));
    }

    void refused_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QStringList>("messages");  // each must be in stderr
        const QString passes = QStringLiteral("passes"), run = QStringLiteral("run"),
                      pipeline = QStringLiteral("--pipeline");

        // sac's save list: typos get the nearest operator, at the option's column
        QTest::newRow("sac save typo in overload")
            << QStringList{passes, run, kJoint, pipeline, QStringLiteral("sac(policy=user,save=aten.mm.defualt;addmm)")}
            << 2
            << QStringList{QStringLiteral("<pipeline>:1:17"), QStringLiteral("'aten.mm.defualt' names no operator"),
                           QStringLiteral("did you mean 'aten.mm.default'?")};
        QTest::newRow("sac save typo in a bare name")
            << QStringList{passes, run, kJoint, pipeline, QStringLiteral("sac(policy=user,save=mm;addmmm)")} << 2
            << QStringList{QStringLiteral("'addmmm' names no operator"), QStringLiteral("did you mean 'addmm'?")};
        QTest::newRow("sac save typo in a packet")
            << QStringList{passes, run, kJoint, pipeline, QStringLiteral("sac(policy=user,save=aten.gelu;aten.adddmm)")}
            << 2 << QStringList{QStringLiteral("did you mean 'aten.addmm'?")};
        QTest::newRow("sac save far from any operator")
            << QStringList{passes, run, kJoint, pipeline, QStringLiteral("sac(policy=user,save=zzzqqq)")} << 2
            << QStringList{QStringLiteral("'zzzqqq' names no operator (spell it as in the graph")};
        QTest::newRow("sac save under another policy")
            << QStringList{passes, run, kJoint, pipeline, QStringLiteral("sac(policy=alternate_mm,save=mm)")} << 2
            << QStringList{QStringLiteral("option 'save' is read by policy=user only (policy is alternate_mm)")};
        QTest::newRow("sac user policy without a save list")
            << QStringList{passes, run, kJoint, pipeline, QStringLiteral("sac(policy=user)")} << 2
            << QStringList{QStringLiteral("option 'save' is empty"), QStringLiteral("policy=recompute_all")};

        // an outputs file given as inputs feeds no placeholder: refused, not all generated
        QTest::newRow("run with the outputs file as inputs")
            << QStringList{run, QStringLiteral("{pytorch}/llama_tiny.joint.code.py"), QStringLiteral("--inputs"),
                           QStringLiteral("{pytorch}/llama_tiny.outputs.safetensors")}
            << 1
            << QStringList{QStringLiteral("llama_tiny.outputs.safetensors: error: names none of the graph's"),
                           QStringLiteral("an outputs file or another graph's inputs?")};
        QTest::newRow("check with the outputs file as inputs")
            << QStringList{QStringLiteral("check"), kJoint, kJoint, QStringLiteral("--inputs"),
                           QStringLiteral("{pytorch}/gpt2_tiny.outputs.safetensors")}
            << 1 << QStringList{QStringLiteral("names none of the graph's")};

        // mem --forward-outputs beyond the outputs, or on a graph with a backward
        QTest::newRow("mem forward-outputs beyond the outputs")
            << QStringList{QStringLiteral("mem"), QStringLiteral("{pytorch}/gpt2_tiny.fw.default.code.py"),
                           QStringLiteral("--forward-outputs"), QStringLiteral("100")}
            << 2 << QStringList{QStringLiteral("--forward-outputs 100: the graph returns")};
        QTest::newRow("mem forward-outputs on a joint graph")
            << QStringList{QStringLiteral("mem"), kJoint, QStringLiteral("--forward-outputs"), QStringLiteral("1")} << 2
            << QStringList{QStringLiteral("this graph has backward nodes")};

        // one number for --tolerance could mean atol or rtol
        QTest::newRow("check tolerance with one number")
            << QStringList{QStringLiteral("check"), kJoint, kJoint, QStringLiteral("--tolerance"),
                           QStringLiteral("1e-6")}
            << 2
            << QStringList{QStringLiteral("got one number '1e-6'"), QStringLiteral("1e-6,0"), QStringLiteral("0,1e-6")};

        // --threads: one range, one message, whatever the wrong number
        for (const char* t : {"0", "-3", "257", "two"})
            QTest::newRow(qPrintable(QStringLiteral("run --threads %1").arg(QLatin1String(t))))
                << QStringList{run, kJoint, QStringLiteral("--threads"), QLatin1String(t)} << 2
                << QStringList{
                       QStringLiteral("--threads expects a number from 1 to 256, got '%1'").arg(QLatin1String(t))};

        // the hint for several graphs names the verb's own option
        QTest::newRow("diff of a log with several graphs")
            << QStringList{QStringLiteral("diff"), QStringLiteral("{tlparse}/simple.log"),
                           QStringLiteral("{tlparse}/simple.log")}
            << 2 << QStringList{QStringLiteral("pick one with --graph-a ID")};
        QTest::newRow("diff: B with several graphs")
            << QStringList{QStringLiteral("diff"), kJoint, QStringLiteral("{tlparse}/simple.log")} << 2
            << QStringList{QStringLiteral("pick one with --graph-b ID")};
        QTest::newRow("check of a log with several graphs")
            << QStringList{QStringLiteral("check"), QStringLiteral("{tlparse}/simple.log"), kJoint} << 2
            << QStringList{QStringLiteral("pick one with --graph-a ID")};
        QTest::newRow("mem of a log with several graphs")
            << QStringList{QStringLiteral("mem"), QStringLiteral("{tlparse}/simple.log")} << 2
            << QStringList{QStringLiteral("pick one with --graph ID")};
    }
    void refused()
    {
        QFETCH(QStringList, args);
        QFETCH(int, exitCode);
        QFETCH(QStringList, messages);
        for (const QString& f : corpusFilesOf(args)) FXL_REQUIRE_CORPUS(f);
        QTemporaryDir tmp;
        QStringList full = withCorpus(args);
        const bool writes = args.size() > 1 && args[0] == QLatin1String("passes");
        const QString out = tmp.filePath(QStringLiteral("steps"));
        if (writes) full << QStringLiteral("--out") << out;
        const Run r = fxlens(full);
        QVERIFY2(!r.crashed, r.err.constData());
        QVERIFY2(r.exitCode == exitCode,
                 qPrintable(QStringLiteral("exit %1, expected %2: %3")
                                .arg(r.exitCode)
                                .arg(exitCode)
                                .arg(QString::fromUtf8(r.err))));
        for (const QString& m : messages)
            QVERIFY2(r.err.contains(m.toUtf8()), qPrintable("missing '" + m + "' in: " + r.err));
        if (writes) QVERIFY2(!QFileInfo::exists(out), "nothing written for a refused pipeline");
    }

    // What the refusals point to works: the right spellings run.
    void rightSpellingsWork_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::newRow("sac user with bare, packet and overload names")
            << QStringList{QStringLiteral("passes"), QStringLiteral("run"), kJoint, QStringLiteral("--pipeline"),
                           QStringLiteral("sac(policy=user,save=mm;aten.addmm;aten.gelu.default)")};
        QTest::newRow("sac user with a custom op namespace")
            << QStringList{QStringLiteral("passes"), QStringLiteral("run"), kJoint, QStringLiteral("--pipeline"),
                           QStringLiteral("sac(policy=user,save=mm;mylib.fused_linear)")};
        QTest::newRow("mem forward-outputs within the outputs")
            << QStringList{QStringLiteral("mem"), QStringLiteral("{pytorch}/gpt2_tiny.fw.default.code.py"),
                           QStringLiteral("--forward-outputs"), QStringLiteral("1")};
        QTest::newRow("check with atol and rtol") << QStringList{
            QStringLiteral("check"), kJoint, kJoint, QStringLiteral("--tolerance"), QStringLiteral("1e-6,0")};
        QTest::newRow("diff of a log with the graphs picked") << QStringList{QStringLiteral("diff"),
                                                                             QStringLiteral("{tlparse}/simple.log"),
                                                                             QStringLiteral("{tlparse}/simple.log"),
                                                                             QStringLiteral("--graph-a"),
                                                                             QStringLiteral("12"),
                                                                             QStringLiteral("--graph-b"),
                                                                             QStringLiteral("12")};
    }
    void rightSpellingsWork()
    {
        QFETCH(QStringList, args);
        for (const QString& f : corpusFilesOf(args)) FXL_REQUIRE_CORPUS(f);
        const Run r = fxlens(withCorpus(args));
        QVERIFY2(!r.crashed, r.err.constData());
        QVERIFY2(r.exitCode == 0,
                 qPrintable(QStringLiteral("exit %1: %2").arg(r.exitCode).arg(QString::fromUtf8(r.err))));
    }

    // A custom op that no node has is named in a note, not silently matched to nothing.
    void saveItemMatchingNoNodeIsNoted()
    {
        const QString joint = withCorpus({kJoint}).front();
        FXL_REQUIRE_CORPUS(joint);
        const Run r = fxlens({QStringLiteral("passes"), QStringLiteral("run"), joint, QStringLiteral("--pipeline"),
                              QStringLiteral("sac(policy=user,save=mm;mylib.fused_linear)")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains("save: 'mylib.fused_linear' matches no node of this graph"), r.out.constData());
    }

    // A pass that cannot apply names the real cause, not a symptom of it.
    void passFailureNamesTheCause_data()
    {
        QTest::addColumn<QString>("spec");
        QTest::addColumn<QString>("message");
        QTest::addColumn<QString>("symptom");  // what it said before: must not be the message
        QTest::newRow("mincut with gradients as forward outputs")
            << QStringLiteral("partition(mode=mincut,num_fwd_outputs=5)")
            << QStringLiteral("which depends on the backward seed") << QStringLiteral("no finite cut");
        QTest::newRow("save_all with gradients as forward outputs")
            << QStringLiteral("partition(mode=save_all,num_fwd_outputs=5)")
            << QStringLiteral("which depends on the backward seed") << QStringLiteral("no finite cut");
        QTest::newRow("remat by remat_pass_tag on a graph without it")
            << QStringLiteral("sac,remat(backward=remat_pass_tag)")
            << QStringLiteral("no node carries custom.remat_pass_tag == \"is_backward\"")
            << QStringLiteral("no backward node reads a value tagged");
    }
    void passFailureNamesTheCause()
    {
        QFETCH(QString, spec);
        QFETCH(QString, message);
        QFETCH(QString, symptom);
        const QString joint = withCorpus({kJoint}).front();
        FXL_REQUIRE_CORPUS(joint);
        const Run r =
            fxlens({QStringLiteral("passes"), QStringLiteral("run"), joint, QStringLiteral("--pipeline"), spec});
        QVERIFY(!r.crashed);
        QCOMPARE(r.exitCode, 1);
        const QByteArray all = r.out + r.err;
        QVERIFY2(all.contains(message.toUtf8()), all.constData());
        QVERIFY2(!all.contains(symptom.toUtf8()), all.constData());
    }

    // partition refuses graphs it does not apply to, and sac and remat refuse backward graphs,
    // saying what the graph is (partition used to write an empty half and exit 0; sac and remat
    // moved nodes inside backward graphs), over the real graphs of the corpus.
    void partitionRefusesWhatIsNoJoint_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("message");
        const QString noBackward = QStringLiteral("this graph has no backward");
        const QString allBackward = QStringLiteral("every output of this graph is");
        for (const auto& f : fxltest::corpusFiles("pytorch", {".code.py"})) {
            const QString name = QString::fromStdString(f.filename().string());
            if (sanitizerSkips(f)) continue;
            if (name.contains(QLatin1String(".fw.")))
                QTest::newRow(qPrintable(name)) << QString::fromStdString(f.string()) << noBackward;
            else if (name.contains(QLatin1String(".bw.")))
                QTest::newRow(qPrintable(name)) << QString::fromStdString(f.string()) << allBackward;
        }
        const QString fx = QString::fromStdString(fxltest::corpusPath("fx").string()) + QLatin1Char('/');
        QTest::newRow("aot backward") << fx + QStringLiteral("tlparse_v2.9dev_mlp_aot_backward_graph_expanded.txt")
                                      << allBackward;
        QTest::newRow("aot forward") << fx + QStringLiteral("tlparse_v2.9dev_mlp_aot_forward_graph_expanded.txt")
                                     << noBackward;
        QTest::newRow("dynamo") << fx + QStringLiteral("tlparse_v2.9dev_mlp_dynamo_output_graph.txt") << noBackward;
        QTest::newRow("inference") << fx + QStringLiteral("tlparse_v2.6dev_gelu_dropout_aot_inference_graph.txt")
                                   << noBackward;
        QTest::newRow("post-grad") << fx + QStringLiteral("tlparse_v2.6dev_gelu_dropout_inductor_post_grad_graph.txt")
                                   << noBackward;
    }
    void partitionRefusesWhatIsNoJoint()
    {
        FXL_SANITIZER_ROWS(4);
        QFETCH(QString, file);
        QFETCH(QString, message);
        FXL_REQUIRE_CORPUS(file);
        QStringList specs{QStringLiteral("partition(mode=save_all)"), QStringLiteral("partition(mode=tagged)"),
                          QStringLiteral("partition(mode=mincut)")};
        // sac and remat refuse a backward graph; on a graph without backward they find nothing to do
        if (message.startsWith(QLatin1String("every output")))
            specs << QStringLiteral("sac(policy=alternate_mm)") << QStringLiteral("sac(policy=recompute_all)")
                  << QStringLiteral("remat");
        for (const QString& spec : specs) {
            const Run r =
                fxlens({QStringLiteral("passes"), QStringLiteral("run"), file, QStringLiteral("--pipeline"), spec});
            QVERIFY2(!r.crashed, r.err.constData());
            QVERIFY2(
                r.exitCode == 1,
                qPrintable(
                    QStringLiteral("%1: exit %2: %3").arg(spec).arg(r.exitCode).arg(QString::fromUtf8(r.out + r.err))));
            QVERIFY2((r.out + r.err).contains(message.toUtf8()), (r.out + r.err).constData());
        }
    }

    // ... and still work on every joint graph of the corpus.
    void partitionSplitsJoints_data()
    {
        QTest::addColumn<QString>("file");
        for (const auto& f : fxltest::corpusFiles("pytorch", {".joint.code.py"}))
            if (!sanitizerSkips(f))
                QTest::newRow(fxltest::corpusRowName(f).c_str()) << QString::fromStdString(f.string());
        QTest::newRow("aot joint") << QString::fromStdString(
            fxltest::corpusPath("fx/tlparse_v2.9dev_mlp_aot_joint_graph_expanded.txt").string());
    }
    void partitionSplitsJoints()
    {
        QFETCH(QString, file);
        FXL_REQUIRE_CORPUS(file);
        for (const char* spec : {"partition", "sac,remat"}) {
            const Run r = fxlens({QStringLiteral("passes"), QStringLiteral("run"), file, QStringLiteral("--pipeline"),
                                  QLatin1String(spec)});
            QVERIFY2(r.exitCode == 0, (r.out + r.err).constData());
        }
    }

    // The steps table keeps its columns apart however large the counts (the 100k-node graph
    // changes over a thousand nodes: "tags 1279ok" once ran together), and long lists fold.
    void stepsTableColumnsApart()
    {
        const QString large =
            QString::fromStdString(fxltest::corpusPath("pytorch/large/gpt2_deep640.joint.code.py").string());
        FXL_REQUIRE_CORPUS(large);
        const Run r = fxlens({QStringLiteral("passes"), QStringLiteral("run"), large, QStringLiteral("--pipeline"),
                              QStringLiteral("annotate_regions,sac(policy=alternate_mm),remat")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QList<QByteArray> lines = r.out.split('\n');
        int rows = 0;
        const QRegularExpression stepRow(QStringLiteral("^ +[123]  (annotate_regions|sac|remat) "));
        // "... changed 92159 rewired 0  ok": the count, two blanks at least, then the verifier
        // column (annotate_regions changes 92,159 nodes' metadata)
        const QRegularExpression apart(QStringLiteral("changed \\d+ rewired \\d+ {2,}\\S"));
        for (const QByteArray& line : lines) {
            if (!stepRow.match(QString::fromUtf8(line)).hasMatch()) continue;
            ++rows;
            QVERIFY2(apart.match(QString::fromUtf8(line)).hasMatch(), line.constData());
        }
        QCOMPARE(rows, 3);
        // and each pass's 640 AC regions fold into the first few and a count
        int regionLines = 0;
        for (const QByteArray& line : lines) regionLines += line.trimmed().startsWith("region ") ? 1 : 0;
        QCOMPARE(regionLines, 2 * 3);
        QCOMPARE(r.out.count("... and 637 more regions"), 2);
    }

    // JSON lists are arrays: run --json lists the None outputs it did not write one per item.
    void skippedOutputsAreAList()
    {
        QTemporaryDir tmp;
        const QString graph = tmp.filePath(QStringLiteral("none_outputs.py"));
        QVERIFY(writeFile(graph,
                          "class GraphModule(torch.nn.Module):\n"
                          "    def forward(self, x: \"f32[4][1]cpu\"):\n"
                          "        neg: \"f32[4][1]cpu\" = torch.ops.aten.neg.default(x)\n"
                          "        return (neg, None, neg, None)\n"));
        const Run r = fxlens({QStringLiteral("run"), graph, QStringLiteral("--json")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonObject doc = parseJsonDoc(r.out);
        QVERIFY2(doc.value(QStringLiteral("skipped_outputs")).isArray(), r.out.constData());
        const QJsonArray skipped = doc.value(QStringLiteral("skipped_outputs")).toArray();
        QCOMPARE(skipped.size(), 2);
        QCOMPARE(skipped.at(0).toString(), QStringLiteral("out_1"));
        QCOMPARE(skipped.at(1).toString(), QStringLiteral("out_3"));
    }

    // info on a file that is no graph refuses it at its first line, and lists no graph (the
    // window used to show such a file as "1 graphs").
    void infoOnTextThatIsNoGraph()
    {
        QTemporaryDir tmp;
        const QString notes = tmp.filePath(QStringLiteral("NOTES.md"));
        QVERIFY(writeFile(notes, "# Notes\n\nRun `fxlens info` on the graph.\n"));
        const Run r = fxlens({QStringLiteral("info"), notes});
        QVERIFY(!r.crashed);
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(!r.out.contains("graph"), r.out.constData());
        QVERIFY2(r.err.contains("NOTES.md:1:1: error: expected 'class' or 'def'"), r.err.constData());
    }

    // A built-in operator without a kernel (aten.frac) stops run with a hint to declare it; an
    // ops file with another schema is refused; with its own schema and a decomposition
    // (x - trunc(x), what PyTorch computes), the graph runs and the declaration gives frac's bits.
    void builtinWithoutKernelDeclared()
    {
        QTemporaryDir tmp;
        const QString graph = tmp.filePath(QStringLiteral("frac.py"));
        QVERIFY(writeFile(graph,
                          "class GraphModule(torch.nn.Module):\n"
                          "    def forward(self, x: \"f32[64]\"):\n"
                          "        m: \"f32[64]\" = torch.ops.aten.mul.Tensor(x, 7.5)\n"
                          "        frac: \"f32[64]\" = torch.ops.aten.frac.default(m)\n"
                          "        trunc: \"f32[64]\" = torch.ops.aten.trunc.default(m)\n"
                          "        sub: \"f32[64]\" = torch.ops.aten.sub.Tensor(m, trunc)\n"
                          "        return (frac, sub)\n"));
        const Run plain = fxlens({QStringLiteral("run"), graph});
        QCOMPARE(plain.exitCode, 1);
        QVERIFY2(plain.err.contains("node 'frac' (aten.frac.default): no CPU kernel for aten.frac.default; an ops "
                                    "file can give it a body: its schema (frac(Tensor self) -> Tensor) and a "
                                    "decomposition over operators fxlens runs (docs/custom_ops.md, --ops FILE)"),
                 plain.err.constData());
        const QString wrong = tmp.filePath(QStringLiteral("wrong.ops"));
        QVERIFY(writeFile(wrong, "op aten.frac(Tensor self, int k) -> Tensor\nidentity self\n"));
        const Run refused = fxlens({QStringLiteral("run"), graph, QStringLiteral("--ops"), wrong});
        QCOMPARE(refused.exitCode, 1);
        QVERIFY2(refused.err.contains("operator aten.frac.default is a built-in operator of fxlens (ops.tsv line "),
                 refused.err.constData());
        QVERIFY2(refused.err.contains(" whose schema is frac(Tensor self) -> Tensor; a declaration must repeat it"),
                 refused.err.constData());
        const QString ops = tmp.filePath(QStringLiteral("frac.ops"));
        QVERIFY(writeFile(ops,
                          "op aten.frac(Tensor self) -> Tensor\n"
                          "decomposition\n"
                          "    def forward(self, x):\n"
                          "        trunc = torch.ops.aten.trunc.default(x)\n"
                          "        sub = torch.ops.aten.sub.Tensor(x, trunc);  x = trunc = None\n"
                          "        return sub\n"));
        const Run ran = fxlens({QStringLiteral("run"), graph, QStringLiteral("--ops"), ops, QStringLiteral("--json")});
        QVERIFY2(ran.exitCode == 0, qPrintable(describe(ran)));
        const QJsonArray outs = parseJsonDoc(ran.out)[QStringLiteral("outputs")].toArray();
        QCOMPARE(outs.size(), 2);
        const QString sum0 = outs[0].toObject()[QStringLiteral("checksum")].toString();
        QVERIFY(!sum0.isEmpty());
        QCOMPARE(sum0, outs[1].toObject()[QStringLiteral("checksum")].toString());

        // a body given to a built-in that has a kernel: the kernel runs (neg stays neg)
        const QString negGraph = tmp.filePath(QStringLiteral("neg.py"));
        QVERIFY(writeFile(negGraph,
                          "class GraphModule(torch.nn.Module):\n"
                          "    def forward(self, x: \"f32[8]\"):\n"
                          "        neg: \"f32[8]\" = torch.ops.aten.neg.default(x)\n"
                          "        return (neg,)\n"));
        const QString negOps = tmp.filePath(QStringLiteral("neg.ops"));
        QVERIFY(writeFile(negOps, "op aten.neg(Tensor self) -> Tensor\nidentity self\n"));
        const Run kernel = fxlens({QStringLiteral("run"), negGraph, QStringLiteral("--json")});
        const Run declared =
            fxlens({QStringLiteral("run"), negGraph, QStringLiteral("--ops"), negOps, QStringLiteral("--json")});
        QVERIFY2(kernel.exitCode == 0 && declared.exitCode == 0, qPrintable(describe(declared)));
        QCOMPARE(
            parseJsonDoc(declared.out)[QStringLiteral("outputs")].toArray()[0].toObject()[QStringLiteral("checksum")],
            parseJsonDoc(kernel.out)[QStringLiteral("outputs")].toArray()[0].toObject()[QStringLiteral("checksum")]);
    }

    // info says what the CPU runtime lacks for a graph, and run fails for that reason.
    void infoSaysWhatCannotRun()
    {
        QTemporaryDir tmp;
        const QString graph = tmp.filePath(QStringLiteral("prims.py"));
        QVERIFY(writeFile(graph,
                          "class GraphModule(torch.nn.Module):\n"
                          "    def forward(self, x: \"f32[4][1]cpu\"):\n"
                          "        neg: \"f32[4][1]cpu\" = torch.ops.aten.neg.default(x)\n"
                          "        histc: \"f32[10][1]cpu\" = torch.ops.aten.histc.default(neg, 10)\n"
                          "        return (histc,)\n"));
        const Run info = fxlens({QStringLiteral("info"), graph});
        QCOMPARE(info.exitCode, 0);
        QVERIFY2(info.out.contains("runs on the CPU runtime: no\n      no CPU kernel for "
                                   "aten.histc.default (1 node: histc)"),
                 info.out.constData());
        const Run run = fxlens({QStringLiteral("run"), graph});
        QVERIFY(run.exitCode != 0);
        QVERIFY2(run.err.contains("no CPU kernel for aten.histc.default"), run.err.constData());
    }

    // Over real graphs: info's verdict is run's. A graph info calls runnable never fails run for
    // lack of support; one it calls not runnable fails run for one of the reasons it gave.
    void infoAgreesWithRun_data()
    {
        QTest::addColumn<QString>("file");
        for (const auto& f : fxltest::corpusFiles("fx", {".txt"}))
            if (!sanitizerSkips(f))
                QTest::newRow(fxltest::corpusRowName(f).c_str()) << QString::fromStdString(f.string());
        for (const auto& f : fxltest::corpusFiles("pytorch", {".joint.code.py"}))
            if (!sanitizerSkips(f))
                QTest::newRow(fxltest::corpusRowName(f).c_str()) << QString::fromStdString(f.string());
    }
    void infoAgreesWithRun()
    {
        FXL_SANITIZER_ROWS(4);
        QFETCH(QString, file);
        FXL_REQUIRE_CORPUS(file);
        const Run info = fxlens({QStringLiteral("info"), file, QStringLiteral("--json")});
        QVERIFY2(!info.crashed, info.err.constData());
        const QJsonArray sources = parseJsonDoc(info.out).value(QStringLiteral("sources")).toArray();
        QCOMPARE(sources.size(), 1);
        const QJsonArray graphs = sources.at(0).toObject().value(QStringLiteral("graph_info")).toArray();
        if (graphs.size() != 1)
            QSKIP("not a single-graph file (run needs --graph): covered by the log rows of test_cli");
        const QJsonObject g = graphs.at(0).toObject();
        if (g.contains(QStringLiteral("error"))) QSKIP("the graph does not load: nothing to run");
        const Run run = fxlens({QStringLiteral("run"), file});
        QVERIFY2(!run.crashed, run.err.constData());
        const QByteArray why = run.err;
        const bool supportFailure = why.contains("no CPU kernel for") || why.contains("not supported by the executor")
            || why.contains("cannot run") || why.contains("unknown operator") || why.contains("no lowering");
        if (g.value(QStringLiteral("runs_on_cpu")).toBool()) {
            QVERIFY2(!supportFailure, qPrintable("info says it runs, run says: " + why));
            return;
        }
        QVERIFY2(run.exitCode != 0, "info says it cannot run, but run succeeded");
        // run may stop before any node (no constants file, an input size without a hint):
        // then there is no reason of run's to compare
        if (!supportFailure) QSKIP(qPrintable("run stops before the nodes: " + why.trimmed().split('\n').last()));
        bool named = false;
        for (const auto& m : g.value(QStringLiteral("cannot_run")).toArray())
            named = named || why.contains(m.toObject().value(QStringLiteral("reason")).toString().toUtf8());
        QVERIFY2(named, qPrintable("run failed for a reason info did not give: " + why));
    }

    // Two ranks' logs differ only in their devices: diff says "device", and --ignore device
    // finds them identical.
    void diffRankLogs()
    {
        const QString dir = QString::fromStdString(fxltest::corpusPath("tlparse/graph_exec_order").string());
        const QString rank0 = dir + QStringLiteral("/dedicated_log_torch_trace_rank_0_a74od7a1.log");
        const QString rank1 = dir + QStringLiteral("/dedicated_log_torch_trace_rank_1_fglwclht.log");
        FXL_REQUIRE_CORPUS(rank0);
        FXL_REQUIRE_CORPUS(rank1);
        const QStringList pick{QStringLiteral("--graph-a"), QStringLiteral("29"), QStringLiteral("--graph-b"),
                               QStringLiteral("29"), QStringLiteral("--json")};
        const Run r = fxlens(QStringList{QStringLiteral("diff"), rank0, rank1} + pick);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonObject doc = parseJsonDoc(r.out);
        const int changed =
            doc.value(QStringLiteral("total_counts")).toObject().value(QStringLiteral("changed")).toInt();
        QVERIFY2(changed >= 10, r.out.constData());
        int deviceOnly = 0;
        for (const auto& n : doc.value(QStringLiteral("diff")).toObject().value(QStringLiteral("nodes")).toArray()) {
            const QJsonArray fields = n.toObject().value(QStringLiteral("fields")).toArray();
            if (fields.size() == 1 && fields.at(0).toString() == QLatin1String("device")) ++deviceOnly;
        }
        QCOMPARE(deviceOnly, changed);
        const Run same = fxlens(
            QStringList{QStringLiteral("diff"), rank0, rank1, QStringLiteral("--ignore"), QStringLiteral("device")}
            + pick);
        QVERIFY2(same.exitCode == 0, same.err.constData());
        QCOMPARE(parseJsonDoc(same.out).value(QStringLiteral("identical")).toBool(), true);
    }

    // After remat, nodes whose val only became known (shape propagation of the written step)
    // are not listed as changed; --all lists them.
    void diffAfterRematShowsRealChanges()
    {
        const QString joint = withCorpus({QStringLiteral("{pytorch}/llama_tiny.joint.code.py")}).front();
        FXL_REQUIRE_CORPUS(joint);
        QTemporaryDir tmp;
        const QString out = tmp.filePath(QStringLiteral("steps"));
        const Run p = fxlens({QStringLiteral("passes"), QStringLiteral("run"), joint, QStringLiteral("--pipeline"),
                              QStringLiteral("sac(policy=alternate_mm),remat"), QStringLiteral("--out"), out});
        QVERIFY2(p.exitCode == 0, p.err.constData());
        auto diff = [&](bool all) {
            QStringList args{QStringLiteral("diff"), out + QStringLiteral("/00_input.py"),
                             out + QStringLiteral("/02_remat.py"), QStringLiteral("--json")};
            if (all) args << QStringLiteral("--all");
            const Run r = fxlens(args);
            return parseJsonDoc(r.out);
        };
        const QJsonObject plain = diff(false), all = diff(true);
        const QJsonObject counts = plain.value(QStringLiteral("total_counts")).toObject();
        const int gained = counts.value(QStringLiteral("meta_gained")).toInt();
        const int changed = counts.value(QStringLiteral("changed")).toInt();
        const int changedAll =
            all.value(QStringLiteral("total_counts")).toObject().value(QStringLiteral("changed")).toInt();
        QVERIFY2(changed > 0, "remat changes the rewired consumers");
        QCOMPARE(changedAll, changed + gained);
        for (const auto& n : plain.value(QStringLiteral("diff")).toObject().value(QStringLiteral("nodes")).toArray())
            QVERIFY2(!n.toObject().value(QStringLiteral("fields")).toArray().contains(QStringLiteral("val_known")),
                     qPrintable(n.toObject().value(QStringLiteral("b")).toString()));
        qInfo("remat step: %d changed, %d with a val gained (changed with --all: %d)", changed, gained, changedAll);
    }

    // A quoted list is read as the list inside the quotes: the same steps as unquoted.
    void quotedListEqualsUnquoted()
    {
        const QString joint = withCorpus({kJoint}).front();
        FXL_REQUIRE_CORPUS(joint);
        QTemporaryDir tmp;
        QByteArray steps[3];
        const QString specs[3] = {QStringLiteral("sac(policy=user,save=mm;addmm)"),
                                  QStringLiteral("sac(policy=user,save=\"mm;addmm\")"),
                                  QStringLiteral("sac(policy=user,save='mm;addmm')")};
        for (int k = 0; k < 3; ++k) {
            const QString out = tmp.filePath(QString::number(k));
            const Run r = fxlens({QStringLiteral("passes"), QStringLiteral("run"), joint, QStringLiteral("--pipeline"),
                                  specs[k], QStringLiteral("--out"), out});
            QVERIFY2(r.exitCode == 0, r.err.constData());
            steps[k] = fxltest::readFile(out + QStringLiteral("/01_sac.py"));
            QVERIFY(!steps[k].isEmpty());
        }
        QVERIFY2(steps[0].contains("MUST_SAVE") && steps[0].contains("PREFER_RECOMPUTE"),
                 "the policy tagged both ways");
        QCOMPARE(steps[1], steps[0]);
        QCOMPARE(steps[2], steps[0]);
    }
};

FXL_TEST_GUILESS_MAIN(TestCliMistakes)
}  // namespace test_cli_mistakes
#include "test_cli_mistakes.moc"
