// MD5 (RFC 1321), enough to check TORCH_TRACE "has_payload" digests. Not for security.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace fxl {

class Md5
{
public:
    Md5() { reset(); }
    void reset();
    // Feeds bytes; may be called any number of times with any split of the input.
    void update(const void* data, size_t size);
    void update(std::string_view s) { update(s.data(), s.size()); }
    // Finishes and returns the 16-byte digest; the object must be reset() before reuse.
    std::array<uint8_t, 16> finish();
    // finish() as 32 lowercase hex characters.
    std::string finishHex();

private:
    void block(const uint8_t* p);  // one 64-byte block
    uint32_t a_, b_, c_, d_;
    uint64_t length_ = 0;  // bytes fed so far
    uint8_t buffer_[64];
    size_t buffered_ = 0;
};

// Lowercase hex MD5 of a string.
std::string md5Hex(std::string_view data);

}  // namespace fxl
