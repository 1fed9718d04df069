// fxlens report: a pipeline run as one self-contained HTML page (viewer/render/html_report.hpp):
// the step table, each step's notes, diff and memory timeline, and with --check each step run
// against the step before.
#pragma once

#include "app/cli.hpp"

namespace fxl::cli {

int runReport(const Args& args, Io& io);

}  // namespace fxl::cli
