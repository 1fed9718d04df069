// libFuzzer target for the pipeline spec grammar (parsePipelineSpec). A spec that parses
// must have options every pass accepts, and its stages must print back ("a,b(...)") to a
// spec that parses to the same stages.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "core/ir/diagnostics.hpp"
#include "passes/pass.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    std::string_view text(reinterpret_cast<const char*>(data), size);
    const fxl::PassRegistry& reg = fxl::PassRegistry::instance();
    try {
        auto stages = fxl::parsePipelineSpec(text, reg);
        std::string again;
        for (const auto& st : stages) {
            const fxl::Pass* p = reg.find(st.pass);
            if (!p) std::abort();
            (void)fxl::resolveOptions(p->options(), st.raw);  // validated by the parser: must not throw
            again += (again.empty() ? "" : ",") + st.text;
        }
        auto stages2 = fxl::parsePipelineSpec(again, reg);  // must not throw
        if (stages2.size() != stages.size()) std::abort();
        for (size_t i = 0; i < stages.size(); ++i)
            if (stages2[i].pass != stages[i].pass || stages2[i].raw != stages[i].raw) std::abort();
    } catch (const fxl::InputError&) { }
    return 0;
}
