#include "core/ir/symexpr_parse.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "core/ir/diagnostics.hpp"
#include "core/ir/symexpr_canon.hpp"
#include "core/ir/symexpr_node.hpp"

namespace fxl::symbolic {

namespace {

// Python expression precedence, since sympy prints valid Python.
class Parser
{
public:
    explicit Parser(std::string_view t)
        : text_(t)
    { }

    SymNodePtr parseAll()
    {
        skipSpace();
        if (pos_ >= text_.size()) fail("expected an expression");
        SymNodePtr e = parseComparison();
        skipSpace();
        if (pos_ < text_.size())
            fail(std::string("expected an operator or end of expression, got '") + text_[pos_] + "'");
        return e;
    }

private:
    std::string_view text_;
    size_t pos_ = 0;
    int depth_ = 0;

    [[noreturn]] void fail(const std::string& msg) const { failAt(pos_, msg); }
    [[noreturn]] void failAt(size_t pos, const std::string& msg) const
    {
        throw InputError("<expr>", 1, int(std::min(pos, text_.size())) + 1, msg);
    }

    void skipSpace()
    {
        while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t')) ++pos_;
    }
    bool peek(std::string_view s)
    {
        skipSpace();
        return text_.substr(pos_, s.size()) == s;
    }
    bool accept(std::string_view s)
    {
        if (!peek(s)) return false;
        pos_ += s.size();
        return true;
    }

    struct DepthGuard
    {
        Parser& p;
        explicit DepthGuard(Parser& parser)
            : p(parser)
        {
            if (++p.depth_ > 200) p.fail("expression nested too deeply");
        }
        ~DepthGuard() { --p.depth_; }
    };

    SymNodePtr parseComparison()
    {
        DepthGuard g(*this);
        SymNodePtr lhs = parseBitOr();
        const SymNodePtr first = lhs;
        static const std::pair<std::string_view, SymOp> ops[] = {{"==", SymOp::Eq}, {"!=", SymOp::Ne},
                                                                 {"<=", SymOp::Le}, {">=", SymOp::Ge},
                                                                 {"<", SymOp::Lt},  {">", SymOp::Gt}};
        for (;;) {
            bool matched = false;
            for (const auto& [s, op] : ops) {
                if (accept(s)) {
                    if (isRelational(nd(lhs).op) && lhs != first)
                        failAt(pos_ - s.size(), "chained comparisons are not supported");
                    SymNodePtr rhs = parseBitOr();
                    lhs = mkNode(op, {lhs, rhs});
                    matched = true;
                    break;
                }
            }
            if (!matched) return lhs;
        }
    }

    SymNodePtr parseBitOr()
    {
        std::vector<SymNodePtr> args{parseBitAnd()};
        while (peek("|")) {
            ++pos_;
            args.push_back(parseBitAnd());
        }
        return args.size() == 1 ? args[0] : buildBool(SymOp::Or, std::move(args));
    }

    SymNodePtr parseBitAnd()
    {
        std::vector<SymNodePtr> args{parseArith()};
        while (peek("&")) {
            ++pos_;
            args.push_back(parseArith());
        }
        return args.size() == 1 ? args[0] : buildBool(SymOp::And, std::move(args));
    }

    SymNodePtr parseArith()
    {
        std::vector<SymNodePtr> terms{parseTerm()};
        for (;;) {
            if (accept("+")) {
                terms.push_back(parseTerm());
            } else if (accept("-")) {
                terms.push_back(buildNeg(parseTerm()));
            } else {
                break;
            }
        }
        return terms.size() == 1 ? terms[0] : buildAdd(std::move(terms));
    }

