// SymExpr / SymInt: sympy-style parse and print, canonical equality, Python-semantics
// evaluation, constant folding and error locations.
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "core/formats/fx/fx_text_parser.hpp"
#include "core/ir/diagnostics.hpp"
#include "core/ir/graph.hpp"
#include "core/ir/symbol_hints.hpp"
#include "core/ir/symexpr.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_symexpr {

using namespace fxl;

namespace {

using Env = std::map<std::string, int64_t>;

// "s0=5,u1=-7" -> map
Env parseEnv(const QString& s)
{
    Env env;
    for (const QString& kv : s.split(',', Qt::SkipEmptyParts)) {
        auto parts = kv.split('=');
        env[parts[0].trimmed().toStdString()] = parts[1].trimmed().toLongLong();
    }
    return env;
}

// The `name: "text"` pairs of a line (FX annotations are printed that way).
std::vector<std::string> quotedAnnotations(const std::string& line)
{
    std::vector<std::string> out;
    for (size_t at = line.find(": \""); at != std::string::npos; at = line.find(": \"", at + 1)) {
        if (at == 0) continue;
        char prev = line[at - 1];
        if (!(std::isalnum(static_cast<unsigned char>(prev)) || prev == '_')) continue;
        size_t end = line.find('"', at + 3);
        if (end == std::string::npos) break;
        out.push_back(line.substr(at + 3, end - at - 3));
    }
    return out;
}

bool isTensorAnnotation(const std::string& a)
{
    size_t i = 0;
    if (a.empty() || !(a[0] >= 'a' && a[0] <= 'z')) return false;
    while (i < a.size() && std::isalnum(static_cast<unsigned char>(a[i]))) ++i;
    return i < a.size() && a[i] == '[';
}

// Symbolic size elements and Sym(...) contents in the FX dumps of the corpus.
std::set<std::string> corpusExpressions(const std::filesystem::path& dir)
{
    std::set<std::string> out;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
        if (!entry.is_regular_file()) continue;
        auto ext = entry.path().extension().string();
        if (ext != ".txt" && ext != ".log" && ext != ".py") continue;
        std::ifstream in(entry.path());
        std::string line;
        while (std::getline(in, line)) {
            for (const std::string& a : quotedAnnotations(line)) {
                if (a.rfind("Sym(", 0) == 0 && a.back() == ')') {
                    out.insert(a.substr(4, a.size() - 5));
                    continue;
                }
                if (!isTensorAnnotation(a)) continue;
                // dtype[dims][strides]device: split the bracket groups at top-level commas
                int depth = 0;
                std::string cur;
                for (char c : a) {
                    if (c == '[' && depth++ == 0) {
                        cur.clear();
                        continue;
                    }
                    if (c == ']' && --depth == 0) {
                        if (!cur.empty()) out.insert(cur);
                        cur.clear();
                        continue;
                    }
                    if (depth == 0) continue;
                    if (c == '(') ++depth;
                    if (c == ')') --depth;
                    if (c == ',' && depth == 1) {
                        out.insert(cur);
                        cur.clear();
                        continue;
                    }
                    if (cur.empty() && c == ' ') continue;
                    cur += c;
                }
            }
        }
    }
    // only the symbolic ones: plain integers are covered by the annotation test
    std::set<std::string> sym;
    for (const auto& e : out)
        if (e.find_first_not_of("-0123456789") != std::string::npos) sym.insert(e);
    return sym;
}

}  // namespace

