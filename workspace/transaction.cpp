#include "workspace/transaction.hpp"

#include <utility>

namespace fxl {

namespace {
std::string savepointName(int level) { return "fxl_sp" + std::to_string(level); }
}  // namespace

Transaction::Transaction(SqliteDb& db)
    : db_(&db)
    , level_(db.transactionDepth + 1)
{
    db.exec(level_ == 1 ? std::string("BEGIN IMMEDIATE") : "SAVEPOINT " + savepointName(level_));
    db.transactionDepth = level_;
}

Transaction::Transaction(Transaction&& o) noexcept
    : db_(std::exchange(o.db_, nullptr))
    , level_(o.level_)
    , done_(std::exchange(o.done_, true))
{ }

void Transaction::commit()
{
    if (done_ || !db_) return;
    db_->exec(level_ == 1 ? std::string("COMMIT") : "RELEASE " + savepointName(level_));
    done_ = true;
    db_->transactionDepth = level_ - 1;
}

Transaction::~Transaction()
{
    if (done_ || !db_) return;
    try {
        if (level_ == 1) {
            db_->exec("ROLLBACK");
        } else {
            db_->exec("ROLLBACK TO " + savepointName(level_));
            db_->exec("RELEASE " + savepointName(level_));
        }
    } catch (const WorkspaceError&) {
        // SQLite rolls back by itself when it cannot (an I/O error ended the transaction)
    }
    db_->transactionDepth = level_ - 1;
}

}  // namespace fxl
