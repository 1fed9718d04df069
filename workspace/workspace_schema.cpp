#include "workspace/workspace_schema.hpp"

#include <string>

#ifndef FXLENS_VERSION
#error "FXLENS_VERSION is defined by workspace/CMakeLists.txt"
#endif

namespace fxl {

std::string_view fxlensVersion() { return FXLENS_VERSION; }

void createWorkspaceSchema(SqliteDb& db, int64_t now)
{
    db.exec(R"sql(
CREATE TABLE meta(key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL);
CREATE TABLE pipelines(name TEXT PRIMARY KEY NOT NULL, spec TEXT NOT NULL, saved INTEGER NOT NULL);
CREATE TABLE sources(
  id INTEGER PRIMARY KEY,
  path TEXT NOT NULL,
  role TEXT NOT NULL,
  graph TEXT NOT NULL DEFAULT '',
  hash TEXT NOT NULL,
  size INTEGER NOT NULL,
  mtime_ns INTEGER NOT NULL DEFAULT 0,
  pipeline TEXT NOT NULL DEFAULT '',
  added INTEGER NOT NULL);
CREATE TABLE steps(
  source INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
  idx INTEGER NOT NULL,
  pass TEXT NOT NULL,
  spec TEXT NOT NULL,
  added INTEGER NOT NULL,
  removed INTEGER NOT NULL,
  rewired INTEGER NOT NULL,
  tags INTEGER NOT NULL,
  changed INTEGER NOT NULL DEFAULT -1,
  verifier_ok INTEGER NOT NULL,
  seconds REAL NOT NULL,
  error TEXT NOT NULL DEFAULT '',
  PRIMARY KEY(source, idx));
CREATE TABLE runs(
  id INTEGER PRIMARY KEY,
  source INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
  step INTEGER NOT NULL,
  against TEXT NOT NULL,
  backend TEXT NOT NULL,
  report TEXT NOT NULL,
  time INTEGER NOT NULL);
CREATE INDEX runs_by_source ON runs(source);
CREATE TABLE layouts(key TEXT PRIMARY KEY NOT NULL, data BLOB NOT NULL, time INTEGER NOT NULL);
CREATE TABLE bookmarks(
  id INTEGER PRIMARY KEY,
  source INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
  graph TEXT NOT NULL,
  node TEXT NOT NULL,
  label TEXT NOT NULL);
CREATE INDEX bookmarks_by_source ON bookmarks(source);
CREATE TABLE notes(
  source INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
  graph TEXT NOT NULL,
  node TEXT NOT NULL,
  text TEXT NOT NULL,
  time INTEGER NOT NULL,
  PRIMARY KEY(source, graph, node));
CREATE TABLE view_state(key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL);
)sql");
    const std::string version = std::to_string(kWorkspaceFormatVersion);
    const std::string created = std::to_string(now);
    for (const auto& [k, v] : {std::pair<std::string_view, std::string_view>{"format", kWorkspaceFormatName},
                               {"format_version", version},
                               {"created_by", fxlensVersion()},
                               {"written_by", fxlensVersion()},
                               {"created", created}}) {
        SqliteStatement st = db.prepare("INSERT INTO meta(key, value) VALUES (?, ?)");
        st.bindAll(k, v).run();
    }
}

}  // namespace fxl
