// What every test executable shares: where the test data and the corpus are, reading a file,
// and the corpus rule.
//
// The corpus rule. The corpus (the CMake option FXLENS_CORPUS_DIR, ../shared/corpus by default;
// the environment variable FXLENS_CORPUS_DIR overrides it at run time) holds real graphs and
// logs that are not committed: third-party files and large generated ones. A test
// row that needs a corpus file calls FXL_REQUIRE_CORPUS(path) first. When the file is absent the
// row is skipped with a message naming the path (the other rows still run), except when the
// environment variable CI is "true": there a missing corpus is a failure naming the path, so CI
// can never go green having tested nothing. A data function that lists a corpus directory adds
// a row even when the directory is absent (corpusFiles returns the directory itself), so that
// row skips or fails by the same rule instead of silently disappearing.
#pragma once

#include <QByteArray>
#include <QString>
#include <QtTest>

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace fxltest {

// The corpus directory (the environment variable FXLENS_CORPUS_DIR when set and not empty, else
// the directory compiled in), and a file in it: corpusPath("pytorch/gpt2_tiny.joint.code.py").
std::filesystem::path corpusDir();
std::filesystem::path corpusPath(std::string_view relative);

// The build directory (where app/fxlens is).
std::filesystem::path buildDir();

// tests/data, and a file in it: testDataPath("kernels/shape.cases.json").
std::filesystem::path testDataPath(std::string_view relative = {});

// The whole file as bytes; throws std::runtime_error naming the path when it cannot be read.
std::string readFile(const std::filesystem::path& path);
// The same for the Qt-style tests.
QByteArray readFile(const QString& path);

// The files directly in corpus directory `relativeDir` whose names end with one of `suffixes`
// (all files when none is given), sorted by name. An absent directory gives {the directory}, and
// a directory without such files {directory/"*suffix"}, so a data function still adds a row,
// which FXL_REQUIRE_CORPUS then skips or fails.
std::vector<std::filesystem::path> corpusFiles(std::string_view relativeDir,
                                               const std::vector<std::string>& suffixes = {});

// A path's name for a data row: relative to the corpus when it is in the corpus.
std::string corpusRowName(const std::filesystem::path& path);

// A path from what the tests hold paths in.
inline std::filesystem::path toPath(const std::filesystem::path& p) { return p; }
inline std::filesystem::path toPath(const QString& p) { return std::filesystem::path(p.toStdString()); }

// True when CI=true: a missing corpus file is then a failure, not a skip.
bool corpusRequired();

// True in a build with AddressSanitizer (the sanitizer stage of test.sh). There the rows on the
// 100k-node graphs of the corpus (pytorch/large/) skip, saying so: at -O0 under ASan each takes
// minutes, running the same code as the small graphs; the release stage runs them.
#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kSanitizedBuild = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kSanitizedBuild = true;
#else
inline constexpr bool kSanitizedBuild = false;
#endif
#else
inline constexpr bool kSanitizedBuild = false;
#endif

// In the sanitizer build, true for every row of the running test function but one in `every`
// (rows 1, every + 1, 2 * every + 1, ... run); false elsewhere. FXL_SANITIZER_ROWS(every) skips
// those rows, saying so: data-driven CLI, corpus and numerics tests whose rows run the same code
// on other inputs run a part of them under ASan (the sanitizer stage checks memory; the test
// command's time), and the release stage runs them all.
bool sanitizerSkipsRow(int every);

// True for a path in the corpus' pytorch/large/ (the 100k-node graphs).
bool isLargeCorpusPath(const std::filesystem::path& path);

// A large TORCH_TRACE log for the benchmarks: the corpus logs (tlparse/, *.log and *.txt, in
// name order) written one after the other into `out` until it holds at least sizeMb MB.
// Returns false (and says why on stderr) when there are no corpus logs.
bool writeConcatenatedCorpusLogs(const std::filesystem::path& out, double sizeMb);

// The message for a missing corpus path ("corpus file not found: <path> ...").
std::string missingCorpusMessage(const std::filesystem::path& path);

// The corpus rule for helpers that cannot return from the test function: true when `path`
// exists; otherwise skips the current row (fails it under CI=true) and returns false, and the
// caller returns at once. In the sanitizer build a path of pytorch/large/ skips too
// (kSanitizedBuild). FXL_REQUIRE_CORPUS is this for test functions.
// (__builtin_FILE/__builtin_LINE as defaults give the caller's place with g++ and with clang 14,
// whose libstdc++ std::source_location does not compile.)
bool corpusPresent(const std::filesystem::path& path, const char* file = __builtin_FILE(), int line = __builtin_LINE());

}  // namespace fxltest

// Test data rows of std::string (QTest::addColumn<std::string>), declared once for every test.
Q_DECLARE_METATYPE(std::string)

#define FXL_SANITIZER_ROWS(every)                                                                                      \
    do {                                                                                                               \
        if (fxltest::sanitizerSkipsRow(every))                                                                         \
            QSKIP(qPrintable(QStringLiteral("sanitizer stage: one row in %1 of this function runs (the release stage " \
                                            "runs all)")                                                               \
                                 .arg(every)));                                                                        \
    } while (false)

// Skips the current row (or fails it under CI=true) when `corpusFile` (a corpus file or
// directory: a std::filesystem::path, std::string or QString) does not exist. Use at the top of
// a test function, before reading the file.
#define FXL_REQUIRE_CORPUS(corpusFile)                                                                                 \
    do {                                                                                                               \
        if (!fxltest::corpusPresent(fxltest::toPath(corpusFile))) return;                                              \
    } while (false)
