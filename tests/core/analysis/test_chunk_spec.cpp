// The chunk spec shared by the chunk passes, the eager-chunking reference and the CLI: its text
// form (canonical round trip, every error with its column), the piece sizes of both split
// semantics, module-pattern roots, and the data inputs the loaders describe from params.json.
#include <QtTest>

#include "core/analysis/chunk_spec.hpp"
#include "core/formats/source.hpp"
#include "core/ir/diagnostics.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_chunk_spec {

using namespace fxl;

}  // namespace test_chunk_spec
Q_DECLARE_METATYPE(std::vector<int64_t>)
namespace test_chunk_spec {

class TestChunkSpec : public QObject
{
    Q_OBJECT
private slots:
    void parse_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("canonical");
        QTest::newRow("defaults") << ""
                                  << "regions=,dim=batch,chunks=2,split=tensor_split";
        QTest::newRow("regions") << "regions=blocks.*;layers.*.mlp, dim=seq ,chunks=4"
                                 << "regions=blocks.*;layers.*.mlp,dim=seq,chunks=4,split=tensor_split";
        QTest::newRow("split chunk") << "chunks=8,split=chunk"
                                     << "regions=,dim=batch,chunks=8,split=chunk";
        QTest::newRow("inputs") << "inputs=arg0_1;arg1_1,regions=moe"
                                << "regions=moe,dim=batch,chunks=2,split=tensor_split,inputs=arg0_1;arg1_1";
    }
    void parse()
    {
        QFETCH(QString, text);
        QFETCH(QString, canonical);
        const ChunkSpec s = parseChunkSpec(text.toStdString());
        QCOMPARE(QString::fromStdString(s.str()), canonical);
        QVERIFY(parseChunkSpec(s.str()) == s);
    }

