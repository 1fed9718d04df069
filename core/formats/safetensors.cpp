// safetensors: the public entry points and file reading. The header checks are in
// safetensors_header, the writer in safetensors_writer, what both share in safetensors_checks.
#include "core/formats/safetensors.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <limits>

#include "core/formats/safetensors_checks.hpp"
#include "core/formats/safetensors_header.hpp"
#include "core/formats/safetensors_writer.hpp"

namespace fxl {

namespace {

struct File
{
    std::FILE* f = nullptr;
    ~File()
    {
        if (f) std::fclose(f);
    }
};

uint64_t openForRead(File& fh, const std::string& path)
{
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) failFile(path, "cannot read: is a directory");
    fh.f = std::fopen(path.c_str(), "rb");
    if (!fh.f) failFile(path, "cannot open: " + errnoText());
    if (std::fseek(fh.f, 0, SEEK_END) != 0) failFile(path, "cannot seek: " + errnoText());
    long sz = std::ftell(fh.f);
    if (sz < 0) failFile(path, "cannot tell the file size: " + errnoText());
    std::rewind(fh.f);
    return static_cast<uint64_t>(sz);
}

void readExact(File& fh, uint8_t* dst, uint64_t n, const std::string& path)
{
    if (n == 0) return;
    if (std::fread(dst, 1, n, fh.f) != n)
        failFile(path, std::ferror(fh.f) ? "read error: " + errnoText() : std::string("file shrank while reading"));
}

}  // namespace

int64_t SafeTensor::numel() const
{
    int64_t n = 1;
    for (int64_t d : shape) {
        if (d < 0) return 0;
        if (__builtin_mul_overflow(n, d, &n)) return std::numeric_limits<int64_t>::max();
    }
    return n;
}

int64_t SafeTensor::byteSize() const
{
    auto b = bytesFor(dtype, shape, nullptr);
    if (!b || *b > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return -1;
    return static_cast<int64_t>(*b);
}

const SafeTensor* SafeTensorsFile::find(const std::string& name) const
{
    for (const auto& t : tensors)
        if (t.name == name) return &t;
    return nullptr;
}

int safetensorsDtypeRank(DType t)
{
    // The reference Dtype enum, "in increasing alignment order": BOOL, F4, F6_E2M3, F6_E3M2,
    // U8, I8, F8_E5M2, F8_E4M3, F8_E8M0, I16, U16, F16, BF16, I32, U32, F32, C64, F64, I64,
    // U64 (x10). Names it lacks (FNUZ fp8s, C32, C128) slot in beside their alignment.
    switch (t) {
    case DType::Bool: return 0;
    case DType::F4E2M1FNx2: return 10;
    case DType::U8: return 40;
    case DType::I8: return 50;
    case DType::F8E5M2: return 60;
    case DType::F8E4M3FN: return 70;
    case DType::F8E8M0FNU: return 80;
    case DType::F8E4M3FNUZ: return 81;
    case DType::F8E5M2FNUZ: return 82;
    case DType::I16: return 90;
    case DType::U16: return 100;
    case DType::F16: return 110;
    case DType::BF16: return 120;
    case DType::I32: return 130;
    case DType::U32: return 140;
    case DType::C32: return 145;
    case DType::F32: return 150;
    case DType::C64: return 160;
    case DType::F64: return 170;
    case DType::I64: return 180;
    case DType::U64: return 190;
    case DType::C128: return 200;
    default: return -1;
    }
}

SafeTensorsFile parseSafetensors(const uint8_t* data, size_t size, const std::string& file)
{
    uint64_t n = checkSafetensorsHeaderLength(data, size, file);
    uint64_t dataLen = size - 8 - n;
    SafeTensorsFile f = parseSafetensorsHeader(data + 8, n, dataLen, file);
    for (auto& t : f.tensors) {
        const uint8_t* p = data + t.fileOffset;
        t.data.assign(p, p + t.byteSize());
    }
    return f;
}

SafeTensorsFile readSafetensors(const std::string& path)
{
    File fh;
    uint64_t size = openForRead(fh, path);
    if (size > static_cast<uint64_t>(std::numeric_limits<size_t>::max())) failFile(path, "file too large to read");
    std::vector<uint8_t> buf(static_cast<size_t>(size));
    readExact(fh, buf.data(), size, path);
    return parseSafetensors(buf.data(), buf.size(), path);
}

SafeTensorsFile readSafetensorsHeader(const std::string& path)
{
    File fh;
    uint64_t size = openForRead(fh, path);
    uint8_t first8[8] = {};
    readExact(fh, first8, std::min<uint64_t>(size, 8), path);
    uint64_t n = checkSafetensorsHeaderLength(first8, size, path);
    std::vector<uint8_t> hdr(static_cast<size_t>(n));
    readExact(fh, hdr.data(), n, path);
    return parseSafetensorsHeader(hdr.data(), n, size - 8 - n, path);
}

std::vector<uint8_t> serializeSafetensors(const SafeTensorsFile& f)
{
    return serializeSafetensorsFile(f, TensorOrder::Library, "<memory>");
}

std::vector<uint8_t> serializeSafetensors(const SafeTensorsFile& f, TensorOrder order)
{
    return serializeSafetensorsFile(f, order, "<memory>");
}

void writeSafetensors(const std::string& path, const SafeTensorsFile& f)
{
    writeSafetensors(path, f, TensorOrder::Library);
}

void writeSafetensors(const std::string& path, const SafeTensorsFile& f, TensorOrder order)
{
    // Everything that can be wrong with the tensors fails here, before the disk is touched.
    std::vector<uint8_t> bytes = serializeSafetensorsFile(f, order, path);
    writeFileAtomically(path, bytes);
}

}  // namespace fxl
