// Progress reporting of long jobs: the throttle and the cancellation check.
#include "core/util/progress.hpp"

#include <algorithm>

namespace fxl {

CancelledError::CancelledError()
    : std::runtime_error("cancelled")
{ }

ProgressMeter::ProgressMeter(const Progress& progress, int64_t total, int64_t maxReports)
    : progress_(progress)
    , total_(std::max<int64_t>(total, 0))
    , step_(std::max<int64_t>(total_ / std::max<int64_t>(maxReports, 1), 1))
{ }

void ProgressMeter::report(int64_t done, std::string_view what)
{
    // A file that grows or shrinks while it is read must not make the bar run backwards or
    // past its end.
    last_ = std::clamp(done, last_, total_);
    next_ = last_ + step_;
    if (progress_.report) progress_.report(last_, total_, what);
    if (progress_.cancelled()) throw CancelledError();
}

}  // namespace fxl