    SymNodePtr parseTerm()
    {
        // a run of '*' is collected and built once; '//', '/' and '%' apply to what precedes
        std::vector<SymNodePtr> factors{parseUnary()};
        auto lhs = [&]() {
            if (factors.size() > 1) {
                SymNodePtr m = buildMul(std::move(factors));
                factors.assign(1, m);
            }
            return factors[0];
        };
        int nested = 0;
        for (;;) {
            // left-nested operators: bound the tree depth for printing / evaluation
            if (peek("/") || peek("%")) {
                if (++nested > 200) fail("expression nested too deeply");
            }
            if (accept("//")) {
                SymNodePtr a = lhs();
                factors.assign(1, buildFloorDiv(a, parseUnary()));
            } else if (accept("*")) {
                factors.push_back(parseUnary());
            } else if (accept("/")) {
                SymNodePtr a = lhs();
                factors.assign(1, buildTrueDiv(a, parseUnary()));
            } else if (accept("%")) {
                SymNodePtr a = lhs();
                factors.assign(1, buildMod(a, parseUnary()));
            } else {
                return lhs();
            }
        }
    }

    SymNodePtr parseUnary()
    {
        DepthGuard g(*this);
        if (accept("-")) return buildNeg(parseUnary());
        if (accept("+")) return parseUnary();
        if (accept("~")) return mkNode(SymOp::Not, {parseUnary()});
        return parsePower();
    }

    SymNodePtr parsePower()
    {
        SymNodePtr base = parseAtom();
        if (accept("**")) return buildPow(base, parseUnary());
        return base;
    }

    SymNodePtr parseAtom()
    {
        skipSpace();
        if (pos_ >= text_.size()) fail("expected a number, symbol or '('");
        char c = text_[pos_];
        if (c == '(') {
            size_t open = pos_++;
            SymNodePtr e = parseComparison();
            if (!accept(")")) {
                if (pos_ >= text_.size()) failAt(open, "unclosed '('");
                fail("expected ')'");
            }
            return e;
        }
        if ((c >= '0' && c <= '9') || c == '.') return parseNumber();
        if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
            size_t start = pos_;
            while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_'))
                ++pos_;
            std::string name(text_.substr(start, pos_ - start));
            if (pos_ < text_.size() && text_[pos_] == '(') {
                size_t open = pos_++;
                std::vector<SymNodePtr> args;
                skipSpace();
                if (!accept(")")) {
                    for (;;) {
                        args.push_back(parseComparison());
                        if (accept(",")) continue;
                        if (accept(")")) break;
                        if (pos_ >= text_.size()) failAt(open, "unclosed '(' of call to " + name);
                        fail("expected ',' or ')' in arguments of " + name);
                    }
                }
                return buildCall(name, std::move(args));
            }
            return mkSymbol(std::move(name));
        }
        fail(std::string("expected a number, symbol or '(', got '") + c + "'");
    }

    SymNodePtr parseNumber()
    {
        size_t start = pos_;
        bool isFloatLit = false;
        while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
        if (pos_ < text_.size() && text_[pos_] == '.') {
            isFloatLit = true;
            ++pos_;
            while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
        }
        if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
            size_t save = pos_++;
            if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
            if (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
                isFloatLit = true;
                while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
            } else {
                pos_ = save;
            }
        }
        std::string_view lit = text_.substr(start, pos_ - start);
        if (lit == ".") failAt(start, "expected a number");
        if (isFloatLit) {
            double v = 0;
            auto res = std::from_chars(lit.data(), lit.data() + lit.size(), v);
            if (res.ec != std::errc() || res.ptr != lit.data() + lit.size())
                failAt(start, "expected a floating-point number");
            return mkFloat(v, std::string(lit));
        }
        int64_t v = 0;
        auto res = std::from_chars(lit.data(), lit.data() + lit.size(), v);
        if (res.ec == std::errc::result_out_of_range) failAt(start, "integer literal out of range");
        if (res.ec != std::errc() || res.ptr != lit.data() + lit.size()) failAt(start, "expected an integer");
        return mkConst(v);
    }
};

}  // namespace

SymNodePtr parseExpression(std::string_view text) { return Parser(text).parseAll(); }

std::optional<int64_t> parsePlainInt(std::string_view t)
{
    if (t.empty()) return std::nullopt;
    int64_t v = 0;
    auto res = std::from_chars(t.data(), t.data() + t.size(), v);
    if (res.ec != std::errc() || res.ptr != t.data() + t.size()) return std::nullopt;
    return v;
}

}  // namespace fxl::symbolic
