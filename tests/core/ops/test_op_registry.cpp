// Operator registry: every ops.tsv row loads (and the shared table's rows are there), lenient
// rows, traits, lookup, TSV errors and the meta functions attached. The schema grammar is
// test_schema's, binding and the corpus' operators test_op_binding's.
#include <QtTest>

#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include "core/ir/diagnostics.hpp"
#include "core/ir/graph.hpp"
#include "core/ops/op_registry.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_op_registry {

using namespace fxl;
namespace fs = std::filesystem;

namespace {

struct TsvRow
{
    int line = 0;
    std::string target, schema, kind, notes;
};

std::vector<TsvRow> tsvRows(std::string_view text)
{
    std::vector<TsvRow> rows;
    std::istringstream in{std::string(text)};
    std::string line;
    int no = 0;
    while (std::getline(in, line)) {
        ++no;
        if (line.empty() || line[0] == '#') continue;
        std::vector<std::string> cols;
        std::stringstream ls(line);
        std::string c;
        while (std::getline(ls, c, '\t')) cols.push_back(c);
        TsvRow r;
        r.line = no;
        r.target = cols.size() > 0 ? cols[0] : "";
        r.schema = cols.size() > 1 ? cols[1] : "";
        r.kind = cols.size() > 2 ? cols[2] : "";
        r.notes = cols.size() > 3 ? cols[3] : "";
        rows.push_back(r);
    }
    return rows;
}

}  // namespace

class TestOpRegistry : public QObject
{
    Q_OBJECT

private slots:
    // ---- every row loads
    void everyRowLoads_data()
    {
        QTest::addColumn<int>("line");
        QTest::addColumn<QString>("target");
        QTest::addColumn<QString>("schema");
        QTest::addColumn<QString>("kind");
        for (const auto& r : tsvRows(embeddedOpsTsv()))
            QTest::newRow(r.target.c_str()) << r.line << QString::fromStdString(r.target)
                                            << QString::fromStdString(r.schema) << QString::fromStdString(r.kind);
    }

    void everyRowLoads()
    {
        QFETCH(int, line);
        QFETCH(QString, target);
        QFETCH(QString, schema);
        QFETCH(QString, kind);
        const OpInfo* op = OpRegistry::instance().find(target.toStdString());
        QVERIFY2(op, qPrintable(QString("line %1 not in the registry").arg(line)));
        QCOMPARE(QString::fromStdString(op->qualifiedName), target);
        QCOMPARE(op->tsvLine, line);
        QCOMPARE(QString::fromStdString(op->schema.text), schema);
        QCOMPARE(QString::fromStdString(op->kind), kind);
        QVERIFY(!op->schema.name.empty());
        QCOMPARE(QString::fromStdString(op->schema.qualifiedName()), target);
        // Only HOPs and Python builtins may keep an informal schema; real operators must parse.
        if (op->schema.informal) {
            QVERIFY2(kind.contains("hop") || kind.contains("builtin"),
                     qPrintable("informal schema for a non-HOP: " + QString::fromStdString(op->schemaIssue)));
            QVERIFY(!op->schemaIssue.empty());
        } else {
            QVERIFY(op->schemaIssue.empty());
            // the grammar round-trips
            Schema again = parseSchema(formatSchema(op->schema), op->schema.ns);
            QCOMPARE(QString::fromStdString(formatSchema(again)), QString::fromStdString(formatSchema(op->schema)));
            QCOMPARE(again.args.size(), op->schema.args.size());
            QCOMPARE(again.returns.size(), op->schema.returns.size());
            // every default turns into a value
            for (const auto& a : op->schema.args)
                if (a.defaultText)
                    QVERIFY2(parseDefaultValue(a).kind != Arg::Kind::Raw,
                             qPrintable(QString::fromStdString(a.name + "=" + *a.defaultText)));
        }
    }

