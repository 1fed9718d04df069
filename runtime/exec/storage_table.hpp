// A table keyed by storage address, for the executor's live-byte accounting and its record of
// the inputs' storages: open addressing with linear probing and backward-shift deletion, so
// that a run in its steady state allocates nothing for them (std::unordered_map allocates a
// node per entry). Keys are only compared, never dereferenced.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <utility>
#include <vector>

#include "runtime/base/tensor.hpp"

namespace fxl::exec {

template<class V>
class StorageTable
{
public:
    V* find(const Storage* s)
    {
        if (slots_.empty()) return nullptr;
        const size_t i = probe(s);
        return slots_[i].key ? &slots_[i].value : nullptr;
    }
    // The entry of s, added with `init` when absent; true when it was added.
    std::pair<V*, bool> insert(const Storage* s, const V& init)
    {
        if ((used_ + 1) * 2 > slots_.size()) grow();
        const size_t i = probe(s);
        if (slots_[i].key) return {&slots_[i].value, false};
        slots_[i] = {s, init};
        ++used_;
        return {&slots_[i].value, true};
    }
    void erase(const Storage* s)
    {
        if (slots_.empty()) return;
        size_t i = probe(s);
        if (!slots_[i].key) return;
        // backward-shift deletion: the entries after i that belong at or before i move up
        for (size_t j = i;;) {
            j = (j + 1) & mask_;
            if (!slots_[j].key) break;
            const size_t k = home(slots_[j].key);
            if (i <= j ? (i < k && k <= j) : (i < k || k <= j)) continue;
            slots_[i] = slots_[j];
            i = j;
        }
        slots_[i] = Slot{};
        --used_;
    }
    bool empty() const { return used_ == 0; }
    void clear()
    {
        if (used_) std::fill(slots_.begin(), slots_.end(), Slot{});
        used_ = 0;
    }

private:
    struct Slot
    {
        const Storage* key = nullptr;
        V value{};
    };
    std::vector<Slot> slots_;
    size_t used_ = 0, mask_ = 0;
    int shift_ = 64;

    size_t home(const Storage* s) const
    {
        return static_cast<size_t>(((reinterpret_cast<uintptr_t>(s) >> 4) * 0x9E3779B97F4A7C15ull) >> shift_) & mask_;
    }
    size_t probe(const Storage* s) const
    {
        size_t i = home(s);
        while (slots_[i].key && slots_[i].key != s) i = (i + 1) & mask_;
        return i;
    }
    void grow()
    {
        std::vector<Slot> old = std::move(slots_);
        const size_t n = old.empty() ? 1024 : old.size() * 2;
        slots_.assign(n, Slot{});
        mask_ = n - 1;
        shift_ = 64 - std::countr_zero(n);
        used_ = 0;
        for (const Slot& o : old)
            if (o.key) {
                slots_[probe(o.key)] = o;
                ++used_;
            }
    }
};

// The accounting's entry of a storage: how many live values refer to it, and whether it is an
// input counted as resident (0 bytes: ExecOptions::countInputs off).
struct StorageRef
{
    int32_t count = 0;
    bool resident = false;
};

}  // namespace fxl::exec
