// A minimal JSON object writer for cost records (ReleaseCost::parameters_json): keys in insertion order,
// strings escaped per RFC 8259, numbers in their shortest round-trip form. Values must be finite.
#pragma once

#include <cstdint>
#include <string>

namespace gazepriv::core {

class JsonObject {
public:
    void add(const char* key, const std::string& value);
    void add(const char* key, const char* value) { add(key, std::string(value)); }
    void add(const char* key, double value);
    void add(const char* key, std::int64_t value);
    void add(const char* key, std::int32_t value) { add(key, static_cast<std::int64_t>(value)); }
    void add_null(const char* key);
    std::string str() const { return body_.empty() ? "{}" : "{" + body_ + "}"; }

    static std::string quote(const std::string& text);

private:
    void key(const char* name);
    std::string body_;
};

} // namespace gazepriv::core

#include "core/no_postgres.hpp"
