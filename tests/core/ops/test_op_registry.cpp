// Operator registry: every ops.tsv row loads, the schema grammar, defaults, traits, lookup,
// binding, and coverage of every operator the corpus uses.
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "core/ir/diagnostics.hpp"
#include "core/ir/graph.hpp"
#include "core/ops/op_registry.hpp"

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

std::string readFile(const fs::path& p)
{
    std::ifstream f(p, std::ios::binary);
    std::ostringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

bool hasCorpus() { return fs::is_directory(FXLENS_CORPUS_DIR); }

Node callNode(std::string target, std::vector<Arg> args, std::vector<std::pair<std::string, Arg>> kwargs = {})
{
    Node n;
    n.name = "n";
    n.op = NodeOp::CallFunction;
    n.target = std::move(target);
    n.args = std::move(args);
    n.kwargs = std::move(kwargs);
    return n;
}

std::optional<std::string> bindTarget(const std::string& target, std::vector<Arg> args,
                                      std::vector<std::pair<std::string, Arg>> kwargs,
                                      std::vector<Arg>* boundOut = nullptr)
{
    const auto& reg = OpRegistry::instance();
    const OpInfo* op = reg.find(target);
    if (!op) return "no such op " + target;
    Node n = callNode(target, std::move(args), std::move(kwargs));
    std::vector<Arg> bound;
    auto r = reg.bind(*op, n, bound);
    if (boundOut) *boundOut = bound;
    return r;
}

// Operator names the way `grep -rhoE 'torch\.ops\.[a-z_0-9]+\.[a-zA-Z_0-9]+(\.[a-zA-Z_0-9]+)?'` finds them.
std::set<std::string> corpusOpNames(const std::string& text)
{
    std::set<std::string> out;
    auto lowerIdent = [](char c) { return (c >= 'a' && c <= 'z') || c == '_' || (c >= '0' && c <= '9'); };
    auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
    size_t p = 0;
    const std::string key = "torch.ops.";
    while ((p = text.find(key, p)) != std::string::npos) {
        size_t q = p + key.size();
        p = q;
        size_t b = q;
        while (q < text.size() && lowerIdent(text[q])) ++q;
        if (q == b || q >= text.size() || text[q] != '.') continue;
        size_t n1 = ++q;
        while (q < text.size() && ident(text[q])) ++q;
        if (q == n1) continue;
        size_t end = q;
        if (q < text.size() && text[q] == '.') {
            size_t n2 = q + 1, r = n2;
            while (r < text.size() && ident(text[r])) ++r;
            if (r > n2) end = r;
        }
        out.insert(text.substr(b, end - b));
    }
    return out;
}

// Operators in the corpus that the registry deliberately does not know: custom ops of
// tests and third-party libraries whose schemas are not public PyTorch.
const std::map<std::string, std::string>& expectedUnknown()
{
    static const std::map<std::string, std::string> m = {
        {"test.baz", "custom op defined inside PyTorch's inductor test (tlparse simple.log)"},
        {"test.baz.default", "same custom test op with overload"},
        {"tg.log_tensor.default", "Entangle's tensor-logging custom op (corpus/fx entangle_*)"},
        {"tg.inplace_log_tensor.default", "Entangle's in-place logging custom op (via auto_functionalized_v2)"},
        {"apex.fused_layer_norm_affine_fwd.default", "NVIDIA apex custom layer norm (Megatron graphs)"},
        {"apex.fused_layer_norm_affine_bwd.default", "NVIDIA apex custom layer norm backward"},
    };
    return m;
}

// ---- splitting printed calls into positional args and kwargs (enough for binding checks)

struct PrintedCall
{
    std::string target;
    std::vector<std::string> args;
    std::vector<std::pair<std::string, std::string>> kwargs;
};

// Splits at top-level commas; returns false on unbalanced text.
bool splitTopLevel(std::string_view s, std::vector<std::string>& parts)
{
    int depth = 0;
    size_t b = 0;
    for (size_t i = 0; i < s.size(); ++i) {
        char c = s[i];
        if (c == '\'' || c == '"') {
            char q = c;
            for (++i; i < s.size() && s[i] != q; ++i)
                if (s[i] == '\\') ++i;
            if (i >= s.size()) return false;
        } else if (c == '(' || c == '[' || c == '{') {
            ++depth;
        } else if (c == ')' || c == ']' || c == '}') {
            if (--depth < 0) return false;
        } else if (c == ',' && depth == 0) {
            parts.emplace_back(s.substr(b, i - b));
            b = i + 1;
        }
    }
    if (depth != 0) return false;
    std::string last(s.substr(b));
    if (last.find_first_not_of(" \t") != std::string::npos) parts.push_back(last);
    for (auto& p : parts) {
        p.erase(0, p.find_first_not_of(" \t"));
        p.erase(p.find_last_not_of(" \t") + 1);
    }
    return true;
}

// Text between the bracket at `open` and its match.
std::optional<std::string> bracketed(const std::string& line, size_t open)
{
    char o = line[open], c = o == '(' ? ')' : o == '{' ? '}' : ']';
    int depth = 0;
    for (size_t i = open; i < line.size(); ++i) {
        char ch = line[i];
        if (ch == '\'' || ch == '"') {
            for (++i; i < line.size() && line[i] != ch; ++i)
                if (line[i] == '\\') ++i;
            continue;
        }
        if (ch == o) ++depth;
        if (ch == c && --depth == 0) return line.substr(open + 1, i - open - 1);
    }
    return std::nullopt;
}

// "x = torch.ops.aten.mm.default(a, b, k = v)" (code) and
// "%x : ... = call_function[target=torch.ops.aten.mm.default](args = (a, b), kwargs = {k: v})" (graph).
std::optional<PrintedCall> parsePrintedCall(const std::string& line)
{
    PrintedCall pc;
    auto ct = line.find("call_function[target=");
    if (ct != std::string::npos) {
        size_t b = ct + std::strlen("call_function[target=");
        size_t e = line.find(']', b);
        if (e == std::string::npos) return std::nullopt;
        pc.target = line.substr(b, e - b);
        auto ap = line.find("(args = ", e);
        if (ap == std::string::npos) return std::nullopt;
        auto args = bracketed(line, ap + 8);
        if (!args || !splitTopLevel(*args, pc.args)) return std::nullopt;
        auto kp = line.find("kwargs = {", ap + 8 + args->size());
        if (kp == std::string::npos) return std::nullopt;
        auto kw = bracketed(line, kp + 9);
        std::vector<std::string> kws;
        if (!kw || !splitTopLevel(*kw, kws)) return std::nullopt;
        for (const auto& k : kws) {
            auto colon = k.find(':');
            if (colon == std::string::npos) return std::nullopt;
            pc.kwargs.emplace_back(k.substr(0, colon), k.substr(colon + 1));
        }
        return pc;
    }
    auto eq = line.find(" = torch.");  // torch.ops.* and Dynamo-level torch.* callables
    if (eq == std::string::npos) return std::nullopt;
    size_t b = eq + std::strlen(" = ");
    size_t paren = line.find('(', b);
    if (paren == std::string::npos) return std::nullopt;
    pc.target = line.substr(b, paren - b);
    if (pc.target.find_first_of(" ;=") != std::string::npos) return std::nullopt;
    auto args = bracketed(line, paren);
    std::vector<std::string> parts;
    if (!args || !splitTopLevel(*args, parts)) return std::nullopt;
    for (const auto& p : parts) {
        size_t i = 0;
        while (i < p.size() && (std::isalnum(static_cast<unsigned char>(p[i])) || p[i] == '_')) ++i;
        size_t j = i;
        while (j < p.size() && p[j] == ' ') ++j;
        if (i > 0 && !std::isdigit(static_cast<unsigned char>(p[0])) && j < p.size() && p[j] == '='
            && (j + 1 >= p.size() || p[j + 1] != '='))
            pc.kwargs.emplace_back(p.substr(0, i), p.substr(j + 1));
        else
            pc.args.push_back(p);
    }
    return pc;
}

std::vector<fs::path> corpusTextFiles()
{
    std::vector<fs::path> files;
    for (const auto& e : fs::recursive_directory_iterator(FXLENS_CORPUS_DIR)) {
        if (!e.is_regular_file()) continue;
        auto ext = e.path().extension().string();
        if (ext == ".safetensors" || ext == ".json") continue;
        files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
    return files;
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

    void registrySizeMatchesTable()
    {
        QCOMPARE(OpRegistry::instance().size(), tsvRows(embeddedOpsTsv()).size());
        QCOMPARE(OpRegistry::instance().all().size(), OpRegistry::instance().size());
    }

    // The resource is a superset of the design doc's table, with the same schema text except
    // where a row says fxlens corrected it.
    void resourceExtendsSharedTable()
    {
        fs::path shared = fs::path(FXLENS_CORPUS_DIR).parent_path() / "docs" / "ops.tsv";
        if (!fs::exists(shared)) QSKIP("shared/docs/ops.tsv not present");
        const auto& reg = OpRegistry::instance();
        std::set<std::string> sharedTargets;
        for (const auto& r : tsvRows(readFile(shared))) {
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

    // ---- the grammar
    void parseAliasAnnotations()
    {
        Schema s =
            parseSchema("split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[]", "aten");
        QCOMPARE(s.name, std::string("split"));
        QCOMPARE(s.overload, std::string("Tensor"));
        QCOMPARE(s.qualifiedName(), std::string("aten.split.Tensor"));
        QCOMPARE(s.args.size(), size_t(3));
        QCOMPARE(s.args[0].type, std::string("Tensor"));
        QVERIFY(s.args[0].alias);
        QCOMPARE(s.args[0].alias->set, std::string("a"));
        QVERIFY(s.args[0].alias->toWildcard);
        QVERIFY(!s.args[0].alias->isWrite);
        QCOMPARE(s.args[2].defaultText.value(), std::string("0"));
        QCOMPARE(s.returns.size(), size_t(1));
        QCOMPARE(s.returns[0].type, std::string("Tensor[]"));
        QCOMPARE(s.returns[0].alias->set, std::string("a"));

        Schema w = parseSchema("add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)", "aten");
        QVERIFY(w.args[0].alias->isWrite);
        QVERIFY(!w.args[1].kwargOnly);
        QVERIFY(w.args[2].kwargOnly);
        QCOMPARE(w.args[2].type, std::string("Scalar"));
        QVERIFY(w.returns[0].alias->isWrite);

        Schema l =
            parseSchema("_foreach_copy_(Tensor(a!)[] self, Tensor[] src, bool non_blocking=False) -> ()", "aten");
        QCOMPARE(l.args[0].type, std::string("Tensor[]"));
        QVERIFY(l.args[0].alias->isWrite);
        QVERIFY(l.returns.empty());
        QCOMPARE(l.overload, std::string("default"));
    }

    void parseTypesAndReturns()
    {
        Schema s = parseSchema(
            "sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
            "aten");
        QCOMPARE(s.args[1].type, std::string("int[1]?"));
        QVERIFY(!s.args[1].defaultText);
        QCOMPARE(s.args[3].type, std::string("ScalarType?"));
        QVERIFY(s.args[3].kwargOnly);

        Schema i = parseSchema("index.Tensor(Tensor self, Tensor?[] indices) -> Tensor", "aten");
        QCOMPARE(i.args[1].type, std::string("Tensor?[]"));

        Schema c =
            parseSchema("convolution_backward(Tensor grad_output, Tensor input, Tensor weight, SymInt[]? bias_sizes, "
                        "SymInt[] stride, SymInt[] padding, SymInt[] dilation, bool transposed, SymInt[] "
                        "output_padding, SymInt groups, bool[3] output_mask) -> (Tensor, Tensor, Tensor)",
                        "aten");
        QCOMPARE(c.args.size(), size_t(11));
        QCOMPARE(c.args[10].type, std::string("bool[3]"));
        QCOMPARE(c.returns.size(), size_t(3));
        QVERIFY(c.returns[2].name.empty());

        Schema f =
            parseSchema("_scaled_dot_product_flash_attention_for_cpu(Tensor query, Tensor key, Tensor value, float "
                        "dropout_p=0.0, bool is_causal=False, *, Tensor? attn_mask=None, float? scale=None) -> "
                        "(Tensor output, Tensor logsumexp)",
                        "aten");
        QCOMPARE(f.returns.size(), size_t(2));
        QCOMPARE(f.returns[0].name, std::string("output"));
        QCOMPARE(f.returns[1].name, std::string("logsumexp"));
        QCOMPARE(f.argIndex("attn_mask"), 5);
        QCOMPARE(f.argIndex("nope"), -1);

        Schema g = parseSchema("gelu(Tensor self, *, str approximate='none') -> Tensor", "aten");
        QCOMPARE(g.args[1].defaultText.value(), std::string("'none'"));

        Schema m = parseSchema(
            "contiguous(Tensor(a) self, *, MemoryFormat memory_format=contiguous_format) -> Tensor(a)", "aten");
        QCOMPARE(m.args[1].defaultText.value(), std::string("contiguous_format"));

        Schema ns = parseSchema("aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", "");
        QCOMPARE(ns.qualifiedName(), std::string("aten.add.Tensor"));

        Schema d = parseSchema("f(Dict(str, Tensor) d, Tensor(a)? t=None, str s=\"a,b)\") -> Dict(str, Tensor)", "x");
        QCOMPARE(d.args[0].type, std::string("Dict(str, Tensor)"));
        QCOMPARE(d.args[1].type, std::string("Tensor?"));
        QCOMPARE(d.args[1].alias->set, std::string("a"));
        QCOMPARE(d.args[2].defaultText.value(), std::string("\"a,b)\""));
        QCOMPARE(d.returns[0].type, std::string("Dict(str, Tensor)"));

        Schema sym = parseSchema("sym_size.int(Tensor self, int dim) -> SymInt", "aten");
        QCOMPARE(sym.returns[0].type, std::string("SymInt"));

        Schema v =
            parseSchema("invoke_subgraph(GraphModule subgraph, str identifier, *operands) -> tuple", "higher_order");
        QVERIFY(v.varargs);
        QVERIFY(!v.informal);
        QCOMPARE(v.args.size(), size_t(2));
        QCOMPARE(v.returns[0].type, std::string("tuple"));

        Schema kwv = parseSchema("with_effects(Tensor token, OpOverload op, *args, **kwargs) -> Any", "higher_order");
        QVERIFY(kwv.varargs);
        QCOMPARE(kwv.args.size(), size_t(2));

        Schema dots = parseSchema("format(str self, ...) -> str", "aten");
        QVERIFY(dots.varargs);

        Schema untyped = parseSchema("cond(pred, GraphModule true_fn, GraphModule false_fn, tuple operands) -> tuple",
                                     "higher_order");
        QCOMPARE(untyped.args[0].name, std::string("pred"));
        QCOMPARE(untyped.args[0].type, std::string("Any"));
    }

    void parseErrors_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("column");
        QTest::addColumn<QString>("fragment");
        QTest::newRow("empty") << "" << 1 << "expected an operator name";
        QTest::newRow("no parens") << "mm -> Tensor" << 4 << "expected '('";
        QTest::newRow("unclosed args") << "mm(Tensor self, Tensor mat2" << 28 << "expected ',' or ')'";
        QTest::newRow("missing comma") << "mm(Tensor self Tensor mat2) -> Tensor" << 16 << "expected ',' or ')'";
        QTest::newRow("type without name")
            << "mm(Tensor, Tensor) -> Tensor" << 10 << "expected an argument name after type 'Tensor'";
        QTest::newRow("unclosed alias") << "view(Tensor(a self) -> Tensor(a)" << 15
                                        << "expected ')' to close the alias annotation";
        QTest::newRow("alias arrow") << "f(Tensor(a -> b) x) -> Tensor" << 15 << "expected '*' after '->'";
        QTest::newRow("empty alias") << "f(Tensor() x) -> Tensor" << 10 << "expected an alias set";
        QTest::newRow("empty default") << "f(int x=) -> int" << 9 << "expected a default value";
        QTest::newRow("unbalanced default") << "f(int[] x=[1) -> int" << 13 << "unbalanced";
        QTest::newRow("unterminated string") << "f(str x='a) -> int" << 9 << "unterminated string";
        QTest::newRow("two stars") << "f(*, int a, *, int x) -> int" << 13 << "a second '*'";
        QTest::newRow("after kwargs") << "f(**kw, int x) -> int" << 9 << "nothing may follow '**kwargs'";
        QTest::newRow("duplicate arg") << "f(int x, int x) -> int" << 10 << "duplicate argument name 'x'";
        QTest::newRow("no arrow") << "f(int x) Tensor" << 10 << "expected '->'";
        QTest::newRow("junk after returns")
            << "f(int x) -> Tensor junk more" << 25 << "unexpected text after the returns";
        QTest::newRow("returns unclosed")
            << "f(int x) -> (Tensor, Tensor" << 28 << "expected ',' or ')' in the returns";
        QTest::newRow("no type") << "f(int x) -> " << 13 << "expected a type";
        QTest::newRow("list unclosed") << "f(int[3 x) -> int" << 9 << "expected ']'";
        QTest::newRow("overload missing") << "f.(int x) -> int" << 3 << "expected an overload name";
    }
    void parseErrors()
    {
        QFETCH(QString, text);
        QFETCH(int, column);
        QFETCH(QString, fragment);
        try {
            parseSchema(text.toStdString(), "aten");
            QFAIL("no error");
        } catch (const InputError& e) {
            QString msg = QString::fromStdString(e.diagnostic().message);
            QVERIFY2(msg.contains(fragment), qPrintable(msg));
            QCOMPARE(e.diagnostic().column, column);
            QCOMPARE(e.diagnostic().line, 1);
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

    // ---- defaults
    void defaults_data()
    {
        QTest::addColumn<QString>("argDecl");
        QTest::addColumn<QString>("expectKind");
        QTest::addColumn<QString>("expectText");
        QTest::newRow("none") << "Tensor? bias=None"
                              << "None"
                              << "";
        QTest::newRow("int") << "int dim=-1"
                             << "Int"
                             << "-1";
        QTest::newRow("int max") << "SymInt end=9223372036854775807"
                                 << "Int"
                                 << "9223372036854775807";
        QTest::newRow("int min") << "int low=-9223372036854775808"
                                 << "Int"
                                 << "-9223372036854775808";
        QTest::newRow("float") << "float p=0.5"
                               << "Float"
                               << "0.5";
        QTest::newRow("float exp") << "float eps=1e-05"
                                   << "Float"
                                   << "1e-05";
        QTest::newRow("float from int") << "float scale=1"
                                        << "Float"
                                        << "1";
        QTest::newRow("scalar int") << "Scalar alpha=1"
                                    << "Int"
                                    << "1";
        QTest::newRow("bool") << "bool keepdim=False"
                              << "Bool"
                              << "false";
        QTest::newRow("true") << "bool sorted=True"
                              << "Bool"
                              << "true";
        QTest::newRow("empty list") << "int[1] dim=[]"
                                    << "List"
                                    << "";
        QTest::newRow("list") << "int[] dims=[0,1]"
                              << "List"
                              << "0,1";
        QTest::newRow("repeat") << "int[2] stride=1"
                                << "List"
                                << "1,1";
        QTest::newRow("tuple") << "tuple bufs=()"
                               << "Tuple"
                               << "";
        QTest::newRow("str single") << "str approximate='none'"
                                    << "Str"
                                    << "none";
        QTest::newRow("str double") << "str reduce=\"mean\""
                                    << "Str"
                                    << "mean";
        QTest::newRow("memory format") << "MemoryFormat memory_format=contiguous_format"
                                       << "MemoryFormat"
                                       << "contiguous_format";
        QTest::newRow("reduction") << "int reduction=Mean"
                                   << "Int"
                                   << "1";
        QTest::newRow("dtype") << "ScalarType? dtype=long"
                               << "DType"
                               << "int64";
        QTest::newRow("layout") << "Layout? layout=strided"
                                << "Layout"
                                << "strided";
        QTest::newRow("device") << "Device? device=\"cpu\""
                                << "Device"
                                << "cpu";
        QTest::newRow("inf") << "float max=inf"
                             << "Float"
                             << "inf";
        QTest::newRow("raw") << "Any x=some.thing"
                             << "Raw"
                             << "some.thing";
    }
    void defaults()
    {
        QFETCH(QString, argDecl);
        QFETCH(QString, expectKind);
        QFETCH(QString, expectText);
        Schema s = parseSchema("f(" + argDecl.toStdString() + ") -> ()", "t");
        QCOMPARE(s.args.size(), size_t(1));
        Arg a = parseDefaultValue(s.args[0]);
        auto text = [](const Arg& v) -> std::string {
            switch (v.kind) {
            case Arg::Kind::Int: return std::to_string(v.i);
            case Arg::Kind::Float: return pythonFloatRepr(v.f);
            case Arg::Kind::Bool: return v.b ? "true" : "false";
            case Arg::Kind::DType: return std::string(dtypeTorchName(v.dtype));
            default: return v.s;
            }
        };
        std::map<Arg::Kind, QString> kinds = {{Arg::Kind::None, "None"},     {Arg::Kind::Int, "Int"},
                                              {Arg::Kind::Float, "Float"},   {Arg::Kind::Bool, "Bool"},
                                              {Arg::Kind::List, "List"},     {Arg::Kind::Tuple, "Tuple"},
                                              {Arg::Kind::Str, "Str"},       {Arg::Kind::MemoryFormat, "MemoryFormat"},
                                              {Arg::Kind::DType, "DType"},   {Arg::Kind::Layout, "Layout"},
                                              {Arg::Kind::Device, "Device"}, {Arg::Kind::Raw, "Raw"}};
        QCOMPARE(kinds[a.kind], expectKind);
        if (a.isSequence()) {
            std::string joined;
            for (size_t i = 0; i < a.items.size(); ++i) joined += (i ? "," : "") + text(a.items[i]);
            QCOMPARE(QString::fromStdString(joined), expectText);
        } else if (a.kind == Arg::Kind::Float && expectText == "1") {
            QCOMPARE(a.f, 1.0);
        } else if (!a.isNone()) {
            QCOMPARE(QString::fromStdString(text(a)), expectText);
        }
        SchemaArg none;
        QVERIFY(parseDefaultValue(none).isNone());
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

    // ---- binding
    void bindFillsDefaults()
    {
        std::vector<Arg> b;
        QVERIFY(!bindTarget("aten.mm.default", {Arg::ofNode(0), Arg::ofNode(1)}, {}, &b));
        QCOMPARE(b.size(), size_t(2));
        QCOMPARE(b[1], Arg::ofNode(1));

        QVERIFY(!bindTarget("aten.addmm.default", {Arg::ofNode(0), Arg::ofNode(1), Arg::ofNode(2)}, {}, &b));
        QCOMPARE(b[3], Arg::ofInt(1));
        QCOMPARE(b[4], Arg::ofInt(1));

        QVERIFY(!bindTarget("aten.addmm.default", {Arg::ofNode(0), Arg::ofNode(1), Arg::ofNode(2)},
                            {{"alpha", Arg::ofFloat(0.5)}}, &b));
        QCOMPARE(b[3], Arg::ofInt(1));
        QCOMPARE(b[4], Arg::ofFloat(0.5));

        QVERIFY(!bindTarget("aten.slice.Tensor", {Arg::ofNode(0), Arg::ofInt(1)}, {}, &b));
        QCOMPARE(b[1], Arg::ofInt(1));
        QVERIFY(b[2].isNone());
        QVERIFY(b[3].isNone());
        QCOMPARE(b[4], Arg::ofInt(1));

        QVERIFY(!bindTarget("aten.amax.default", {Arg::ofNode(0)}, {}, &b));
        QCOMPARE(b[1], Arg::ofList({}));
        QCOMPARE(b[2], Arg::ofBool(false));

        QVERIFY(!bindTarget("aten.contiguous.default", {Arg::ofNode(0)}, {}, &b));
        QCOMPARE(b[1], Arg::ofMemoryFormat("contiguous_format"));

        QVERIFY(!bindTarget("aten.mse_loss.default", {Arg::ofNode(0), Arg::ofNode(1)}, {}, &b));
        QCOMPARE(b[2], Arg::ofInt(1));

        QVERIFY(!bindTarget("aten.empty.memory_format", {Arg::ofList({Arg::ofInt(256)})},
                            {{"dtype", Arg::ofDType(DType::BF16)},
                             {"device", Arg::ofDevice("cuda:0")},
                             {"pin_memory", Arg::ofBool(false)}},
                            &b));
        QCOMPARE(b[1], Arg::ofDType(DType::BF16));
        QVERIFY(b[2].isNone());  // layout
        QCOMPARE(b[3], Arg::ofDevice("cuda:0"));
        QVERIFY(b[5].isNone());  // memory_format

        QVERIFY(!bindTarget("aten.gelu.default", {Arg::ofNode(0)}, {}, &b));
        QCOMPARE(b[1], Arg::ofStr("none"));

        QVERIFY(!bindTarget("aten.convolution_backward.default", std::vector<Arg>(11, Arg::ofInt(0)), {}, &b));
        QVERIFY(!bindTarget("aten.sum.dim_IntList", {Arg::ofNode(0), Arg::ofList({Arg::ofInt(0)}), Arg::ofBool(true)},
                            {}, &b));
        QVERIFY(b[3].isNone());
    }

    void bindErrors_data()
    {
        QTest::addColumn<QString>("target");
        QTest::addColumn<int>("nargs");
        QTest::addColumn<QStringList>("kwargs");
        QTest::addColumn<QString>("message");
        QTest::newRow("missing") << "aten.mm.default" << 1 << QStringList{}
                                 << "aten.mm.default() is missing a value for argument 'mat2'";
        QTest::newRow("missing two") << "aten.mm.default" << 0 << QStringList{}
                                     << "aten.mm.default() is missing values for arguments 'self', 'mat2'";
        QTest::newRow("too many") << "aten.mm.default" << 3 << QStringList{}
                                  << "aten.mm.default() takes 2 positional arguments but 3 were given";
        QTest::newRow("kwarg-only positionally") << "aten.add.Tensor" << 3 << QStringList{}
                                                 << "aten.add.Tensor() takes 2 positional arguments but 3 were given";
        QTest::newRow("one positional") << "aten.neg.default" << 2 << QStringList{}
                                        << "aten.neg.default() takes 1 positional argument but 2 were given";
        QTest::newRow("unknown keyword") << "aten.mm.default" << 2 << QStringList{"foo"}
                                         << "aten.mm.default() got an unexpected keyword argument 'foo'";
        QTest::newRow("twice") << "aten.mm.default" << 2 << QStringList{"self"}
                               << "aten.mm.default() got multiple values for argument 'self'";
        QTest::newRow("kw missing") << "aten.div.Tensor_mode" << 2 << QStringList{}
                                    << "aten.div.Tensor_mode() is missing a value for argument 'rounding_mode'";
        QTest::newRow("getitem") << "operator.getitem" << 1 << QStringList{}
                                 << "operator.getitem() is missing a value for argument 'idx'";
        QTest::newRow("hop required") << "higher_order.invoke_subgraph" << 1 << QStringList{}
                                      << "higher_order.invoke_subgraph() is missing a value for argument 'identifier'";
    }
    void bindErrors()
    {
        QFETCH(QString, target);
        QFETCH(int, nargs);
        QFETCH(QStringList, kwargs);
        QFETCH(QString, message);
        std::vector<Arg> args;
        for (int i = 0; i < nargs; ++i) args.push_back(Arg::ofNode(i));
        std::vector<std::pair<std::string, Arg>> kw;
        for (const auto& k : kwargs) kw.emplace_back(k.toStdString(), Arg::ofInt(1));
        auto err = bindTarget(target.toStdString(), args, kw);
        QVERIFY(err);
        QCOMPARE(QString::fromStdString(*err), message);
    }

    void bindVarargs()
    {
        std::vector<Arg> b;
        QVERIFY(!bindTarget("higher_order.invoke_subgraph",
                            {Arg::ofNode(0), Arg::ofStr("subgraph_0"), Arg::ofNode(1), Arg::ofNode(2), Arg::ofNode(3)},
                            {}, &b));
        QCOMPARE(b.size(), size_t(2));
        QCOMPARE(b[1], Arg::ofStr("subgraph_0"));
        QVERIFY(!bindTarget("higher_order.tag_activation_checkpoint", {Arg::ofNode(0), Arg::ofNode(1)},
                            {{"use_reentrant", Arg::ofBool(false)}}, &b));
        QVERIFY(!bindTarget(
            "higher_order.auto_functionalized_v2", {Arg::ofOp("tg.inplace_log_tensor.default")},
            {{"s", Arg::ofStr("w")}, {"_t_base_index", Arg::ofInt(0)}, {"_all_bases", Arg::ofList({Arg::ofNode(0)})}},
            &b));
        QCOMPARE(b[0], Arg::ofOp("tg.inplace_log_tensor.default"));
        QVERIFY(!bindTarget("higher_order.triton_kernel_wrapper_functional", {},
                            {{"kernel_idx", Arg::ofInt(0)},
                             {"constant_args_idx", Arg::ofInt(1)},
                             {"grid", Arg::ofList({})},
                             {"tma_descriptor_metadata", Arg::none()},
                             {"kwargs", Arg::none()},
                             {"tensors_to_clone", Arg::ofList({})}},
                            &b));
        QVERIFY(!bindTarget("operator.getitem", {Arg::ofNode(0), Arg::ofInt(1)}, {}, &b));
    }

    void metaCallArgs()
    {
        const OpInfo* op = OpRegistry::instance().find("aten.addmm.default");
        MetaCall call;
        call.op = op;
        Node n = callNode("aten.addmm.default", {Arg::ofNode(0), Arg::ofNode(1), Arg::ofNode(2)});
        QVERIFY(!OpRegistry::instance().bind(*op, n, call.bound));
        QCOMPARE(call.arg("beta"), Arg::ofInt(1));
        QVERIFY_THROWS_EXCEPTION(std::out_of_range, call.arg("gamma"));
        ValueMeta m = ValueMeta::unknown();
        m.kind = ValueMeta::Kind::Tensor;
        m.tensor.dtype = DType::BF16;
        call.metaOf = [&](NodeId id) -> const ValueMeta& {
            static const ValueMeta u;
            return id == 1 ? m : u;
        };
        QCOMPARE(call.tensorArg("mat1").tensor.dtype, DType::BF16);
        QCOMPARE(call.tensorArg("self").kind, ValueMeta::Kind::Unknown);
        QCOMPARE(call.tensorArg("alpha").kind, ValueMeta::Kind::Unknown);  // not a node
    }

    void metaFunctionsAttached()
    {
        const auto& reg = OpRegistry::instance();
        size_t withMeta = 0;
        for (const auto* op : reg.all()) withMeta += op->meta ? 1 : 0;
        std::string orphans;
        for (const auto& o : reg.orphanMetaFunctions()) orphans += o + " ";
        QVERIFY2(orphans.empty(), ("meta functions for ops not in ops.tsv: " + orphans).c_str());
        if (withMeta == 0) QSKIP("no meta functions registered yet (core/op_meta.cpp absent or not linked)");
        QVERIFY(reg.find("aten.mm.default")->meta);
    }

    // ---- coverage of the corpus
    void corpusOperatorsKnown_data()
    {
        QTest::addColumn<QString>("name");
        if (!hasCorpus()) return;
        std::set<std::string> names;
        for (const auto& f : corpusTextFiles())
            for (const auto& n : corpusOpNames(readFile(f))) names.insert(n);
        for (const auto& n : names) QTest::newRow(n.c_str()) << QString::fromStdString(n);
    }
    void corpusOperatorsKnown()
    {
        if (!hasCorpus()) QSKIP("corpus dir " FXLENS_CORPUS_DIR " absent");
        QFETCH(QString, name);
        std::string n = name.toStdString();
        const OpInfo* op = OpRegistry::instance().find(n);
        auto it = expectedUnknown().find(n);
        if (it != expectedUnknown().end()) {
            QVERIFY2(!op, qPrintable("expected unknown (" + QString::fromStdString(it->second) + ") but registered"));
            return;
        }
        QVERIFY2(op, qPrintable("operator used in the corpus is not in ops.tsv: " + name));
    }

    // The list of deliberately unknown operators is not stale.
    void expectedUnknownAppearInCorpus()
    {
        if (!hasCorpus()) QSKIP("corpus dir " FXLENS_CORPUS_DIR " absent");
        std::set<std::string> names;
        for (const auto& f : corpusTextFiles())
            for (const auto& n : corpusOpNames(readFile(f))) names.insert(n);
        QVERIFY(names.size() > 50);
        for (const auto& [n, why] : expectedUnknown()) QVERIFY2(names.count(n), n.c_str());
    }

    // Every printed call of a registered operator in the corpus binds to its schema.
    void corpusCallsBind_data()
    {
        QTest::addColumn<QString>("file");
        if (!hasCorpus()) return;
        for (const auto& f : corpusTextFiles()) {
            std::string rel = fs::relative(f, FXLENS_CORPUS_DIR).string();
            QTest::newRow(rel.c_str()) << QString::fromStdString(f.string());
        }
    }
    void corpusCallsBind()
    {
        if (!hasCorpus()) QSKIP("corpus dir " FXLENS_CORPUS_DIR " absent");
        QFETCH(QString, file);
        std::istringstream in(readFile(file.toStdString()));
        std::string line;
        int lineNo = 0, bound = 0;
        QStringList failures;
        const auto& reg = OpRegistry::instance();
        while (std::getline(in, line)) {
            ++lineNo;
            auto pc = parsePrintedCall(line);
            if (!pc) continue;
            const OpInfo* op = reg.find(pc->target);
            if (!op) continue;  // unknown ops are covered by corpusOperatorsKnown
            Node n = callNode(pc->target, {});
            for (const auto& a : pc->args) n.args.push_back(Arg::ofRaw(a));
            for (const auto& [k, v] : pc->kwargs) n.kwargs.emplace_back(k, Arg::ofRaw(v));
            std::vector<Arg> b;
            auto err = reg.bind(*op, n, b);
            if (err)
                failures << QString("line %1: %2").arg(lineNo).arg(QString::fromStdString(*err));
            else
                ++bound;
        }
        QVERIFY2(failures.isEmpty(), qPrintable(failures.mid(0, 10).join("\n")));
        if (bound == 0) QSKIP("no printed operator calls in this file");
    }
};

QTEST_APPLESS_MAIN(TestOpRegistry)
#include "test_op_registry.moc"
