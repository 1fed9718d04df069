#include "core/formats/fx/listing_losses.hpp"

#include "core/formats/fx/listing_value.hpp"

namespace fxl {

namespace {

struct LossText
{
    ListingLoss kind;
    Severity severity;
    const char* what;
};
constexpr LossText kTexts[] = {
    {ListingLoss::StrBySchema, Severity::Note,
     "value(s) printed without quotes were read as strings because the op schema types them 'str' "
     "(print(gm.graph) drops string quotes)"},
    {ListingLoss::DeviceBySchema, Severity::Note,
     "device value(s) printed as bare text were read as devices from the op schema"},
    {ListingLoss::OpValue, Severity::Note,
     "value(s) spelled like a registered operator overload were read as operator values (a string prints the "
     "same)"},
    {ListingLoss::DictKeys, Severity::Note,
     "dict key(s) printed without quotes were read as strings (an int key prints the same)"},
    {ListingLoss::BySpelling, Severity::Warning,
     "value(s) in positions with no schema type (call_method, call_module, unknown operators, 'Any' or untyped "
     "operands) were read by their spelling: the string '0' or 'None' prints the same as the number or constant"},
    {ListingLoss::GuessedString, Severity::Warning,
     "bare word(s) with no schema type were read as strings (print(gm.graph) drops string quotes, and other "
     "objects "
     "print bare too)"},
    {ListingLoss::GuessedDevice, Severity::Warning,
     "word(s) with no schema type that look like devices were read as devices (a string prints the same)"},
    {ListingLoss::TypeMismatch, Severity::Warning, "value(s) do not fit the schema type and were kept verbatim"},
    {ListingLoss::RawValue, Severity::Warning, "value(s) could not be typed and were kept verbatim"},
    {ListingLoss::UnknownTarget, Severity::Note,
     "call_function node(s) have targets that are not in the operator registry: their values were read by "
     "spelling"},
    {ListingLoss::BeyondSchema, Severity::Warning,
     "argument(s) do not match the operator schema (extra positional arguments or unknown keywords; a string with "
     "', ' in it splits into several) and were read by spelling"},
    {ListingLoss::NestedGraphs, Severity::Note,
     "get_attr node(s) name nested graphs of higher-order ops: print(gm.graph) does not print nested graphs, so "
     "they are missing"},
    {ListingLoss::NoMeta, Severity::Note,
     "node(s) carry no value meta: print(gm.graph) prints no shapes (unless printed with tensor metadata), stack "
     "traces or module paths"},
    {ListingLoss::UsersMismatch, Severity::Warning,
     "node(s) print a user count that differs from the nodes that use them in this listing"},
};

}  // namespace

void ListingLosses::record(ListingLoss kind, int line, int col, std::string_view example)
{
    Record& r = at(kind);
    if (r.count++ == 0) {
        r.line = line;
        r.col = col;
        r.example = clipForMessage(example);
    }
}

void ListingLosses::recordNoMeta(int count, int total, int line, std::string_view example)
{
    Record& r = at(ListingLoss::NoMeta);
    r.count = count;
    r.line = line;
    r.col = 1;
    r.example = std::string(example);
    noMetaTotal_ = total;
}

void ListingLosses::report(DiagnosticList& diags, const std::string& file) const
{
    for (const auto& t : kTexts) {
        const Record& r = records_[static_cast<size_t>(t.kind)];
        if (r.count == 0) continue;
        std::string msg = std::to_string(r.count) + " "
            + (t.kind == ListingLoss::NoMeta ? "of " + std::to_string(noMetaTotal_) + " " : std::string()) + t.what
            + ", e.g. " + r.example;
        diags.items.push_back({t.severity, file, r.line, r.col, std::move(msg)});
    }
}

}  // namespace fxl
