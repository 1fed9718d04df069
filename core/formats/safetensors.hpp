// safetensors read/write with the format's checks: header size limit (100 MB), JSON header,
// offsets that tile the data section exactly, known dtypes, shapes matching byte counts.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/ir/dtype.hpp"

namespace fxl {

struct SafeTensor
{
    std::string name;
    DType dtype = DType::F32;
    // As in the header. For "F4" (4-bit values, read as DType::F4E2M1FNx2) the shape counts
    // 4-bit values, so the tensor takes numel / 2 bytes.
    std::vector<int64_t> shape;
    std::vector<uint8_t> data;  // little-endian, contiguous
    uint64_t fileOffset = 0;  // where the bytes start in the file (set by the readers)
    int64_t numel() const;  // product of shape (saturates at INT64_MAX)
    // Bytes the tensor takes in the data section; -1 when the dtype has no safetensors name,
    // a dimension is negative, it overflows, or 4-bit values do not fill whole bytes.
    int64_t byteSize() const;
};

struct SafeTensorsFile
{
    std::map<std::string, std::string> metadata;  // "__metadata__"
    std::vector<SafeTensor> tensors;  // in data-offset order
    const SafeTensor* find(const std::string& name) const;
};

inline constexpr uint64_t kSafetensorsMaxHeader = 100'000'000;  // the reference reader's limit

// Throws InputError(file, 0, byte offset as column where useful, message).
SafeTensorsFile readSafetensors(const std::string& path);
SafeTensorsFile parseSafetensors(const uint8_t* data, size_t size, const std::string& file = "<memory>");
// Reads only the header (names, dtypes, shapes), no tensor bytes. The offsets are still
// checked against the file size.
SafeTensorsFile readSafetensorsHeader(const std::string& path);

// Order of the tensors in a written file.
enum class TensorOrder
{
    Library,  // what huggingface safetensors writes: dtype alignment descending, then name
    AsGiven,  // the order of SafeTensorsFile::tensors
};

// Writes atomically (temp file + fsync + rename); never leaves a partial file behind and
// never touches `path` when anything fails. Throws InputError(path, ...) on a tensor whose
// data does not match its shape/dtype, duplicate names, or an I/O failure.
void writeSafetensors(const std::string& path, const SafeTensorsFile& f);
void writeSafetensors(const std::string& path, const SafeTensorsFile& f, TensorOrder order);
// The header is compact JSON as serde_json prints it ("__metadata__" first, keys sorted),
// padded with spaces to a multiple of 8 bytes, so that files the official library wrote
// come back byte-identical.
std::vector<uint8_t> serializeSafetensors(const SafeTensorsFile& f);
std::vector<uint8_t> serializeSafetensors(const SafeTensorsFile& f, TensorOrder order);

// The position of a dtype in the reference writer's Dtype enum (increasing alignment);
// the Library order sorts by it descending. -1 for dtypes safetensors cannot store.
int safetensorsDtypeRank(DType t);

}  // namespace fxl
