// Internal to the graph listing reader (core/formats/fx/graph_listing): the values of a
// print(gm.graph) line as printed, before they are typed. The listing prints arguments with
// str(), so strings lose their quotes: a value is read as text first (ListingValue), and
// typed from the operator schema of its position afterwards.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace fxl {

struct ListingValuePair;  // a dict entry (std::pair would need a complete ListingValue under clang)

// A value as printed.
struct ListingValue
{
    enum class Kind : uint8_t
    {
        NodeRef,
        List,
        Tuple,
        Dict,
        Quoted,
        Bare
    };
    Kind kind = Kind::Bare;
    std::string text;  // node name (NodeRef), decoded string (Quoted), raw text (Bare)
    std::vector<ListingValue> items;
    std::vector<ListingValuePair> dict;  // keys are Bare (str mode) or any (repr mode)
    int line = 0, col = 0;
};

struct ListingValuePair
{
    ListingValuePair(ListingValue k, ListingValue v)
        : first(std::move(k))
        , second(std::move(v))
    { }
    ListingValue first, second;
};

// Text in messages: at most 60 bytes.
std::string clipForMessage(std::string_view s);

// Reads the line being parsed (`cur_`, from `pos_`); errors are InputErrors at its line and
// the column of `pos_`.
class ListingLineScanner
{
public:
    explicit ListingLineScanner(const std::string& file)
        : file_(file)
    { }

protected:
    const std::string& file_;
    int line_ = 0;  // 1-based
    std::string_view cur_;
    size_t pos_ = 0;

    [[noreturn]] void fail(size_t at, const std::string& msg) const;
    void skipSpaces()
    {
        while (pos_ < cur_.size() && cur_[pos_] == ' ') ++pos_;
    }
    bool startsWith(std::string_view s) const { return cur_.substr(pos_, s.size()) == s; }
    void expect(std::string_view s, const char* what);

    // reprMode: the text is Python repr (strings quoted, nodes by bare name): the return line,
    // placeholder defaults inside containers. Otherwise it is FX's _format_arg (nodes as %name,
    // strings bare, dict keys bare).
    ListingValue parseValue(bool reprMode);

private:
    int depth_ = 0;

    void parseSequence(ListingValue& v, bool reprMode);
    void parseDict(ListingValue& v, bool reprMode);
    std::string readQuoted();
    std::string readBare(bool stopAtColon);
};

}  // namespace fxl
