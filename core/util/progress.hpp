// Progress and cancellation hooks of long jobs (opening a source, running a pipeline), for a
// GUI that shows a bar and has a Cancel button. Same conventions as the executor's
// ExecOptions::progress and ExecOptions::cancel: the job calls the callback on its own
// thread, and whoever holds the flag sets it (from any thread) to stop the job at its next
// check. A job checks the flag right after each report, so a callback may cancel the job it
// reports on.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string_view>

namespace fxl {

struct Progress
{
    // `done` out of `total` in the job's unit (bytes, files, passes: the job's doc says which);
    // `what` names the item the job is at (a file name, a pass). Called at a bounded rate,
    // `done` never decreasing and `total` fixed within one job; the last call of a job that
    // completes has done == total.
    std::function<void(int64_t done, int64_t total, std::string_view what)> report;
    std::atomic<bool>* cancel = nullptr;  // set to true to stop the job at its next check

    bool cancelled() const { return cancel && cancel->load(std::memory_order_relaxed); }
};

// What a cancelled job throws when it leaves nothing behind (openSource). Not an InputError:
// the input was fine.
struct CancelledError : std::runtime_error
{
    CancelledError();
};

// A job's side of Progress: reports at most about `maxReports` times in between the first
// and the last report, and checks for cancellation after every report it makes.
class ProgressMeter
{
public:
    ProgressMeter(const Progress& progress, int64_t total, int64_t maxReports = 100);

    // Reports now (done is clamped to [last reported, total]), then throws CancelledError when
    // the job was cancelled.
    void report(int64_t done, std::string_view what);
    // report() once `done` moved by at least total/maxReports since the last report.
    void update(int64_t done, std::string_view what)
    {
        if (done >= next_) report(done, what);
    }
    void finish(std::string_view what) { report(total_, what); }
    int64_t total() const { return total_; }

private:
    const Progress& progress_;
    int64_t total_ = 0, step_ = 1;
    int64_t last_ = 0, next_ = 0;
};

}  // namespace fxl
