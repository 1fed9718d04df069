// What the FX text tests share (test_fx_text, test_fx_text_corpus, test_fx_text_examples):
// nodes by name, the print-parse round trip every parsed graph must survive, and the corpus fx/
// dumps the documented examples read. Header-only; each test executable includes it once.
#pragma once

#include <QString>
#include <QtTest>

#include <filesystem>
#include <stdexcept>
#include <string>

#include "core/formats/fx/fx_text_parser.hpp"
#include "core/formats/fx/fx_text_writer.hpp"
#include "test_util.hpp"

namespace fxtexttest {

using namespace fxl;

// A file of corpus/fx: print_readable dumps from PyTorch's own tests and tlparse, read per test
// with FXL_REQUIRE_CORPUS (third-party files, not committed).
inline std::filesystem::path fxFixture(const char* name) { return fxltest::corpusPath(std::string("fx/") + name); }

inline const Node& byName(const Graph& g, const char* name)
{
    NodeId id = g.findByName(name);
    if (id == kNoNode) throw std::runtime_error(std::string("no node ") + name);
    return g.node(id);
}

// Parses, prints, parses again: same graph, and printing is a fixpoint.
inline void checkRoundTrip(const Graph& g)
{
    const std::string printed = printReadable(g);
    Graph g2;
    try {
        g2 = parseFxText(printed, "<printed>");
    } catch (const InputError& e) {
        QFAIL(qPrintable(QStringLiteral("printed text does not parse: ") + QString::fromStdString(e.what())
                         + QStringLiteral("\n") + QString::fromStdString(printed.substr(0, 4000))));
    }
    std::string why;
    QVERIFY2(g.structurallyEqual(g2, &why), why.c_str());
    // gm.code (Plain) prints as print_readable text, whose signature is Flat
    const SignatureStyle want = g.signature == SignatureStyle::Plain ? SignatureStyle::Flat : g.signature;
    QCOMPARE(static_cast<int>(g2.signature), static_cast<int>(want));
    QCOMPARE(g2.pytreeArgNames, g.pytreeArgNames);
    QCOMPARE(g2.outputPytree, g.outputPytree);
    QCOMPARE(g2.outputIsList, g.outputIsList);
    QCOMPARE(g2.outputDescs, g.outputDescs);
    QCOMPARE(printReadable(g2), printed);
}

}  // namespace fxtexttest
