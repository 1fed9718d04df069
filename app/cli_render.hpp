// fxlens render: the graph view drawn without a display (the window's own grouping, layout,
// stubs and colours: viewer/model, viewer/layout, viewer/render), to SVG or PNG.
#pragma once

#include "app/cli.hpp"

namespace fxl::cli {

int runRender(const Args& args, Io& io);

}  // namespace fxl::cli
