#include "math_cases.hpp"

namespace fxltest::oracle {

FunctionCases allCases()
{
    FunctionCases c;
#if defined(FXLENS_MATH_ONE_FAMILY)
    // a standalone build of one family (while the others are being written)
    FXLENS_MATH_ONE_FAMILY(c);
    return c;
#endif
    addExpCases(c);
    addLogCases(c);
    addTrigCases(c);
    addInvTrigCases(c);
    addErfCases(c);
    addPowCases(c);
    return c;
}

}  // namespace fxltest::oracle
