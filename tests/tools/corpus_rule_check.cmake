# Runs one test (TEST_NAME, of the test executable TEST) the way CI would run it on a machine
# without the corpus (CI=true, FXLENS_CORPUS_DIR naming a directory that does not exist) and
# checks the corpus rule of tests/test_util.hpp:
#   - every row that needs the corpus fails, naming the missing path (no row skips it);
#   - a test that reads the corpus (EXPECT=fail) therefore exits non-zero: CI cannot go green
#     without the corpus;
#   - a test that reads none (EXPECT=pass) passes as it does with the corpus;
#   - nothing else fails, and the executable finishes (a "Totals:" line).
# The test runs with HOME set to HOME_DIR, emptied first, so that it shares no settings or
# QStandardPaths test-mode folders with the same executable run at the same time by ctest -j.
# Usage: cmake -DTEST=<executable> -DTEST_NAME=<test> -DEXPECT=fail|pass -DMISSING=<absent dir> -DHOME_DIR=<dir>
#              -P corpus_rule_check.cmake
foreach(var TEST TEST_NAME EXPECT MISSING HOME_DIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "corpus_rule_check: -D${var}=... is required")
  endif()
endforeach()
if(EXISTS "${MISSING}")
  message(FATAL_ERROR "corpus_rule_check: ${MISSING} exists; it must name a directory that does not")
endif()

file(REMOVE_RECURSE "${HOME_DIR}")
file(MAKE_DIRECTORY "${HOME_DIR}")
set(ENV{HOME} "${HOME_DIR}")
set(ENV{CI} true)
set(ENV{FXLENS_CORPUS_DIR} "${MISSING}")
set(ENV{QT_QPA_PLATFORM} offscreen)
# the window's random walk (test_window_actions) short: its length has nothing to do with the
# corpus rule, and the test itself walks the full length
set(ENV{FXLENS_WALK_EVENTS} 100)
execute_process(COMMAND "${TEST}" "${TEST_NAME}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(all "${out}\n${err}")
set(name "${TEST_NAME}")

if(NOT all MATCHES "Totals: [0-9]+ passed, [0-9]+ failed")
  message(FATAL_ERROR "${name} did not finish without the corpus (exit ${rc}):\n${all}")
endif()
string(REGEX MATCHALL "SKIP   : [^\n]*corpus file not found[^\n]*" skips "${all}")
if(skips)
  list(JOIN skips "\n" text)
  message(FATAL_ERROR "${name} skipped corpus rows although CI=true:\n${text}")
endif()
string(REGEX MATCHALL "FAIL!  : [^\n]*" fails "${all}")
set(corpus_failures 0)
foreach(line IN LISTS fails)
  if(line MATCHES "corpus file not found: .*CI=true: the corpus is required")
    math(EXPR corpus_failures "${corpus_failures} + 1")
  else()
    message(FATAL_ERROR "${name} failed for another reason than the missing corpus:\n${line}\n\n${all}")
  endif()
endforeach()

if(EXPECT STREQUAL "fail")
  if(rc EQUAL 0 OR corpus_failures EQUAL 0)
    message(FATAL_ERROR "${name} reads the corpus but exited ${rc} with ${corpus_failures} failures naming it; "
                        "CI would pass without the corpus:\n${all}")
  endif()
  message(STATUS "${name}: ${corpus_failures} rows fail naming the missing corpus (exit ${rc}), as CI needs")
elseif(EXPECT STREQUAL "pass")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${name} names no corpus function in its source but fails without the corpus "
                        "(a helper reads it: call FXL_REQUIRE_CORPUS in the test itself):\n${all}")
  endif()
  message(STATUS "${name}: reads no corpus and passes without it")
else()
  message(FATAL_ERROR "corpus_rule_check: EXPECT must be fail or pass, not '${EXPECT}'")
endif()
