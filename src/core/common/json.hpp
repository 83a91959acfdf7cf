// A minimal JSON object writer for cost records (ReleaseCost::parameters_json): keys in insertion order,
// strings escaped per RFC 8259, numbers in their shortest round-trip form. Every cost record's parameters
// are written with it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gazepriv::core {

class JsonObject {
public:
    void add(const char* key, const std::string& value);
    void add(const char* key, const char* value); // nullptr: null
    void add(const char* key, double value);      // non-finite: its name as a string ("Infinity")
    void add(const char* key, std::int64_t value);
    void add(const char* key, std::int32_t value) { add(key, static_cast<std::int64_t>(value)); }
    void add(const char* key, std::size_t value) { add(key, static_cast<std::int64_t>(value)); }
    void add(const char* key, bool value);
    void add_null(const char* key);
    void add_raw(const char* key, const std::string& encoded); // an already encoded value (an array)
    std::string str() const { return body_.empty() ? "{}" : "{" + body_ + "}"; }

    static std::string quote(const std::string& text);

private:
    void key(const char* name);
    std::string body_;
};

// A number in JSON: the shortest round-trip form; a non-finite one as a string ("Infinity", "NaN").
std::string json_number(double value);

// Arrays of numbers, and of already encoded values.
std::string json_array(const std::vector<double>& values);
std::string json_array(const std::vector<std::size_t>& values);
std::string json_array(const std::vector<std::string>& encoded);

} // namespace gazepriv::core

#include "core/common/no_postgres.hpp"
