// print(gm.graph) reader. The listing prints argument values with str(), so strings lose
// their quotes: each value is first read as text (listing_value), then typed from the
// operator schema of its position (listing_types); whatever had to be guessed is counted and
// reported (listing_losses).
#include "core/formats/fx/graph_listing.hpp"

#include <optional>
#include <unordered_map>
#include <vector>

#include "core/formats/fx/listing_losses.hpp"
#include "core/formats/fx/listing_types.hpp"
#include "core/formats/fx/listing_value.hpp"
#include "core/formats/fx/py_lexer.hpp"
#include "core/formats/fx/torch_names.hpp"
#include "core/ir/tensor_meta.hpp"
#include "core/ops/op_registry.hpp"
#include "core/util/strings.hpp"

namespace fxl {

namespace {

struct TextLine
{
    int line = 0;  // 1-based
    std::string_view text;  // the whole line (no newline)
    size_t indent = 0;  // bytes of blanks before the first character
};

// The lines of the text, '\r' of CRLF endings dropped.
std::vector<TextLine> splitLines(std::string_view text)
{
    std::vector<TextLine> lines;
    size_t p = 0;
    int lineNo = 0;
    while (p < text.size()) {
        size_t nl = text.find('\n', p);
        if (nl == std::string_view::npos) nl = text.size();
        std::string_view l = text.substr(p, nl - p);
        if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
        ++lineNo;
        size_t indent = 0;
        while (indent < l.size() && (l[indent] == ' ' || l[indent] == '\t')) ++indent;
        lines.push_back({lineNo, l, indent});
        p = nl + 1;
    }
    return lines;
}

// The lines of a listing by role.
struct ListingLines
{
    bool sawHeader = false;
    std::vector<std::string> headerParams;  // graph(<names>)
    std::string returnType;  // "graph() -> T:"
    std::vector<const TextLine*> nodeLines;  // "%name : ..."
    const TextLine* returnLine = nullptr;
};

class ListingParser : public ListingLineScanner
{
public:
    ListingParser(std::string_view text, const std::string& file, DiagnosticList& diags)
        : ListingLineScanner(file)
        , text_(text)
        , diags_(diags)
        , registry_(OpRegistry::instance())
    { }

    Graph parse();

private:
    std::string_view text_;
    DiagnosticList& diags_;
    const OpRegistry& registry_;
    Graph g_;
    std::unordered_map<std::string, NodeId> ids_;  // names of all node lines (bound before any is read)
    ListingLosses losses_;
    int oldUsersLine_ = 0;  // line of the first "[#users=N]"
    std::string returnType_;
    // the user count each node line printed, checked once all nodes are read
    struct PrintedUsers
    {
        NodeId id;
        int64_t users;
        int line;
    };
    std::vector<PrintedUsers> printedUsers_;
    std::vector<int> lineOf_;  // by NodeId

    void loss(ListingLoss kind, int line, int col, std::string_view example)
    {
        losses_.record(kind, line, col, example);
    }

    // --- the lines

    ListingLines classifyLines(const std::vector<TextLine>& lines);
    void readHeader(const TextLine& l, std::string_view body, ListingLines& out);
    void bindNames(const ListingLines& lines);
    void parseNodeLine(const TextLine& nl);
    int64_t parseUsersAndType(Node& n);
    void parseTarget(Node& n);
    void parseDefault(Node& n);
    void parseReturn(const TextLine& nl);
    void parseCallArgs(Node& n, const OpInfo* op);
    void checkWhatWasLost();

    // --- typing

