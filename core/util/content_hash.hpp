// A 64-bit hash of a file's bytes, to notice that a file changed on disk (the workspace keeps
// one per source, workspace/workspace.hpp) and the output checksum `fxlens run` prints
// (app/cli_run.cpp). FNV-1a 64: not cryptographic, but with the size beside it a changed file that keeps
// its hash is not a worry for this use.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace fxl {

// FNV-1a 64, fed in pieces: the same value for the same bytes however they are split.
class ContentHash
{
public:
    static constexpr uint64_t kOffsetBasis = 0xcbf29ce484222325ull;
    static constexpr uint64_t kPrime = 0x100000001b3ull;

    void update(const void* data, size_t size);
    void update(std::string_view bytes) { update(bytes.data(), bytes.size()); }
    uint64_t value() const { return h_; }

private:
    uint64_t h_ = kOffsetBasis;
};

uint64_t hashBytes(std::string_view bytes);

// 16 lowercase hex digits, zero padded: "cbf29ce484222325".
std::string formatHash(uint64_t hash);

// What a path holds, to tell later whether it changed.
struct PathFingerprint
{
    uint64_t hash = ContentHash::kOffsetBasis;
    int64_t size = 0;  // bytes (of every file, for a directory)
    int64_t mtimeNs = 0;  // last modification, ns since the epoch (the newest file's, for a directory)
};

// The fingerprint of a file, or of a directory (per-rank logs, a tlparse output folder): there
// every regular file below it in the order of their relative paths, each fed as its relative
// path, a NUL, its size (8 bytes, little-endian) and its bytes, so a renamed or moved file
// changes the hash. Throws std::runtime_error naming the path when it is missing or cannot be
// read.
PathFingerprint fingerprintPath(const std::filesystem::path& path);

}  // namespace fxl
