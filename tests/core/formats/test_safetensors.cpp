// safetensors: every corpus file reads and round-trips byte-identically, the official
// library's own serialisation vectors come out byte-identical, malformed files give
// InputError naming the problem, and writes are atomic.
#include <QtTest>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <set>

#include "core/formats/safetensors.hpp"
#include "core/ir/diagnostics.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_safetensors {

using namespace fxl;
namespace fs = std::filesystem;

namespace {

const fs::path kPytorch = fxltest::corpusPath("pytorch");

std::vector<uint8_t> readBytes(const fs::path& p)
{
    const std::string s = fxltest::readFile(p);
    return std::vector<uint8_t>(s.begin(), s.end());
}

void writeBytes(const fs::path& p, const std::vector<uint8_t>& b)
{
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}

// The safetensors files of corpus/pytorch and corpus/pytorch/large (a directory itself when
// it is absent: its row skips or fails by the corpus rule).
std::vector<fs::path> corpusSafetensors()
{
    std::vector<fs::path> out;
    for (const char* dir : {"pytorch", "pytorch/large"})
        for (const fs::path& f : fxltest::corpusFiles(dir, {".safetensors"})) out.push_back(f);
    std::sort(out.begin(), out.end());
    return out;
}

// The case name (before the first dot) and the kind (inputs / outputs / outputs_f64 / a
// constants file of some graph part).
std::string caseName(const fs::path& p)
{
    std::string f = p.filename().string();
    return f.substr(0, f.find('.'));
}

// The reference Dtype enum order, as written in huggingface/safetensors tensor.rs
// ("They MUST be in increasing alignment order"). Kept here independently of the library
// code so that the test checks the writer's order against the reference's.
int referenceRank(const std::string& st)
{
    static const char* kOrder[] = {"BOOL",    "F4",      "F6_E2M3", "F6_E3M2", "U8",  "I8",   "F8_E5M2",
                                   "F8_E4M3", "F8_E8M0", "I16",     "U16",     "F16", "BF16", "I32",
                                   "U32",     "F32",     "C64",     "F64",     "I64", "U64"};
    for (int i = 0; i < int(std::size(kOrder)); ++i)
        if (st == kOrder[i]) return i;
    return -1;
}

// Is the tensor order of a header (from the raw JSON, in data-offset order) what the
// reference writer produces: dtype rank descending, then name?
bool inReferenceOrder(const std::vector<std::pair<std::string, std::string>>& nameDtype)
{
    for (size_t i = 1; i < nameDtype.size(); ++i) {
        int ra = referenceRank(nameDtype[i - 1].second), rb = referenceRank(nameDtype[i].second);
        if (ra < rb) return false;
        if (ra == rb && !(nameDtype[i - 1].first < nameDtype[i].first)) return false;
    }
    return true;
}

// Header JSON of a file, parsed independently of the library (nlohmann keeps keys sorted,
// so the data-offset order is recovered from data_offsets).
nlohmann::json rawHeader(const std::vector<uint8_t>& b)
{
    uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = (n << 8) | b[size_t(i)];
    return nlohmann::json::parse(b.begin() + 8, b.begin() + 8 + long(n));
}

std::vector<uint8_t> le64(uint64_t v)
{
    std::vector<uint8_t> out(8);
    for (int i = 0; i < 8; ++i) out[size_t(i)] = uint8_t(v >> (8 * i));
    return out;
}

// A file from a header text and a data section (header length written as given).
std::vector<uint8_t> makeFile(const std::string& header, size_t dataBytes, std::optional<uint64_t> lengthField = {})
{
    std::vector<uint8_t> out = le64(lengthField ? *lengthField : header.size());
    out.insert(out.end(), header.begin(), header.end());
    for (size_t i = 0; i < dataBytes; ++i) out.push_back(uint8_t(i * 7 + 1));
    return out;
}

SafeTensor tensor(std::string name, DType dt, std::vector<int64_t> shape, uint8_t fill = 0)
{
    SafeTensor t;
    t.name = std::move(name);
    t.dtype = dt;
    t.shape = std::move(shape);
    t.data.assign(size_t(t.byteSize()), fill);
    for (size_t i = 0; i < t.data.size(); ++i) t.data[i] = uint8_t(fill + i);
    return t;
}

fs::path tempDir(const char* tag)
{
    fs::path d = fs::temp_directory_path()
        / ("fxlens_st_" + std::string(tag) + "_" + std::to_string(QCoreApplication::applicationPid()));
    fs::remove_all(d);
    fs::create_directories(d);
    return d;
}

}  // namespace