    // The table's rows, and the in-place variants made of its pointwise ops (sigmoid_ of
    // sigmoid: OpInfo::inplaceOf names a functional row, its self is written and returned).
    void registrySizeMatchesTable()
    {
        size_t variants = 0;
        for (const OpInfo* op : OpRegistry::instance().all()) {
            if (op->inplaceOf.empty()) continue;
            ++variants;
            const OpInfo* f = OpRegistry::instance().find(op->inplaceOf);
            QVERIFY2(f && f->inplaceOf.empty() && f->has(kTraitPointwise), op->qualifiedName.c_str());
            QVERIFY(op->has(kTraitInplace));
            QVERIFY(op->schema.args[0].alias && op->schema.args[0].alias->isWrite);
        }
        QVERIFY2(variants > 50, qPrintable(QString::number(variants)));
        QVERIFY(OpRegistry::instance().find("aten.sigmoid_.default"));
        QVERIFY(OpRegistry::instance().find("aten.tanh_.default"));
        QCOMPARE(OpRegistry::instance().size(), tsvRows(embeddedOpsTsv()).size() + variants);
        QCOMPARE(OpRegistry::instance().all().size(), OpRegistry::instance().size());
    }

    // The resource is a superset of the research table it started from (docs/ops.tsv beside the
    // corpus, not part of the repository; skipped where absent), with the same schema text except
    // where a row says fxlens corrected it.
    void resourceExtendsSharedTable()
    {
        fs::path shared = fxltest::corpusDir().parent_path() / "docs" / "ops.tsv";
        if (!fs::exists(shared)) QSKIP("shared/docs/ops.tsv not present");
        const auto& reg = OpRegistry::instance();
        std::set<std::string> sharedTargets;
        for (const auto& r : tsvRows(fxltest::readFile(shared))) {
            sharedTargets.insert(r.target);
            const OpInfo* op = reg.find(r.target);
            QVERIFY2(op && op->qualifiedName == r.target, r.target.c_str());
            if (op->notes.find("corrected by fxlens") == std::string::npos) QCOMPARE(op->schema.text, r.schema);
        }
        QVERIFY(sharedTargets.size() > 200);
        for (const auto* op : reg.all()) {
            if (!sharedTargets.count(op->qualifiedName))
                QVERIFY2(op->notes.find("added by fxlens") != std::string::npos,
                         qPrintable(QString::fromStdString(op->qualifiedName) + " added without the note"));
        }
    }

    void lenientRows()
    {
        const auto& reg = OpRegistry::instance();
        const OpInfo* tac = reg.find("higher_order.tag_activation_checkpoint");
        QVERIFY(tac);
        QVERIFY(tac->schema.informal);  // "-> tuple/any"
        QVERIFY(tac->schema.varargs);
        QCOMPARE(tac->schema.args.size(), size_t(1));
        QCOMPARE(tac->schema.args[0].type, std::string("GraphModule"));
        QCOMPARE(tac->schema.args[0].name, std::string("body"));
        QVERIFY(tac->has(kTraitHigherOrder));

        const OpInfo* afv2 = reg.find("higher_order.auto_functionalized_v2");
        QVERIFY(afv2->schema.informal);
        QVERIFY(afv2->schema.varargs);
        QCOMPARE(afv2->schema.args.size(), size_t(1));
        QCOMPARE(afv2->schema.args[0].type, std::string("OpOverload"));

        const OpInfo* gi = reg.find("operator.getitem");
        QVERIFY(gi->schema.informal);  // no "->"
        QVERIFY(!gi->schema.varargs);
        QCOMPARE(gi->schema.args.size(), size_t(2));
        QCOMPARE(gi->schema.args[0].name, std::string("obj"));
        QCOMPARE(gi->schema.args[1].type, std::string("int"));
        QCOMPARE(gi->schema.overload, std::string(""));
        QVERIFY(gi->has(kTraitBuiltin));

        const OpInfo* fa = reg.find("higher_order.flex_attention");
        QVERIFY(fa->schema.informal);  // "[, Tensor max_scores]" in the returns
        QVERIFY(!fa->schema.varargs);
        QCOMPARE(fa->schema.args.size(), size_t(9));
        QCOMPARE(fa->schema.args[8].defaultText.value(), std::string("()"));
        QVERIFY(fa->schema.returns.empty());

        std::string why;
        Schema junk = parseSchemaLenient("(autogen functional of x(Tensor a) -> Tensor)", "aten", &why);
        QVERIFY(junk.informal);
        QVERIFY(junk.varargs);
        QVERIFY(junk.name.empty());
        QVERIFY(why.find("expected an operator name") != std::string::npos);

        // a row with no readable schema name takes its name from the target
        OpRegistry r = OpRegistry::fromTsv("aten.foo.default\t(something informal)\tfunctional\t\n"
                                           "higher_order.bar\tbar thing\thop\t\n");
        const OpInfo* foo = r.find("aten.foo");
        QVERIFY(foo);
        QCOMPARE(foo->schema.ns, std::string("aten"));
        QCOMPARE(foo->schema.name, std::string("foo"));
        QCOMPARE(foo->schema.overload, std::string("default"));
        QVERIFY(!foo->schemaIssue.empty());
        const OpInfo* bar = r.find("higher_order.bar");
        QCOMPARE(bar->schema.ns, std::string("higher_order"));
        QCOMPARE(bar->schema.name, std::string("bar"));
        QVERIFY(bar->schema.varargs);
    }

