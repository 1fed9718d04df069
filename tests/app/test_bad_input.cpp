// Malformed inputs (tests/data/bad/, see its README.md): fxlens never crashes, exits with the
// expected code and says what is wrong, with the line and column where the format has lines.
#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>
#include <QProcess>
#include <QSet>
#include <QtTest>

#include "cli_test_util.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_bad_input {

using namespace clitest;

namespace {

const QString kBinary = clitest::kFxlensBinary;
const QString kBad = QString::fromStdString(fxltest::testDataPath("bad").string());

struct Case
{
    const char* file;  // in tests/data/bad
    int exitCode;  // of `fxlens info FILE`
    const char* message;  // expected in stderr, after "<path>" (the location and the reason)
    int convertExitCode = -1;  // of `fxlens convert FILE --to json`; -1 = the same as info
};

// One row per malformed file given to fxlens. Sidecar files (NAME.inputs.safetensors, ...)
// are exercised through the graph file beside them.
const Case kCases[] = {
    // FX code
    {"fx_empty.py", 1, ": error: empty file"},
    {"fx_truncated_mid_call.py", 1, ":5:35: error: '(' was never closed"},
    {"fx_truncated_mid_annotation.py", 1, ":3:13: error: unterminated string literal"},
    {"fx_truncated_no_return.py", 1, ":4:1: error: forward has no 'return' statement"},
    {"fx_truncated_random_0.py", 1, ":12:49: error: '(' was never closed"},
    {"fx_truncated_random_1.py", 1, ":18:23: error: expected '(' after 'torch.ops.at'"},
    {"fx_truncated_random_2.py", 1, ":19:30: error: expected '(' after 'torch.ops.aten.t.de'"},
    {"fx_unbalanced_paren.py", 1, ":6:39: error: '(' was never closed"},
    {"fx_unbalanced_bracket.py", 1, ":10:60: error: closing ')' does not match '['"},
    {"fx_extra_close_paren.py", 1, ":6:43: error: unmatched ')'"},
    {"fx_undefined_name.py", 1, ":7:44: error: undefined name 'weight_9'"},
    {"fx_undefined_in_return.py", 1, ":18:26: error: undefined name 'mm_7'"},
    {"fx_duplicate_name.py", 1, ":7:5: error: duplicate node name 'mm'"},
    {"fx_duplicate_parameter.py", 1, ":4:35: error: duplicate parameter 'arg0_1'"},
    {"fx_unterminated_string.py", 1, ":4:15: error: unterminated string literal"},
    // annotations the parser cannot read are kept verbatim, with a warning
    {"fx_bad_dtype.py", 0,
     ":4:16: warning: annotation not understood, kept verbatim: unknown dtype abbreviation 'f99'"},
    {"fx_bad_annotation_sizes.py", 0, ":4:22: warning: annotation not understood, kept verbatim"},
    {"fx_bad_number.py", 1, ":10:59: error: expected ',' or ']'"},
    {"fx_bad_indent.py", 1, ":6:3: error: unindent does not match any outer indentation level"},
    {"fx_not_python.py", 1, ":1:1: error: expected 'class' or 'def'"},
    {"notes.md", 1, ":1:1: error: expected 'class' or 'def' (FX graph code), 'graph():'"},
    {"fx_class_without_forward.py", 1, ":2:5: error: expected 'def forward' or a nested 'class'"},
    {"fx_statement_not_a_call.py", 1, ":6:19: error: expected end of line or ';'"},
    {"fx_invalid_utf8.py", 1, ":4:10: error: invalid UTF-8 byte 0xFF"},
    {"fx_garbage_bytes.py", 1, ":1:2: error: invalid UTF-8 byte 0xE9"},
    {"fx_nul_in_text.py", 1, ":6:9: error: NUL byte"},
    // graph listing
    {"listing_undefined_name.txt", 1, ":7:89: error: undefined node '%arg9_1'"},
    {"listing_duplicate_name.txt", 1, ":7:5: error: duplicate node name '%mm'"},
    {"listing_truncated.txt", 1, ":12:39: error: expected '[target=' after the node op"},
    {"listing_bad_opcode.txt", 1, ":6:26: error: expected a node op"},
    {"listing_unbalanced.txt", 1, ":6:88: error: expected a value"},
    // fxlens JSON
    {"json_truncated.json", 1, ":34:23: error: invalid JSON"},
    {"json_wrong_version.json", 1, ":3:13: error: /version: unsupported version 99"},
    {"json_not_fxlens.json", 1, ":2:12: error: /format: expected \"fxlens-graph\""},
    {"json_undefined_node.json", 1, ":37:15: error: /graph/nodes/1/args/0/node: undefined node \"y\""},
    {"json_duplicate_name.json", 1, ":32:13: error: /graph/nodes/1/name: duplicate node name \"x\""},
    {"json_bad_op.json", 1, ":33:11: error: /graph/nodes/1/op: unknown node op \"call_functoin\""},
    {"json_nodes_not_a_list.json", 1, ":10:12: error: /graph/nodes: expected an array"},
    {"json_bad_size.json", 1, ":46:7: error: /graph/nodes/1/val/sizes/1: expected an integer"},
    {"json_trailing_garbage.json", 1, ":74:1: error: invalid JSON"},
    // TORCH_TRACE: MD5 mismatches and skipped lines are warnings (exit 0); a graph that does
    // not parse is an error at its line in the log
    {"trace_md5_mismatch.log", 0, ":2:1: warning: payload of 'dynamo_output_graph' [0/0] does not match its MD5"},
    {"trace_truncated_payload.log", 1, ":4:6: error: forward has no 'return' statement"},
    {"trace_bad_envelope_json.log", 0, ":11:92: warning: envelope is not valid JSON"},
    {"trace_garbage_lines.log", 0, ":11:2: warning: not a TORCH_TRACE header line"},
    {"trace_bad_graph_payload.log", 1, ":7:73: error: closing ')' does not match '['"},
    // sidecars of a graph file (safetensors errors give the byte offset where it helps)
    {"st_wrong_offsets.joint.code.py", 1, "st_wrong_offsets.inputs.safetensors: error: data_offsets leave a hole"},
    {"st_header_too_big.joint.code.py", 1,
     "st_header_too_big.inputs.safetensors: error: header length 209715200 exceeds the limit"},
    {"st_truncated.joint.code.py", 1,
     "st_truncated.inputs.safetensors: error: header length 215 is larger than the file"},
    {"st_bad_dtype.joint.code.py", 1, "st_bad_dtype.inputs.safetensors: error: tensor 'arg1_1': unknown dtype 'F33'"},
    {"st_shape_mismatch.joint.code.py", 1,
     "st_shape_mismatch.inputs.safetensors: error: tensor 'arg2_1': shape [8, 5] of F32 needs 160 bytes"},
    {"params_bad.joint.code.py", 1, "params_bad.params.json:2:1: error: not valid JSON", 0},
    {"meta_bad.joint.code.py", 1, "meta_bad.meta.json: error: node 'arg0_1': unknown dtype 'float99'"},
    // other formats
    {"export_model.pt2", 1, "export_model.pt2:models/model.json:1:1: error: at /: missing field 'graph_module'"},
    {"dir_without_logs", 1, ": error: directory holds no TORCH_TRACE log"},
};

// Files of tests/data/bad that are not inputs themselves.
bool isSidecarOrDoc(const QString& name)
{
    return name == QLatin1String("README.md") || name == QLatin1String("make_bad_inputs.py")
        || name.endsWith(QLatin1String(".inputs.safetensors")) || name.endsWith(QLatin1String(".params.json"))
        || name.endsWith(QLatin1String(".meta.json"));
}

}  // namespace