class TestSafetensors : public QObject
{
    Q_OBJECT

private slots:
    void corpusFile_data();
    void corpusFile();
    void corpusNamesMatchMeta_data();
    void corpusNamesMatchMeta();
    void referenceVectors();
    void libraryOrder();
    void everyDtypeRoundTrips();
    void malformed_data();
    void malformed();
    void garbage();
    void writeIsAtomic();
};

void TestSafetensors::corpusFile_data()
{
    QTest::addColumn<std::string>("path");
    for (const auto& p : corpusSafetensors()) {
        std::string rel = fs::relative(p, kPytorch).string();
        QTest::newRow(rel.c_str()) << p.string();
    }
}

void TestSafetensors::corpusFile()
{
    QFETCH(std::string, path);
    FXL_REQUIRE_CORPUS(path);
    const std::vector<uint8_t> bytes = readBytes(path);
    QVERIFY(bytes.size() > 8);

    SafeTensorsFile f;
    try {
        f = readSafetensors(path);
    } catch (const InputError& e) {
        QFAIL(e.what());
    }
    QVERIFY(!f.tensors.empty());

    // Against the raw JSON: same names, dtypes, shapes, data-offset order and bytes.
    nlohmann::json h = rawHeader(bytes);
    size_t headerLen = bytes.size() - 8;
    {
        uint64_t n = 0;
        for (int i = 7; i >= 0; --i) n = (n << 8) | bytes[size_t(i)];
        headerLen = size_t(n);
    }
    std::vector<std::pair<uint64_t, std::string>> byOffset;
    for (auto it = h.begin(); it != h.end(); ++it)
        if (it.key() != "__metadata__") byOffset.push_back({it.value()["data_offsets"][0].get<uint64_t>(), it.key()});
    std::sort(byOffset.begin(), byOffset.end());
    QCOMPARE(f.tensors.size(), byOffset.size());
    std::vector<std::pair<std::string, std::string>> nameDtype;
    for (size_t i = 0; i < f.tensors.size(); ++i) {
        const SafeTensor& t = f.tensors[i];
        const auto& j = h[byOffset[i].second];
        QCOMPARE(t.name, byOffset[i].second);
        QCOMPARE(std::string(dtypeSafetensorsName(t.dtype)), j["dtype"].get<std::string>());
        QCOMPARE(t.shape, j["shape"].get<std::vector<int64_t>>());
        uint64_t b = j["data_offsets"][0].get<uint64_t>(), e = j["data_offsets"][1].get<uint64_t>();
        QCOMPARE(t.fileOffset, 8 + headerLen + b);
        QCOMPARE(uint64_t(t.data.size()), e - b);
        QVERIFY(std::memcmp(t.data.data(), bytes.data() + t.fileOffset, t.data.size()) == 0);
        nameDtype.push_back({t.name, j["dtype"].get<std::string>()});
    }
    QCOMPARE(f.find(f.tensors.back().name), &f.tensors.back());
    QVERIFY(f.find("no such tensor") == nullptr);

    // Header-only read: same metas, no data.
    SafeTensorsFile hdr = readSafetensorsHeader(path);
    QCOMPARE(hdr.tensors.size(), f.tensors.size());
    for (size_t i = 0; i < f.tensors.size(); ++i) {
        QCOMPARE(hdr.tensors[i].name, f.tensors[i].name);
        QCOMPARE(hdr.tensors[i].shape, f.tensors[i].shape);
        QVERIFY(hdr.tensors[i].dtype == f.tensors[i].dtype);
        QCOMPARE(hdr.tensors[i].fileOffset, f.tensors[i].fileOffset);
        QVERIFY(hdr.tensors[i].data.empty());
    }

    // Names as corpus/pytorch/README.md says: arg<i>_1 for inputs, out_<i> for outputs,
    // _tensor_constant<i> for constants; each family numbered 0..n-1 without gaps.
    std::string file = fs::path(path).filename().string();
    std::string prefix, suffix;
    if (file.find(".inputs.") != std::string::npos) {
        prefix = "arg";
        suffix = "_1";
    } else if (file.find(".outputs") != std::string::npos) {
        prefix = "out_";
    } else if (file.find(".constants.") != std::string::npos) {
        prefix = "_tensor_constant";
    } else {
        QFAIL(("unexpected corpus safetensors file " + file).c_str());
    }
    std::set<int> seen;
    for (const auto& t : f.tensors) {
        QVERIFY2(t.name.rfind(prefix, 0) == 0, t.name.c_str());
        QVERIFY2(t.name.size() >= prefix.size() + suffix.size()
                     && t.name.compare(t.name.size() - suffix.size(), suffix.size(), suffix) == 0,
                 t.name.c_str());
        std::string num = t.name.substr(prefix.size(), t.name.size() - prefix.size() - suffix.size());
        QVERIFY2(!num.empty() && num.find_first_not_of("0123456789") == std::string::npos, t.name.c_str());
        seen.insert(std::stoi(num));
    }
    QCOMPARE(int(seen.size()), int(f.tensors.size()));
    QCOMPARE(*seen.begin(), 0);
    QCOMPARE(*seen.rbegin(), int(f.tensors.size()) - 1);
    if (prefix == "out_") {
        // out_0 is the loss: a finite scalar
        const SafeTensor* loss = f.find("out_0");
        QVERIFY(loss && loss->shape.empty());
        double v = 0;
        if (loss->dtype == DType::F32) {
            float x;
            std::memcpy(&x, loss->data.data(), 4);
            v = x;
        } else {
            QVERIFY(loss->dtype == DType::F64);
            std::memcpy(&v, loss->data.data(), 8);
        }
        QVERIFY(std::isfinite(v));
    }

    // Round trip. In the file's own order the writer reproduces every byte: same compact
    // JSON, same key order, same space padding.
    QVERIFY(serializeSafetensors(f, TensorOrder::AsGiven) == bytes);
    // In the reference library's order the result reads back to the same tensors, is in the
    // reference order, and is byte-identical wherever the original already was in that order.
    std::vector<uint8_t> lib = serializeSafetensors(f);
    SafeTensorsFile back = parseSafetensors(lib.data(), lib.size());
    QCOMPARE(back.tensors.size(), f.tensors.size());
    std::vector<std::pair<std::string, std::string>> libOrder;
    for (const auto& t : back.tensors) {
        const SafeTensor* o = f.find(t.name);
        QVERIFY(o);
        QVERIFY(o->data == t.data && o->shape == t.shape && o->dtype == t.dtype);
        libOrder.push_back({t.name, std::string(dtypeSafetensorsName(t.dtype))});
    }
    QVERIFY(inReferenceOrder(libOrder));
    if (inReferenceOrder(nameDtype)) {
        QVERIFY(lib == bytes);
    } else {
        size_t k = 1;
        while (k < nameDtype.size() && inReferenceOrder({nameDtype[k - 1], nameDtype[k]})) ++k;
        qInfo("%s: not in the safetensors library's order (%s %s before %s %s): compared by content only", file.c_str(),
              nameDtype[k - 1].second.c_str(), nameDtype[k - 1].first.c_str(), nameDtype[k].second.c_str(),
              nameDtype[k].first.c_str());
        QVERIFY(lib != bytes);
    }
}

