#include "runtime/torch_level/torch_level.hpp"

#include "core/ops/op_registry.hpp"
#include "runtime/base/kernel.hpp"
#include "runtime/torch_level/torch_level_call.hpp"
#include "runtime/torch_level/torch_level_table.hpp"

namespace fxl {

using torch_level::Call;
using torch_level::Entry;
using torch_level::Param;
using torch_level::table;

namespace {

// How the node's arguments map onto the signature (worked out at plan time).
struct Source
{
    enum class From : uint8_t
    {
        Positional,
        Keyword,
        Default,
        VarPositional
    } from = From::Default;
    size_t index = 0, end = 0;  // Positional/Keyword: index; VarPositional: [index, end)
};

class Lowered final : public TorchLowering
{
public:
    Lowered(std::string key, const Entry& e, std::vector<Source> s)
        : key_(std::move(key))
        , e_(e)
        , sources_(std::move(s))
    { }

    Value run(TorchLevelContext& c, const Node& n) const override
    {
        Call call{c, n, {}, {}};
        call.values.reserve(sources_.size());
        call.rawArgs.assign(sources_.size(), nullptr);
        for (size_t i = 0; i < sources_.size(); ++i) {
            const Source& s = sources_[i];
            const Param& p = e_.params[i];
            const Arg* a = nullptr;
            switch (s.from) {
            case Source::From::Positional: a = &n.args[s.index]; break;
            case Source::From::Keyword: a = &n.kwargs[s.index].second; break;
            case Source::From::Default: call.values.push_back(p.def); continue;
            case Source::From::VarPositional: {
                std::vector<Value> items;
                for (size_t k = s.index; k < s.end; ++k) items.push_back(c.resolve(n.args[k]));
                call.values.push_back(Value::ofList(std::move(items)));
                continue;
            }
            }
            if (p.raw) {
                call.rawArgs[i] = a;
                call.values.push_back(Value::none());
            } else {
                call.values.push_back(c.resolve(*a));
            }
        }
        return e_.fn(call);
    }
    std::string description() const override { return key_ + " -> " + e_.atens; }

private:
    std::string key_;
    const Entry& e_;
    std::vector<Source> sources_;
};

}  // namespace

std::string torchLevelKey(const Node& n)
{
    if (n.op == NodeOp::CallMethod) return "method:" + n.target;
    if (n.op == NodeOp::CallFunction) return OpRegistry::normalizeTarget(n.target);
    return {};
}

bool hasTorchLevelLowering(const Node& n)
{
    const std::string k = torchLevelKey(n);
    return !k.empty() && table().count(k) != 0;
}

std::vector<std::string> torchLevelKeys()
{
    std::vector<std::string> out;
    for (const auto& kv : table()) out.push_back(kv.first);
    return out;
}

std::unique_ptr<TorchLowering> planTorchLevel(const Node& n, std::string& error)
{
    const std::string key = torchLevelKey(n);
    const std::string what =
        n.op == NodeOp::CallMethod ? "call_method '" + n.target + "'" : "call_function '" + n.target + "'";
    auto it = key.empty() ? table().end() : table().find(key);
    if (it == table().end()) {
        error = what + " has no lowering to aten kernels in the runtime (runtime/torch_level/torch_level_table.cpp)";
        return nullptr;
    }
    const Entry& e = it->second;
    std::vector<Source> src(e.params.size());
    std::vector<uint8_t> given(e.params.size(), 0);
    size_t k = 0;
    for (size_t i = 0; i < e.params.size() && k < n.args.size(); ++i) {
        const Param& p = e.params[i];
        if (p.varargs) {
            src[i] = {Source::From::VarPositional, k, n.args.size()};
            given[i] = 1;
            k = n.args.size();
            break;
        }
        if (p.kwOnly) break;
        src[i] = {Source::From::Positional, k++, 0};
        given[i] = 1;
    }
    if (k < n.args.size()) {
        error = what + ": " + std::to_string(n.args.size()) + " positional arguments, the lowering's signature (" + key
            + ") takes fewer";
        return nullptr;
    }
    for (size_t j = 0; j < n.kwargs.size(); ++j) {
        size_t i = 0;
        while (i < e.params.size() && (e.params[i].name != n.kwargs[j].first || e.params[i].varargs)) ++i;
        if (i == e.params.size()) {
            error = what + ": unexpected keyword argument '" + n.kwargs[j].first + "'";
            return nullptr;
        }
        if (given[i]) {
            error = what + ": argument '" + n.kwargs[j].first + "' given twice";
            return nullptr;
        }
        src[i] = {Source::From::Keyword, j, 0};
        given[i] = 1;
    }
    for (size_t i = 0; i < e.params.size(); ++i) {
        if (given[i]) continue;
        if (e.params[i].varargs) {
            src[i] = {Source::From::VarPositional, n.args.size(), n.args.size()};
            continue;
        }
        if (!e.params[i].hasDefault) {
            error = what + ": missing argument '" + e.params[i].name + "'";
            return nullptr;
        }
        src[i] = {Source::From::Default, 0, 0};
    }
    return std::make_unique<Lowered>(key, e, std::move(src));
}

}  // namespace fxl
