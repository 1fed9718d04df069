// What the window tests share (tests/viewer/test_main_window.cpp, test_pass_stepper.cpp,
// test_workspace_window.cpp): their settings apart from the user's, the style and font of the
// screenshots, saving a screenshot, the groups a graph view has open. Header-only.
#pragma once

#include <QApplication>
#include <QFont>
#include <QImage>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <set>
#include <string>

#include "test_util.hpp"
#include "viewer/widgets/graph_view.hpp"

namespace guitest {

// For initTestCase: the window's settings in a fresh folder of this process, removed at exit
// (ctest -j runs window tests at once, and one executable twice, with and without the corpus:
// one clearing or writing the others' recent files made them flaky); Fusion and DejaVu Sans,
// so that screenshots look the same on every machine.
inline void initWindowTests()
{
    QStandardPaths::setTestModeEnabled(true);
    static QTemporaryDir settingsDir;
    QVERIFY(settingsDir.isValid());
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, settingsDir.path());
    QSettings(QStringLiteral("fxlens"), QStringLiteral("fxlens")).clear();
    QApplication::setStyle(QStringLiteral("Fusion"));
    QApplication::setFont(QFont(QStringLiteral("DejaVu Sans"), 9));
}

// Grabs a widget into the build directory's tests/NAME for a person to look at.
inline void saveShot(QWidget& w, const char* name)
{
    QCoreApplication::processEvents();
    const QImage shot = w.grab().toImage();
    QVERIFY(!shot.isNull() && shot.width() > 100);
    QVERIFY(shot.save(QString::fromStdString((fxltest::buildDir() / "tests" / name).string())));
}

// The keys of the groups a graph view shows open.
inline std::set<std::string> openKeys(const fxl::viewer::GraphView* v)
{
    std::set<std::string> keys;
    for (int k : v->expanded()) keys.insert(v->tree()->group(k).key);
    return keys;
}

}  // namespace guitest
