#include "workspace/sqlite_db.hpp"

#include <sqlite3.h>

#include <utility>

namespace fxl {

SqliteDb::SqliteDb(const std::string& path, int flags)
    : path_(path)
{
    const int rc = sqlite3_open_v2(path.c_str(), &db_, flags, nullptr);
    if (rc != SQLITE_OK) {
        const std::string msg = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
        close();
        throw WorkspaceError(WorkspaceError::Kind::Io, path, "cannot open: " + msg);
    }
    sqlite3_extended_result_codes(db_, 1);
    sqlite3_busy_timeout(db_, 5000);
}

SqliteDb::SqliteDb(SqliteDb&& o) noexcept
    : transactionDepth(std::exchange(o.transactionDepth, 0))
    , db_(std::exchange(o.db_, nullptr))
    , path_(std::move(o.path_))
{ }

SqliteDb& SqliteDb::operator=(SqliteDb&& o) noexcept
{
    if (this != &o) {
        close();
        db_ = std::exchange(o.db_, nullptr);
        path_ = std::move(o.path_);
        transactionDepth = std::exchange(o.transactionDepth, 0);
    }
    return *this;
}

SqliteDb::~SqliteDb() { close(); }

void SqliteDb::close() noexcept
{
    // sqlite3_close_v2 finalizes lazily should a statement still be alive; none is by design
    if (db_) sqlite3_close_v2(db_);
    db_ = nullptr;
}

void SqliteDb::fail(int rc, std::string_view doing) const
{
    std::string msg = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
    WorkspaceError::Kind kind = WorkspaceError::Kind::Io;
    switch (rc & 0xff) {
    case SQLITE_CORRUPT: kind = WorkspaceError::Kind::Damaged; break;
    case SQLITE_NOTADB: kind = WorkspaceError::Kind::NotWorkspace; break;
    default: break;
    }
    throw WorkspaceError(kind, path_, std::string(doing) + ": " + msg);
}

void SqliteDb::exec(std::string_view sql)
{
    const std::string s(sql);
    char* err = nullptr;
    const int rc = sqlite3_exec(db_, s.c_str(), nullptr, nullptr, &err);
    if (err) sqlite3_free(err);
    if (rc != SQLITE_OK) fail(rc, "'" + s.substr(0, 60) + "'");
}

SqliteStatement SqliteDb::prepare(std::string_view sql) const
{
    sqlite3_stmt* st = nullptr;
    const int rc = sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &st, nullptr);
    if (rc != SQLITE_OK) fail(rc, "preparing '" + std::string(sql.substr(0, 60)) + "'");
    return SqliteStatement(*this, st);
}

std::optional<std::string> SqliteDb::queryText(std::string_view sql) const
{
    SqliteStatement st = prepare(sql);
    if (!st.step()) return std::nullopt;
    return st.text(0);
}

int64_t SqliteDb::queryInt(std::string_view sql) const
{
    SqliteStatement st = prepare(sql);
    if (!st.step())
        throw WorkspaceError(WorkspaceError::Kind::Damaged, path_, "no result for '" + std::string(sql) + "'");
    return st.int64(0);
}

int64_t SqliteDb::lastInsertRowId() const { return sqlite3_last_insert_rowid(db_); }
int SqliteDb::changes() const { return sqlite3_changes(db_); }

SqliteStatement::SqliteStatement(SqliteStatement&& o) noexcept
    : db_(o.db_)
    , stmt_(std::exchange(o.stmt_, nullptr))
{ }

SqliteStatement::~SqliteStatement()
{
    if (stmt_) sqlite3_finalize(stmt_);
}

SqliteStatement& SqliteStatement::bind(int index, int64_t v)
{
    const int rc = sqlite3_bind_int64(stmt_, index, v);
    if (rc != SQLITE_OK) db_->fail(rc, "binding parameter " + std::to_string(index));
    return *this;
}

SqliteStatement& SqliteStatement::bind(int index, double v)
{
    const int rc = sqlite3_bind_double(stmt_, index, v);
    if (rc != SQLITE_OK) db_->fail(rc, "binding parameter " + std::to_string(index));
    return *this;
}

SqliteStatement& SqliteStatement::bind(int index, std::string_view text)
{
    const int rc = sqlite3_bind_text64(stmt_, index, text.data(), text.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
    if (rc != SQLITE_OK) db_->fail(rc, "binding parameter " + std::to_string(index));
    return *this;
}

SqliteStatement& SqliteStatement::bindBlob(int index, std::string_view bytes)
{
    // a zero-length blob, not NULL, for empty bytes (the pointer must not be null)
    const int rc = sqlite3_bind_blob64(stmt_, index, bytes.empty() ? "" : bytes.data(), bytes.size(), SQLITE_TRANSIENT);
    if (rc != SQLITE_OK) db_->fail(rc, "binding parameter " + std::to_string(index));
    return *this;
}

bool SqliteStatement::step()
{
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    db_->fail(rc, "running '" + std::string(sqlite3_sql(stmt_)).substr(0, 60) + "'");
}

void SqliteStatement::run()
{
    while (step()) { }
}

int64_t SqliteStatement::int64(int col) const { return sqlite3_column_int64(stmt_, col); }
double SqliteStatement::real(int col) const { return sqlite3_column_double(stmt_, col); }
bool SqliteStatement::isNull(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }

std::string SqliteStatement::text(int col) const
{
    const auto* p = sqlite3_column_text(stmt_, col);
    const int n = sqlite3_column_bytes(stmt_, col);
    return p ? std::string(reinterpret_cast<const char*>(p), static_cast<size_t>(n)) : std::string();
}

std::string SqliteStatement::blob(int col) const
{
    const void* p = sqlite3_column_blob(stmt_, col);
    const int n = sqlite3_column_bytes(stmt_, col);
    return p ? std::string(static_cast<const char*>(p), static_cast<size_t>(n)) : std::string();
}

}  // namespace fxl
