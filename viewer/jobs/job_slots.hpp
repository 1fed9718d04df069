// The bookkeeping of a job class that keeps one current job per kind (view_jobs.hpp,
// snapshot_jobs.hpp): job ids, the current job of each kind, each kind's cancel flag (a new job
// of a kind raises the flag of the one before it, which becomes stale; cancel raises it for the
// current one), and progress reports passed to the owner's thread while their job is current.
// QtCore only.
#pragma once

#include <QMetaObject>
#include <QObject>
#include <QString>

#include <atomic>
#include <functional>
#include <memory>
#include <string_view>

#include "core/util/progress.hpp"

namespace fxl::viewer {

template<int KindCount>
class JobSlots
{
public:
    JobSlots()
    {
        for (auto& c : cancel_) c = std::make_shared<std::atomic<bool>>(false);
    }

    // A new job of `kind`: the one before it becomes stale (its flag raised). Its id (never 0).
    quint64 start(int kind)
    {
        cancel_[kind]->store(true);
        cancel_[kind] = std::make_shared<std::atomic<bool>>(false);
        current_[kind] = ++next_;
        return current_[kind];
    }
    // The current job of `kind` cancelled (its flag raised): its id, 0 when there was none.
    quint64 stop(int kind)
    {
        const quint64 id = current_[kind];
        if (!id) return 0;
        cancel_[kind]->store(true);
        current_[kind] = 0;
        return id;
    }
    // Every job stopped (the owner is going away).
    void stopAll()
    {
        for (int k = 0; k < KindCount; ++k) (void)stop(k);
    }
    // Whether `id` is still the current job of `kind`; take() also ends it (its result is delivered).
    bool isCurrent(int kind, quint64 id) const { return current_[kind] == id; }
    bool take(int kind, quint64 id)
    {
        if (current_[kind] != id) return false;
        current_[kind] = 0;
        return true;
    }
    quint64 current(int kind) const { return current_[kind]; }
    bool busy() const
    {
        for (quint64 c : current_)
            if (c) return true;
        return false;
    }
    // The flag a job of `kind` started now checks.
    std::shared_ptr<std::atomic<bool>> flag(int kind) const { return cancel_[kind]; }

    // A job's Progress: its cancel flag, and reports queued to `owner`'s thread, where `emitIt`
    // runs while the job is still the current one of its kind.
    Progress progress(QObject* owner, int kind, quint64 id, std::atomic<bool>* cancelFlag,
                      std::function<void(qint64, qint64, const QString&)> emitIt)
    {
        Progress p;
        p.cancel = cancelFlag;
        p.report = [this, owner, kind, id, emitIt](int64_t done, int64_t total, std::string_view what) {
            const QString w = QString::fromUtf8(what.data(), static_cast<qsizetype>(what.size()));
            QMetaObject::invokeMethod(
                owner,
                [this, kind, id, done, total, w, emitIt] {
                    if (isCurrent(kind, id)) emitIt(done, total, w);
                },
                Qt::QueuedConnection);
        };
        return p;
    }

private:
    quint64 next_ = 0;
    quint64 current_[KindCount] = {};
    std::shared_ptr<std::atomic<bool>> cancel_[KindCount];
};

}  // namespace fxl::viewer
