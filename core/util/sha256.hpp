// SHA-256 (FIPS 180-4) of bytes: the hash `fxlens run --json` gives per output ("sha256"), the
// one to quote when two machines or two devices must show the same bits (the FNV-1a checksum
// beside it is for a quick look).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace fxl {

class Sha256
{
public:
    Sha256();
    void update(const void* data, size_t size);
    void update(std::string_view bytes) { update(bytes.data(), bytes.size()); }
    // the digest; the object is spent afterwards
    std::array<uint8_t, 32> finish();

private:
    void block(const uint8_t* p);
    std::array<uint32_t, 8> h_;
    std::array<uint8_t, 64> buf_{};
    size_t used_ = 0;
    uint64_t bytes_ = 0;
};

// 64 lowercase hex digits
std::string sha256Hex(const void* data, size_t size);
inline std::string sha256Hex(std::string_view bytes) { return sha256Hex(bytes.data(), bytes.size()); }

}  // namespace fxl
