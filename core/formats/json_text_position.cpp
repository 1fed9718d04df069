#include "core/formats/json_text_position.hpp"

#include <algorithm>
#include <charconv>
#include <deque>
#include <optional>
#include <unordered_set>
#include <vector>

#include "core/util/strings.hpp"

namespace fxl {

TextPosition textPositionAt(std::string_view text, size_t offset)
{
    offset = std::min(offset, text.size());
    TextPosition position{1, 1};
    size_t lineStart = 0;
    for (size_t i = 0; i < offset; ++i)
        if (text[i] == '\n') {
            ++position.line;
            lineStart = i + 1;
        }
    position.column = static_cast<int>(offset - lineStart) + 1;
    return position;
}

namespace {

// The keys of one JSON object: a short list, or a hash set once it grows.
struct ObjectKeys
{
    std::vector<std::string_view> few;
    std::unordered_set<std::string_view> many;
    bool insert(std::string_view k)
    {
        if (few.size() < 16) {
            for (auto x : few)
                if (x == k) return false;
            few.push_back(k);
            return true;
        }
        if (many.empty()) many.insert(few.begin(), few.end());
        return many.insert(k).second;
    }
};

// Walks JSON text that nlohmann has already accepted (so it is well formed).
class JsonTextWalker
{
public:
    explicit JsonTextWalker(std::string_view t)
        : text_(t)
    { }

    size_t locate(const std::string& pointer) const
    {
        size_t pos = skipWs(0);
        for (const auto& token : pointerTokens(pointer)) {
            if (pos >= text_.size()) break;
            std::optional<size_t> value;
            if (text_[pos] == '{')
                value = memberValue(pos, token);
            else if (text_[pos] == '[')
                value = elementValue(pos, token);
            if (!value) return pos;
            pos = *value;
        }
        return pos;
    }

    // Iterative, so deep nesting is fine.
    std::optional<std::pair<size_t, std::string>> findDuplicateKey()
    {
        std::vector<ObjectKeys> objects;  // one per open object
        std::vector<char> stack;
        std::deque<std::string> decoded;  // stable storage for keys written with escapes
        size_t p = 0;
        bool expectKey = false;
        while (p < text_.size()) {
            char c = text_[p];
            if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',' || c == ':') {
                if (c == ',' && !stack.empty() && stack.back() == '{') expectKey = true;
                ++p;
                continue;
            }
            if (c == '{') {
                stack.push_back('{');
                objects.emplace_back();
                expectKey = true;
                ++p;
            } else if (c == '[') {
                stack.push_back('[');
                expectKey = false;
                ++p;
            } else if (c == '}' || c == ']') {
                if (!stack.empty()) {
                    if (stack.back() == '{') objects.pop_back();
                    stack.pop_back();
                }
                expectKey = false;
                ++p;
            } else if (c == '"') {
                const size_t start = p;
                skipString(p);
                if (expectKey && !objects.empty()) {
                    std::string_view key = text_.substr(start + 1, p - start - 2);
                    if (key.find('\\') != std::string_view::npos) {
                        size_t q = start;
                        decoded.push_back(readString(q));
                        key = decoded.back();
                    }
                    if (!objects.back().insert(key)) {
                        size_t q = start;
                        return std::make_pair(start, readString(q));
                    }
                    expectKey = false;
                }
            } else {
                p = skipScalar(p);
            }
        }
        return std::nullopt;
    }

private:
    // "/graph/nodes/0" -> "graph", "nodes", "0" (with "~1" and "~0" unescaped).
    static std::vector<std::string> pointerTokens(const std::string& pointer)
    {
        std::vector<std::string> tokens;
        size_t i = 0;
        while (i < pointer.size()) {
            size_t j = pointer.find('/', i + 1);
            if (j == std::string::npos) j = pointer.size();
            std::string token;
            for (size_t k = i + 1; k < j; ++k) {
                if (pointer[k] == '~' && k + 1 < j) {
                    token += pointer[k + 1] == '1' ? '/' : '~';
                    ++k;
                } else {
                    token += pointer[k];
                }
            }
            tokens.push_back(std::move(token));
            i = j;
        }
        return tokens;
    }

    // Offset of the value of `key` in the object at `object`; nullopt when it has none.
    std::optional<size_t> memberValue(size_t object, const std::string& key) const
    {
        size_t p = skipWs(object + 1);
        while (p < text_.size() && text_[p] == '"') {
            std::string name = readString(p);
            p = skipWs(p);
            if (p < text_.size() && text_[p] == ':') p = skipWs(p + 1);
            if (name == key) return p;
            p = skipWs(skipValue(p));
            if (p < text_.size() && text_[p] == ',') p = skipWs(p + 1);
        }
        return std::nullopt;
    }

