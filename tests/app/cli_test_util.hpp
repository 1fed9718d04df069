// What the CLI tests share: running the built fxlens binary (or another program) and reading
// what it wrote (readFile is test_util's). Header-only; each test executable includes it once.
#pragma once

#include <QByteArray>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>
#include <QMap>
#include <QProcess>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>
#include <QtGlobal>

#include "test_util.hpp"

namespace clitest {

inline const QString kFxlensBinary = QString::fromStdString((fxltest::buildDir() / "app" / "fxlens").string());

struct Run
{
    int exitCode = -1;
    bool crashed = false;  // killed by a signal, or timed out
    QByteArray out, err;
};

// `env`: environment variables set for the run (an empty value removes one).
inline Run runProcess(const QString& program, const QStringList& args, int timeoutMs = 300000,
                      const QMap<QString, QString>& env = {})
{
    QProcess p;
    if (!env.isEmpty()) {
        QProcessEnvironment e = QProcessEnvironment::systemEnvironment();
        for (auto it = env.begin(); it != env.end(); ++it) {
            if (it.value().isEmpty())
                e.remove(it.key());
            else
                e.insert(it.key(), it.value());
        }
        p.setProcessEnvironment(e);
    }
    p.start(program, args);
    Run r;
    if (!p.waitForStarted(10000)) {
        r.err = "could not start " + program.toUtf8();
        r.crashed = true;
        return r;
    }
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
        r.err = "timed out";
        r.crashed = true;
        return r;
    }
    r.crashed = p.exitStatus() != QProcess::NormalExit;
    r.exitCode = p.exitCode();
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

inline Run fxlens(const QStringList& args, int timeoutMs = 300000)
{
    return runProcess(kFxlensBinary, args, timeoutMs);
}

using fxltest::readFile;

// A run as a failure message shows it: the exit code (and whether it crashed), the start of
// stdout and stderr.
inline QString describe(const Run& r)
{
    return QStringLiteral("exit %1%2\nstdout:\n%3\nstderr:\n%4")
        .arg(r.exitCode)
        .arg(r.crashed ? QStringLiteral(" (crashed or timed out)") : QString())
        .arg(QString::fromUtf8(r.out.left(4000)), QString::fromUtf8(r.err.left(4000)));
}

inline bool writeFile(const QString& path, const QByteArray& data)
{
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)) return false;
    return f.write(data) == data.size();
}

// The JSON object a --json run printed ({} with a warning when it does not parse).
inline QJsonObject parseJsonDoc(const QByteArray& out)
{
    QJsonParseError e;
    const QJsonDocument d = QJsonDocument::fromJson(out, &e);
    if (e.error != QJsonParseError::NoError) {
        qWarning("JSON output does not parse: %s", qPrintable(e.errorString()));
        return {};
    }
    return d.object();
}

// The verdict line `fxlens check` ends its text with ("result: bitwise equal"), whole: tests
// compare it exactly ("bitwise equal" is also a part of "not bitwise equal"). "" when none.
inline QString resultLine(const QByteArray& out)
{
    const QStringList lines = QString::fromUtf8(out).split(QLatin1Char('\n'));
    for (qsizetype i = lines.size(); i-- > 0;)
        if (lines[i].startsWith(QLatin1String("result: "))) return lines[i];
    return {};
}

}  // namespace clitest

// Fails the test unless `run` exited with `code` (without crashing), showing the run.
#define FXL_EXPECT_EXIT(run, code)                                                                                     \
    do {                                                                                                               \
        const clitest::Run& r_ = (run);                                                                                \
        QVERIFY2(!r_.crashed && r_.exitCode == (code), qPrintable(clitest::describe(r_)));                             \
    } while (false)
