#include "core/formats/pickle/pickle_writer.hpp"

#include <bit>
#include <cstring>

namespace fxl::pickle {

namespace {

void le(std::string& o, uint64_t v, int bytes)
{
    for (int k = 0; k < bytes; ++k) o += static_cast<char>((v >> (8 * k)) & 0xff);
}

}  // namespace

Writer::Writer(bool header)
    : out_(header ? std::string("\x80\x02", 2) : std::string())
{ }

std::string Writer::take()
{
    std::string s = std::move(out_);
    out_.clear();
    return s;
}

void Writer::none() { out_ += 'N'; }
void Writer::boolean(bool v) { out_ += v ? '\x88' : '\x89'; }

void Writer::integer(int64_t v)
{
    if (v >= 0 && v < 256) {
        out_ += 'K';
        out_ += static_cast<char>(v);
    } else if (v >= 0 && v < 65536) {
        out_ += 'M';
        le(out_, static_cast<uint64_t>(v), 2);
    } else if (v >= INT32_MIN && v <= INT32_MAX) {
        out_ += 'J';
        le(out_, static_cast<uint64_t>(static_cast<uint32_t>(static_cast<int32_t>(v))), 4);
    } else {
        out_ += "\x8a\x08";
        le(out_, static_cast<uint64_t>(v), 8);
    }
}

void Writer::unsignedInteger(uint64_t v)
{
    if (v <= static_cast<uint64_t>(INT64_MAX)) return integer(static_cast<int64_t>(v));
    out_ += "\x8a\x09";
    le(out_, v, 8);
    out_ += '\0';  // the sign byte of a positive number
}

void Writer::real(double v)
{
    out_ += 'G';
    const uint64_t bits = std::bit_cast<uint64_t>(v);
    for (int k = 7; k >= 0; --k) out_ += static_cast<char>((bits >> (8 * k)) & 0xff);
}

void Writer::string(std::string_view s)
{
    if (const auto it = strings_.find(std::string(s)); it != strings_.end()) return reference(it->second);
    out_ += 'X';
    le(out_, s.size(), 4);
    out_ += s;
    strings_.emplace(std::string(s), memoize());
}

void Writer::beginList() { out_ += "]("; }
void Writer::endList() { out_ += 'e'; }
void Writer::beginDict() { out_ += "}("; }
void Writer::endDict() { out_ += 'u'; }
void Writer::beginTuple() { out_ += '('; }
void Writer::endTuple() { out_ += 't'; }

uint32_t Writer::memoize()
{
    put(memo_);
    return memo_++;
}

void Writer::put(uint32_t id)
{
    if (id < 256) {
        out_ += 'q';
        out_ += static_cast<char>(id);
    } else {
        out_ += 'r';
        le(out_, id, 4);
    }
}

void Writer::reference(uint32_t id)
{
    if (id < 256) {
        out_ += 'h';
        out_ += static_cast<char>(id);
    } else {
        out_ += 'j';
        le(out_, id, 4);
    }
}

std::string Writer::finish()
{
    out_ += '.';
    return std::move(out_);
}

}  // namespace fxl::pickle
