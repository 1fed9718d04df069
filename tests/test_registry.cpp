#include "test_registry.hpp"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

namespace fxltest {

namespace {

struct Registered
{
    std::string file;
    TestMain main = nullptr;
};

// built on first use: the tests register from their static initialisers, in any order
std::map<std::string, Registered>& registry()
{
    static std::map<std::string, Registered> tests;
    return tests;
}

std::string nameOf(const std::string& path)
{
    const auto slash = path.find_last_of('/');
    std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
    const auto dot = name.find('.');
    return dot == std::string::npos ? name : name.substr(0, dot);
}

int usage(const char* program, const char* problem)
{
    std::fprintf(stderr, "%s\nusage: %s TEST [QtTest arguments...]\ntests:\n", problem, program);
    for (const auto& [name, test] : registry()) std::fprintf(stderr, "  %s  (%s)\n", name.c_str(), test.file.c_str());
    return 2;
}

}  // namespace

bool registerTest(const char* sourceFile, TestMain main)
{
    const std::string name = nameOf(sourceFile);
    auto [it, added] = registry().emplace(name, Registered{sourceFile, main});
    if (!added) {
        std::fprintf(stderr, "fxlens tests: two tests named %s (%s and %s)\n", name.c_str(), it->second.file.c_str(),
                     sourceFile);
        std::abort();
    }
    return true;
}

int runRegisteredTest(int argc, char** argv)
{
    const char* program = argc > 0 ? argv[0] : "fxlens_tests";
    if (argc < 2) return usage(program, "no test named");
    const auto it = registry().find(argv[1]);
    if (it == registry().end()) return usage(program, (std::string("no test named ") + argv[1]).c_str());
    // the test sees itself as the program: argv[0] is its name, its arguments follow
    std::vector<char*> args(argv + 1, argv + argc);
    args.push_back(nullptr);
    return it->second.main(argc - 1, args.data());
}

}  // namespace fxltest