class TestSymExpr : public QObject
{
    Q_OBJECT

private slots:
    // Text as PyTorch prints it must come back unchanged.
    void roundTrip_data()
    {
        QTest::addColumn<QString>("text");
        for (const char* t : {"s0",
                              "s77",
                              "u0",
                              "42",
                              "-3",
                              "2*s0",
                              "s0 - 1",
                              "2*s0 + 1",
                              "-s0",
                              "s0 + s1",
                              "s0*s1",
                              "s0**2",
                              "Max(1, s0)",
                              "Min(s0, s1)",
                              "(s0//2)",
                              "((-u1)//3)",
                              "(((-u1)//3)) + 5",
                              "((s0//2)) + 1",
                              "Mod(s0, 4)",
                              "u0 >= 0",
                              "s0 > 4",
                              "s1 - 1.0",
                              "Eq(s0, 3)",
                              "Ne(u0, 0)",
                              "1 - s0",
                              "-s0 - 1",
                              "2*s0*s1 + s0 + 1",
                              "s0*s1 + s0",
                              "s0**2 + s0 + 1",
                              "ceiling(s0/2)",
                              "-2*s0",
                              "foo(s0, 2)",
                              "(s0 + 1)**2",
                              "s1*(s0 + 1)",
                              "2*((s0//4))",
                              "-((s0//4))",
                              "((s0 + 1)//2)",
                              "((2*s0)//3)",
                              "(s0//s1)",
                              "u0 < s0",
                              "(s0 < 2) & (s1 > 3)",
                              "~(s0 > 2)",
                              "0.5*s0",
                              "s0 - 1.00000000000000",
                              "Max(1, s0) + 1",
                              "s2 + Max(1, s0)"})
            QTest::newRow(t) << QString::fromUtf8(t);
    }
    void roundTrip()
    {
        QFETCH(QString, text);
        SymExpr e = SymExpr::parse(text.toStdString());
        QCOMPARE(QString::fromStdString(e.str()), text);
        // printing is stable and re-parses to the same tree
        QVERIFY(SymExpr::parse(e.str()) == e);
    }

    // Every symbolic expression that appears in the corpus FX dumps.
    void corpusRoundTrip()
    {
        FXL_REQUIRE_CORPUS(fxltest::corpusPath("fx"));
        FXL_REQUIRE_CORPUS(fxltest::corpusPath("tlparse"));
        std::set<std::string> exprs = corpusExpressions(fxltest::corpusPath("fx"));
        const std::set<std::string> more = corpusExpressions(fxltest::corpusPath("tlparse"));
        exprs.insert(more.begin(), more.end());
        QVERIFY2(exprs.size() >= 5, "expected symbolic shapes in the corpus (twotensor, unbacked symints)");
        QVERIFY(exprs.count("(((-u1)//3)) + 5"));
        for (const auto& text : exprs) {
            SymExpr e;
            try {
                e = SymExpr::parse(text);
            } catch (const InputError& err) {
                QFAIL(qPrintable(QString::fromStdString(text + ": " + err.what())));
            }
            QCOMPARE(QString::fromStdString(e.str()), QString::fromStdString(text));
        }
    }

