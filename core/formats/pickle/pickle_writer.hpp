// A pickle writer of plain data (protocol 2, the opcodes PyTorch's C++ pickler uses): what the
// restricted reader (pickle_reader.hpp) and Python's pickle both read. Values are written in
// order: a list or dict is opened, its items written, then closed. A written value can be
// memoized and written again by reference (shared, as Python's pickle shares it).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

namespace fxl::pickle {

class Writer
{
public:
    // header: start with PROTO 2 (false: a continuation of a pickle another writer started)
    explicit Writer(bool header = true);
    void none();
    void boolean(bool v);
    void integer(int64_t v);
    void unsignedInteger(uint64_t v);  // above INT64_MAX: a 9-byte LONG1
    void real(double v);
    void string(std::string_view s);  // memoized: a repeated string is a reference
    void beginList();
    void endList();
    void beginDict();  // then key, value, key, value, ...
    void endDict();
    void beginTuple();
    void endTuple();
    // the value just written (a container once closed), kept for reference()
    uint32_t memoize();
    void reference(uint32_t id);
    std::string finish();  // STOP; the writer is done
    std::string take();  // the bytes so far, for streaming a large pickle out in pieces

private:
    void put(uint32_t id);
    std::string out_;
    uint32_t memo_ = 0;
    std::unordered_map<std::string, uint32_t> strings_;
};

}  // namespace fxl::pickle
