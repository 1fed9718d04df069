#include "workspace/workspace_file_check.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "workspace/workspace_error.hpp"

namespace fxl {

namespace {
namespace fs = std::filesystem;

// SQLite's file header (https://www.sqlite.org/fileformat.html is the reference; the header is
// 100 bytes and starts with this string and its NUL).
constexpr char kSqliteMagic[] = "SQLite format 3";
constexpr size_t kSqliteMagicSize = sizeof kSqliteMagic;  // with the NUL
constexpr size_t kSqliteHeaderSize = 100;

bool startsWith(const std::string& s, std::string_view prefix) { return s.compare(0, prefix.size(), prefix) == 0; }
}  // namespace

std::string describeForeignBytes(const std::string& head)
{
    if (head.empty()) return "an empty file";
    if (startsWith(head, "\x89PNG\r\n\x1a\n")) return "a PNG image";
    if (startsWith(head, "PK\x03\x04")) return "a ZIP archive";
    if (startsWith(head, "\x1f\x8b")) return "a gzip file";
    bool text = true;
    for (unsigned char c : head)
        if (c < 0x09 || (c > 0x0d && c < 0x20) || c == 0x7f) text = false;
    if (text) return "a text file";
    std::string hex;
    for (size_t i = 0; i < head.size() && i < 8; ++i) {
        char b[4];
        std::snprintf(b, sizeof b, "%02x", static_cast<unsigned char>(head[i]));
        hex += (i ? " " : "") + std::string(b);
    }
    return "a file starting with bytes " + hex;
}

void checkWorkspaceHeader(const std::string& path)
{
    using Kind = WorkspaceError::Kind;
    std::error_code ec;
    const fs::file_status st = fs::status(path, ec);
    if (!fs::exists(st)) throw WorkspaceError(Kind::NotFound, path, "no such file");
    if (fs::is_directory(st)) throw WorkspaceError(Kind::NotWorkspace, path, "is a directory, not a workspace file");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw WorkspaceError(Kind::Io, path, std::string("cannot be read: ") + std::strerror(errno));
    std::string head(kSqliteHeaderSize, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<size_t>(in.gcount()));
    if (head.size() >= kSqliteMagicSize && std::memcmp(head.data(), kSqliteMagic, kSqliteMagicSize) == 0) {
        if (head.size() < kSqliteHeaderSize)
            throw WorkspaceError(Kind::Truncated, path,
                                 "truncated workspace: " + std::to_string(head.size())
                                     + " bytes, shorter than SQLite's 100-byte header");
        return;
    }
    if (head.size() < kSqliteMagicSize && !head.empty() && std::memcmp(head.data(), kSqliteMagic, head.size()) == 0)
        throw WorkspaceError(Kind::Truncated, path,
                             "truncated workspace: " + std::to_string(head.size())
                                 + " bytes, shorter than SQLite's 100-byte header");
    throw WorkspaceError(Kind::NotWorkspace, path,
                         "not an fxlens workspace: " + describeForeignBytes(head) + ", not an SQLite database");
}

void checkWorkspaceLength(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::string head(kSqliteHeaderSize, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    if (static_cast<size_t>(in.gcount()) < kSqliteHeaderSize) return;  // checkWorkspaceHeader's case
    const auto byte = [&](size_t i) { return static_cast<uint32_t>(static_cast<unsigned char>(head[i])); };
    const auto be32 = [&](size_t i) { return byte(i) << 24 | byte(i + 1) << 16 | byte(i + 2) << 8 | byte(i + 3); };
    int64_t pageSize = byte(16) << 8 | byte(17);
    if (pageSize == 1) pageSize = 65536;
    const int64_t pageCount = be32(28);
    // the count is valid when the change counter (offset 24) equals "version valid for" (92)
    if (pageSize < 512 || pageCount == 0 || be32(24) != be32(92)) return;
    std::error_code ec;
    const auto size = fs::file_size(path, ec);
    if (ec) throw WorkspaceError(WorkspaceError::Kind::Io, path, "cannot read its size: " + ec.message());
    const int64_t expected = pageSize * pageCount;
    if (static_cast<int64_t>(size) < expected)
        throw WorkspaceError(WorkspaceError::Kind::Truncated, path,
                             "truncated workspace: " + std::to_string(size) + " bytes, its header says "
                                 + std::to_string(pageCount) + " pages of " + std::to_string(pageSize) + " bytes ("
                                 + std::to_string(expected) + ")");
}

}  // namespace fxl
