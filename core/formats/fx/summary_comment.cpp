#include "core/formats/fx/summary_comment.hpp"

#include <cctype>
#include <charconv>
#include <optional>

#include "core/formats/fx/python_literal.hpp"
#include "core/util/strings.hpp"

namespace fxl {

namespace {

// ==================================================================== reading

// End of a balanced {...} starting at s[0] == '{', quotes respected; npos when unbalanced.
size_t balancedBraceEnd(std::string_view s)
{
    int depth = 0;
    for (size_t i = 0; i < s.size(); ++i) {
        char c = s[i];
        if (c == '\'' || c == '"') {
            for (++i; i < s.size() && s[i] != c; ++i)
                if (s[i] == '\\') ++i;
            continue;
        }
        if (c == '{' || c == '[' || c == '(')
            ++depth;
        else if (c == '}' || c == ']' || c == ')') {
            if (--depth == 0) return i + 1;
        }
    }
    return std::string_view::npos;
}

void parseFileSummary(std::string_view s, SourceLocation& loc)
{
    // "{file}:{lineno} in {function}, code: {code}"  or (pre 2.4) "{file}:{lineno}, code: {code}"
    for (size_t colon = s.find(':'); colon != std::string_view::npos; colon = s.find(':', colon + 1)) {
        size_t digitsEnd = colon + 1;
        while (digitsEnd < s.size() && s[digitsEnd] >= '0' && s[digitsEnd] <= '9') ++digitsEnd;
        if (digitsEnd == colon + 1) continue;
        std::string_view rest = s.substr(digitsEnd);
        std::string_view function, code;
        if (rest.starts_with(" in ")) {
            size_t codeAt = rest.find(", code: ");
            if (codeAt == std::string_view::npos) continue;
            function = rest.substr(4, codeAt - 4);
            if (function.empty() || function.find(' ') != std::string_view::npos) continue;
            code = rest.substr(codeAt + 8);
        } else if (rest.starts_with(", code: ")) {
            code = rest.substr(8);
        } else if (rest.starts_with(", code:") && rest.size() == 7) {
            code = {};
        } else {
            continue;
        }
        loc.file = std::string(s.substr(0, colon));
        int line = 0;
        std::from_chars(s.data() + colon + 1, s.data() + digitsEnd, line);
        loc.line = line;
        loc.function = std::string(function);
        loc.code = std::string(code);
        return;
    }
    loc.file = std::string(s);  // unknown shape: kept whole
    loc.line = 0;
    loc.function.clear();
    loc.code.clear();
}

// Length of the policy name ("PREFER_RECOMPUTE") at the start of `s`.
size_t policyNameLength(std::string_view s)
{
    size_t k = 0;
    while (k < s.size() && (std::isupper(static_cast<unsigned char>(s[k])) || s[k] == '_')) ++k;
    return k;
}

// The readers of the tags: each takes the text after its tag and returns the text after the
// tag's value, or nullopt when the value is malformed (the comment is then no summary).

std::optional<std::string_view> readAutogradBackward(std::string_view value, NodeMeta& m)
{
    std::string_view v = trimLeft(value);
    if (v.starts_with("True")) {
        m.autogradBackward = true;
        v.remove_prefix(4);
    } else if (v.starts_with("False")) {
        m.autogradBackward = false;
        v.remove_prefix(5);
    } else {
        return std::nullopt;
    }
    if (!v.empty() && v.front() == ',') v.remove_prefix(1);
    return v;
}

std::optional<std::string_view> readAnnotation(std::string_view value, NodeMeta& m)
{
    std::string_view v = trimLeft(value);
    if (v.empty() || v.front() != '{') return std::nullopt;
    size_t end = balancedBraceEnd(v);
    if (end == std::string_view::npos) return std::nullopt;
    std::string_view dict = v.substr(0, end);
    // a dict that is not a plain literal is kept as its text
    m.custom = jsonFromPythonLiteral(dict).value_or(nlohmann::json(std::string(dict)));
    return v.substr(end);
}

std::optional<std::string_view> readRecompute(std::string_view value, NodeMeta& m)
{
    std::string_view v = trimLeft(value);
    size_t length = policyNameLength(v);
    auto policy = recomputeFromName(v.substr(0, length));
    if (!policy) return std::nullopt;
    m.recompute = *policy;
    return v.substr(length);
}

// fxlens' own annotation: "{'module': 'layers.0.attn', 'phase': 'backward', 'provenance': 'mm',
// 'chunk': {...}}": what passes and verbs read that PyTorch's comments do not carry.
std::optional<std::string_view> readFxlens(std::string_view value, NodeMeta& m)
{
    std::string_view v = trimLeft(value);
    if (v.empty() || v.front() != '{') return std::nullopt;
    size_t end = balancedBraceEnd(v);
    if (end == std::string_view::npos) return std::nullopt;
    const std::optional<nlohmann::json> dict = jsonFromPythonLiteral(v.substr(0, end));
    if (!dict || !dict->is_object()) return std::nullopt;
    for (const auto& [key, field] : dict->items()) {
        if (key == "module" && field.is_string()) {
            m.modulePath = field.get<std::string>();
        } else if (key == "phase" && field.is_string()) {
            const std::optional<Phase> p = phaseFromName(field.get_ref<const std::string&>());
            if (!p) return std::nullopt;
            m.phase = *p;
        } else if (key == "provenance" && field.is_string()) {
            m.provenance = field.get<std::string>();
        } else if (key == "chunk") {
            m.chunk = field;
        } else {
            return std::nullopt;  // a field this version does not know: not our comment
        }
    }
    return v.substr(end);
}

// "6" or "6 - MUST_SAVE"
std::optional<std::string_view> readAcGraphId(std::string_view value, NodeMeta& m)
{
    std::string_view v = trimLeft(value);
    int id = 0;
    auto r = std::from_chars(v.data(), v.data() + v.size(), id);
    if (r.ec != std::errc()) return std::nullopt;
    m.acGraphId = id;
    v = trimLeft(v.substr(static_cast<size_t>(r.ptr - v.data())));
    if (v.starts_with("- ")) {
        v = trimLeft(v.substr(2));
        size_t length = policyNameLength(v);
        if (auto policy = recomputeFromName(v.substr(0, length))) {
            m.recompute = *policy;
            v = v.substr(length);
        }
    }
    return v;
}

// Skips blanks and the '#', '{', '}' that separate the tags.
std::string_view skipSeparators(std::string_view s)
{
    for (;;) {
        s = trimLeft(s);
        if (s.empty() || (s.front() != '#' && s.front() != '{' && s.front() != '}')) return s;
        s.remove_prefix(1);
    }
}

}  // namespace

bool parseSummaryComment(std::string_view comment, NodeMeta& m)
{
    std::string_view rest = comment;
    bool recognized = false;
    for (;;) {
        rest = skipSeparators(rest);
        if (rest.empty()) break;
        if (rest.starts_with("File: ")) {
            parseFileSummary(trimRight(rest.substr(6)), m.source);
            return true;
        }
        if (rest.starts_with("No stacktrace found for following nodes")) {
            m.source = {};
            return true;
        }
        std::optional<std::string_view> afterTag;
        if (rest.starts_with("fxlens:")) {
            afterTag = readFxlens(rest.substr(7), m);
        } else if (rest.starts_with("autograd_backward:")) {
            afterTag = readAutogradBackward(rest.substr(18), m);
        } else if (rest.starts_with("Annotation:")) {
            afterTag = readAnnotation(rest.substr(11), m);
        } else if (rest.starts_with("recompute:")) {
            afterTag = readRecompute(rest.substr(10), m);
        } else if (rest.starts_with("ac_graph_id:")) {
            afterTag = readAcGraphId(rest.substr(12), m);
        } else {
            if (!recognized) return false;
            // unknown words between the tags and the stack summary ("Backward of forward node:"): skipped
            size_t space = rest.find(' ');
            if (space == std::string_view::npos) break;
            rest.remove_prefix(space + 1);
            continue;
        }
        if (!afterTag) return false;
        recognized = true;
        rest = *afterTag;
    }
    return recognized;
}

// ==================================================================== writing

std::string formatSummaryComment(const NodeMeta& m, std::string_view nodeName)
{
    std::string s = "#";
    nlohmann::json own = nlohmann::json::object();
    if (!m.modulePath.empty()) own["module"] = m.modulePath;
    if (m.phase != Phase::Unknown) own["phase"] = std::string(phaseName(m.phase));
    if (!m.provenance.empty() && m.provenance != nodeName) own["provenance"] = m.provenance;
    if (!m.chunk.is_null()) own["chunk"] = m.chunk;
    if (!own.empty()) s += " fxlens: " + pythonReprOfJson(own) + " #";
    if (m.autogradBackward) {
        s += " autograd_backward: ";
        s += *m.autogradBackward ? "True" : "False";
        s += " #";
    }
    if (!m.custom.is_null()) {
        s += " Annotation: ";
        s += m.custom.is_string() ? m.custom.get<std::string>() : pythonReprOfJson(m.custom);
    }
    // the tags follow one another after a blank, as PyTorch prints them ("# Annotation: {...}
    // recompute: MUST_SAVE File: ...", "# ac_graph_id: 6 - PREFER_RECOMPUTE File: ...")
    if (m.recompute != Recompute::None && m.acGraphId) {
        s += " ac_graph_id: " + std::to_string(*m.acGraphId) + " - " + std::string(recomputeName(m.recompute));
    } else if (m.recompute != Recompute::None) {
        s += " recompute: " + std::string(recomputeName(m.recompute));
    } else if (m.acGraphId) {
        s += " ac_graph_id: " + std::to_string(*m.acGraphId);
    }
    if (m.source.empty()) {
        s += " No stacktrace found for following nodes";
    } else if (m.source.line == 0 && m.source.function.empty() && m.source.code.empty()) {
        s += " File: " + m.source.file;
    } else if (m.source.function.empty()) {
        s += " File: " + m.source.file + ":" + std::to_string(m.source.line) + ", code: " + m.source.code;
    } else {
        s += " File: " + m.source.file + ":" + std::to_string(m.source.line) + " in " + m.source.function
            + ", code: " + m.source.code;
    }
    return s;
}

}  // namespace fxl
