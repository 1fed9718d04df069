// fxlens: with no verb the GUI (later; the help for now), otherwise the headless CLI.
#include <iostream>
#include <string>
#include <vector>

#include "app/cli.hpp"

int main(int argc, char** argv)
{
    std::ios::sync_with_stdio(false);
    std::vector<std::string> args(argv + (argc > 0 ? 1 : 0), argv + argc);
    fxl::cli::Io io{std::cout, std::cerr};
    const int rc = fxl::cli::runCli(args, io);
    std::cout.flush();
    std::cerr.flush();
    return rc;
}