    // ---- traits
    void traits_data()
    {
        QTest::addColumn<QString>("target");
        QTest::addColumn<uint>("want");
        QTest::addColumn<uint>("notWant");
        QTest::newRow("view") << "aten.view.default" << uint(kTraitView)
                              << uint(kTraitInplace | kTraitMatmul | kTraitPointwise);
        QTest::newRow("view via schema") << "aten.reshape.default" << uint(kTraitView) << 0u;
        QTest::newRow("view_list") << "aten.split.Tensor" << uint(kTraitViewList) << uint(kTraitView);
        QTest::newRow("alias no annot") << "aten._unsafe_view.default" << uint(kTraitAliasNoAnnot) << uint(kTraitView);
        QTest::newRow("inplace") << "aten.add_.Tensor" << uint(kTraitInplace | kTraitSideEffect | kTraitPointwise)
                                 << 0u;
        QTest::newRow("inplace list") << "aten._foreach_copy_.default" << uint(kTraitInplace) << 0u;
        QTest::newRow("out variant") << "aten.split_with_sizes_copy.out" << uint(kTraitInplace) << 0u;
        QTest::newRow("random") << "aten.native_dropout.default" << uint(kTraitRandom | kTraitPointwise) << 0u;
        QTest::newRow("factory") << "aten.full.default" << uint(kTraitFactory) << uint(kTraitRandom);
        QTest::newRow("dynamic") << "aten.nonzero.default" << uint(kTraitDynamicShape) << 0u;
        QTest::newRow("sym") << "aten.sym_size.int" << uint(kTraitSym) << 0u;
        QTest::newRow("side effect") << "aten._assert_scalar.default" << uint(kTraitSideEffect) << 0u;
        QTest::newRow("collective") << "_c10d_functional.all_reduce.default"
                                    << uint(kTraitCollective | kTraitCommunication) << uint(kTraitInplace);
        QTest::newRow("collective inplace")
            << "_c10d_functional.all_reduce_.default" << uint(kTraitCollective | kTraitInplace) << 0u;
        QTest::newRow("wait") << "_c10d_functional.wait_tensor.default" << uint(kTraitWait) << uint(kTraitCollective);
        QTest::newRow("sync collective") << "_dtensor.shard_dim_alltoall.default" << uint(kTraitCommunication)
                                         << uint(kTraitCollective);
        QTest::newRow("hop") << "higher_order.invoke_subgraph" << uint(kTraitHigherOrder) << 0u;
        QTest::newRow("builtin") << "operator.getitem" << uint(kTraitBuiltin) << uint(kTraitPointwise);
        QTest::newRow("sym builtin") << "torch.sym_float" << uint(kTraitBuiltin | kTraitSym) << 0u;
        QTest::newRow("mm") << "aten.mm.default" << uint(kTraitMatmul) << uint(kTraitPointwise | kTraitReduction);
        QTest::newRow("addmm") << "aten.addmm.default" << uint(kTraitMatmul) << 0u;
        QTest::newRow("bmm") << "aten.bmm.default" << uint(kTraitMatmul) << 0u;
        QTest::newRow("baddbmm") << "aten.baddbmm.default" << uint(kTraitMatmul) << 0u;
        QTest::newRow("grouped mm") << "aten._grouped_mm.default" << uint(kTraitMatmul) << 0u;
        QTest::newRow("scaled mm") << "aten._scaled_mm.default" << uint(kTraitMatmul) << 0u;
        QTest::newRow("conv") << "aten.convolution.default" << uint(kTraitMatmul) << 0u;
        QTest::newRow("flash") << "aten._scaled_dot_product_flash_attention.default" << uint(kTraitMatmul) << 0u;
        QTest::newRow("flex") << "higher_order.flex_attention" << uint(kTraitMatmul | kTraitHigherOrder) << 0u;
        QTest::newRow("dynamo linear") << "torch._C._nn.linear" << uint(kTraitMatmul | kTraitBuiltin) << 0u;
        QTest::newRow("add") << "aten.add.Tensor" << uint(kTraitPointwise) << uint(kTraitMatmul | kTraitReduction);
        QTest::newRow("gelu") << "aten.gelu.default" << uint(kTraitPointwise) << 0u;
        QTest::newRow("foreach") << "aten._foreach_add.List" << uint(kTraitPointwise) << 0u;
        QTest::newRow("convert") << "prims.convert_element_type.default" << uint(kTraitPointwise) << 0u;
        QTest::newRow("sum") << "aten.sum.dim_IntList" << uint(kTraitReduction) << uint(kTraitPointwise);
        QTest::newRow("amax") << "aten.amax.default" << uint(kTraitReduction) << 0u;
        QTest::newRow("softmax") << "aten._softmax.default" << uint(kTraitReduction) << 0u;
        QTest::newRow("var_mean") << "aten.var_mean.correction" << uint(kTraitReduction) << 0u;
        QTest::newRow("layer norm") << "aten.native_layer_norm.default" << uint(kTraitReduction) << 0u;
        QTest::newRow("permute no class")
            << "aten.permute.default" << uint(kTraitView) << uint(kTraitMatmul | kTraitPointwise | kTraitReduction);
    }