// Inputs are keyed by placeholder name in placeholder order; outputs_f64 mirrors outputs.
// One row per case of the corpus (its inputs file): the rows of pytorch/large/ skip under ASan
// (test_util.hpp), the release stage reads them.
void TestSafetensors::corpusNamesMatchMeta_data()
{
    QTest::addColumn<std::string>("path");
    int cases = 0;
    for (const auto& p : corpusSafetensors()) {
        if (!fs::exists(p)) {  // the corpus is absent: a row that says so
            QTest::newRow(p.string().c_str()) << p.string();
            continue;
        }
        if (p.filename().string().find(".inputs.") == std::string::npos) continue;
        QTest::newRow(fs::relative(p, kPytorch).string().c_str()) << p.string();
        ++cases;
    }
    if (fs::exists(kPytorch) && cases < 7)
        QFAIL(qPrintable(QStringLiteral("only %1 cases with an inputs file in the corpus").arg(cases)));
}

void TestSafetensors::corpusNamesMatchMeta()
{
    QFETCH(std::string, path);
    FXL_REQUIRE_CORPUS(path);
    const fs::path p(path);
    fs::path meta = p.parent_path() / (caseName(p) + ".meta.json");
    QVERIFY2(fs::exists(meta), meta.string().c_str());
    nlohmann::json j = nlohmann::json::parse(fxltest::readFile(meta));
    std::vector<std::string> placeholders;
    for (const auto& n : j["nodes"])
        if (n["op"] == "placeholder") placeholders.push_back(n["name"]);
    SafeTensorsFile f = readSafetensorsHeader(p.string());
    QCOMPARE(f.tensors.size(), placeholders.size());
    // the data section follows placeholder order in these files
    for (size_t i = 0; i < placeholders.size(); ++i) QCOMPARE(f.tensors[i].name, placeholders[i]);
    for (const auto& n : j["nodes"]) {
        if (n["op"] != "placeholder") continue;
        const SafeTensor* t = f.find(n["name"]);
        QVERIFY(t);
        QCOMPARE(t->shape, n["tensor_meta"]["shape"].get<std::vector<int64_t>>());
        QCOMPARE(std::string(dtypeTorchName(t->dtype)), n["tensor_meta"]["dtype"].get<std::string>());
    }
    // outputs vs outputs_f64: same names and shapes, floats widened to F64
    fs::path o32 = p.parent_path() / (caseName(p) + ".outputs.safetensors");
    fs::path o64 = p.parent_path() / (caseName(p) + ".outputs_f64.safetensors");
    if (fs::exists(o32) && fs::exists(o64)) {
        SafeTensorsFile a = readSafetensorsHeader(o32.string()), b = readSafetensorsHeader(o64.string());
        QCOMPARE(a.tensors.size(), b.tensors.size());
        for (const auto& t : a.tensors) {
            const SafeTensor* u = b.find(t.name);
            QVERIFY(u);
            QCOMPARE(u->shape, t.shape);
            QVERIFY(u->dtype == (t.dtype == DType::F32 ? DType::F64 : t.dtype));
        }
    }
}