    // Different spellings of the same expression compare equal and print canonically.
    void canonical_data()
    {
        QTest::addColumn<QString>("a");
        QTest::addColumn<QString>("b");
        QTest::addColumn<QString>("printed");
        QTest::newRow("commute add") << "s0*2 + 1"
                                     << "1 + 2*s0"
                                     << "2*s0 + 1";
        QTest::newRow("commute mul") << "s1*s0"
                                     << "s0*s1"
                                     << "s0*s1";
        QTest::newRow("like terms") << "s0 + s0 + s0"
                                    << "3*s0"
                                    << "3*s0";
        QTest::newRow("cancel") << "s0 - s0 + 4"
                                << "4"
                                << "4";
        QTest::newRow("neg") << "-(s0)"
                             << "-1*s0"
                             << "-s0";
        QTest::newRow("sub") << "s0 + -1"
                             << "s0 - 1"
                             << "s0 - 1";
        QTest::newRow("distribute") << "2*(s0 + 1)"
                                    << "2*s0 + 2"
                                    << "2*s0 + 2";
        QTest::newRow("pow merge") << "s0*s0"
                                   << "s0**2"
                                   << "s0**2";
        QTest::newRow("max order") << "Max(s0, 1)"
                                   << "Max(1, s0)"
                                   << "Max(1, s0)";
        QTest::newRow("max flatten") << "Max(s0, Max(1, s1))"
                                     << "Max(1, s0, s1)"
                                     << "Max(1, s0, s1)";
        QTest::newRow("max fold") << "Max(2, 5, s0)"
                                  << "Max(s0, 5)"
                                  << "Max(5, s0)";
        QTest::newRow("floor spellings") << "floor(s0/2)"
                                         << "FloorDiv(s0, 2)"
                                         << "(s0//2)";
        QTest::newRow("floor infix") << "s0//2"
                                     << "((s0)//2)"
                                     << "(s0//2)";
        QTest::newRow("ceil spellings") << "ceiling(s0/2)"
                                        << "CeilDiv(s0, 2)"
                                        << "ceiling(s0/2)";
        QTest::newRow("floordiv exact") << "(4*s0)//4"
                                        << "s0"
                                        << "s0";
        QTest::newRow("floordiv pull out") << "(4*s0 + s1)//4"
                                           << "s0 + FloorDiv(s1, 4)"
                                           << "s0 + ((s1//4))";
        QTest::newRow("floordiv nested") << "(s0//2)//3"
                                         << "s0//6"
                                         << "(s0//6)";
        QTest::newRow("mod multiple") << "Mod(4*s0 + s1, 4)"
                                      << "Mod(s1, 4)"
                                      << "Mod(s1, 4)";
        QTest::newRow("eq spelling") << "s0 == 3"
                                     << "Eq(s0, 3)"
                                     << "Eq(s0, 3)";
        QTest::newRow("python mod") << "s0 % 4"
                                    << "Mod(s0, 4)"
                                    << "Mod(s0, 4)";
        QTest::newRow("spaces") << "  2 *s0+  1 "
                                << "2*s0 + 1"
                                << "2*s0 + 1";
        QTest::newRow("degree order") << "1 + s0 + s0*s1"
                                      << "s0*s1 + s0 + 1"
                                      << "s0*s1 + s0 + 1";
    }
    void canonical()
    {
        QFETCH(QString, a);
        QFETCH(QString, b);
        QFETCH(QString, printed);
        SymExpr ea = SymExpr::parse(a.toStdString());
        SymExpr eb = SymExpr::parse(b.toStdString());
        QVERIFY2(ea == eb, qPrintable(QString::fromStdString(ea.str() + " vs " + eb.str())));
        QCOMPARE(QString::fromStdString(ea.str()), printed);
        QCOMPARE(QString::fromStdString(eb.str()), printed);
    }

    void notEqual()
    {
        QVERIFY(SymExpr::parse("s0") != SymExpr::parse("s1"));
        QVERIFY(SymExpr::parse("2*s0") != SymExpr::parse("s0*3"));
        QVERIFY(SymExpr::parse("s0//2") != SymExpr::parse("ceiling(s0/2)"));
        QVERIFY(SymExpr::parse("s10") != SymExpr::parse("s1"));
        QVERIFY(SymExpr::parse("s0 > 2") != SymExpr::parse("s0 >= 2"));
    }