    void errors_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("column");
        QTest::addColumn<QString>("message");
        QTest::newRow("unknown")
            << "dim=batch, chunk=4" << 12
            << "unknown item 'chunk': expected regions, dim, chunks, split or inputs (did you mean 'chunks'?)";
        QTest::newRow("dim") << "dim=rows" << 1 << "dim must be batch or seq, found 'rows'";
        QTest::newRow("chunks zero") << "chunks=0" << 1 << "chunks must be an integer >= 1, found '0'";
        QTest::newRow("chunks text") << "regions=a,chunks=two" << 11 << "chunks must be an integer >= 1, found 'two'";
        QTest::newRow("no value") << "regions" << 1 << "expected name=value, found 'regions'";
        QTest::newRow("empty item") << "dim=seq,,chunks=2" << 9
                                    << "expected name=value (regions, dim, chunks, split, inputs), found an empty item";
        QTest::newRow("twice") << "dim=seq,dim=batch" << 9 << "'dim' given twice";
        QTest::newRow("empty component") << "regions=blocks..attn" << 1
                                         << "region pattern 'blocks..attn' has an empty path component";
        QTest::newRow("split") << "split=even" << 1 << "split must be tensor_split or chunk, found 'even'";
    }
    void errors()
    {
        QFETCH(QString, text);
        QFETCH(int, column);
        QFETCH(QString, message);
        try {
            parseChunkSpec(text.toStdString());
            QFAIL("no error");
        } catch (const InputError& e) {
            QCOMPARE(QString::fromStdString(e.diagnostic().file), QString("<chunks>"));
            QCOMPARE(e.diagnostic().line, 1);
            QCOMPARE(e.diagnostic().column, column);
            QCOMPARE(QString::fromStdString(e.diagnostic().message), message);
        }
    }

    void sizes_data()
    {
        QTest::addColumn<int>("n");
        QTest::addColumn<int>("k");
        QTest::addColumn<bool>("chunkSemantics");
        QTest::addColumn<std::vector<int64_t>>("expected");
        QTest::newRow("even") << 64 << 4 << false << std::vector<int64_t>{16, 16, 16, 16};
        QTest::newRow("tensor_split 10/4") << 10 << 4 << false << std::vector<int64_t>{3, 3, 2, 2};
        QTest::newRow("chunk 10/4") << 10 << 4 << true << std::vector<int64_t>{3, 3, 3, 1};
        QTest::newRow("chunk 5/4 gives 3") << 5 << 4 << true << std::vector<int64_t>{2, 2, 1};
        QTest::newRow("fewer rows than chunks") << 3 << 8 << false << std::vector<int64_t>{1, 1, 1};
        QTest::newRow("one chunk") << 7 << 1 << false << std::vector<int64_t>{7};
    }
    void sizes()
    {
        QFETCH(int, n);
        QFETCH(int, k);
        QFETCH(bool, chunkSemantics);
        QFETCH(std::vector<int64_t>, expected);
        QCOMPARE(chunkSizes(n, k, chunkSemantics ? ChunkSplit::Chunk : ChunkSplit::TensorSplit), expected);
    }

    void roots()
    {
        QCOMPARE(QString::fromStdString(matchRoot("blocks.*", "blocks.1.attn.c_attn")), QString("blocks.1"));
        QCOMPARE(QString::fromStdString(matchRoot("blocks.*.mlp", "blocks.0.mlp.c_fc")), QString("blocks.0.mlp"));
        QCOMPARE(QString::fromStdString(matchRoot("blocks.*.mlp", "blocks.0.attn")), QString());
        QCOMPARE(QString::fromStdString(matchRoot("blocks.*", "blocks")), QString());
        QCOMPARE(QString::fromStdString(matchRoot("moe", "moe.router")), QString("moe"));
        QVERIFY(insideModule("blocks.0.attn", "blocks.0"));
        QVERIFY(!insideModule("blocks.01", "blocks.0"));
        QVERIFY(insideModule("anything", ""));
    }

    // Real graphs: the roots a pattern selects and the data inputs the loader describes from
    // the graph's params.json.
    void corpus_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("pattern");
        QTest::addColumn<QString>("roots");
        QTest::addColumn<QString>("data");
        QTest::newRow("gpt2_tiny blocks") << "pytorch/gpt2_tiny.joint.code.py"
                                          << "blocks.*"
                                          << "blocks.0 blocks.1"
                                          << "arg0_1 arg1_1";
        QTest::newRow("gpt2_tiny mlp") << "pytorch/gpt2_tiny.joint.code.py"
                                       << "blocks.*.mlp"
                                       << "blocks.0.mlp blocks.1.mlp"
                                       << "arg0_1 arg1_1";
        QTest::newRow("llama_tiny ffn") << "pytorch/llama_tiny.joint.code.py"
                                        << "layers.*.feed_forward"
                                        << "layers.0.feed_forward layers.1.feed_forward"
                                        << "arg0_1 arg1_1";
        QTest::newRow("moe_tiny") << "pytorch/moe_tiny.joint.code.py"
                                  << "moe"
                                  << "moe"
                                  << "arg0_1 arg1_1";
        QTest::newRow("linear_ce none") << "pytorch/linear_ce.joint.code.py"
                                        << "blocks.*"
                                        << ""
                                        << "(no params.json: an error)";
    }
    void corpus()
    {
        QFETCH(QString, file);
        QFETCH(QString, pattern);
        QFETCH(QString, roots);
        QFETCH(QString, data);
        const std::filesystem::path path = fxltest::corpusPath(file.toStdString());
        FXL_REQUIRE_CORPUS(path);
        auto src = openSource(path.string());
        std::shared_ptr<Graph> g = src->graph(src->artifacts[0].id);
        QVERIFY(g);
        QStringList got;
        for (const std::string& r : regionRoots(*g, pattern.toStdString())) got << QString::fromStdString(r);
        QCOMPARE(got.join(' '), roots);
        QStringList names;
        try {
            for (NodeId id : dataInputs(*g)) names << QString::fromStdString(g->node(id).name);
        } catch (const std::invalid_argument&) {
            names << "(no params.json: an error)";
        }
        QCOMPARE(names.join(' '), data);
        // named inputs win; an unknown one is an error naming it
        QCOMPARE(dataInputs(*g, {"arg1_1"}).size(), size_t(1));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, dataInputs(*g, {"nope"}));
    }

    void undescribedInputsAreAnError()
    {
        Graph g;
        Node x;
        x.name = x.target = "x";
        x.op = NodeOp::Placeholder;
        g.addNode(x);
        try {
            dataInputs(g);
            QFAIL("no error");
        } catch (const std::invalid_argument& e) {
            QVERIFY(QString(e.what()).contains("inputs=NAME;NAME"));
        }
    }
};

FXL_TEST_GUILESS_MAIN(TestChunkSpec)
}  // namespace test_chunk_spec
#include "test_chunk_spec.moc"