// Byte vectors from the official library's own tests (huggingface/safetensors,
// safetensors/src/tensor.rs: test_serialization, test_empty,
// test_serialization_forced_alignement): our writer must produce exactly these bytes.
void TestSafetensors::referenceVectors()
{
    auto f32data = [](std::initializer_list<float> v) {
        std::vector<uint8_t> out;
        for (float x : v) {
            uint8_t b[4];
            std::memcpy(b, &x, 4);
            out.insert(out.end(), b, b + 4);
        }
        return out;
    };
    {
        SafeTensorsFile f;
        SafeTensor t;
        t.name = "attn.0";
        t.dtype = DType::F32;
        t.shape = {1, 2, 3};
        t.data = f32data({0, 1, 2, 3, 4, 5});
        f.tensors.push_back(t);
        const std::vector<uint8_t> expected = {
            64,  0,   0,   0,   0,   0,  0,  0,  123, 34, 97,  116, 116, 110, 46,  48,  34,  58,  123, 34,
            100, 116, 121, 112, 101, 34, 58, 34, 70,  51, 50,  34,  44,  34,  115, 104, 97,  112, 101, 34,
            58,  91,  49,  44,  50,  44, 51, 93, 44,  34, 100, 97,  116, 97,  95,  111, 102, 102, 115, 101,
            116, 115, 34,  58,  91,  48, 44, 50, 52,  93, 125, 125, 0,   0,   0,   0,   0,   0,   128, 63,
            0,   0,   0,   64,  0,   0,  64, 64, 0,   0,  128, 64,  0,   0,   160, 64};
        QVERIFY(serializeSafetensors(f) == expected);
        SafeTensorsFile back = parseSafetensors(expected.data(), expected.size());
        QCOMPARE(back.tensors.size(), size_t(1));
        QVERIFY(back.tensors[0].data == t.data);
    }
    {
        SafeTensorsFile f;
        const std::vector<uint8_t> expected = {8, 0, 0, 0, 0, 0, 0, 0, 123, 125, 32, 32, 32, 32, 32, 32};
        QVERIFY(serializeSafetensors(f) == expected);
        QVERIFY(parseSafetensors(expected.data(), expected.size()).tensors.empty());
        f.metadata["framework"] = "pt";
        const std::vector<uint8_t> withMeta = {40,  0,   0,   0,   0,   0,   0,   0,   123, 34,  95,  95,
                                               109, 101, 116, 97,  100, 97,  116, 97,  95,  95,  34,  58,
                                               123, 34,  102, 114, 97,  109, 101, 119, 111, 114, 107, 34,
                                               58,  34,  112, 116, 34,  125, 125, 32,  32,  32,  32,  32};
        QVERIFY(serializeSafetensors(f) == withMeta);
        SafeTensorsFile back = parseSafetensors(withMeta.data(), withMeta.size());
        QCOMPARE(back.metadata.at("framework"), std::string("pt"));
    }
    {
        SafeTensorsFile f;
        SafeTensor t;
        t.name = "attn0";
        t.dtype = DType::F32;
        t.shape = {1, 1, 2, 3};
        t.data = f32data({0, 1, 2, 3, 4, 5});
        f.tensors.push_back(t);
        const std::vector<uint8_t> expected = {
            72,  0,   0,   0,  0,  0,  0,  0,  123, 34,  97, 116, 116, 110, 48,  34,  58,  123, 34,  100, 116,
            121, 112, 101, 34, 58, 34, 70, 51, 50,  34,  44, 34,  115, 104, 97,  112, 101, 34,  58,  91,  49,
            44,  49,  44,  50, 44, 51, 93, 44, 34,  100, 97, 116, 97,  95,  111, 102, 102, 115, 101, 116, 115,
            34,  58,  91,  48, 44, 50, 52, 93, 125, 125, 32, 32,  32,  32,  32,  32,  32,  0,   0,   0,   0,
            0,   0,   128, 63, 0,  0,  0,  64, 0,   0,   64, 64,  0,   0,   128, 64,  0,   0,   160, 64};
        QVERIFY(serializeSafetensors(f) == expected);
    }
}