    void evaluate_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("env");
        QTest::addColumn<bool>("defined");
        QTest::addColumn<qlonglong>("expected");
        QTest::newRow("symbol") << "s0"
                                << "s0=5" << true << 5LL;
        QTest::newRow("linear") << "2*s0 + 1"
                                << "s0=5" << true << 11LL;
        QTest::newRow("neg floordiv") << "((-u1)//3)"
                                      << "u1=7" << true << -3LL;  // Python: -7 // 3 == -3
        QTest::newRow("neg floordiv exact") << "((-u1)//3)"
                                            << "u1=6" << true << -2LL;
        QTest::newRow("corpus shape") << "(((-u1)//3)) + 5"
                                      << "u1=7" << true << 2LL;
        QTest::newRow("negative divisor") << "((s0)//(-2))"
                                          << "s0=7" << true << -4LL;
        QTest::newRow("floor both neg") << "s0//s1"
                                        << "s0=-7,s1=-2" << true << 3LL;
        QTest::newRow("mod sign of divisor") << "Mod(s0, 3)"
                                             << "s0=-7" << true << 2LL;
        QTest::newRow("mod neg divisor") << "Mod(s0, s1)"
                                         << "s0=7,s1=-3" << true << -2LL;
        QTest::newRow("ceil neg") << "ceiling(s0/2)"
                                  << "s0=-7" << true << -3LL;
        QTest::newRow("ceil pos") << "ceiling(s0/2)"
                                  << "s0=7" << true << 4LL;
        QTest::newRow("max") << "Max(1, s0)"
                             << "s0=0" << true << 1LL;
        QTest::newRow("min") << "Min(s0, s1)"
                             << "s0=3,s1=-4" << true << -4LL;
        QTest::newRow("pow") << "s0**3"
                             << "s0=-2" << true << -8LL;
        QTest::newRow("comparison true") << "u0 >= 0"
                                         << "u0=0" << true << 1LL;
        QTest::newRow("comparison false") << "Eq(s0, 3)"
                                          << "s0=4" << true << 0LL;
        QTest::newRow("and") << "(s0 > 2) & (s1 < 3)"
                             << "s0=3,s1=2" << true << 1LL;
        QTest::newRow("missing symbol") << "s0 + s1"
                                        << "s0=1" << false << 0LL;
        QTest::newRow("division by zero") << "s0//s1"
                                          << "s0=1,s1=0" << false << 0LL;
        QTest::newRow("mod by zero") << "Mod(s0, s1)"
                                     << "s0=1,s1=0" << false << 0LL;
        QTest::newRow("float") << "s1 - 1.0"
                               << "s1=3" << false << 0LL;
        QTest::newRow("overflow") << "s0*s0"
                                  << "s0=9223372036854775807" << false << 0LL;
        QTest::newRow("unknown function") << "foo(s0)"
                                          << "s0=1" << false << 0LL;
    }
    void evaluate()
    {
        QFETCH(QString, text);
        QFETCH(QString, env);
        QFETCH(bool, defined);
        QFETCH(qlonglong, expected);
        auto v = SymExpr::parse(text.toStdString()).evaluate(parseEnv(env));
        QCOMPARE(v.has_value(), defined);
        if (defined) QCOMPARE(qlonglong(*v), expected);
    }

    // Python floor semantics against a brute-force reference over a grid of signs.
    void evaluateFloorGrid()
    {
        SymExpr fd = SymExpr::parse("a//b"), md = SymExpr::parse("Mod(a, b)"), cd = SymExpr::parse("ceiling(a/b)");
        for (int64_t a = -9; a <= 9; ++a) {
            for (int64_t b = -4; b <= 4; ++b) {
                Env env{{"a", a}, {"b", b}};
                if (b == 0) {
                    QVERIFY(!fd.evaluate(env));
                    continue;
                }
                int64_t q = int64_t(std::floor(double(a) / double(b)));
                int64_t c = int64_t(std::ceil(double(a) / double(b)));
                QCOMPARE(*fd.evaluate(env), q);
                QCOMPARE(*md.evaluate(env), a - q * b);
                QCOMPARE(*cd.evaluate(env), c);
            }
        }
    }

    void folding()
    {
        SymExpr s0 = SymExpr::symbol("s0");
        SymExpr c3 = SymExpr::constant(3), c4 = SymExpr::constant(4);
        QCOMPARE(*(c3 + c4).constantValue(), int64_t(7));
        QCOMPARE(*(c3 * c4).constantValue(), int64_t(12));
        QCOMPARE(*(c3 - c4).constantValue(), int64_t(-1));
        QVERIFY(s0 * SymExpr::constant(1) + SymExpr::constant(0) == s0);
        QCOMPARE(QString::fromStdString((s0 * SymExpr::constant(1) + SymExpr::constant(0)).str()), QString("s0"));
        QVERIFY((s0 * SymExpr::constant(0)).isConstant());
        QVERIFY((s0 - s0).isConstant());
        QVERIFY(SymExpr() == SymExpr::constant(0));
        QVERIFY(SymExpr() + s0 == s0);
        QCOMPARE(*SymExpr::floorDiv(SymExpr::constant(-7), SymExpr::constant(2)).constantValue(), int64_t(-4));
        QCOMPARE(*SymExpr::ceilDiv(SymExpr::constant(-7), SymExpr::constant(2)).constantValue(), int64_t(-3));
        QCOMPARE(*SymExpr::mod(SymExpr::constant(-7), SymExpr::constant(3)).constantValue(), int64_t(2));
        QVERIFY(SymExpr::floorDiv(s0 * c4, c4) == s0);
        QVERIFY(SymExpr::floorDiv(s0, SymExpr::constant(1)) == s0);
        QCOMPARE(QString::fromStdString(SymExpr::floorDiv(s0, SymExpr::constant(2)).str()), QString("(s0//2)"));
        QCOMPARE(QString::fromStdString((SymExpr::floorDiv(s0, SymExpr::constant(2)) + c3).str()),
                 QString("((s0//2)) + 3"));
        QCOMPARE(*SymExpr::max(c3, c4).constantValue(), int64_t(4));
        QCOMPARE(*SymExpr::min(c3, c4).constantValue(), int64_t(3));
        QCOMPARE(QString::fromStdString(SymExpr::max(s0, SymExpr::constant(1)).str()), QString("Max(1, s0)"));
        QCOMPARE(QString::fromStdString((-s0).str()), QString("-s0"));
        QCOMPARE(QString::fromStdString((s0 * SymExpr::constant(2) + SymExpr::constant(1)).str()), QString("2*s0 + 1"));
        // division by zero stays unevaluated instead of crashing
        SymExpr z = SymExpr::floorDiv(c3, SymExpr::constant(0));
        QVERIFY(!z.isConstant());
        QVERIFY(!z.evaluate({}));
        // hand-built trees are canonicalised
        auto n = std::make_shared<SymNode>();
        n->op = SymOp::Add;
        n->operands = {SymExpr::constant(1).node(), s0.node(), s0.node()};
        QCOMPARE(QString::fromStdString(SymExpr::fromNode(n).str()), QString("2*s0 + 1"));
    }

    void symbols()
    {
        auto syms = SymExpr::parse("Max(s1, u0) + 2*s0 + ((s1//2))").symbols();
        QCOMPARE(syms, (std::vector<std::string>{"s0", "s1", "u0"}));
        QVERIFY(SymExpr::parse("s7").isSymbol());
        QVERIFY(!SymExpr::parse("2*s7").isSymbol());
        QVERIFY(SymExpr::parse("12").isConstant());
        QCOMPARE(*SymExpr::parse("-12").constantValue(), int64_t(-12));
    }

    void errors_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("column");
        QTest::newRow("empty") << "" << 1;
        QTest::newRow("dangling plus") << "s0 +" << 5;
        QTest::newRow("unclosed paren") << "(s0 + 1" << 1;
        QTest::newRow("extra paren") << "s0 + 1)" << 7;
        QTest::newRow("bad char") << "s0 $ 2" << 4;
        QTest::newRow("unclosed call") << "Max(1, s0" << 4;
        QTest::newRow("missing comma") << "Max(1 s0)" << 7;
        QTest::newRow("int overflow") << "s0 + 99999999999999999999" << 6;
        QTest::newRow("double operator") << "s0 * * 2" << 6;
        QTest::newRow("chained comparison") << "s0 < s1 < s2" << 9;
    }
    void errors()
    {
        QFETCH(QString, text);
        QFETCH(int, column);
        try {
            SymExpr::parse(text.toStdString());
            QFAIL("expected InputError");
        } catch (const InputError& e) {
            QCOMPARE(QString::fromStdString(e.diagnostic().file), QString("<expr>"));
            QCOMPARE(e.diagnostic().line, 1);
            QCOMPARE(e.diagnostic().column, column);
            QVERIFY2(e.diagnostic().message.find("expected") != std::string::npos
                         || e.diagnostic().message.find("unclosed") != std::string::npos
                         || e.diagnostic().message.find("not supported") != std::string::npos
                         || e.diagnostic().message.find("out of range") != std::string::npos,
                     e.what());
        }
    }

    void deepNestingThrows()
    {
        std::string deep(5000, '(');
        deep += "s0";
        deep += std::string(5000, ')');
        QVERIFY_THROWS_EXCEPTION(InputError, SymExpr::parse(deep));
        std::string chain = "s0";
        for (int i = 0; i < 5000; ++i) chain += "//2";
        QVERIFY_THROWS_EXCEPTION(InputError, SymExpr::parse(chain));
        std::string minus(5000, '-');
        QVERIFY_THROWS_EXCEPTION(InputError, SymExpr::parse(minus + "s0"));
    }

    void symInt()
    {
        SymInt a = 8, b = 3;
        QVERIFY(a.isConcrete());
        QCOMPARE(*(a + b).maybeValue(), int64_t(11));
        QVERIFY((a * b).isConcrete());
        QCOMPARE((a - b).str(), std::string("5"));
        QCOMPARE(*SymInt::floorDiv(SymInt(-7), SymInt(2)).maybeValue(), int64_t(-4));
        QCOMPARE(*SymInt::ceilDiv(SymInt(-7), SymInt(2)).maybeValue(), int64_t(-3));

        SymInt s(SymExpr::symbol("s0"), 4);
        QVERIFY(!s.isConcrete());
        QCOMPARE(s.valueOrHint(), int64_t(4));
        SymInt t = s * SymInt(2) + SymInt(1);
        QCOMPARE(t.str(), std::string("2*s0 + 1"));
        QCOMPARE(*t.hint(), int64_t(9));  // hints follow the arithmetic
        QVERIFY(t == SymInt(SymExpr::parse("1 + s0*2")));  // hints are ignored by ==
        QVERIFY(t != SymInt(9));
        QVERIFY(s - s == SymInt(0));  // folds back to a concrete value
        QVERIFY((s - s).isConcrete());

        SymInt noHint(SymExpr::symbol("u0"));
        QVERIFY(!noHint.maybeValue());
        QVERIFY_THROWS_EXCEPTION(std::logic_error, noHint.valueOrHint());
        QVERIFY(!(noHint + SymInt(1)).hint());

        // a constant expression becomes a concrete SymInt
        QVERIFY(SymInt(SymExpr::parse("2*3")).isConcrete());
        QCOMPARE(SymInt(SymExpr::parse("2*3")).str(), std::string("6"));
        QCOMPARE(SymInt(5).expr().str(), std::string("5"));
    }

    void parseSymIntElements()
    {
        QVERIFY(parseSymInt("8").isConcrete());
        QCOMPARE(*parseSymInt("8").maybeValue(), int64_t(8));
        QCOMPARE(*parseSymInt("-1").maybeValue(), int64_t(-1));
        QCOMPARE(parseSymInt("s0").str(), std::string("s0"));
        QCOMPARE(parseSymInt("2*s0").str(), std::string("2*s0"));
        QVERIFY(parseSymInt("s0*2") == parseSymInt("2*s0"));
        QVERIFY_THROWS_EXCEPTION(InputError, parseSymInt("s0 +"));
        QVERIFY_THROWS_EXCEPTION(InputError, parseSymInt(""));
    }
};

