// The tests of one label (core, passes, runtime, ...) are one executable (tests/CMakeLists.txt):
// each test file registers its QtTest main under the file's name, and the executable's first
// argument picks the test to run, with QtTest's own arguments after it:
//   build/tests/fxlens_tests_passes test_pipeline -v2 dceOnChain
// ctest runs each test as before (`ctest -R test_pipeline`). One executable per label instead
// of one per file spares the test command ~90 links per build (about a second each under ASan).
#pragma once

#include <QtTest>

namespace fxltest {

// A test's main: called with argv[0] set to the test's name (so QCoreApplication's application
// name, and with it QStandardPaths' test-mode folders, stay the test's own).
using TestMain = int (*)(int argc, char** argv);

// Registers `main` under the name of `sourceFile` (its file name without the extension); a
// second test of the same name aborts the executable, naming both files. Returns true.
bool registerTest(const char* sourceFile, TestMain main);

// The executable's main: runs the test named by argv[1] with the remaining arguments, or lists
// the registered tests (exit status 2 when the name is missing or unknown).
int runRegisteredTest(int argc, char** argv);

}  // namespace fxltest

// What QTEST_MAIN, QTEST_GUILESS_MAIN and QTEST_APPLESS_MAIN do, registered instead of being
// `main`: the application object (QApplication with Qt Widgets, else QGuiApplication or
// QCoreApplication; QCoreApplication; none), the test object, QtTest's source path, qExec.
#define FXL_TEST_MAIN_WITH(TestObject, ...)                                                                            \
    static int fxlTestMain_##TestObject(int argc, char** argv)                                                         \
    {                                                                                                                  \
        QT_PREPEND_NAMESPACE(QTest::Internal::callInitMain)<TestObject>();                                             \
        __VA_ARGS__                                                                                                    \
        TestObject tc;                                                                                                 \
        QTEST_SET_MAIN_SOURCE_PATH                                                                                     \
        return QTest::qExec(&tc, argc, argv);                                                                          \
    }                                                                                                                  \
    [[maybe_unused]] static const bool fxlTestRegistered_##TestObject =                                                \
        ::fxltest::registerTest(__FILE__, fxlTestMain_##TestObject);

#define FXL_TEST_MAIN(TestObject) FXL_TEST_MAIN_WITH(TestObject, QTEST_MAIN_SETUP())
#define FXL_TEST_GUILESS_MAIN(TestObject) FXL_TEST_MAIN_WITH(TestObject, QTEST_QAPP_SETUP(QCoreApplication))
#define FXL_TEST_APPLESS_MAIN(TestObject) FXL_TEST_MAIN_WITH(TestObject)

// A test file with a main of its own (several test objects, or a child process mode): `function`
// is `int function(int argc, char** argv)`.
#define FXL_TEST_CUSTOM_MAIN(function)                                                                                 \
    [[maybe_unused]] static const bool fxlTestRegistered_##function = ::fxltest::registerTest(__FILE__, function);