void TestSafetensors::libraryOrder()
{
    // The gpt2_tiny inputs (I64 token ids first, then F32 parameters arg2_1 .. arg27_1 in
    // placeholder order) come out with the I64 tensors first and the F32 ones by name, so
    // "arg10_1" sorts before "arg2_1", as the reference writer does.
    fs::path p = kPytorch / "gpt2_tiny.inputs.safetensors";
    FXL_REQUIRE_CORPUS(p);
    SafeTensorsFile f = readSafetensors(p.string());
    std::vector<uint8_t> lib = serializeSafetensors(f);
    SafeTensorsFile back = parseSafetensors(lib.data(), lib.size());
    QCOMPARE(back.tensors[0].name, std::string("arg0_1"));
    QCOMPARE(back.tensors[1].name, std::string("arg1_1"));
    QVERIFY(back.tensors[0].dtype == DType::I64 && back.tensors[1].dtype == DType::I64);
    QCOMPARE(back.tensors[2].name, std::string("arg10_1"));
    // every tensor starts aligned to its item size in the file
    for (const auto& t : back.tensors) QCOMPARE(t.fileOffset % uint64_t(dtypeItemSize(t.dtype)), uint64_t(0));

    // Mixed dtypes: 8-byte first, then 4, 2, 1; ties by name.
    SafeTensorsFile m;
    m.tensors = {tensor("z", DType::Bool, {3}), tensor("b", DType::F32, {2}), tensor("a", DType::F16, {1}),
                 tensor("c", DType::I64, {1}), tensor("a", DType::F32, {1})};
    m.tensors.back().name = "a32";
    std::vector<uint8_t> out = serializeSafetensors(m);
    SafeTensorsFile mb = parseSafetensors(out.data(), out.size());
    std::vector<std::string> names;
    for (const auto& t : mb.tensors) names.push_back(t.name);
    QCOMPARE(names, (std::vector<std::string>{"c", "a32", "b", "a", "z"}));
    // AsGiven keeps the order
    out = serializeSafetensors(m, TensorOrder::AsGiven);
    mb = parseSafetensors(out.data(), out.size());
    QCOMPARE(mb.tensors[0].name, std::string("z"));
    QCOMPARE(mb.tensors[4].name, std::string("a32"));
}

