// The main of every test executable: runs the registered test its first argument names
// (tests/test_registry.hpp).
#include "test_registry.hpp"

int main(int argc, char** argv) { return fxltest::runRegisteredTest(argc, argv); }
