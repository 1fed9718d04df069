#include "core/formats/zip/zip_archive.hpp"

#include <zip.h>
#include <zlib.h>

#include <filesystem>

#include "core/ir/diagnostics.hpp"

namespace fxl::zip {

struct Archive::Handle
{
    zip_t* z = nullptr;
    std::shared_ptr<const std::vector<uint8_t>> bytes;  // the memory an in-memory archive reads
    ~Handle()
    {
        if (z) zip_discard(z);
    }
};

Archive::Archive() = default;
Archive::~Archive() = default;
Archive::Archive(Archive&&) noexcept = default;
Archive& Archive::operator=(Archive&&) noexcept = default;

namespace {

std::string libzipError(int code)
{
    zip_error_t err;
    zip_error_init_with_code(&err, code);
    std::string s = zip_error_strerror(&err);
    zip_error_fini(&err);
    return s;
}

[[noreturn]] void refuseArchive(const std::string& name, int code)
{
    std::string why;
    switch (code) {
    case ZIP_ER_NOZIP: why = "not a ZIP archive (no end of central directory: a truncated or damaged file?)"; break;
    case ZIP_ER_INCONS: why = "a damaged ZIP archive (its central directory is inconsistent; truncated?)"; break;
    case ZIP_ER_OPEN:
    case ZIP_ER_NOENT: why = "cannot open the file"; break;
    case ZIP_ER_READ:
    case ZIP_ER_SEEK: why = "cannot read the archive (truncated?)"; break;
    default: why = "cannot read the ZIP archive"; break;
    }
    throw InputError(name, 0, 0, why + " (libzip: " + libzipError(code) + ")");
}

}  // namespace

Archive Archive::fromHandle(std::unique_ptr<Handle> h, std::string name)
{
    Archive a;
    a.name_ = std::move(name);
    const zip_int64_t n = zip_get_num_entries(h->z, 0);
    if (n < 0) refuseArchive(a.name_, ZIP_ER_INCONS);
    a.entries_.reserve(static_cast<size_t>(n));
    for (zip_int64_t i = 0; i < n; ++i) {
        zip_stat_t st;
        zip_stat_init(&st);
        if (zip_stat_index(h->z, static_cast<zip_uint64_t>(i), ZIP_FL_ENC_RAW, &st) != 0)
            throw InputError(a.name_, 0, 0,
                             "entry " + std::to_string(i)
                                 + " of the central directory cannot be read (libzip: " + zip_strerror(h->z) + ")");
        Entry e;
        e.name = st.name ? st.name : "";
        e.index = static_cast<uint64_t>(i);
        e.size = (st.valid & ZIP_STAT_SIZE) ? st.size : 0;
        e.compressedSize = (st.valid & ZIP_STAT_COMP_SIZE) ? st.comp_size : e.size;
        e.crc = (st.valid & ZIP_STAT_CRC) ? st.crc : 0;
        e.stored = !(st.valid & ZIP_STAT_COMP_METHOD) || st.comp_method == ZIP_CM_STORE;
        a.entries_.push_back(std::move(e));
    }
    a.h_ = std::move(h);
    return a;
}

Archive Archive::open(const std::string& path)
{
    int code = 0;
    zip_t* z = zip_open(path.c_str(), ZIP_RDONLY, &code);
    if (!z) refuseArchive(path, code);
    auto h = std::make_unique<Handle>();
    h->z = z;
    Archive a = fromHandle(std::move(h), path);
    std::error_code ec;
    a.bytes_ = std::filesystem::file_size(path, ec);
    if (ec) a.bytes_ = 0;
    return a;
}

Archive Archive::fromBytes(std::shared_ptr<const std::vector<uint8_t>> bytes, std::string name)
{
    zip_error_t err;
    zip_error_init(&err);
    zip_source_t* src = zip_source_buffer_create(bytes->data(), bytes->size(), 0, &err);
    if (!src) {
        zip_error_fini(&err);
        refuseArchive(name, ZIP_ER_MEMORY);
    }
    zip_t* z = zip_open_from_source(src, ZIP_RDONLY, &err);
    if (!z) {
        const int code = zip_error_code_zip(&err);
        zip_source_free(src);
        zip_error_fini(&err);
        refuseArchive(name, code);
    }
    zip_error_fini(&err);
    auto h = std::make_unique<Handle>();
    h->z = z;
    const uint64_t size = bytes->size();
    h->bytes = std::move(bytes);
    Archive a = fromHandle(std::move(h), std::move(name));
    a.bytes_ = size;
    return a;
}

const Entry* Archive::find(std::string_view entryName) const
{
    for (const Entry& e : entries_)
        if (e.name == entryName) return &e;
    return nullptr;
}

std::vector<uint8_t> Archive::read(const Entry& e) const
{
    auto fail = [&](const std::string& why) -> std::vector<uint8_t> {
        throw InputError(name_, 0, 0, "entry '" + e.name + "': " + why);
    };
    // A stored entry is read as it lies (ZIP_FL_COMPRESSED), so that libzip does not refuse a
    // CRC of 0; the CRC is checked here when one is recorded.
    zip_file_t* f = zip_fopen_index(h_->z, e.index, e.stored ? ZIP_FL_COMPRESSED : 0);
    if (!f) return fail(std::string("cannot be opened (libzip: ") + zip_strerror(h_->z) + ")");
    const uint64_t want = e.stored ? e.compressedSize : e.size;
    // sizes no archive of this size can hold (deflate expands at most 1032 times) are refused
    // before any memory is taken for them
    if ((e.stored && want > bytes_) || (!e.stored && want > e.compressedSize * 1032 + 65536)) {
        zip_fclose(f);
        return fail("its recorded size (" + std::to_string(want) + " bytes) is more than an archive of "
                    + std::to_string(bytes_) + " bytes can hold (a damaged archive)");
    }
    std::vector<uint8_t> out;
    try {
        out.resize(static_cast<size_t>(want));
    } catch (const std::exception&) {
        zip_fclose(f);
        return fail("its size (" + std::to_string(want) + " bytes) cannot be held in memory");
    }
    uint64_t got = 0;
    while (got < want) {
        const zip_int64_t r = zip_fread(f, out.data() + got, want - got);
        if (r < 0) {
            const std::string why = zip_file_strerror(f);
            zip_fclose(f);
            return fail("cannot be read (libzip: " + why + "; a truncated archive?)");
        }
        if (r == 0) break;
        got += static_cast<uint64_t>(r);
    }
    zip_fclose(f);
    if (got != want)
        return fail("holds " + std::to_string(got) + " bytes where the directory records " + std::to_string(want)
                    + " (a truncated archive?)");
    if (e.stored && e.crc != 0) {
        uLong crc = crc32(0L, Z_NULL, 0);
        size_t at = 0;
        while (at < out.size()) {
            const size_t n = std::min<size_t>(out.size() - at, 1u << 30);
            crc = crc32(crc, out.data() + at, static_cast<uInt>(n));
            at += n;
        }
        if (static_cast<uint32_t>(crc) != e.crc) {
            char buf[64];
            std::snprintf(buf, sizeof buf, "CRC-32 0x%08x where the directory records 0x%08x",
                          static_cast<unsigned>(crc), static_cast<unsigned>(e.crc));
            return fail(std::string(buf) + " (a damaged archive)");
        }
    }
    return out;
}

std::string Archive::readText(const Entry& e) const
{
    const std::vector<uint8_t> b = read(e);
    return std::string(b.begin(), b.end());
}

}  // namespace fxl::zip