void TestSafetensors::everyDtypeRoundTrips()
{
    SafeTensorsFile f;
    int n = 0;
    for (int i = 0; i <= int(DType::F4E2M1FNx2); ++i) {
        DType t = DType(i);
        if (dtypeSafetensorsName(t).empty()) continue;
        f.tensors.push_back(tensor("t" + std::string(dtypeSafetensorsName(t)), t, {2, 4}, uint8_t(i)));
        ++n;
    }
    f.tensors.push_back(tensor("scalar", DType::F64, {}));
    f.tensors.push_back(tensor("empty", DType::F32, {0, 5}));
    f.metadata = {{"format", "pt"}, {"quote\"and\\back\nslash", "\x01 \xc3\xa9"}};
    QVERIFY(n >= 20);
    // F4 stores 4-bit values: [2, 4] of them take 4 bytes
    QCOMPARE(f.find("tF4")->data.size(), size_t(4));

    std::vector<uint8_t> bytes = serializeSafetensors(f);
    SafeTensorsFile back = parseSafetensors(bytes.data(), bytes.size());
    QCOMPARE(back.tensors.size(), f.tensors.size());
    QCOMPARE(back.metadata, f.metadata);
    for (const auto& t : f.tensors) {
        const SafeTensor* u = back.find(t.name);
        QVERIFY2(u, t.name.c_str());
        QVERIFY(u->dtype == t.dtype);
        QCOMPARE(u->shape, t.shape);
        QVERIFY(u->data == t.data);
    }
    QCOMPARE(back.find("scalar")->numel(), int64_t(1));
    QCOMPARE(back.find("empty")->numel(), int64_t(0));
    // The header stays valid JSON (escapes included) and 8-aligned.
    uint64_t hn = 0;
    for (int i = 7; i >= 0; --i) hn = (hn << 8) | bytes[size_t(i)];
    QCOMPARE(hn % 8, uint64_t(0));
    nlohmann::json h = rawHeader(bytes);
    QCOMPARE(h["__metadata__"]["quote\"and\\back\nslash"].get<std::string>(), std::string("\x01 \xc3\xa9"));
    QVERIFY(std::string(bytes.begin() + 8, bytes.begin() + 8 + long(hn)).find("\\u0001") != std::string::npos);
    // and a second round trip is stable
    QVERIFY(serializeSafetensors(back) == bytes);
}

void TestSafetensors::malformed_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("expected");

    // A valid base: two F32 tensors, 8 + 16 bytes of data.
    const std::string good =
        R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[2,2],"data_offsets":[8,24]}})";
    auto row = [](const char* name, const std::vector<uint8_t>& b, const char* expected) {
        QTest::newRow(name) << QByteArray(reinterpret_cast<const char*>(b.data()), qsizetype(b.size()))
                            << QString(expected);
    };
    std::vector<uint8_t> base = makeFile(good, 24);
    QVERIFY(parseSafetensors(base.data(), base.size()).tensors.size() == 2);  // the base itself is fine

    row("empty file", {}, "file too small");
    row("truncated in the length", std::vector<uint8_t>(base.begin(), base.begin() + 5), "file too small");
    row("truncated in the header", std::vector<uint8_t>(base.begin(), base.begin() + 40), "larger than the file");
    row("truncated at the data", std::vector<uint8_t>(base.begin(), base.begin() + 8 + long(good.size())), "truncated");
    row("truncated in the data", std::vector<uint8_t>(base.begin(), base.end() - 3), "truncated");
    row("header length past the end", makeFile(good, 24, good.size() + 25), "larger than the file");
    row("header length over the limit", makeFile(good, 24, 100'000'001), "exceeds the limit of 100000000");
    row("header length 2^64-1", makeFile(good, 24, ~uint64_t(0)), "exceeds the limit");
    row("bad JSON", makeFile(R"({"a":{"dtype":"F32","shape":[2],)", 8), "not valid JSON");
    row("JSON then garbage", makeFile(good + "x", 24), "not valid JSON");
    row("not an object", makeFile("[1, 2]  ", 0), "must start with '{'");
    row("leading space", makeFile(" " + good, 24), "must start with '{'");
    row("empty header", makeFile("", 0), "header is empty");
    row("offsets with a hole",
        makeFile(
            R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[2,2],"data_offsets":[12,28]}})",
            28),
        "hole");
    row("first tensor not at 0", makeFile(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})", 12), "hole");
    row("overlapping offsets",
        makeFile(
            R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[2,2],"data_offsets":[4,20]}})",
            20),
        "overlap");
    row("shape/bytes mismatch", makeFile(R"({"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", 8),
        "needs 12 bytes");
    row("dtype/bytes mismatch", makeFile(R"({"a":{"dtype":"F64","shape":[2],"data_offsets":[0,8]}})", 8),
        "needs 16 bytes");
    row("trailing data", makeFile(good, 30), "6 trailing bytes");
    row("unknown dtype", makeFile(R"({"a":{"dtype":"F7","shape":[2],"data_offsets":[0,8]}})", 8), "unknown dtype 'F7'");
    row("dtype not a string", makeFile(R"({"a":{"dtype":4,"shape":[2],"data_offsets":[0,8]}})", 8),
        "dtype must be a string");
    row("negative shape", makeFile(R"({"a":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}})", 8), "negative");
    row("float shape", makeFile(R"({"a":{"dtype":"F32","shape":[2.5],"data_offsets":[0,8]}})", 8), "not an integer");
    row("shape overflow", makeFile(R"({"a":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,8]}})", 8),
        "overflow");
    row("byte count overflow",
        makeFile(R"({"a":{"dtype":"F64","shape":[4611686018427387904],"data_offsets":[0,8]}})", 8), "overflow");
    row("end before begin", makeFile(R"({"a":{"dtype":"F32","shape":[0],"data_offsets":[8,0]}})", 8),
        "end before they begin");
    row("offsets not a pair", makeFile(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8,9]}})", 8),
        "data_offsets must be [begin, end]");
    row("missing data_offsets", makeFile(R"({"a":{"dtype":"F32","shape":[2]}})", 8), "has no data_offsets");
    row("tensor not an object", makeFile(R"({"a":[1,2]})", 0), "must be an object");
    row("duplicate names",
        makeFile(
            R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"a":{"dtype":"F32","shape":[2],"data_offsets":[8,16]}})",
            16),
        "duplicate tensor name 'a'");
    row("duplicate field", makeFile(R"({"a":{"dtype":"F32","dtype":"F32","shape":[2],"data_offsets":[0,8]}})", 8),
        "duplicate field 'dtype'");
    row("metadata value not a string",
        makeFile(R"({"__metadata__":{"k":1},"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", 8),
        "__metadata__ value for key 'k' must be a string");
    row("metadata not an object", makeFile(R"({"__metadata__":"pt"})", 0), "__metadata__ must be an object");
    {
        std::string h = std::string("{\"a\xff\"") + R"(:{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
        row("invalid UTF-8 in header", makeFile(h, 8), "not valid UTF-8 (byte 11)");
        std::string s = std::string("{\"\xed\xa0\x80\"") + R"(:{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
        row("UTF-8 surrogate in header", makeFile(s, 8), "not valid UTF-8 (byte 10)");
    }
}

