// The runtime's folders include only what the README's table "The runtime's folders" allows:
// every #include "runtime/..." of every file under runtime/ is checked against the table's
// "may include" column (its own folder is always allowed; core/ is allowed everywhere). The
// table is read from README.md, so that the documented rule and the checked one are one.
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_runtime_layout {

namespace fs = std::filesystem;

namespace {

fs::path sourceRoot() { return fs::weakly_canonical(fxltest::testDataPath().parent_path().parent_path()); }

// folder ("math", "base", ..., "backends") -> the folders it may include
std::map<std::string, std::set<std::string>> rulesFromReadme(std::string& error)
{
    std::map<std::string, std::set<std::string>> rules;
    std::ifstream in(sourceRoot() / "README.md");
    std::string line;
    bool inSection = false;
    const std::regex row(R"(^\|\s*`runtime/([a-z_]+)(/|\.\{hpp,cpp\})`\s*\|[^|]*\|([^|]*)\|\s*$)");
    while (std::getline(in, line)) {
        if (line.starts_with("### The runtime's folders"))
            inSection = true;
        else if (inSection && line.starts_with("#"))
            break;
        std::smatch m;
        if (!inSection || !std::regex_match(line, m, row)) continue;
        std::set<std::string> allowed;
        const std::string col = m[3];
        if (col.find("every folder") != std::string::npos) allowed.insert("*");
        const std::regex name("`([a-z_]+)`");
        for (auto it = std::sregex_iterator(col.begin(), col.end(), name); it != std::sregex_iterator(); ++it)
            allowed.insert((*it)[1]);
        rules[m[1]] = allowed;
    }
    if (rules.size() < 7)
        error = "README.md's table \"The runtime's folders\" has " + std::to_string(rules.size()) + " rows";
    return rules;
}

// the folder of a path under runtime/ ("backends" for runtime/backends.*; "" for others)
std::string folderOf(const std::string& rel)
{
    if (rel.starts_with("backends.")) return "backends";
    const size_t slash = rel.find('/');
    return slash == std::string::npos ? rel : rel.substr(0, slash);
}

struct Violation
{
    std::string file, include;
};

std::vector<Violation> violations(const std::map<std::string, std::set<std::string>>& rules, const fs::path& runtimeDir,
                                  std::vector<std::string>& unknownFolders, int& checked)
{
    std::vector<Violation> out;
    const std::regex inc(R"(^\s*#\s*include\s*"runtime/([^"]+)\")");
    for (const auto& e : fs::recursive_directory_iterator(runtimeDir)) {
        if (!e.is_regular_file()) continue;
        const std::string ext = e.path().extension().string();
        if (ext != ".cpp" && ext != ".hpp" && ext != ".cu" && ext != ".cuh" && ext != ".h") continue;
        const std::string rel = fs::relative(e.path(), runtimeDir).generic_string();
        const std::string from = folderOf(rel);
        const auto rule = rules.find(from);
        if (rule == rules.end()) {
            unknownFolders.push_back(rel);
            continue;
        }
        std::ifstream in(e.path());
        std::string line;
        while (std::getline(in, line)) {
            std::smatch m;
            if (!std::regex_search(line, m, inc)) continue;
            ++checked;
            const std::string to = folderOf(m[1]);
            if (to == from || rule->second.count("*") || rule->second.count(to)) continue;
            out.push_back({"runtime/" + rel, "runtime/" + std::string(m[1])});
        }
    }
    return out;
}

// What makes a runtime/math/ header unfit for device code: exceptions, std containers and
// strings, allocation, library math outside the exact wrappers of bits.hpp / arith.hpp.
// Returns one line per offence ("file:line: what").
std::vector<std::string> mathOffences(const fs::path& mathDir)
{
    static const std::vector<std::pair<std::regex, std::string>> rules = {
        {std::regex(R"(\bthrow\b)"), "throws"},
        {std::regex(R"(\bstd::(vector|string|map|unordered_map|function|optional|unique_ptr|shared_ptr)\b)"),
         "uses a std container or type"},
        {std::regex(R"(#\s*include\s*<(vector|string|map|unordered_map|functional|optional|memory|stdexcept)>)"),
         "includes a host-only header"},
        {std::regex(R"(\bnew\s+[A-Za-z_])"), "allocates"},
        {std::regex(R"(\bstd::(exp|expf|log|logf|pow|powf|sin|cos|tan|tanh|erf|erfc|atan2|expm1|log1p)\s*\()"),
         "calls the C library's transcendental functions"},
    };
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(mathDir)) {
        if (e.path().extension() != ".hpp") continue;
        std::ifstream in(e.path());
        std::string line;
        int no = 0;
        while (std::getline(in, line)) {
            ++no;
            const size_t comment = line.find("//");
            const std::string code = comment == std::string::npos ? line : line.substr(0, comment);
            for (const auto& [re, what] : rules)
                if (std::regex_search(code, re))
                    out.push_back(e.path().filename().string() + ":" + std::to_string(no) + ": " + what);
        }
    }
    return out;
}

// The math/ headers device_check.cu does not include (so nvcc never compiles them).
std::vector<std::string> headersNotDeviceChecked(const fs::path& mathDir)
{
    std::ifstream in(mathDir / "device_check.cu");
    std::stringstream buf;
    buf << in.rdbuf();
    const std::string cu = buf.str();
    std::vector<std::string> missing;
    for (const auto& e : fs::directory_iterator(mathDir)) {
        if (e.path().extension() != ".hpp") continue;
        const std::string name = e.path().filename().string();
        if (name == "hostdev.hpp" || name.starts_with("fn_") || name == "double_double.hpp")
            continue;  // via functions.hpp
        if (cu.find("#include \"runtime/math/" + name + "\"") == std::string::npos) missing.push_back(name);
    }
    return missing;
}
}  // namespace

class TestRuntimeLayout : public QObject
{
    Q_OBJECT

private slots:
    void includesFollowTheTable()
    {
        std::string error;
        const auto rules = rulesFromReadme(error);
        QVERIFY2(error.empty(), error.c_str());
        std::vector<std::string> unknown;
        int checked = 0;
        const auto bad = violations(rules, sourceRoot() / "runtime", unknown, checked);
        std::string msg;
        for (const Violation& v : bad) msg += "\n  " + v.file + " includes " + v.include;
        QVERIFY2(bad.empty(), ("includes the README's runtime table forbids:" + msg).c_str());
        std::string u;
        for (const auto& f : unknown) u += " " + f;
        QVERIFY2(unknown.empty(), ("files in a runtime folder the README's table does not list:" + u).c_str());
        QVERIFY2(checked > 200, qPrintable(QStringLiteral("only %1 includes checked").arg(checked)));
    }

    // The check fails on a forbidden include: a copy of runtime/ with one added to math/.
    void forbiddenIncludeFails()
    {
        std::string error;
        const auto rules = rulesFromReadme(error);
        QVERIFY2(error.empty(), error.c_str());
        QTemporaryDir tmp;
        const fs::path dir = fs::path(tmp.path().toStdString()) / "runtime";
        fs::create_directories(dir / "math");
        fs::create_directories(dir / "base");
        std::ofstream(dir / "math" / "x.hpp") << "#pragma once\n#include \"runtime/base/tensor.hpp\"\n";
        std::ofstream(dir / "base" / "y.hpp") << "#pragma once\n#include \"runtime/math/bits.hpp\"\n";
        std::ofstream(dir / "base" / "z.cpp") << "#include \"runtime/cpu/cpu_backend.hpp\"\n";
        std::vector<std::string> unknown;
        int checked = 0;
        const auto bad = violations(rules, dir, unknown, checked);
        QCOMPARE(checked, 3);
        QCOMPARE(int(bad.size()), 2);
        std::set<std::string> files{bad[0].file, bad[1].file};
        QVERIFY(files.count("runtime/math/x.hpp") && files.count("runtime/base/z.cpp"));
    }

    // math/ holds no exception, container, allocation or library transcendental call, and every
    // header is compiled for the device by device_check.cu.
    void mathIsDeviceReady()
    {
        const fs::path mathDir = sourceRoot() / "runtime" / "math";
        std::string msg;
        for (const std::string& o : mathOffences(mathDir)) msg += "\n  " + o;
        QVERIFY2(msg.empty(), ("runtime/math/ is not device-ready:" + msg).c_str());
        std::string missing;
        for (const std::string& m : headersNotDeviceChecked(mathDir)) missing += " " + m;
        QVERIFY2(missing.empty(), ("math headers device_check.cu does not include:" + missing).c_str());
    }

    // The check sees an offence: a throw, a std::vector and a std::exp call in a math header.
    void mathOffenceFails()
    {
        QTemporaryDir tmp;
        const fs::path dir(tmp.path().toStdString());
        std::ofstream(dir / "bad.hpp") << "#pragma once\n#include <vector>\n"
                                          "inline float f(float x) { if (x < 0) throw 1; return std::exp(x); }\n"
                                          "// std::vector in a comment is fine\n";
        std::ofstream(dir / "device_check.cu") << "#include \"runtime/math/other.hpp\"\n";
        QCOMPARE(int(mathOffences(dir).size()), 3);
        QCOMPARE(headersNotDeviceChecked(dir), std::vector<std::string>{"bad.hpp"});
    }
};

FXL_TEST_APPLESS_MAIN(TestRuntimeLayout)
}  // namespace test_runtime_layout
#include "test_runtime_layout.moc"
