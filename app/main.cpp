// fxlens: with no verb (or with files only) the window, otherwise the headless CLI.
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "app/cli.hpp"

#ifdef FXLENS_HAVE_VIEWER
#include "viewer/widgets/main_window.hpp"
#endif

int main(int argc, char** argv)
{
    std::ios::sync_with_stdio(false);
    std::vector<std::string> args(argv + (argc > 0 ? 1 : 0), argv + argc);
#ifdef FXLENS_HAVE_VIEWER
    // `fxlens` alone opens the bundled example workspace; `fxlens FILE...` (existing paths, no
    // verb) opens them
    bool files = true;
    for (const std::string& a : args) {
        std::error_code ec;
        files = files && !a.empty() && a[0] != '-' && !fxl::cli::findVerb(a) && std::filesystem::exists(a, ec);
    }
    const bool display = fxl::viewer::hasDisplay();
    if (files && (display || !args.empty())) {  // `fxlens` alone without a display: the help
        return fxl::viewer::runMainWindow(argc, argv, args);
    }
    if (args.empty())
        std::cerr << "fxlens: no display: the window, with the bundled example ("
                  << fxl::viewer::bundledExamplesDir().toStdString()
                  << "/gpt2_tiny.joint.code.py), cannot open; the verbs below work headless.\n";
#endif
    fxl::cli::Io io{std::cout, std::cerr};
    const int rc = fxl::cli::runCli(args, io);
    std::cout.flush();
    std::cerr.flush();
    return rc;
}