    Arg toArg(const ListingValue& v, const SchemaType& t, bool reprMode);
    Arg bareToArg(const ListingValue& v, const SchemaType& t, bool reprMode);
    std::optional<Arg> reprFormToArg(const ListingValue& v);
    Arg resolveRef(const ListingValue& v);
};

// ==================================================================== typing

Arg ListingParser::resolveRef(const ListingValue& v)
{
    auto it = ids_.find(v.text);
    if (it == ids_.end())
        throw InputError(file_, v.line, v.col, "undefined node '%" + v.text + "' (no line defines it)");
    return Arg::ofNode(it->second);
}

Arg ListingParser::toArg(const ListingValue& v, const SchemaType& t, bool reprMode)
{
    switch (v.kind) {
    case ListingValue::Kind::NodeRef: return resolveRef(v);
    case ListingValue::Kind::Quoted: return Arg::ofStr(v.text);
    case ListingValue::Kind::List:
    case ListingValue::Kind::Tuple: {
        // a tuple/list in a slot that is not a list type: its items are untyped
        SchemaType itemType = t.list ? elementType(t) : SchemaType{};
        std::vector<Arg> items;
        items.reserve(v.items.size());
        for (const auto& x : v.items) items.push_back(toArg(x, itemType, reprMode));
        return v.kind == ListingValue::Kind::List ? Arg::ofList(std::move(items)) : Arg::ofTuple(std::move(items));
    }
    case ListingValue::Kind::Dict: {
        Arg d;
        d.kind = Arg::Kind::Dict;
        for (const auto& [k, x] : v.dict) {
            Arg key;
            if (k.kind == ListingValue::Kind::Bare && !reprMode) {
                key = Arg::ofStr(k.text);
                loss(ListingLoss::DictKeys, k.line, k.col, k.text);
            } else {
                key = toArg(k, SchemaType{}, reprMode);
            }
            d.dict.emplace_back(std::move(key), toArg(x, SchemaType{}, reprMode));
        }
        return d;
    }
    case ListingValue::Kind::Bare: return bareToArg(v, t, reprMode);
    }
    return Arg::none();
}

Arg ListingParser::bareToArg(const ListingValue& v, const SchemaType& t, bool reprMode)
{
    const std::string& s = v.text;
    // a list-typed slot may hold a single value ("int[1] dim" given as 1)
    const TypeCategory category = t.list ? t.element : t.category;
    const bool optional = t.list ? t.elementOptional || t.optional : t.optional;

    if (category == TypeCategory::Str && !reprMode) {
        if (s == "None" && optional) return Arg::none();
        loss(ListingLoss::StrBySchema, v.line, v.col, s);
        return Arg::ofStr(s);
    }
    // spellings that are the same for every type
    std::optional<Arg> literal;
    if (s == "None")
        literal = Arg::none();
    else if (s == "True")
        literal = Arg::ofBool(true);
    else if (s == "False")
        literal = Arg::ofBool(false);
    else if (auto i = parseIntText(s))
        literal = Arg::ofInt(*i);
    else if (auto f = parseFloatText(s))
        literal = Arg::ofFloat(*f);
    if (literal) {
        if (category == TypeCategory::Unknown && !reprMode) loss(ListingLoss::BySpelling, v.line, v.col, s);
        return *literal;
    }
    if (isIntSpelling(s)) {  // beyond int64: Python ints are unbounded
        loss(ListingLoss::RawValue, v.line, v.col, s);
        return Arg::ofRaw(s);
    }
    if (auto arg = reprFormToArg(v)) return std::move(*arg);
    if (category == TypeCategory::Device) {
        if (!looksLikeDevice(s))
            loss(ListingLoss::TypeMismatch, v.line, v.col, s + " for " + t.text);
        else
            loss(ListingLoss::DeviceBySchema, v.line, v.col, s);
        return Arg::ofDevice(s);
    }
    if (category == TypeCategory::OpOverload) return Arg::ofOp(s);
    if (reprMode) {
        // strings are quoted here: a bare name that is a node is a node ref
        if (auto it = ids_.find(s); it != ids_.end()) return Arg::ofNode(it->second);
        loss(ListingLoss::RawValue, v.line, v.col, s);
        return Arg::ofRaw(s);
    }
    if (looksLikeOpOverload(s) && registry_.find(s)) {
        loss(ListingLoss::OpValue, v.line, v.col, s);
        return Arg::ofOp(s);
    }
    if (category == TypeCategory::Unknown) {
        if (looksLikeDevice(s)) {
            loss(ListingLoss::GuessedDevice, v.line, v.col, s);
            return Arg::ofDevice(s);
        }
        loss(ListingLoss::GuessedString, v.line, v.col, s);
        return Arg::ofStr(s);
    }
    // the schema wants something else (a number, a dtype, a tensor): keep the text
    loss(ListingLoss::TypeMismatch, v.line, v.col, s + " for " + t.text);
    return Arg::ofRaw(s);
}

// Values whose spelling says what they are: torch dtypes, layouts, memory formats and ops,
// Ellipsis, and the repr forms that print the same under str() (inside containers, slices).
std::optional<Arg> ListingParser::reprFormToArg(const ListingValue& v)
{
    const std::string& s = v.text;
    if (auto value = torchValueFromName(s)) return value;
    if (s == "Ellipsis" || s == "...") {
        Arg e;
        e.kind = Arg::Kind::Ellipsis;
        return e;
    }
    if (s.starts_with("device(") && s.back() == ')') {
        // device(type='cuda', index=0)
        std::string_view inside = std::string_view(s).substr(7, s.size() - 8);
        size_t q1 = inside.find('\'');
        size_t q2 = q1 == std::string_view::npos ? q1 : inside.find('\'', q1 + 1);
        if (q2 != std::string_view::npos) {
            std::string device(inside.substr(q1 + 1, q2 - q1 - 1));
            size_t index = inside.find("index=");
            if (index != std::string_view::npos) {
                std::string_view digits = trim(inside.substr(index + 6));
                if (auto n = parseIntText(digits)) device += ":" + std::to_string(*n);
            }
            return Arg::ofDevice(device);
        }
    }
    if (s.starts_with("slice(") && s.back() == ')') {
        // str(slice) is its repr: parse the inside in repr mode
        std::string_view savedLine = cur_;
        size_t savedPos = pos_;
        cur_ = std::string_view(s);
        pos_ = 5;
        ListingValue inner = parseValue(true);
        cur_ = savedLine;
        pos_ = savedPos;
        if (inner.kind == ListingValue::Kind::Tuple && inner.items.size() == 3) {
            Arg slice;
            slice.kind = Arg::Kind::Slice;
            for (auto& x : inner.items) {
                ListingValue item = x;
                item.line = v.line;
                item.col = v.col;
                slice.items.push_back(toArg(item, SchemaType{}, true));
            }
            return slice;
        }
    }
    return std::nullopt;
}

// ==================================================================== lines

// "(args = (...), kwargs = {...})" after the target.
void ListingParser::parseCallArgs(Node& n, const OpInfo* op)
{
    expect("(args = ", "after the target");
    skipSpaces();
    if (pos_ >= cur_.size() || cur_[pos_] != '(') fail(pos_, "expected '(' starting the args tuple");
    ListingValue args = parseValue(false);
    expect(", kwargs = ", "after the args tuple");
    skipSpaces();
    if (pos_ >= cur_.size() || cur_[pos_] != '{') fail(pos_, "expected '{' starting the kwargs dict");
    ListingValue kwargs = parseValue(false);
    expect(")", "closing the call");
    skipSpaces();
    if (pos_ != cur_.size()) fail(pos_, "unexpected text after the call: '" + clipForMessage(cur_.substr(pos_)) + "'");

    std::vector<const SchemaArg*> positional;
    if (op)
        for (const auto& a : op->schema.args)
            if (!a.kwargOnly) positional.push_back(&a);
    for (size_t i = 0; i < args.items.size(); ++i) {
        SchemaType t;
        if (i < positional.size())
            t = schemaType(positional[i]->type);
        else if (op && !op->schema.varargs)
            loss(ListingLoss::BeyondSchema, args.items[i].line, args.items[i].col,
                 "%" + n.name + " argument " + std::to_string(i));
        n.args.push_back(toArg(args.items[i], t, false));
    }
    for (const auto& [k, x] : kwargs.dict) {
        SchemaType t;
        if (op) {
            int index = op->schema.argIndex(k.text);
            if (index >= 0) {
                t = schemaType(op->schema.args[static_cast<size_t>(index)].type);
            } else if (!op->schema.varargs) {
                loss(ListingLoss::BeyondSchema, k.line, k.col, "%" + n.name + " keyword " + k.text);
            }
        }
        for (const auto& kv : n.kwargs)
            if (kv.first == k.text)
                throw InputError(file_, k.line, k.col, "keyword argument '" + k.text + "' repeated");
        n.kwargs.emplace_back(k.text, toArg(x, t, false));
    }
}

void ListingParser::parseNodeLine(const TextLine& nl)
{
    line_ = nl.line;
    cur_ = nl.text;
    pos_ = nl.indent + 1;  // after '%'
    size_t nameEnd = pos_;
    while (nameEnd < cur_.size() && isPythonIdentifierChar(cur_[nameEnd])) ++nameEnd;
    Node n;
    n.name = std::string(cur_.substr(pos_, nameEnd - pos_));
    pos_ = nameEnd;
    expect(" : ", "after the node name");
    const int64_t users = parseUsersAndType(n);

    size_t opEnd = pos_;
    while (opEnd < cur_.size() && isPythonIdentifierChar(cur_[opEnd])) ++opEnd;
    std::string_view opName = cur_.substr(pos_, opEnd - pos_);
    auto op = nodeOpFromName(opName);
    if (!op || *op == NodeOp::Output)
        fail(pos_,
             "expected a node op (placeholder, call_function, call_method, call_module, get_attr), found '"
                 + clipForMessage(opName) + "'");
    n.op = *op;
    pos_ = opEnd;
    expect("[target=", "after the node op");
    parseTarget(n);
    NodeId id = g_.addNode(std::move(n));
    printedUsers_.push_back({id, users, line_});
}

// "[optional type ][num_users=N] = " (PyTorch >= 2.1) or "[#users=N]"; returns N.
int64_t ListingParser::parseUsersAndType(Node& n)
{
    size_t users = cur_.find("[num_users=", pos_);
    size_t usersLength = 11;
    size_t old = cur_.find("[#users=", pos_);
    if (old != std::string_view::npos && (users == std::string_view::npos || old < users)) {
        users = old;
        usersLength = 8;
        if (!oldUsersLine_) oldUsersLine_ = line_;
    }
    if (users == std::string_view::npos) fail(pos_, "expected '[num_users=N]' after the node name");
    const size_t typeAt = pos_;
    std::string_view type = trim(cur_.substr(pos_, users - pos_));
    pos_ = users + usersLength;
    size_t digitsEnd = pos_;
    while (digitsEnd < cur_.size() && cur_[digitsEnd] >= '0' && cur_[digitsEnd] <= '9') ++digitsEnd;
    auto printedUsers = parseIntText(cur_.substr(pos_, digitsEnd - pos_));
    if (!printedUsers) fail(pos_, "expected the number of users");
    pos_ = digitsEnd;
    expect("] = ", "after the number of users");

    if (type.empty()) return *printedUsers;
    if (type.size() > 9 && type.starts_with("Tensor \"") && type.back() == '"') {
        try {
            n.val = parseAnnotation(type.substr(8, type.size() - 9));
        } catch (const InputError& e) {
            diags_.warn(file_, line_, static_cast<int>(typeAt) + 9,
                        "cannot read the tensor annotation (" + e.diagnostic().message + "); kept as text");
            n.typeExpr = std::string(type);
        } catch (const std::exception& e) {
            diags_.warn(file_, line_, static_cast<int>(typeAt) + 9,
                        std::string("cannot read the tensor annotation (") + e.what() + "); kept as text");
            n.typeExpr = std::string(type);
        }
    } else {
        n.typeExpr = std::string(type);
    }
    return *printedUsers;
}

// After "[target=": the target, then "(default=...)" of a placeholder or the call's arguments.
void ListingParser::parseTarget(Node& n)
{
    const size_t targetAt = pos_;
    if (n.op == NodeOp::Placeholder || n.op == NodeOp::GetAttr) {
        size_t end;
        size_t def = n.op == NodeOp::Placeholder ? cur_.find("](default=", pos_) : std::string_view::npos;
        if (def != std::string_view::npos) {
            end = def;
        } else {
            size_t last = cur_.find_last_not_of(" \t");
            if (last == std::string_view::npos || last < pos_ || cur_[last] != ']')
                fail(cur_.size(), "expected ']' closing the target");
            end = last;
        }
        n.target = std::string(cur_.substr(pos_, end - pos_));
        if (n.target.empty()) fail(targetAt, "empty target");
        pos_ = end + 1;
        if (def != std::string_view::npos) parseDefault(n);
        skipSpaces();
        if (pos_ != cur_.size())
            fail(pos_, "unexpected text after the target: '" + clipForMessage(cur_.substr(pos_)) + "'");
        return;
    }
    size_t end = cur_.find("](args = ", pos_);
    if (end == std::string_view::npos) fail(pos_, "expected '](args = ...' after the target");
    std::string_view target = cur_.substr(pos_, end - pos_);
    if (target.empty()) fail(targetAt, "empty target");
    pos_ = end + 1;
    const OpInfo* info = nullptr;
    if (n.op == NodeOp::CallFunction) {
        if (target.starts_with("torch.ops.")) target.remove_prefix(10);
        n.target = std::string(target);
        // very old FX printed builtins as "<built-in function add>"
        if (n.target.starts_with("<built-in function ") && n.target.back() == '>') {
            std::string function = n.target.substr(19, n.target.size() - 20);
            n.target = (function == "getattr" ? "builtins." : "operator.") + function;
        }
        info = registry_.find(n.target);
        if (!info) loss(ListingLoss::UnknownTarget, line_, static_cast<int>(targetAt) + 1, n.target);
    } else {
        n.target = std::string(target);
    }
    parseCallArgs(n, info);
}

// "(default=...)" of a placeholder, at the '(' .
void ListingParser::parseDefault(Node& n)
{
    expect("(default=", "");
    // str() of the default: containers print their repr (strings quoted); a top-level
    // value prints bare, commas and all, up to the closing ')' of the line
    std::string_view rest = trim(cur_.substr(pos_));
    if (rest.empty() || rest.back() != ')') fail(cur_.size(), "expected ')' closing the default value");
    const char first = rest.front();
    if (first == '(' || first == '[' || first == '{') {
        ListingValue value = parseValue(true);
        skipSpaces();
        expect(")", "closing the default value");
        n.placeholderDefault = toArg(value, SchemaType{}, true);
        return;
    }
    ListingValue value;
    value.kind = ListingValue::Kind::Bare;
    value.line = line_;
    value.col = static_cast<int>(pos_) + 1;
    value.text = std::string(rest.substr(0, rest.size() - 1));
    if (value.text.empty()) fail(pos_, "expected a default value");
    pos_ = cur_.size();
    n.placeholderDefault = toArg(value, SchemaType{}, false);
}

void ListingParser::parseReturn(const TextLine& nl)
{
    line_ = nl.line;
    cur_ = nl.text;
    pos_ = nl.indent + 6;  // after "return"
    Node n;
    n.op = NodeOp::Output;
    n.target = "output";
    n.name = g_.uniqueName("output");
    skipSpaces();
    if (pos_ >= cur_.size()) {
        n.args.push_back(Arg::none());
    } else {
        // str(node.args[0]): a Python repr (nodes by bare name, strings quoted)
        ListingValue v = parseValue(true);
        skipSpaces();
        if (pos_ != cur_.size())
            fail(pos_, "unexpected text after the returned value: '" + clipForMessage(cur_.substr(pos_)) + "'");
        // a single returned node prints as its bare name
        n.args.push_back(toArg(v, SchemaType{}, true));
    }
    g_.outputIsList = n.args[0].kind == Arg::Kind::List;
    if (!returnType_.empty()) n.typeExpr = returnType_;
    g_.addNode(std::move(n));
}

// "graph(<placeholder names>)[ -> <type>]:"
void ListingParser::readHeader(const TextLine& l, std::string_view body, ListingLines& out)
{
    out.sawHeader = true;
    size_t close = body.find(')');
    if (close == std::string_view::npos || body.back() != ':')
        fail(l.indent, "expected 'graph(...):' as the first line");
    std::string_view params = body.substr(6, close - 6);
    std::string_view after = trim(body.substr(close + 1, body.size() - close - 2));
    if (after.starts_with("->"))
        out.returnType = std::string(trim(after.substr(2)));
    else if (!after.empty())
        fail(l.indent + close + 1, "expected ':' or ' -> type:' after 'graph(...)'");
    size_t begin = 0;
    while (begin < params.size()) {
        size_t end = params.find(',', begin);
        if (end == std::string_view::npos) end = params.size();
        std::string_view param = trim(params.substr(begin, end - begin));
        size_t k = 0;
        while (k < param.size() && isPythonIdentifierChar(param[k])) ++k;
        if (k > 0) out.headerParams.emplace_back(param.substr(0, k));
        begin = end + 1;
    }
}

ListingLines ListingParser::classifyLines(const std::vector<TextLine>& lines)
{
    ListingLines out;
    bool sawAny = false;
    for (const auto& l : lines) {
        std::string_view body = trim(l.text);
        if (body.empty()) continue;
        line_ = l.line;
        if (out.returnLine) fail(l.indent, "unexpected text after the return line: '" + clipForMessage(body) + "'");
        if (!sawAny) {
            sawAny = true;
            if (body.starts_with("graph(")) {
                readHeader(l, body, out);
                continue;
            }
        }
        if (body[0] == '%') {
            out.nodeLines.push_back(&l);
        } else if (body == "return" || body.starts_with("return ")) {
            out.returnLine = &l;
        } else {
            fail(l.indent,
                 std::string(out.sawHeader ? "" : "expected 'graph():' (the first line of print(gm.graph)) or ")
                     + "expected a node line '%name : [num_users=N] = op[target=...]...' or 'return ...', "
                       "found '"
                     + clipForMessage(body) + "'");
        }
    }
    if (!sawAny) throw InputError(file_, 1, 1, "empty input: expected a graph listing ('graph():' then node lines)");
    if (!out.sawHeader) diags_.note(file_, 1, 1, "no 'graph():' header: read the node lines as a graph listing");
    return out;
}

// Every name first, so that refs resolve wherever they point.
void ListingParser::bindNames(const ListingLines& lines)
{
    for (const auto& name : lines.headerParams) {
        if (ids_.count(name)) throw InputError(file_, 1, 1, "duplicate placeholder '" + name + "' in the header");
        ids_.emplace(name, static_cast<NodeId>(ids_.size()));
    }
    std::unordered_map<std::string, int> definedAt;
    for (const TextLine* nl : lines.nodeLines) {
        size_t begin = nl->indent + 1, end = begin;
        while (end < nl->text.size() && isPythonIdentifierChar(nl->text[end])) ++end;
        if (end == begin)
            throw InputError(file_, nl->line, static_cast<int>(begin) + 1, "expected a node name after '%'");
        std::string name(nl->text.substr(begin, end - begin));
        if (!ids_.emplace(name, static_cast<NodeId>(ids_.size())).second)
            throw InputError(file_, nl->line, static_cast<int>(begin),
                             "duplicate node name '%" + name + "'"
                                 + (definedAt.count(name)
                                        ? " (first defined on line " + std::to_string(definedAt[name]) + ")"
                                        : std::string(" (a header placeholder)")));
        definedAt.emplace(name, nl->line);
    }
}

// What the listing could not say: value meta, nested graphs, user counts that do not add up.
void ListingParser::checkWhatWasLost()
{
    int noMeta = 0, total = 0, firstNoMetaLine = 0;
    std::string firstNoMetaName;
    for (NodeId id : g_.order()) {
        const Node& n = g_.node(id);
        if (n.op == NodeOp::Output) continue;
        ++total;
        if (n.val.kind == ValueMeta::Kind::Unknown) {
            if (noMeta++ == 0) {
                firstNoMetaLine = lineOf_[static_cast<size_t>(id)];
                firstNoMetaName = n.name;
            }
        } else {
            g_.signature = SignatureStyle::Flat;
        }
        if (n.op == NodeOp::CallFunction && n.target.starts_with("higher_order.")) {
            auto checkArg = [&](const Arg& a) {
                a.forEachNode([&](NodeId ref) {
                    if (g_.alive(ref) && g_.node(ref).op == NodeOp::GetAttr)
                        loss(ListingLoss::NestedGraphs, lineOf_[static_cast<size_t>(ref)], 1, g_.node(ref).target);
                });
            };
            for (const auto& a : n.args) checkArg(a);
            for (const auto& kv : n.kwargs) checkArg(kv.second);
        }
    }
    if (noMeta > 0) losses_.recordNoMeta(noMeta, total, firstNoMetaLine, "%" + firstNoMetaName);
    for (const auto& printed : printedUsers_) {
        const Node& n = g_.node(printed.id);
        if (static_cast<int64_t>(n.users.size()) != printed.users)
            loss(ListingLoss::UsersMismatch, printed.line, 1,
                 "%" + n.name + " prints " + std::to_string(printed.users) + ", used by "
                     + std::to_string(n.users.size()));
    }
}

Graph ListingParser::parse()
{
    const std::vector<TextLine> lines = splitLines(text_);
    const ListingLines roles = classifyLines(lines);
    returnType_ = roles.returnType;
    bindNames(roles);

    for (const auto& name : roles.headerParams) {
        Node n;
        n.name = name;
        n.op = NodeOp::Placeholder;
        n.target = name;
        g_.addNode(std::move(n));
        lineOf_.push_back(1);
    }
    if (!roles.headerParams.empty())
        diags_.note(file_, 1, 1,
                    std::to_string(roles.headerParams.size()) + " placeholder(s) read from the 'graph(...)' header");
    for (const TextLine* nl : roles.nodeLines) {
        parseNodeLine(*nl);
        lineOf_.push_back(nl->line);
    }
    if (roles.returnLine) {
        parseReturn(*roles.returnLine);
        lineOf_.push_back(roles.returnLine->line);
    } else {
        diags_.warn(file_, 0, 0, "no 'return' line: the graph has no output node");
    }

    g_.signature = SignatureStyle::Plain;
    g_.rebuildUsers();
    checkWhatWasLost();
    if (oldUsersLine_) diags_.note(file_, oldUsersLine_, 0, "old listing format '[#users=N]' (PyTorch before 2.1)");
    losses_.report(diags_, file_);
    return std::move(g_);
}

}  // namespace

Graph parseGraphListing(std::string_view text, const std::string& file, DiagnosticList& diags)
{
    return ListingParser(text, file, diags).parse();
}

bool looksLikeGraphListing(std::string_view head)
{
    size_t p = 0;
    while (p < head.size()) {
        size_t nl = head.find('\n', p);
        if (nl == std::string_view::npos) nl = head.size();
        std::string_view l = trim(head.substr(p, nl - p));
        p = nl + 1;
        if (l.empty()) continue;
        if (l.starts_with("graph(")) {
            size_t close = l.find(')');
            return close != std::string_view::npos && l.back() == ':'
                && (nl >= head.size() || head.find('%', nl) != std::string_view::npos
                    || head.find("return", nl) != std::string_view::npos);
        }
        return l[0] == '%' && l.find(" : ") != std::string_view::npos
            && (l.find("[num_users=") != std::string_view::npos || l.find("[#users=") != std::string_view::npos);
    }
    return false;
}

}  // namespace fxl