class TestBadInput : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QVERIFY2(QFileInfo(kBinary).isExecutable(), qPrintable("fxlens binary missing: " + kBinary));
        QVERIFY2(QDir(kBad).exists(), qPrintable(kBad));
    }

    // Every file in the directory has a row, and every row a file.
    void everyFileHasARow()
    {
        QSet<QString> rows;
        for (const Case& c : kCases) {
            rows.insert(QString::fromUtf8(c.file));
            QVERIFY2(QFileInfo::exists(kBad + '/' + c.file), c.file);
        }
        for (const QString& f : QDir(kBad).entryList(QDir::Files | QDir::Dirs | QDir::NoDotAndDotDot)) {
            if (isSidecarOrDoc(f)) continue;
            QVERIFY2(rows.contains(f), qPrintable(f + " has no row in kCases"));
        }
        QVERIFY2(rows.size() >= 30, "at least 30 malformed inputs");
    }

    void info_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("message");
        for (const Case& c : kCases)
            QTest::newRow(c.file) << QString::fromUtf8(c.file) << c.exitCode << QString::fromUtf8(c.message);
    }
    void info()
    {
        FXL_SANITIZER_ROWS(2);
        QFETCH(QString, file);
        QFETCH(int, exitCode);
        QFETCH(QString, message);
        const QString path = kBad + '/' + file;
        const Run r = fxlens({QStringLiteral("info"), path});
        QVERIFY2(!r.crashed, r.err.constData());
        QVERIFY2(!r.err.isEmpty(), "something is reported on stderr");
        if (r.exitCode != exitCode || !r.err.contains(message.toUtf8()))
            qWarning("stderr:\n%s", r.err.left(3000).constData());
        QCOMPARE(r.exitCode, exitCode);
        QVERIFY2(r.err.contains(message.toUtf8()), qPrintable("expected in stderr: " + message));
        // The first diagnostic names the file (or its sidecar) it is about.
        const QByteArray first = r.err.left(r.err.indexOf('\n'));
        QVERIFY2(first.startsWith(kBad.toUtf8() + '/'), first.constData());
        QVERIFY2(first.contains(": error: ") || first.contains(": warning: "), first.constData());
        QVERIFY2(!r.err.contains("internal error"), r.err.constData());

        // --json: still one parseable document on stdout
        const Run j = fxlens({QStringLiteral("info"), QStringLiteral("--json"), path});
        QVERIFY(!j.crashed);
        QCOMPARE(j.exitCode, exitCode);
        QJsonParseError pe;
        QJsonDocument::fromJson(j.out, &pe);
        QVERIFY2(pe.error == QJsonParseError::NoError, qPrintable(pe.errorString()));
    }

    // convert on the same files: no crash, a clean exit code, a reason when it fails.
    void convert_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("exitCode");
        for (const Case& c : kCases)
            QTest::newRow(c.file) << QString::fromUtf8(c.file)
                                  << (c.convertExitCode >= 0 ? c.convertExitCode : c.exitCode);
    }
    void convert()
    {
        FXL_SANITIZER_ROWS(2);
        QFETCH(QString, file);
        QFETCH(int, exitCode);
        const Run r =
            fxlens({QStringLiteral("convert"), kBad + '/' + file, QStringLiteral("--to"), QStringLiteral("json")});
        QVERIFY2(!r.crashed, r.err.constData());
        QCOMPARE(r.exitCode, exitCode);
        if (r.exitCode != 0) {
            QVERIFY2(!r.err.isEmpty(), "a failure says why");
            QVERIFY2(r.out.isEmpty(), "nothing written on failure");
        }
        QVERIFY2(!r.err.contains("internal error"), r.err.constData());
    }
};

FXL_TEST_APPLESS_MAIN(TestBadInput)
}  // namespace test_bad_input
#include "test_bad_input.moc"
