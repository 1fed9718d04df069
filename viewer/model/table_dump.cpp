#include "viewer/model/table_dump.hpp"

#include <QStringList>

namespace fxl::viewer {

QString dumpTable(const QAbstractItemModel& m)
{
    QString out;
    for (int r = 0; r < m.rowCount(); ++r) {
        QStringList cols;
        for (int c = 0; c < m.columnCount(); ++c) cols << m.data(m.index(r, c)).toString();
        out += cols.join(QLatin1Char('\t')) + QLatin1Char('\n');
    }
    return out;
}

}  // namespace fxl::viewer
