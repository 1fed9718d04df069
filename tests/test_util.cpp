#include "test_util.hpp"

#include <QFile>
#include <QTest>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

namespace fxltest {

namespace fs = std::filesystem;

fs::path corpusDir()
{
    // the environment wins, so that one build can be run against another corpus (or none)
    const char* fromEnvironment = std::getenv("FXLENS_CORPUS_DIR");
    if (fromEnvironment && *fromEnvironment) return fs::path(fromEnvironment);
    return fs::path(FXLENS_CORPUS_DIR);
}

fs::path corpusPath(std::string_view relative) { return corpusDir() / relative; }

fs::path buildDir() { return fs::path(FXLENS_BINARY_DIR); }

fs::path testDataPath(std::string_view relative)
{
    const fs::path data(FXLENS_TEST_DATA_DIR);
    return relative.empty() ? data : data / relative;
}

std::string readFile(const fs::path& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + path.string());
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

QByteArray readFile(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) throw std::runtime_error("cannot read " + path.toStdString());
    return f.readAll();
}

std::vector<fs::path> corpusFiles(std::string_view relativeDir, const std::vector<std::string>& suffixes)
{
    const fs::path dir = corpusPath(relativeDir);
    if (!fs::is_directory(dir)) return {dir};
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(dir)) {
        if (!e.is_regular_file()) continue;
        const std::string name = e.path().filename().string();
        const bool match = suffixes.empty() || std::any_of(suffixes.begin(), suffixes.end(), [&](const std::string& s) {
                               return name.size() > s.size() && name.ends_with(s);
                           });
        if (match) files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
    // none found (an empty or other directory): one row naming what was looked for, which no
    // file matches, so that it skips or fails by the corpus rule instead of vanishing
    if (files.empty()) files.push_back(dir / ("*" + (suffixes.size() == 1 ? suffixes.front() : std::string())));
    return files;
}

std::string corpusRowName(const fs::path& path)
{
    const fs::path rel = path.lexically_relative(corpusDir());
    return rel.empty() || rel == "." || rel.native().starts_with("..") ? path.string() : rel.string();
}

bool sanitizerSkipsRow(int every)
{
    if (!kSanitizedBuild || every <= 1) return false;
    static std::map<std::string, int> rows;  // rows started, by test function
    return rows[QTest::currentTestFunction()]++ % every != 0;
}

bool corpusRequired()
{
    const char* ci = std::getenv("CI");
    return ci && std::string_view(ci) == "true";
}

std::string missingCorpusMessage(const fs::path& path)
{
    return "corpus file not found: " + path.string()
        + (corpusRequired() ? " (CI=true: the corpus is required)"
                            : " (the corpus at FXLENS_CORPUS_DIR is not committed; this row is skipped)");
}

bool isLargeCorpusPath(const fs::path& path)
{
    const fs::path rel = path.lexically_relative(corpusDir());
    auto it = rel.begin();
    return it != rel.end() && *it == "pytorch" && ++it != rel.end() && *it == "large";
}

bool corpusPresent(const fs::path& path, const char* file, int line)
{
    if (kSanitizedBuild && isLargeCorpusPath(path)) {
        QTest::qSkip(
            ("100k-node corpus graph " + path.filename().string()
             + ": runs in the release stage only (minutes under ASan at -O0, the same code as the small graphs)")
                .c_str(),
            file, line);
        return false;
    }
    if (fs::exists(path)) return true;
    const std::string message = missingCorpusMessage(path);
    if (corpusRequired())
        QTest::qFail(message.c_str(), file, line);
    else
        QTest::qSkip(message.c_str(), file, line);
    return false;
}

bool writeConcatenatedCorpusLogs(const std::filesystem::path& out, double sizeMb)
{
    namespace fs = std::filesystem;
    const fs::path corpus = corpusPath("tlparse");
    std::vector<fs::path> logs;
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(corpus, ec); !ec && it != fs::recursive_directory_iterator(); ++it)
        if (it->is_regular_file() && (it->path().extension() == ".log" || it->path().extension() == ".txt"))
            logs.push_back(it->path());
    if (logs.empty()) {
        std::fprintf(stderr, "no corpus logs under %s\n", corpus.string().c_str());
        return false;
    }
    std::sort(logs.begin(), logs.end());
    std::string chunk;
    for (const auto& p : logs) {
        chunk += readFile(p);
        if (!chunk.empty() && chunk.back() != '\n') chunk += '\n';  // simple.log has no final newline
    }
    std::ofstream o(out, std::ios::binary | std::ios::trunc);
    for (double written = 0; written < sizeMb * 1e6; written += double(chunk.size())) o << chunk;
    return static_cast<bool>(o);
}

}  // namespace fxltest
