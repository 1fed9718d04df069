#include "workspace/workspace_migration.hpp"

#include <string>

#include "workspace/workspace_schema.hpp"

namespace fxl {

namespace {

void migrate1to2(SqliteDb& db, int64_t now)
{
    db.exec("ALTER TABLE sources ADD COLUMN mtime_ns INTEGER NOT NULL DEFAULT 0");
    db.exec(R"sql(
CREATE TABLE notes(
  source INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
  graph TEXT NOT NULL,
  node TEXT NOT NULL,
  text TEXT NOT NULL,
  time INTEGER NOT NULL,
  PRIMARY KEY(source, graph, node));
)sql");
    SqliteStatement copy = db.prepare("INSERT INTO notes(source, graph, node, text, time) "
                                      "SELECT source, graph, node, group_concat(note, char(10) || char(10)), ? FROM "
                                      "(SELECT source, graph, node, note FROM bookmarks WHERE note <> '' ORDER BY id) "
                                      "GROUP BY source, graph, node");
    copy.bind(1, now).run();
    db.exec(R"sql(
CREATE TABLE bookmarks_v2(
  id INTEGER PRIMARY KEY,
  source INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
  graph TEXT NOT NULL,
  node TEXT NOT NULL,
  label TEXT NOT NULL);
INSERT INTO bookmarks_v2(id, source, graph, node, label) SELECT id, source, graph, node, label FROM bookmarks;
DROP TABLE bookmarks;
ALTER TABLE bookmarks_v2 RENAME TO bookmarks;
CREATE INDEX bookmarks_by_source ON bookmarks(source);
)sql");
}

// Version 3: a step's counts are those of the diff of its graph against the step before (what
// the window's Steps table and `fxlens passes` show), with the changed nodes; a version 2 step
// kept the counts the pass logged itself, and its `changed` is -1 (not known).
void migrate2to3(SqliteDb& db) { db.exec("ALTER TABLE steps ADD COLUMN changed INTEGER NOT NULL DEFAULT -1"); }

}  // namespace

void migrateWorkspace(SqliteDb& db, int from, int64_t now)
{
    for (int v = from; v < kWorkspaceFormatVersion; ++v) {
        switch (v) {
        case 1: migrate1to2(db, now); break;
        case 2: migrate2to3(db); break;
        default: break;
        }
    }
    SqliteStatement st = db.prepare("UPDATE meta SET value = ? WHERE key = 'format_version'");
    st.bind(1, std::to_string(kWorkspaceFormatVersion)).run();
}

}  // namespace fxl