    void traits()
    {
        QFETCH(QString, target);
        QFETCH(uint, want);
        QFETCH(uint, notWant);
        const OpInfo* op = OpRegistry::instance().find(target.toStdString());
        QVERIFY(op);
        QCOMPARE(op->traits & want, want);
        QCOMPARE(op->traits & notWant, 0u);
    }

    void traitsFromSchemaAlone()
    {
        OpRegistry r =
            OpRegistry::fromTsv("x.v.default\tv(Tensor(a) self) -> Tensor(a)\tfunctional\t\n"
                                "x.w.default\tw(Tensor(a!) self, Tensor other) -> ()\tfunctional\t\n"
                                "x.l.default\tl(Tensor(a -> *) self) -> Tensor(a)[]\tfunctional\t\n"
                                "x.k.default\tk(Tensor self) -> Tensor\tcollective_async+inplace\tnotes\there\n");
        QVERIFY(r.find("x.v.default")->has(kTraitView));
        QVERIFY(r.find("x.w.default")->has(kTraitInplace));
        QVERIFY(r.find("x.w.default")->has(kTraitSideEffect));
        QVERIFY(r.find("x.l.default")->has(kTraitViewList));
        QVERIFY(!r.find("x.l.default")->has(kTraitView));
        QVERIFY(r.find("x.k.default")->has(kTraitCollective));
        QVERIFY(r.find("x.k.default")->has(kTraitInplace));
        QCOMPARE(r.find("x.k.default")->notes, std::string("notes"));
    }

