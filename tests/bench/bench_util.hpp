// What the window benchmarks share (tests/bench/bench_viewer.cpp, bench_stepper.cpp): a
// watchdog of the UI thread, waiting on the event loop, the process' resident memory.
#pragma once

#include <QElapsedTimer>
#include <QEventLoop>
#include <QObject>
#include <QTimer>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <string>

namespace benchutil {

// The longest gap between two ticks of a 10 ms timer on the UI thread, minus the 10 ms.
class Watchdog : public QObject
{
public:
    Watchdog()
    {
        timer_.setInterval(10);
        timer_.setTimerType(Qt::PreciseTimer);
        QObject::connect(&timer_, &QTimer::timeout, this, [this] {
            const qint64 now = clock_.nsecsElapsed();
            if (last_ >= 0) worst_ = std::max(worst_, (now - last_) / 1e6 - 10.0);
            last_ = now;
        });
        clock_.start();
        timer_.start();
    }
    void reset()
    {
        worst_ = 0;
        last_ = -1;
    }
    double worstMs() const { return std::max(0.0, worst_); }

private:
    QTimer timer_;
    QElapsedTimer clock_;
    qint64 last_ = -1;
    double worst_ = 0;
};

inline double rssMb(const char* key)
{
    std::ifstream in("/proc/self/status");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind(key, 0) == 0) return std::atof(line.c_str() + std::string(key).size()) / 1024.0;
    return -1;
}

// Runs the event loop until `done` holds (or 120 s); returns the seconds waited.
template<class F>
double waitFor(F done)
{
    QElapsedTimer t;
    t.start();
    while (!done() && t.elapsed() < 120000) {
        QEventLoop loop;
        QTimer::singleShot(1, &loop, &QEventLoop::quit);
        loop.exec();
    }
    return static_cast<double>(t.nsecsElapsed()) / 1e9;
}

}  // namespace benchutil
