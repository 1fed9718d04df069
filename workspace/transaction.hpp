// Every write to a workspace happens in a Transaction: commit() makes it durable (synchronous=FULL,
// workspace/workspace.hpp), and one left without commit() (an exception, an early return) is
// rolled back, so the file holds all of it or none of it. Transactions nest: the outermost is
// BEGIN IMMEDIATE (the write lock taken at once, not midway), inner ones are savepoints.
#pragma once

#include <string>

#include "workspace/sqlite_db.hpp"

namespace fxl {

class Transaction
{
public:
    explicit Transaction(SqliteDb& db);
    Transaction(Transaction&& o) noexcept;
    Transaction& operator=(Transaction&&) = delete;
    Transaction(const Transaction&) = delete;
    Transaction& operator=(const Transaction&) = delete;
    ~Transaction();  // rolls back unless committed

    void commit();
    bool committed() const { return done_; }

private:
    SqliteDb* db_;
    int level_;  // 1 = outermost
    bool done_ = false;
};

}  // namespace fxl
