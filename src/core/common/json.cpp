#include "core/common/json.hpp"

#include <cmath>
#include <cstdio>

#include "core/common/errors.hpp"
#include "core/common/validate.hpp"

namespace gazepriv::core {

std::string JsonObject::quote(const std::string& text) {
    std::string out = "\"";
    for (unsigned char c : text) {
        switch (c) {
        case '"':
            out += "\\\"";
            break;
        case '\\':
            out += "\\\\";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\r':
            out += "\\r";
            break;
        case '\t':
            out += "\\t";
            break;
        default:
            if (c < 0x20) {
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\u%04x", c);
                out += buf;
            } else {
                out += static_cast<char>(c);
            }
        }
    }
    return out + "\"";
}

void JsonObject::key(const char* name) {
    if (!body_.empty())
        body_ += ", ";
    body_ += quote(name) + ": ";
}

void JsonObject::add(const char* name, const std::string& value) {
    key(name);
    body_ += quote(value);
}

void JsonObject::add(const char* name, const char* value) {
    if (value == nullptr) {
        add_null(name);
        return;
    }
    add(name, std::string(value));
}

void JsonObject::add(const char* name, double value) {
    key(name);
    body_ += json_number(value);
}

void JsonObject::add(const char* name, bool value) {
    key(name);
    body_ += value ? "true" : "false";
}

void JsonObject::add_raw(const char* name, const std::string& encoded) {
    key(name);
    body_ += encoded;
}

void JsonObject::add(const char* name, std::int64_t value) {
    key(name);
    body_ += std::to_string(value);
}

void JsonObject::add_null(const char* name) {
    key(name);
    body_ += "null";
}

std::string json_number(double value) {
    return std::isfinite(value) ? format_number(value) : JsonObject::quote(format_number(value));
}

namespace {

template <typename T, typename Encode> std::string join(const std::vector<T>& values, Encode encode) {
    std::string out = "[";
    for (std::size_t i = 0; i < values.size(); ++i)
        out += (i ? ", " : "") + encode(values[i]);
    return out + "]";
}

} // namespace

std::string json_array(const std::vector<double>& values) {
    return join(values, [](double v) { return json_number(v); });
}

std::string json_array(const std::vector<std::size_t>& values) {
    return join(values, [](std::size_t v) { return std::to_string(v); });
}

std::string json_array(const std::vector<std::string>& encoded) {
    return join(encoded, [](const std::string& v) { return v; });
}

} // namespace gazepriv::core
