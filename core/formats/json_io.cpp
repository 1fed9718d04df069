// fxlens JSON: the public entry points. The writers are in json_graph_writer, the checking
// reader in json_graph_reader, and the helpers that give its errors a line and column (nlohmann's
// DOM has no positions, so a failing JSON pointer is looked up again in the text) in
// json_text_position.
#include "core/formats/json_io.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "core/formats/json_graph_reader.hpp"
#include "core/formats/json_graph_writer.hpp"
#include "core/formats/json_text_position.hpp"
#include "core/ir/diagnostics.hpp"
#include "core/util/content_hash.hpp"

namespace fxl {

using nlohmann::json;

json graphToJson(const Graph& g)
{
    json doc;
    doc["format"] = kJsonFormatName;
    doc["version"] = kJsonFormatVersion;
    doc["graph"] = graphObjectToJson(g);
    if (g.embeddedConstants) doc["constants"] = constantsToJson(g);
    return doc;
}

Graph graphFromJson(const json& j, const std::string& file)
{
    try {
        return readGraphDocument(j);
    } catch (const JsonContentError& e) {
        throw InputError(file, 0, 0, (e.pointer.empty() ? std::string("(document)") : e.pointer) + ": " + e.message);
    }
}

uint64_t graphContentHash(const Graph& g)
{
    try {
        return hashBytes(formatGraphJson(g));
    } catch (const std::invalid_argument&) {
        return 0;
    }
}

std::string formatGraphJson(const Graph& g)
{
    std::string out;
    appendGraphJsonText(out, g);
    return out;
}

void writeGraphJson(const std::string& path, const Graph& g)
{
    namespace fs = std::filesystem;
    const std::string text = formatGraphJson(g);
    std::random_device rd;
    const fs::path target(path);
    const fs::path tmp =
        target.parent_path() / (target.filename().string() + ".tmp" + std::to_string(rd()) + std::to_string(rd()));
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out) throw std::runtime_error("cannot write " + tmp.string() + ": " + std::strerror(errno));
        out.write(text.data(), static_cast<std::streamsize>(text.size()));
        out.flush();
        if (!out) {
            std::error_code ec;
            fs::remove(tmp, ec);
            throw std::runtime_error("cannot write " + tmp.string() + ": " + std::strerror(errno));
        }
    }
    std::error_code ec;
    fs::rename(tmp, target, ec);
    if (ec) {
        std::error_code ignored;
        fs::remove(tmp, ignored);
        throw std::runtime_error("cannot replace " + path + ": " + ec.message());
    }
}

Graph parseGraphJson(std::string_view text, const std::string& file)
{
    json doc;
    try {
        doc = json::parse(text.begin(), text.end());
    } catch (const json::parse_error& e) {
        // e.byte is 1-based: the offset just past the character that failed.
        size_t off = e.byte > 0 ? e.byte - 1 : 0;
        TextPosition at = textPositionAt(text, off);
        throw InputError(file, at.line, at.column, "invalid JSON: " + jsonParseErrorText(e.what()));
    } catch (const json::exception& e) {
        // e.g. out_of_range 406 "number overflow parsing '1e999'": no offset given, so find
        // the quoted text in the input
        std::string what = e.what();
        size_t q1 = what.find('\''), q2 = what.rfind('\'');
        size_t at = std::string::npos;
        if (q1 != std::string::npos && q2 > q1 + 1) at = text.find(what.substr(q1 + 1, q2 - q1 - 1));
        TextPosition position = at == std::string::npos ? TextPosition{1, 1} : textPositionAt(text, at);
        throw InputError(file, position.line, position.column, "invalid JSON: " + jsonParseErrorText(what));
    }
    if (auto duplicate = findDuplicateJsonKey(text)) {
        TextPosition at = textPositionAt(text, duplicate->first);
        throw InputError(file, at.line, at.column, "duplicate key \"" + duplicate->second + "\" in a JSON object");
    }
    try {
        return readGraphDocument(doc);
    } catch (const JsonContentError& e) {
        TextPosition at = textPositionAt(text, locateJsonPointer(text, e.pointer));
        throw InputError(file, at.line, at.column,
                         (e.pointer.empty() ? std::string("(document)") : e.pointer) + ": " + e.message);
    }
}

Graph readGraphJson(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path, 0, 0, std::string("cannot open the file: ") + std::strerror(errno));
    std::ostringstream ss;
    ss << in.rdbuf();
    if (in.bad()) throw InputError(path, 0, 0, "cannot read the file");
    return parseGraphJson(ss.str(), path);
}

bool looksLikeGraphJson(std::string_view head)
{
    size_t i = head.find_first_not_of(" \t\r\n");
    if (i == std::string_view::npos || head[i] != '{') return false;
    return head.find("\"fxlens-graph\"") != std::string_view::npos;
}

}  // namespace fxl
