#include "core/json.hpp"

#include <cmath>
#include <cstdio>

#include "core/errors.hpp"
#include "core/validate.hpp"

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

void JsonObject::add(const char* name, double value) {
    if (!std::isfinite(value))
        throw InternalError(std::string("JSON value ") + name + " is not finite");
    key(name);
    body_ += format_number(value);
}

void JsonObject::add(const char* name, std::int64_t value) {
    key(name);
    body_ += std::to_string(value);
}

void JsonObject::add_null(const char* name) {
    key(name);
    body_ += "null";
}

} // namespace gazepriv::core
