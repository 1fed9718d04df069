// The acceptance of the chunk passes (issue 13): a graph rewritten by chunk_region is checked
// against the eager-chunking reference (runtime/eager_chunking.hpp, written independently of the
// passes), run on the original graph with the chunk spec the pass records in its step
// (stats.chunk_spec). Every output must be bitwise equal to the reference: the loss and every
// gradient, the parameter gradients summed in chunk order included. Where an output is also
// bitwise equal to the unchunked graph (the loss, activation gradients, everything not downstream
// of a per-chunk partial sum) the test says so; the others differ from the unchunked graph only
// by reduction order (checked in test_chunk_region_numerics). Rows: the corpus models and the
// region patterns of the issue, along batch and along sequence, with 2, 3 and 4 chunks.
#include <QtTest>

#include <filesystem>

#include "core/analysis/chunk_spec.hpp"
#include "core/formats/safetensors.hpp"
#include "core/formats/source.hpp"
#include "passes/pass.hpp"
#include "runtime/eager_chunking.hpp"
#include "runtime/equivalence.hpp"
#include "runtime/executor.hpp"
#include "test_util.hpp"

using namespace fxl;
namespace fs = std::filesystem;

namespace {

const fs::path kPytorch = fxltest::corpusPath("pytorch");

SafeTensorsFile runPlain(const Graph& g, const SafeTensorsFile& inputs, const SafeTensorsFile& constants)
{
    auto backend = makeCpuBackend(CpuBackendOptions{2});
    ExecOptions o;
    o.backend = backend.get();
    o.inputs = &inputs;
    o.constants = &constants;
    o.requireAllInputs = true;
    const ExecResult r = executeGraph(g, o);
    return outputsToSafetensors(r, *backend);
}

}  // namespace

class TestChunkEager : public QObject
{
    Q_OBJECT
private slots:
    void matchesEagerChunking_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("pipeline");
        // outputs bitwise equal to the unchunked graph too (not downstream of a partial sum)
        QTest::addColumn<int>("bitwiseWithUnchunked");
        QTest::newRow("gpt2_tiny blocks batch 2") << "gpt2_tiny"
                                                  << "chunk_region(regions=blocks.*,dim=batch)" << 5;
        QTest::newRow("gpt2_tiny blocks batch 4") << "gpt2_tiny"
                                                  << "chunk_region(regions=blocks.*,dim=batch,chunks=4)" << 5;
        QTest::newRow("gpt2_tiny blocks batch 3 (uneven)") << "gpt2_tiny"
                                                           << "chunk_region(regions=blocks.*,dim=batch,chunks=3)" << 5;
        QTest::newRow("gpt2_tiny mlp seq") << "gpt2_tiny"
                                           << "chunk_region(regions=blocks.*.mlp,dim=seq)" << 21;
        QTest::newRow("llama_tiny layers batch") << "llama_tiny"
                                                 << "chunk_region(regions=layers.*,dim=batch)" << 4;
        QTest::newRow("llama_tiny feed_forward seq") << "llama_tiny"
                                                     << "chunk_region(regions=layers.*.feed_forward,dim=seq)" << 16;
        QTest::newRow("moe_tiny moe batch") << "moe_tiny"
                                            << "chunk_region(regions=moe,dim=batch)" << 4;
        QTest::newRow("moe_tiny moe batch 3") << "moe_tiny"
                                              << "chunk_region(regions=moe,dim=batch,chunks=3)" << 4;
    }
    void matchesEagerChunking()
    {
        QFETCH(QString, name);
        QFETCH(QString, pipeline);
        QFETCH(int, bitwiseWithUnchunked);
        const fs::path path = kPytorch / (name.toStdString() + ".joint.code.py");
        FXL_REQUIRE_CORPUS(path);
        if (fxltest::kSanitizedBuild && !QByteArray(QTest::currentDataTag()).endsWith("batch 2")
            && !QByteArray(QTest::currentDataTag()).startsWith("moe_tiny moe batch"))
            QSKIP("one row per model under the sanitizers (time)");
        auto src = openSource(path.string());
        const Artifact& art = *src->graphs().front();
        auto g = src->graph(art.id);
        const SafeTensorsFile inputs = readSafetensors(art.inputsPath);
        SafeTensorsFile constants;
        if (!art.constantsPath.empty()) constants = readSafetensors(art.constantsPath);

        const PipelineRun run = runPipeline(*g, pipeline.toStdString());
        QVERIFY2(run.ok, run.error.c_str());
        const Step& step = run.steps.back();
        QVERIFY(step.log.stats.contains("chunk_spec"));
        const ChunkSpec spec = parseChunkSpec(step.log.stats["chunk_spec"].get<std::string>());

        const SafeTensorsFile chunked = runPlain(step.graph(), inputs, constants);
        const SafeTensorsFile unchunked = runPlain(*g, inputs, constants);
        auto backend = makeCpuBackend(CpuBackendOptions{2});
        ExecOptions o;
        o.backend = backend.get();
        o.inputs = &inputs;
        o.constants = &constants;
        const EagerChunkResult eager = runEagerChunking(*g, spec, o);
        const SafeTensorsFile reference = eagerOutputsToSafetensors(eager, *backend);

        const EquivalenceReport vsEager = compareOutputs(chunked, reference);
        QVERIFY2(vsEager.onlyInA.empty() && vsEager.onlyInB.empty(), reportToText(vsEager).c_str());
        QVERIFY2(vsEager.allBitwiseEqual(), reportToText(vsEager).c_str());
        const EquivalenceReport vsPlain = compareOutputs(chunked, unchunked);
        int same = 0;
        for (const TensorDiff& d : vsPlain.outputs) same += d.bitwiseEqual ? 1 : 0;
        qInfo("%s: %zu outputs bitwise equal to eager chunking (%s); %d also to the unchunked graph",
              qPrintable(pipeline), vsEager.outputs.size(), spec.str().c_str(), same);
        QCOMPARE(same, bitwiseWithUnchunked);
        // the loss is always one of them
        QVERIFY(vsPlain.outputs.front().bitwiseEqual);
    }
};

QTEST_GUILESS_MAIN(TestChunkEager)
#include "test_chunk_eager.moc"
