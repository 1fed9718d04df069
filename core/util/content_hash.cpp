#include "core/util/content_hash.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <vector>

namespace fxl {

void ContentHash::update(const void* data, size_t size)
{
    const auto* p = static_cast<const unsigned char*>(data);
    uint64_t h = h_;
    for (size_t i = 0; i < size; ++i) {
        h ^= p[i];
        h *= kPrime;
    }
    h_ = h;
}

uint64_t hashBytes(std::string_view bytes)
{
    ContentHash h;
    h.update(bytes);
    return h.value();
}

std::string formatHash(uint64_t hash)
{
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(hash));
    return buf;
}

namespace {

namespace fs = std::filesystem;

// POSIX stat rather than fs::last_write_time, whose clock's epoch is not the unix epoch
int64_t mtimeNs(const fs::path& path)
{
    struct stat st
    { };
    if (::stat(path.c_str(), &st) != 0)
        throw std::runtime_error(path.string() + ": cannot read its modification time: " + std::strerror(errno));
    return int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
}

// Feeds the file's bytes; returns how many there were.
int64_t hashFile(const fs::path& path, ContentHash& h)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error(path.string() + ": cannot be read: " + std::strerror(errno));
    std::vector<char> buf(1 << 20);
    int64_t total = 0;
    while (in) {
        in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
        const std::streamsize n = in.gcount();
        if (n <= 0) break;
        h.update(buf.data(), static_cast<size_t>(n));
        total += n;
    }
    if (in.bad()) throw std::runtime_error(path.string() + ": read error");
    return total;
}

}  // namespace

PathFingerprint fingerprintPath(const fs::path& path)
{
    std::error_code ec;
    const fs::file_status st = fs::status(path, ec);
    if (ec || !fs::exists(st)) throw std::runtime_error(path.string() + ": no such file or directory");
    PathFingerprint fp;
    ContentHash h;
    if (fs::is_directory(st)) {
        std::vector<fs::path> files;
        for (fs::recursive_directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec))
            if (it->is_regular_file()) files.push_back(it->path());
        if (ec) throw std::runtime_error(path.string() + ": cannot list the directory: " + ec.message());
        std::vector<std::pair<std::string, fs::path>> named;
        for (const fs::path& f : files) named.emplace_back(f.lexically_relative(path).generic_string(), f);
        std::sort(named.begin(), named.end());
        for (const auto& [rel, file] : named) {
            h.update(rel.data(), rel.size() + 1);  // with its NUL
            const auto size = static_cast<uint64_t>(fs::file_size(file));
            std::array<unsigned char, 8> le{};
            for (int i = 0; i < 8; ++i) le[i] = static_cast<unsigned char>(size >> (8 * i));
            h.update(le.data(), le.size());
            fp.size += hashFile(file, h);
            fp.mtimeNs = std::max(fp.mtimeNs, mtimeNs(file));
        }
    } else {
        fp.size = hashFile(path, h);
        fp.mtimeNs = mtimeNs(path);
    }
    fp.hash = h.value();
    return fp;
}

}  // namespace fxl
