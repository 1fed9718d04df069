// ZIP archives read through libzip: the containers of torch.export (.pt2) and torch.save
// (.pt). Entries are listed from the central directory (ZIP64 and stored entries included) and
// read whole. A stored entry's CRC is checked when the directory records one: PyTorch's writer
// may record 0 (torch.serialization.config.save.compute_crc32 = False), which means "not
// computed", not a mismatch.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace fxl::zip {

struct Entry
{
    std::string name;
    uint64_t index = 0;  // libzip's index
    uint64_t size = 0;  // uncompressed
    uint64_t compressedSize = 0;
    uint32_t crc = 0;  // 0: not recorded
    bool stored = true;  // not compressed
};

class Archive
{
public:
    Archive();
    ~Archive();
    Archive(Archive&&) noexcept;
    Archive& operator=(Archive&&) noexcept;

    // Throws InputError(path, 0, 0, message) when the file is not a ZIP archive or is damaged.
    static Archive open(const std::string& path);
    // An archive held in memory (a torch.save file inside a .pt2); `name` names it in errors
    // ("model.pt2:serialized_state_dict.pt").
    static Archive fromBytes(std::shared_ptr<const std::vector<uint8_t>> bytes, std::string name);

    const std::string& name() const { return name_; }
    const std::vector<Entry>& entries() const { return entries_; }
    const Entry* find(std::string_view entryName) const;
    // The entry's bytes. Throws InputError(name(), 0, 0, "entry 'x': ...") when it cannot be
    // read or its recorded CRC does not match.
    std::vector<uint8_t> read(const Entry& e) const;
    std::string readText(const Entry& e) const;

private:
    struct Handle;
    std::unique_ptr<Handle> h_;
    std::string name_;
    std::vector<Entry> entries_;
    uint64_t bytes_ = 0;  // the archive's size
    static Archive fromHandle(std::unique_ptr<Handle> h, std::string name);
};

}  // namespace fxl::zip
