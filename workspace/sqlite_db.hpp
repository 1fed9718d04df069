// A thin RAII layer over SQLite's C API for the workspace: a connection and prepared statements
// whose every failure throws WorkspaceError naming the file and SQLite's message.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "workspace/workspace_error.hpp"

struct sqlite3;
struct sqlite3_stmt;

namespace fxl {

class SqliteStatement;

class SqliteDb
{
public:
    SqliteDb() = default;
    // sqlite3_open_v2 with `flags` (SQLITE_OPEN_*); extended result codes on, a busy timeout
    // of 5 s (another fxlens holding the file for a moment waits, not fails).
    SqliteDb(const std::string& path, int flags);
    SqliteDb(SqliteDb&& o) noexcept;
    SqliteDb& operator=(SqliteDb&& o) noexcept;
    SqliteDb(const SqliteDb&) = delete;
    SqliteDb& operator=(const SqliteDb&) = delete;
    ~SqliteDb();

    bool isOpen() const { return db_ != nullptr; }
    const std::string& path() const { return path_; }
    sqlite3* handle() const { return db_; }

    // Runs one or more statements without results.
    void exec(std::string_view sql);
    SqliteStatement prepare(std::string_view sql) const;
    // The first column of the first row of a query, as text (nullopt when there is no row).
    std::optional<std::string> queryText(std::string_view sql) const;
    int64_t queryInt(std::string_view sql) const;  // throws when there is no row
    int64_t lastInsertRowId() const;
    int changes() const;  // rows changed by the last INSERT, UPDATE or DELETE

    // Throws WorkspaceError for SQLite result code `rc` (its kind from the code: corruption is
    // Damaged, "not a database" NotWorkspace, the rest Io), saying what was being done.
    [[noreturn]] void fail(int rc, std::string_view doing) const;

    // Nesting depth of the open Transactions (workspace/transaction.hpp).
    int transactionDepth = 0;

private:
    void close() noexcept;
    sqlite3* db_ = nullptr;
    std::string path_;
};

// A prepared statement: bind by 1-based index, step, read columns by 0-based index.
class SqliteStatement
{
public:
    SqliteStatement(const SqliteDb& db, sqlite3_stmt* stmt)
        : db_(&db)
        , stmt_(stmt)
    { }
    SqliteStatement(SqliteStatement&& o) noexcept;
    SqliteStatement& operator=(SqliteStatement&&) = delete;
    SqliteStatement(const SqliteStatement&) = delete;
    SqliteStatement& operator=(const SqliteStatement&) = delete;
    ~SqliteStatement();

    SqliteStatement& bind(int index, int64_t v);
    SqliteStatement& bind(int index, int v) { return bind(index, int64_t(v)); }
    SqliteStatement& bind(int index, double v);
    SqliteStatement& bind(int index, std::string_view text);
    SqliteStatement& bind(int index, const char* text) { return bind(index, std::string_view(text)); }
    SqliteStatement& bind(int index, const std::string& text) { return bind(index, std::string_view(text)); }
    SqliteStatement& bindBlob(int index, std::string_view bytes);
    // Binds the arguments to parameters 1, 2, ...
    template<typename... Args>
    SqliteStatement& bindAll(const Args&... args)
    {
        int i = 0;
        (bind(++i, args), ...);
        return *this;
    }

    bool step();  // true: a row is there; false: done
    void run();  // steps to the end (a statement without rows)

    int64_t int64(int col) const;
    double real(int col) const;
    std::string text(int col) const;  // "" for NULL
    std::string blob(int col) const;
    bool isNull(int col) const;

private:
    const SqliteDb* db_;
    sqlite3_stmt* stmt_;
};

}  // namespace fxl