    // ---- lookup
    void find()
    {
        const auto& reg = OpRegistry::instance();
        QCOMPARE(reg.find("aten.mm.default")->qualifiedName, std::string("aten.mm.default"));
        QCOMPARE(reg.find("aten.mm")->qualifiedName, std::string("aten.mm.default"));
        QCOMPARE(reg.find("torch.ops.aten.mm.default")->qualifiedName, std::string("aten.mm.default"));
        QCOMPARE(reg.find("aten::mm")->qualifiedName, std::string("aten.mm.default"));
        QCOMPARE(reg.find("_operator.add")->qualifiedName, std::string("operator.add"));
        QCOMPARE(reg.find("_c10d_functional.all_reduce")->qualifiedName,
                 std::string("_c10d_functional.all_reduce.default"));
        QCOMPARE(reg.find("higher_order.invoke_subgraph")->schema.qualifiedName(),
                 std::string("higher_order.invoke_subgraph"));
        QVERIFY(!reg.find("aten.add"));  // add has no .default overload
        QVERIFY(!reg.find("aten.nope.default"));
        QVERIFY(!reg.find(""));
        QVERIFY(!reg.find("test.baz"));

        OpRegistry r = OpRegistry::fromTsv("test.baz.default\tbaz(Tensor x) -> Tensor\tfunctional\t\n");
        QVERIFY(r.find("test.baz"));
        QCOMPARE(r.find("test.baz")->qualifiedName, std::string("test.baz.default"));
        QCOMPARE(r.find("torch.ops.test.baz")->schema.ns, std::string("test"));
    }

    void tsvErrors_data()
    {
        QTest::addColumn<QString>("tsv");
        QTest::addColumn<int>("line");
        QTest::addColumn<int>("column");
        QTest::addColumn<QString>("fragment");
        QTest::newRow("columns") << "# header\naten.mm.default\tmm(Tensor a) -> Tensor\n"
                                 << 2 << 1 << "found 2 column(s)";
        QTest::newRow("duplicate")
            << "a.b.default\tb(Tensor a) -> Tensor\tfunctional\t\na.b.default\tb(Tensor a) -> Tensor\tfunctional\t\n"
            << 2 << 1 << "duplicate target";
        QTest::newRow("kind") << "a.b.default\tb(Tensor a) -> Tensor\tfunctional+bogus\t\n"
                              << 1 << 46 << "unknown kind 'bogus'";
        QTest::newRow("empty kind") << "a.b.default\tb(Tensor a) -> Tensor\t\t\n" << 1 << 35 << "expected a kind";
        QTest::newRow("mismatch") << "\n\na.b.default\tc(Tensor a) -> Tensor\tfunctional\t\n"
                                  << 3 << 13 << "does not match target";
        QTest::newRow("bad target") << "a b\tb(Tensor a) -> Tensor\tfunctional\t\n"
                                    << 1 << 1 << "dotted operator target";
        QTest::newRow("no schema") << "a.b.default\t \tfunctional\t\n" << 1 << 13 << "expected a schema";
    }

    void tsvErrors()
    {
        QFETCH(QString, tsv);
        QFETCH(int, line);
        QFETCH(int, column);
        QFETCH(QString, fragment);
        try {
            OpRegistry::fromTsv(tsv.toStdString(), "t.tsv");
            QFAIL("no error");
        } catch (const InputError& e) {
            QVERIFY2(QString::fromStdString(e.diagnostic().message).contains(fragment), e.what());
            QCOMPARE(e.diagnostic().file, std::string("t.tsv"));
            QCOMPARE(e.diagnostic().line, line);
            QCOMPARE(e.diagnostic().column, column);
        }
    }

    void metaFunctionsAttached()
    {
        const auto& reg = OpRegistry::instance();
        size_t withMeta = 0;
        for (const auto* op : reg.all()) withMeta += op->meta ? 1 : 0;
        std::string orphans;
        for (const auto& o : reg.orphanMetaFunctions()) orphans += o + " ";
        QVERIFY2(orphans.empty(), ("meta functions for ops not in ops.tsv: " + orphans).c_str());
        QVERIFY2(withMeta > 0, "no meta functions registered (core/ops/op_meta.cpp not linked?)");
        QVERIFY(reg.find("aten.mm.default")->meta);
    }
};

FXL_TEST_APPLESS_MAIN(TestOpRegistry)
}  // namespace test_op_registry
#include "test_op_registry.moc"
