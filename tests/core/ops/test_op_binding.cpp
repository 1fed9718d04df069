// Binding calls to operator schemas (defaults, errors, varargs, meta call args), and coverage
// of every operator the corpus uses: each is registered (or deliberately unknown) and every
// printed call binds.
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

namespace test_op_binding {

using namespace fxl;
namespace fs = std::filesystem;

namespace {

Node callNode(std::string target, std::vector<Arg> args, std::vector<std::pair<std::string, Arg>> kwargs = {})
{
    Node n;
    n.name = std::string("n");  // (a const char* assignment trips GCC 12's -Wrestrict here)
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

// Every text file of the corpus (no safetensors, no JSON); {the corpus} when it is absent, so
// the rows that read it skip or fail by the corpus rule.
std::vector<fs::path> corpusTextFiles()
{
    const fs::path corpus = fxltest::corpusDir();
    if (!fs::is_directory(corpus)) return {corpus};
    std::vector<fs::path> files;
    for (const auto& e : fs::recursive_directory_iterator(corpus)) {
        if (!e.is_regular_file()) continue;
        auto ext = e.path().extension().string();
        if (ext == ".safetensors" || ext == ".json") continue;
        files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
    if (files.empty()) files.push_back(corpus / "*");  // a row that skips or fails by the corpus rule
    return files;
}

// The operator names of every corpus text file.
std::set<std::string> corpusOperatorNames()
{
    std::set<std::string> names;
    for (const auto& f : corpusTextFiles())
        if (fs::is_regular_file(f))
            for (const auto& n : corpusOpNames(fxltest::readFile(f))) names.insert(n);
    return names;
}

}  // namespace

class TestOpBinding : public QObject
{
    Q_OBJECT

private slots:
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

    // ---- coverage of the corpus
    void corpusOperatorsKnown_data()
    {
        QTest::addColumn<QString>("name");
        const std::set<std::string> names = corpusOperatorNames();
        if (names.empty()) QTest::newRow("corpus") << QString();  // skips or fails by the corpus rule
        for (const auto& n : names) QTest::newRow(n.c_str()) << QString::fromStdString(n);
    }

    void corpusOperatorsKnown()
    {
        QFETCH(QString, name);
        if (name.isEmpty()) {
            FXL_REQUIRE_CORPUS(fxltest::corpusPath("pytorch"));
            QFAIL("the corpus has no operator calls");
        }
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
        FXL_REQUIRE_CORPUS(fxltest::corpusPath("pytorch"));
        const std::set<std::string> names = corpusOperatorNames();
        QVERIFY(names.size() > 50);
        for (const auto& [n, why] : expectedUnknown()) QVERIFY2(names.count(n), n.c_str());
    }

    // Every printed call of a registered operator in the corpus binds to its schema.
    void corpusCallsBind_data()
    {
        QTest::addColumn<QString>("file");
        for (const auto& f : corpusTextFiles())
            QTest::newRow(fxltest::corpusRowName(f).c_str()) << QString::fromStdString(f.string());
    }

    void corpusCallsBind()
    {
        QFETCH(QString, file);
        FXL_REQUIRE_CORPUS(file);
        std::istringstream in(fxltest::readFile(file.toStdString()));
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

FXL_TEST_APPLESS_MAIN(TestOpBinding)
}  // namespace test_op_binding
#include "test_op_binding.moc"
