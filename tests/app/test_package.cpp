// The .deb as a user installs it: the package the build makes (cpack), extracted into a
// temporary root (dpkg-deb -x), holds fxlens and the bundled example beside it, and that
// fxlens finds its example there (the window's example; without a display fxlens names it)
// and draws it headless. In the release stage only: an ASan binary is many times larger and
// the package is not what users install.
#include <QDir>
#include <QDirIterator>
#include <QProcessEnvironment>
#include <QTemporaryDir>
#include <QtTest>

#include "cli_test_util.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_package {

using clitest::runProcess;

class TestPackage : public QObject
{
    Q_OBJECT

private slots:
    void installedPackageFindsTheExample()
    {
        if (fxltest::kSanitizedBuild)
            QSKIP("the package is built and checked in the release stage (an ASan binary is not what users install)");
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString config = QString::fromStdString((fxltest::buildDir() / "CPackConfig.cmake").string());
        const auto made = runProcess(
            QStringLiteral("cpack"),
            {QStringLiteral("--config"), config, QStringLiteral("-B"), dir.filePath(QStringLiteral("pkg"))}, 600000);
        QVERIFY2(made.exitCode == 0, (made.out + made.err).constData());
        QString deb;
        for (QDirIterator it(dir.filePath(QStringLiteral("pkg")), {QStringLiteral("*.deb")}, QDir::Files);
             it.hasNext();)
            deb = it.next();
        QVERIFY2(!deb.isEmpty(), made.out.constData());
        const QString root = dir.filePath(QStringLiteral("root"));
        const auto x = runProcess(QStringLiteral("dpkg-deb"), {QStringLiteral("-x"), deb, root});
        QVERIFY2(x.exitCode == 0, x.err.constData());
        const QString bin = root + QStringLiteral("/usr/bin/fxlens");
        const QString example = root + QStringLiteral("/usr/share/fxlens/examples/gpt2_tiny.joint.code.py");
        QVERIFY(QFileInfo::exists(bin));
        QVERIFY(QFileInfo::exists(example));
        // the capture module, where Debian's python3 imports it from
        const QString capture = root + QStringLiteral("/usr/lib/python3/dist-packages/fxlens_capture.py");
        QCOMPARE(fxltest::readFile(capture.toStdString()),
                 fxltest::readFile(fxltest::testDataPath() / ".." / ".." / "python" / "fxlens_capture.py"));
        QCOMPARE(fxltest::readFile(example.toStdString()),
                 fxltest::readFile(fxltest::testDataPath() / ".." / ".." / "resources" / "examples"
                                   / "gpt2_tiny.joint.code.py"));
        // the installed fxlens finds the example beside it, not in the source tree
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        p.setProcessEnvironment(env);
        p.start(bin, {});
        QVERIFY(p.waitForFinished(60000));
        const QByteArray err = p.readAllStandardError();
        QCOMPARE(p.exitCode(), 0);  // the help, headless
        const QByteArray where = QDir::cleanPath(root + QStringLiteral("/usr/share/fxlens/examples")).toUtf8();
        QVERIFY2(err.contains("with the bundled example (" + where + "/gpt2_tiny.joint.code.py)"), err.constData());
        const auto drawn = runProcess(
            bin,
            {QStringLiteral("render"), example, QStringLiteral("--out"), dir.filePath(QStringLiteral("view.png"))});
        QVERIFY2(drawn.exitCode == 0, drawn.err.constData());
        QVERIFY(QFileInfo(dir.filePath(QStringLiteral("view.png"))).size() > 1000);
    }
};

FXL_TEST_GUILESS_MAIN(TestPackage)
}  // namespace test_package
#include "test_package.moc"