void TestSafetensors::malformed()
{
    QFETCH(QByteArray, bytes);
    QFETCH(QString, expected);
    const auto* p = reinterpret_cast<const uint8_t*>(bytes.constData());
    try {
        parseSafetensors(p, size_t(bytes.size()), "bad.safetensors");
        QFAIL("no InputError");
    } catch (const InputError& e) {
        QCOMPARE(e.diagnostic().file, std::string("bad.safetensors"));
        QVERIFY2(QString::fromStdString(e.diagnostic().message).contains(expected),
                 (e.diagnostic().message + "  [expected: " + expected.toStdString() + "]").c_str());
    }
    // The file readers give the same error, the header-only one too (it checks the offsets
    // against the file size).
    fs::path dir = tempDir("malformed");
    fs::path f = dir / "bad.safetensors";
    writeBytes(f, std::vector<uint8_t>(p, p + bytes.size()));
    for (int headerOnly = 0; headerOnly < 2; ++headerOnly) {
        try {
            if (headerOnly)
                readSafetensorsHeader(f.string());
            else
                readSafetensors(f.string());
            QFAIL("no InputError from the file reader");
        } catch (const InputError& e) {
            QCOMPARE(e.diagnostic().file, f.string());
            QVERIFY2(QString::fromStdString(e.diagnostic().message).contains(expected), e.what());
        }
    }
    fs::remove_all(dir);
}

