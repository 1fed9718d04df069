// The one source of each precompiled-header target in tests/CMakeLists.txt (a library needs a
// source); compiling it builds test_pch.hpp's precompiled header that the tests reuse.
#include "test_pch.hpp"
