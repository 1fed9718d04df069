// Internal to the graph listing reader (core/formats/fx/graph_listing): what print(gm.graph)
// could not say, counted by kind and reported once per kind (a count and the first place).
#pragma once

#include <array>
#include <string>
#include <string_view>

#include "core/ir/diagnostics.hpp"

namespace fxl {

enum class ListingLoss : int
{
    StrBySchema,
    DeviceBySchema,
    OpValue,
    DictKeys,
    BySpelling,
    GuessedString,
    GuessedDevice,
    TypeMismatch,
    RawValue,
    UnknownTarget,
    BeyondSchema,
    NestedGraphs,
    NoMeta,
    UsersMismatch,
};

class ListingLosses
{
public:
    // One more loss of `kind`; the first one's place and example are kept.
    void record(ListingLoss kind, int line, int col, std::string_view example);
    // All `count` losses at once ("node(s) carry no value meta", of `total` nodes).
    void recordNoMeta(int count, int total, int line, std::string_view example);
    // One diagnostic per kind that happened, in the order of ListingLoss.
    void report(DiagnosticList& diags, const std::string& file) const;

private:
    struct Record
    {
        int count = 0;
        int line = 0, col = 0;
        std::string example;
    };
    static constexpr size_t kKinds = static_cast<size_t>(ListingLoss::UsersMismatch) + 1;
    std::array<Record, kKinds> records_{};
    int noMetaTotal_ = 0;

    Record& at(ListingLoss kind) { return records_[static_cast<size_t>(kind)]; }
};

}  // namespace fxl