void TestSafetensors::garbage()
{
    // Random bytes and random corruptions of a real file: InputError or a valid parse, never
    // anything else.
    const std::vector<uint8_t> real = readBytes(fxltest::testDataPath("pytorch/mlp_gelu.inputs.safetensors"));
    QVERIFY(!real.empty());
    std::mt19937 rng(1234);
    int errors = 0;
    for (int iter = 0; iter < 3000; ++iter) {
        std::vector<uint8_t> b;
        if (iter % 3 == 0 || real.empty()) {
            b.resize(rng() % 200);
            for (auto& c : b) c = uint8_t(rng());
            if (b.size() >= 8 && iter % 2) {  // plausible length so the JSON parser is reached
                auto n = le64(rng() % (b.size() - 7));
                std::copy(n.begin(), n.end(), b.begin());
            }
        } else {
            b = real;
            int flips = 1 + int(rng() % 4);
            for (int k = 0; k < flips; ++k) b[rng() % b.size()] = uint8_t(rng());
            if (iter % 5 == 0) b.resize(rng() % b.size());
        }
        try {
            parseSafetensors(b.data(), b.size());
        } catch (const InputError& e) {
            QVERIFY(!e.diagnostic().message.empty());
            ++errors;
        }
    }
    QVERIFY(errors > 1000);
    try {
        readSafetensors("/nonexistent/dir/x.safetensors");
        QFAIL("no error for a missing file");
    } catch (const InputError& e) {
        QVERIFY(QString::fromStdString(e.diagnostic().message).contains("cannot open"));
    }
    try {
        readSafetensorsHeader(fs::temp_directory_path().string());
        QFAIL("no error for a directory");
    } catch (const InputError& e) {
        QVERIFY(QString::fromStdString(e.diagnostic().message).contains("directory"));
    }
}

void TestSafetensors::writeIsAtomic()
{
    fs::path dir = tempDir("write");
    fs::path target = dir / "out.safetensors";
    SafeTensorsFile f;
    f.tensors = {tensor("w", DType::F32, {3, 2}, 5), tensor("ids", DType::I64, {4}, 9)};
    f.metadata["format"] = "pt";
    writeSafetensors(target.string(), f);
    std::vector<uint8_t> first = readBytes(target);
    QVERIFY(first == serializeSafetensors(f));
    SafeTensorsFile back = readSafetensors(target.string());
    QCOMPARE(back.tensors.size(), size_t(2));
    QCOMPARE(back.tensors[0].name, std::string("ids"));  // I64 before F32

    // overwrite in place
    f.tensors.push_back(tensor("b", DType::BF16, {2}, 1));
    writeSafetensors(target.string(), f, TensorOrder::AsGiven);
    std::vector<uint8_t> second = readBytes(target);
    QVERIFY(second == serializeSafetensors(f, TensorOrder::AsGiven));
    QCOMPARE(readSafetensors(target.string()).tensors[0].name, std::string("w"));

    // failures leave the old file as it was and no temp file behind
    auto onlyTarget = [&] {
        int n = 0;
        for (const auto& e : fs::directory_iterator(dir)) {
            (void)e;
            ++n;
        }
        return n == 1;
    };
    SafeTensorsFile bad = f;
    bad.tensors[0].data.pop_back();  // 23 bytes for 6 floats
    try {
        writeSafetensors(target.string(), bad);
        QFAIL("no error for a tensor whose data do not match its shape");
    } catch (const InputError& e) {
        QCOMPARE(e.diagnostic().file, target.string());
        QVERIFY2(QString::fromStdString(e.diagnostic().message).contains("needs 24 bytes"), e.what());
    }
    QVERIFY(readBytes(target) == second);
    QVERIFY(onlyTarget());
    SafeTensorsFile dup = f;
    dup.tensors[1].name = "w";
    QVERIFY_THROWS_EXCEPTION(InputError, writeSafetensors(target.string(), dup));
    SafeTensorsFile undefinedType = f;
    undefinedType.tensors[0].dtype = DType::Bits16;
    QVERIFY_THROWS_EXCEPTION(InputError, writeSafetensors(target.string(), undefinedType));
    QVERIFY(readBytes(target) == second);
    QVERIFY(onlyTarget());

    // a directory that does not exist: error, nothing created
    fs::path nowhere = dir / "missing" / "x.safetensors";
    try {
        writeSafetensors(nowhere.string(), f);
        QFAIL("no error for a missing directory");
    } catch (const InputError& e) {
        QVERIFY2(QString::fromStdString(e.diagnostic().message).contains("temporary file"), e.what());
    }
    QVERIFY(!fs::exists(dir / "missing"));
    // the target is a directory: rename fails, the temp file is removed
    fs::create_directory(dir / "adir");
    QVERIFY_THROWS_EXCEPTION(InputError, writeSafetensors((dir / "adir").string(), f));
    QVERIFY(fs::is_directory(dir / "adir"));
    int entries = 0;
    for (const auto& e : fs::directory_iterator(dir)) {
        (void)e;
        ++entries;
    }
    QCOMPARE(entries, 2);  // out.safetensors and adir
    fs::remove_all(dir);
}

FXL_TEST_APPLESS_MAIN(TestSafetensors)
}  // namespace test_safetensors
#include "test_safetensors.moc"
