#include "core/formats/fx/listing_value.hpp"

#include "core/formats/fx/py_lexer.hpp"
#include "core/ir/diagnostics.hpp"
#include "core/util/strings.hpp"

namespace fxl {

namespace {

constexpr int kMaxDepth = 200;

}  // namespace

std::string clipForMessage(std::string_view s)
{
    if (s.size() <= 60) return std::string(s);
    return std::string(s.substr(0, 57)) + "...";
}

void ListingLineScanner::fail(size_t at, const std::string& msg) const
{
    throw InputError(file_, line_, static_cast<int>(at) + 1, msg);
}

void ListingLineScanner::expect(std::string_view s, const char* what)
{
    if (!startsWith(s))
        fail(pos_,
             std::string("expected '") + std::string(s) + "' " + what + ", found '"
                 + clipForMessage(cur_.substr(pos_, 20)) + "'");
    pos_ += s.size();
}

// Quoted Python string at pos_ (repr contexts: return line, slices, defaults in containers).
std::string ListingLineScanner::readQuoted()
{
    const size_t start = pos_;
    const char quote = cur_[pos_];
    size_t p = pos_ + 1;
    while (p < cur_.size() && cur_[p] != quote) {
        if (cur_[p] == '\\') ++p;
        ++p;
    }
    if (p >= cur_.size()) fail(start, "string literal is not closed on this line");
    std::string_view literal = cur_.substr(start, p + 1 - start);
    pos_ = p + 1;
    try {
        return decodePyString(literal);
    } catch (const LexError& e) {
        fail(start + e.offset, e.message);
    }
}

// Bare text up to a ',' or an unmatched closing bracket (or ':' for dict keys), brackets
// and quotes inside balanced. Spaces inside are kept ("Runtime assertion failed for ...").
std::string ListingLineScanner::readBare(bool stopAtColon)
{
    const size_t start = pos_;
    std::vector<char> closers;
    while (pos_ < cur_.size()) {
        char c = cur_[pos_];
        if (closers.empty() && (c == ',' || c == ')' || c == ']' || c == '}')) break;
        if (closers.empty() && stopAtColon && c == ':' && pos_ + 1 < cur_.size() && cur_[pos_ + 1] == ' ') break;
        if (c == '(' || c == '[' || c == '{') {
            if (closers.size() >= static_cast<size_t>(kMaxDepth)) fail(pos_, "brackets nested too deeply");
            closers.push_back(c == '(' ? ')' : c == '[' ? ']' : '}');
        } else if (c == ')' || c == ']' || c == '}') {
            if (closers.back() != c) fail(pos_, std::string("expected '") + closers.back() + "', found '" + c + "'");
            closers.pop_back();
        } else if ((c == '\'' || c == '"') && !closers.empty()) {
            // quotes only matter inside brackets (device(type='cuda')); a bare top-level
            // apostrophe is just text ("don't")
            size_t p = pos_ + 1;
            while (p < cur_.size() && cur_[p] != c) {
                if (cur_[p] == '\\') ++p;
                ++p;
            }
            if (p >= cur_.size()) fail(pos_, "string literal is not closed on this line");
            pos_ = p;
        }
        ++pos_;
    }
    if (!closers.empty())
        fail(start, std::string("'") + cur_[start] + "...' is not closed: expected '" + closers.back() + "'");
    return std::string(trim(cur_.substr(start, pos_ - start)));
}

ListingValue ListingLineScanner::parseValue(bool reprMode)
{
    if (++depth_ > kMaxDepth) fail(pos_, "values nested deeper than " + std::to_string(kMaxDepth) + " levels");
    skipSpaces();
    ListingValue v;
    v.line = line_;
    v.col = static_cast<int>(pos_) + 1;
    if (pos_ >= cur_.size()) fail(pos_, "expected a value, found the end of the line");
    const char c = cur_[pos_];
    if (c == '%' && !reprMode) {
        size_t end = pos_ + 1;
        while (end < cur_.size() && isPythonIdentifierChar(cur_[end])) ++end;
        if (end == pos_ + 1) fail(pos_, "expected a node name after '%'");
        v.kind = ListingValue::Kind::NodeRef;
        v.text = std::string(cur_.substr(pos_ + 1, end - pos_ - 1));
        pos_ = end;
    } else if (c == '[' || c == '(') {
        parseSequence(v, reprMode);
    } else if (c == '{') {
        parseDict(v, reprMode);
    } else if ((c == '\'' || c == '"') && reprMode) {
        v.kind = ListingValue::Kind::Quoted;
        v.text = readQuoted();
    } else {
        v.kind = ListingValue::Kind::Bare;
        v.text = readBare(false);
        if (v.text.empty()) fail(pos_, "expected a value");
    }
    --depth_;
    return v;
}

// "[a, b]" / "(a, b)" at pos_.
void ListingLineScanner::parseSequence(ListingValue& v, bool reprMode)
{
    const char close = cur_[pos_] == '[' ? ']' : ')';
    v.kind = cur_[pos_] == '[' ? ListingValue::Kind::List : ListingValue::Kind::Tuple;
    ++pos_;
    skipSpaces();
    while (pos_ < cur_.size() && cur_[pos_] != close) {
        v.items.push_back(parseValue(reprMode));
        skipSpaces();
        if (pos_ < cur_.size() && cur_[pos_] == ',') {
            ++pos_;
            skipSpaces();
            continue;
        }
        break;
    }
    if (pos_ >= cur_.size() || cur_[pos_] != close)
        fail(pos_,
             std::string("expected ',' or '") + close + "'"
                 + (pos_ < cur_.size() ? ", found '" + std::string(1, cur_[pos_]) + "'" : std::string()));
    ++pos_;
}

// "{k: v, ...}" at pos_; keys are bare text unless `reprMode`.
void ListingLineScanner::parseDict(ListingValue& v, bool reprMode)
{
    v.kind = ListingValue::Kind::Dict;
    ++pos_;
    skipSpaces();
    while (pos_ < cur_.size() && cur_[pos_] != '}') {
        ListingValue key;
        if (reprMode) {
            key = parseValue(true);
        } else {
            key.line = line_;
            key.col = static_cast<int>(pos_) + 1;
            key.kind = ListingValue::Kind::Bare;
            key.text = readBare(true);
            if (key.text.empty()) fail(pos_, "expected a dict key");
        }
        skipSpaces();
        if (pos_ >= cur_.size() || cur_[pos_] != ':') fail(pos_, "expected ':' after a dict key");
        ++pos_;
        ListingValue value = parseValue(reprMode);
        v.dict.emplace_back(std::move(key), std::move(value));
        skipSpaces();
        if (pos_ < cur_.size() && cur_[pos_] == ',') {
            ++pos_;
            skipSpaces();
            continue;
        }
        break;
    }
    if (pos_ >= cur_.size() || cur_[pos_] != '}') fail(pos_, "expected ',' or '}'");
    ++pos_;
}

}  // namespace fxl
