#include "core/formats/safetensors_writer.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <filesystem>
#include <string_view>
#include <unordered_set>

#include "core/formats/safetensors_checks.hpp"

#ifndef _WIN32
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#else
#include <fstream>
#endif

namespace fxl {

namespace {

void appendJsonString(std::string& out, std::string_view s)
{
    // serde_json's escaping: quote, backslash and control characters; the rest verbatim.
    static const char* hex = "0123456789abcdef";
    out += '"';
    for (char ch : s) {
        unsigned char c = static_cast<unsigned char>(ch);
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        default:
            if (c < 0x20) {
                out += "\\u00";
                out += hex[c >> 4];
                out += hex[c & 15];
            } else {
                out += ch;
            }
        }
    }
    out += '"';
}

}  // namespace

std::vector<uint8_t> serializeSafetensorsFile(const SafeTensorsFile& f, TensorOrder order, const std::string& dest)
{
    std::unordered_set<std::string_view> names;
    for (const auto& t : f.tensors) {
        if (!names.insert(t.name).second) failFile(dest, "cannot write: duplicate tensor name " + showName(t.name));
        if (t.name == "__metadata__") failFile(dest, "cannot write: a tensor may not be named __metadata__");
        if (!validUtf8(t.name)) failFile(dest, "cannot write: tensor name " + showName(t.name) + " is not UTF-8");
        if (dtypeSafetensorsName(t.dtype).empty())
            failFile(dest,
                     "cannot write: tensor " + showName(t.name) + " has dtype " + std::string(dtypeTorchName(t.dtype))
                         + ", which safetensors cannot store");
        std::string why;
        auto need = bytesFor(t.dtype, t.shape, &why);
        if (!need)
            failFile(dest, "cannot write: tensor " + showName(t.name) + ": shape " + shapeStr(t.shape) + ": " + why);
        if (*need != t.data.size())
            failFile(dest,
                     "cannot write: tensor " + showName(t.name) + ": shape " + shapeStr(t.shape) + " of "
                         + std::string(dtypeSafetensorsName(t.dtype)) + " needs " + std::to_string(*need)
                         + " bytes but it holds " + std::to_string(t.data.size()));
    }
    for (const auto& [k, v] : f.metadata)
        if (!validUtf8(k) || !validUtf8(v))
            failFile(dest, "cannot write: __metadata__ entry " + showName(k) + " is not UTF-8");

    std::vector<const SafeTensor*> ts;
    ts.reserve(f.tensors.size());
    for (const auto& t : f.tensors) ts.push_back(&t);
    if (order == TensorOrder::Library)
        std::stable_sort(ts.begin(), ts.end(), [](const SafeTensor* a, const SafeTensor* b) {
            int ra = safetensorsDtypeRank(a->dtype), rb = safetensorsDtypeRank(b->dtype);
            if (ra != rb) return ra > rb;
            return a->name < b->name;  // bytewise, as Rust's String ordering
        });

    std::string h = "{";
    bool first = true;
    if (!f.metadata.empty()) {
        h += "\"__metadata__\":{";
        bool firstKv = true;
        for (const auto& [k, v] : f.metadata) {
            if (!firstKv) h += ',';
            firstKv = false;
            appendJsonString(h, k);
            h += ':';
            appendJsonString(h, v);
        }
        h += '}';
        first = false;
    }
    uint64_t offset = 0;
    for (const SafeTensor* t : ts) {
        if (!first) h += ',';
        first = false;
        appendJsonString(h, t->name);
        h += ":{\"dtype\":\"";
        h += dtypeSafetensorsName(t->dtype);
        h += "\",\"shape\":[";
        for (size_t i = 0; i < t->shape.size(); ++i) {
            if (i) h += ',';
            h += std::to_string(t->shape[i]);
        }
        h += "],\"data_offsets\":[";
        h += std::to_string(offset);
        h += ',';
        offset += t->data.size();
        h += std::to_string(offset);
        h += "]}";
    }
    h += '}';
    h.append((8 - h.size() % 8) % 8, ' ');  // data section starts 8-aligned
    if (h.size() > kSafetensorsMaxHeader)
        failFile(dest,
                 "cannot write: the header would be " + std::to_string(h.size()) + " bytes, over the format's limit of "
                     + std::to_string(kSafetensorsMaxHeader));

    std::vector<uint8_t> out;
    out.reserve(8 + h.size() + offset);
    uint64_t n = h.size();
    for (int i = 0; i < 8; ++i) out.push_back(static_cast<uint8_t>(n >> (8 * i)));
    out.insert(out.end(), h.begin(), h.end());
    for (const SafeTensor* t : ts) out.insert(out.end(), t->data.begin(), t->data.end());
    return out;
}

#ifndef _WIN32
void writeFileAtomically(const std::string& path, const std::vector<uint8_t>& bytes)
{
    namespace fs = std::filesystem;
    fs::path target(path);
    fs::path dir = target.parent_path();
    if (dir.empty()) dir = ".";
    std::string tmp;
    int fd = -1;
    static std::atomic<unsigned> counter{0};
    for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
        // Hidden temp file beside the target, so that rename() stays on one file system.
        tmp = (dir
               / ("." + target.filename().string() + ".tmp." + std::to_string(::getpid()) + "."
                  + std::to_string(counter++)))
                  .string();
        fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST) failFile(path, "cannot create a temporary file beside it: " + errnoText());
    }
    if (fd < 0) failFile(path, "cannot create a temporary file beside it");
    auto abandon = [&](const std::string& what) {
        std::string msg = what + ": " + errnoText();
        if (fd >= 0) ::close(fd);
        ::unlink(tmp.c_str());
        failFile(path, msg);
    };
    size_t done = 0;
    while (done < bytes.size()) {
        ssize_t w = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (w < 0) {
            if (errno == EINTR) continue;
            abandon("cannot write");
        }
        done += static_cast<size_t>(w);
    }
    if (::fsync(fd) != 0) abandon("cannot sync");
    int rc = ::close(fd);
    fd = -1;
    if (rc != 0) abandon("cannot close");
    if (::rename(tmp.c_str(), path.c_str()) != 0) abandon("cannot rename the temporary file over it");
    // Make the rename itself durable; failure here does not lose data, so it is not fatal.
    int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        ::fsync(dfd);
        ::close(dfd);
    }
}
#else
void writeFileAtomically(const std::string& path, const std::vector<uint8_t>& bytes)
{
    std::string tmp = path + ".tmp";
    {
        std::ofstream o(tmp, std::ios::binary | std::ios::trunc);
        o.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
        o.flush();
        if (!o) {
            std::error_code ec;
            std::filesystem::remove(tmp, ec);
            failFile(path, "cannot write");
        }
    }
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    if (ec) {
        std::filesystem::remove(tmp, ec);
        failFile(path, "cannot rename the temporary file over it");
    }
}
#endif

}  // namespace fxl
