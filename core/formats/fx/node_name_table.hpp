// Internal to the FX text reader (core/formats/fx): the table from node names to node ids
// that every argument naming a node is looked up in.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

#include "core/ir/graph.hpp"

namespace fxl {

// Node names of one forward: open addressing over (hash, text range) slots. Every name is
// spelled somewhere in the text, so keys are offsets into it (no string copies); this is the
// hottest lookup of the parser (every argument that is a node).
class NodeNameTable
{
public:
    explicit NodeNameTable(std::string_view text)
        : text_(text)
    { }
    void reserve(size_t n)
    {
        size_t cap = 16;
        while (cap < n * 2) cap <<= 1;
        if (cap > slots_.size()) rehash(cap);
    }
    NodeId find(std::string_view key) const
    {
        if (slots_.empty()) return kNoNode;
        const uint32_t h = hash(key);
        for (size_t i = h & mask_;; i = (i + 1) & mask_) {
            const Slot& s = slots_[i];
            if (s.id == kEmpty) return kNoNode;
            if (s.hash == h && s.length == key.size()
                && std::memcmp(text_.data() + s.offset, key.data(), key.size()) == 0)
                return s.id;
        }
    }
    // Binds the name spelled at `offset` in the text (`length` bytes); false when it is bound already
    // (then *existing is its node).
    bool insert(uint32_t offset, uint32_t length, NodeId id, NodeId* existing)
    {
        if ((count_ + 1) * 2 > slots_.size()) rehash(slots_.empty() ? 16 : slots_.size() * 2);
        std::string_view key = text_.substr(offset, length);
        const uint32_t h = hash(key);
        for (size_t i = h & mask_;; i = (i + 1) & mask_) {
            Slot& s = slots_[i];
            if (s.id == kEmpty) {
                s = Slot{h, offset, length, id};
                ++count_;
                return true;
            }
            if (s.hash == h && s.length == length && std::memcmp(text_.data() + s.offset, key.data(), length) == 0) {
                *existing = s.id;
                return false;
            }
        }
    }
    void assign(uint32_t offset, uint32_t length, NodeId id)
    {
        NodeId existing;
        if (insert(offset, length, id, &existing)) return;
        std::string_view key = text_.substr(offset, length);
        const uint32_t h = hash(key);
        for (size_t i = h & mask_;; i = (i + 1) & mask_) {
            Slot& s = slots_[i];
            if (s.hash == h && s.length == length && std::memcmp(text_.data() + s.offset, key.data(), length) == 0) {
                s.id = id;
                return;
            }
        }
    }

private:
    static constexpr NodeId kEmpty = -2;
    struct Slot
    {
        uint32_t hash = 0;
        uint32_t offset = 0;  // of the name in the text
        uint32_t length = 0;
        NodeId id = kEmpty;
    };
    std::string_view text_;
    std::vector<Slot> slots_;
    size_t mask_ = 0;
    size_t count_ = 0;

    static uint32_t hash(std::string_view k)
    {
        uint32_t h = 2166136261u;  // FNV-1a
        for (char c : k) h = (h ^ static_cast<unsigned char>(c)) * 16777619u;
        return h ^ (h >> 15);
    }
    void rehash(size_t cap)
    {
        std::vector<Slot> old;
        old.swap(slots_);
        slots_.assign(cap, Slot{});
        mask_ = cap - 1;
        count_ = 0;
        for (const Slot& s : old)
            if (s.id != kEmpty) {
                for (size_t i = s.hash & mask_;; i = (i + 1) & mask_)
                    if (slots_[i].id == kEmpty) {
                        slots_[i] = s;
                        ++count_;
                        break;
                    }
            }
    }
};

}  // namespace fxl