// --symbols: the values of symbols a graph gives no hint for (core/ir/symbol_hints.hpp).
class TestSymbolHints : public QObject
{
    Q_OBJECT
private slots:
    void parse_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("expected");  // "s0=8;u0=3" or "error@COLUMN: message"
        QTest::newRow("two") << "s0=8,u0=3"
                             << "s0=8;u0=3";
        QTest::newRow("semicolon and spaces") << " s0 = 8 ; s1=0 "
                                              << "s0=8;s1=0";
        QTest::newRow("empty") << ""
                               << "error@1: expected SYMBOL=N (e.g. s0=8,u0=3)";
        QTest::newRow("no value") << "s0="
                                  << "error@4: expected an integer value for s0";
        QTest::newRow("no equals") << "s0 8"
                                   << "error@4: expected '=' after s0";
        QTest::newRow("negative") << "s0=-2"
                                  << "error@4: expected a value >= 0 for s0";
        QTest::newRow("number as name") << "8=s0"
                                        << "error@1: expected a symbol name (s0, u0, ...)";
        QTest::newRow("twice") << "s0=1,s0=2"
                               << "error@6: s0 is bound twice";
        QTest::newRow("trailing comma") << "s0=1,"
                                        << "error@6: expected SYMBOL=N after ','";
        QTest::newRow("junk after value") << "s0=1x"
                                          << "error@5: expected ',' between bindings";
    }
    void parse()
    {
        QFETCH(QString, text);
        QFETCH(QString, expected);
        fxl::SymbolValues v;
        std::string error;
        size_t column = 0;
        QString got;
        if (fxl::parseSymbolValues(text.toStdString(), v, error, column)) {
            QStringList parts;
            for (const auto& [k, x] : v) parts << QString::fromStdString(k) + "=" + QString::number(x);
            got = parts.join(';');
        } else {
            got = QStringLiteral("error@%1: %2").arg(column).arg(QString::fromStdString(error));
        }
        QCOMPARE(got, expected);
    }

    // Binding s0 sets the hint of every expression over it, nested graphs included; the
    // graph's own hints fill the other symbols; a given value wins over a hint.
    void bind()
    {
        fxl::Graph g = fxl::parseFxText("class GraphModule(torch.nn.Module):\n"
                                        "    def forward(self, x: \"f32[s0, s1]\", n: \"Sym(s0)\"):\n"
                                        "        cat: \"f32[2*s0, s1]\" = torch.ops.aten.cat.default([x, x])\n"
                                        "        add: \"Sym(s0 + 1)\" = n + 1\n"
                                        "        return (cat, add)\n",
                                        "bind.py");
        QCOMPARE(fxl::graphSymbols(g), (std::set<std::string>{"s0", "s1"}));
        QVERIFY(fxl::symbolHints(g).empty());
        const size_t set = fxl::bindSymbols(g, {{"s0", 8}, {"s1", 3}});
        QCOMPARE(set, size_t(6));  // x's 2 sizes, n, cat's 2 sizes, add (no strides printed)
        const fxl::Node* cat = nullptr;
        const fxl::Node* add = nullptr;
        g.forEachNode([&](const fxl::Node& n) {
            if (n.name == "cat") cat = &n;
            if (n.name == "add") add = &n;
        });
        QVERIFY(cat && add);
        QCOMPARE(cat->val.tensor.sizes[0].maybeValue(), std::optional<int64_t>(16));
        QCOMPARE(cat->val.tensor.sizes[1].maybeValue(), std::optional<int64_t>(3));
        QCOMPARE(add->val.symHint, std::optional<int64_t>(9));
        // the hints now carried are found again, and a given value wins over them
        QCOMPARE(fxl::symbolHints(g).at("s0"), int64_t(8));
        QCOMPARE(fxl::bindSymbols(g, {{"s0", 2}}) > 0, true);
        QCOMPARE(cat->val.tensor.sizes[0].maybeValue(), std::optional<int64_t>(4));
        QCOMPARE(cat->val.tensor.sizes[1].maybeValue(), std::optional<int64_t>(3));
    }
};

static int runSymExprTests(int argc, char** argv)
{
    int status = 0;
    {
        TestSymExpr t;
        status |= QTest::qExec(&t, argc, argv);
    }
    {
        TestSymbolHints t;
        status |= QTest::qExec(&t, argc, argv);
    }
    return status;
}
FXL_TEST_CUSTOM_MAIN(runSymExprTests)
}  // namespace test_symexpr
#include "test_symexpr.moc"