    // Offset of element `indexText` of the array at `array`; nullopt when it has none.
    std::optional<size_t> elementValue(size_t array, const std::string& indexText) const
    {
        size_t index = 0;
        auto [ptr, ec] = std::from_chars(indexText.data(), indexText.data() + indexText.size(), index);
        if (ec != std::errc() || ptr != indexText.data() + indexText.size()) return std::nullopt;
        size_t p = skipWs(array + 1);
        size_t k = 0;
        while (k < index && p < text_.size() && text_[p] != ']') {
            p = skipWs(skipValue(p));
            if (p < text_.size() && text_[p] == ',') p = skipWs(p + 1);
            ++k;
        }
        if (k != index || p >= text_.size() || text_[p] == ']') return std::nullopt;
        return p;
    }

    size_t skipWs(size_t p) const
    {
        while (p < text_.size() && (text_[p] == ' ' || text_[p] == '\t' || text_[p] == '\n' || text_[p] == '\r')) ++p;
        return p;
    }

    size_t skipScalar(size_t p) const
    {
        while (p < text_.size() && text_[p] != ',' && text_[p] != '}' && text_[p] != ']' && text_[p] != ' '
               && text_[p] != '\n' && text_[p] != '\t' && text_[p] != '\r' && text_[p] != ':')
            ++p;
        return p;
    }

    // Skips a string at p (on the opening quote); p ends after the closing quote.
    void skipString(size_t& p) const
    {
        ++p;
        while (p < text_.size() && text_[p] != '"') p += text_[p] == '\\' ? 2 : 1;
        ++p;
    }

    // Reads a string at p (on the opening quote); p ends after the closing quote.
    std::string readString(size_t& p) const
    {
        std::string out;
        ++p;
        while (p < text_.size() && text_[p] != '"') {
            if (text_[p] == '\\' && p + 1 < text_.size()) {
                char e = text_[p + 1];
                p += 2;
                switch (e) {
                case 'n': out += '\n'; break;
                case 't': out += '\t'; break;
                case 'r': out += '\r'; break;
                case 'b': out += '\b'; break;
                case 'f': out += '\f'; break;
                case 'u': {
                    unsigned cp = 0;
                    if (p + 4 <= text_.size()) std::from_chars(text_.data() + p, text_.data() + p + 4, cp, 16);
                    p += 4;
                    if (cp >= 0xD800 && cp <= 0xDBFF && p + 6 <= text_.size() && text_[p] == '\\'
                        && text_[p + 1] == 'u') {
                        unsigned lo = 0;
                        std::from_chars(text_.data() + p + 2, text_.data() + p + 6, lo, 16);
                        if (lo >= 0xDC00 && lo <= 0xDFFF) {  // a pair; otherwise the lone half is replaced
                            p += 6;
                            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                        }
                    }
                    appendUtf8(out, cp);
                    break;
                }
                default: out += e;
                }
            } else {
                out += text_[p++];
            }
        }
        ++p;
        return out;
    }

    // Skips one value starting at p (no leading whitespace). Iterative over brackets.
    size_t skipValue(size_t p) const
    {
        if (p >= text_.size()) return p;
        char c = text_[p];
        if (c == '"') {
            skipString(p);
            return p;
        }
        if (c != '{' && c != '[') return skipScalar(p);
        int depth = 0;
        while (p < text_.size()) {
            c = text_[p];
            if (c == '"') {
                skipString(p);
                continue;
            }
            if (c == '{' || c == '[')
                ++depth;
            else if (c == '}' || c == ']') {
                --depth;
                if (depth == 0) return p + 1;
            }
            ++p;
        }
        return p;
    }

    std::string_view text_;
};

}  // namespace

std::string jsonParseErrorText(const std::string& what)
{
    static constexpr std::string_view kMarker = "column ";
    size_t m = what.find(kMarker);
    if (m != std::string::npos) {
        size_t colon = what.find(": ", m);
        if (colon != std::string::npos) return what.substr(colon + 2);
    }
    size_t b = what.find("] ");
    return b == std::string::npos ? what : what.substr(b + 2);
}

size_t locateJsonPointer(std::string_view text, const std::string& pointer)
{
    return JsonTextWalker(text).locate(pointer);
}

std::optional<std::pair<size_t, std::string>> findDuplicateJsonKey(std::string_view text)
{
    return JsonTextWalker(text).findDuplicateKey();
}

}  // namespace fxl
