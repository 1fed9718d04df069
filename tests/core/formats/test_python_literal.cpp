// Python literals as JSON (core/formats/fx/python_literal.hpp): the "# Annotation: {...}"
// dicts FX prints read into JSON and written back as the same repr.
#include <QtTest>

#include <string>

#include "core/formats/fx/python_literal.hpp"
#include "test_registry.hpp"

namespace test_python_literal {

using namespace fxl;

class TestPythonLiteral : public QObject
{
    Q_OBJECT

private slots:
    // Literals that read and print back as the same text (keys sorted: JSON objects sort them).
    void roundTrip_data()
    {
        QTest::addColumn<QString>("literal");
        QTest::addColumn<QString>("json");
        QTest::newRow("empty dict") << "{}"
                                    << "{}";
        QTest::newRow("flat dict") << "{'a': 1, 'b': 'x'}"
                                   << "{\"a\":1,\"b\":\"x\"}";
        QTest::newRow("constants") << "{'f': False, 'n': None, 't': True}"
                                   << "{\"f\":false,\"n\":null,\"t\":true}";
        QTest::newRow("negative numbers") << "{'f': -0.5, 'i': -3}"
                                          << "{\"f\":-0.5,\"i\":-3}";
        QTest::newRow("nested") << "{'a': {'b': [1, 2]}}"
                                << "{\"a\":{\"b\":[1,2]}}";
        QTest::newRow("list") << "[1, 'two', 3.5]"
                              << "[1,\"two\",3.5]";
    }
    void roundTrip()
    {
        QFETCH(QString, literal);
        QFETCH(QString, json);
        auto value = jsonFromPythonLiteral(literal.toStdString());
        QVERIFY(value.has_value());
        QCOMPARE(QString::fromStdString(value->dump()), json);
        QCOMPARE(QString::fromStdString(pythonReprOfJson(*value)), literal);
    }

    // Literals that read, but print back in another (equivalent) spelling.
    void readOnly_data()
    {
        QTest::addColumn<QString>("literal");
        QTest::addColumn<QString>("json");
        QTest::newRow("tuple becomes a list") << "(1, 2)"
                                              << "[1,2]";
        QTest::newRow("trailing comma") << "{'a': 1,}"
                                        << "{\"a\":1}";
        QTest::newRow("int key") << "{1: 'x'}"
                                 << "{\"1\":\"x\"}";
        QTest::newRow("double quotes") << "{\"a\": \"b\"}"
                                       << "{\"a\":\"b\"}";
        QTest::newRow("escapes") << "{'a': 'it\\'s'}"
                                 << "{\"a\":\"it's\"}";
    }
    void readOnly()
    {
        QFETCH(QString, literal);
        QFETCH(QString, json);
        auto value = jsonFromPythonLiteral(literal.toStdString());
        QVERIFY(value.has_value());
        QCOMPARE(QString::fromStdString(value->dump()), json);
    }

    // Text that is not a plain literal: nullopt (the summary comment keeps it as text).
    void notALiteral_data()
    {
        QTest::addColumn<QString>("text");
        QTest::newRow("name") << "{'a': foo}";
        QTest::newRow("call") << "{'a': f(1)}";
        QTest::newRow("unclosed") << "{'a': 1";
        QTest::newRow("text after") << "{'a': 1} x";
        QTest::newRow("missing colon") << "{'a' 1}";
        QTest::newRow("bad escape") << "{'a': '\\x4'}";
        QTest::newRow("too deep") << QString(70, '[') + QString(70, ']');
    }
    void notALiteral()
    {
        QFETCH(QString, text);
        QVERIFY(!jsonFromPythonLiteral(text.toStdString()).has_value());
    }
};

FXL_TEST_APPLESS_MAIN(TestPythonLiteral)
}  // namespace test_python_literal
#include "test_python_literal.moc"
