// A table model's display texts as text: one line per row, the columns separated by tabs. What
// the models' dump() return, for tests that compare what a view would show.
#pragma once

#include <QAbstractItemModel>
#include <QString>

namespace fxl::viewer {

QString dumpTable(const QAbstractItemModel& m);

}  // namespace fxl::viewer
