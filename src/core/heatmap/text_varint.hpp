// Variable-length unsigned integers written directly as printable characters, for the heatmap state's
// serialized form. Citus ships aggregate states between nodes as text (the type's output and input
// functions); a binary form wrapped in base64 costs an encoding pass on every worker, a decoding pass on the
// coordinator and a third more bytes. Here every character carries 5 bits of the number and one
// continuation bit (64 symbols, the base64url alphabet), least significant group first: numbers below 32
// take one character, below 1024 two. The same bytes serve as the flat varlena, the text and the binary
// form.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/common/errors.hpp"

namespace gazepriv::core::text_varint {

inline constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
inline constexpr unsigned kMore = 32;  // the continuation bit of a symbol
inline constexpr int kMaxSymbols = 13; // 13 x 5 bits >= 64 bits

// Symbol of every byte (0..63), 0xff for bytes outside the alphabet.
inline constexpr std::array<std::uint8_t, 256> kSymbols = [] {
    std::array<std::uint8_t, 256> t{};
    for (auto& v : t)
        v = 0xff;
    for (unsigned i = 0; i < 64; ++i)
        t[static_cast<unsigned char>(kAlphabet[i])] = static_cast<std::uint8_t>(i);
    return t;
}();

class Writer {
public:
    void reserve(std::size_t n) { out_.reserve(n); }
    void number(std::uint64_t v) {
        while (v >= kMore) {
            out_.push_back(static_cast<std::uint8_t>(kAlphabet[(v & 31u) | kMore]));
            v >>= 5;
        }
        out_.push_back(static_cast<std::uint8_t>(kAlphabet[v]));
    }
    // Exactly `symbols` characters of 5 bits each, without continuation bits (a fixed-width trailer).
    void fixed(std::uint64_t v, int symbols) {
        for (int i = 0; i < symbols; ++i, v >>= 5)
            out_.push_back(static_cast<std::uint8_t>(kAlphabet[v & 31u]));
    }
    void literal(const char* s) {
        for (; *s != '\0'; ++s)
            out_.push_back(static_cast<std::uint8_t>(*s));
    }
    std::vector<std::uint8_t>& data() { return out_; }

private:
    std::vector<std::uint8_t> out_;
};

[[noreturn]] inline void corrupt(const std::string& why) {
    throw CorruptData("invalid heatmap state: " + why);
}

class Reader {
public:
    Reader(const std::uint8_t* p, std::size_t n) : p_(p), end_(p + n) {}
    std::size_t left() const { return static_cast<std::size_t>(end_ - p_); }
    std::uint64_t number() {
        std::uint64_t v = 0;
        for (int shift = 0; shift < 5 * kMaxSymbols; shift += 5) {
            if (p_ == end_)
                corrupt("it ends early");
            const unsigned s = kSymbols[*p_++];
            if (s == 0xff)
                corrupt("it contains a character outside its alphabet");
            if (shift == 60 && s > 15)
                corrupt("a number overflows 64 bits");
            v |= std::uint64_t{s & 31u} << shift;
            if ((s & kMore) == 0)
                return v;
        }
        corrupt("a number is longer than 13 characters");
    }
    std::uint64_t fixed(int symbols) {
        if (left() < static_cast<std::size_t>(symbols))
            corrupt("it ends early");
        std::uint64_t v = 0;
        for (int i = 0; i < symbols; ++i) {
            const unsigned s = kSymbols[*p_++];
            if (s > 31)
                corrupt("its checksum is malformed");
            v |= std::uint64_t{s} << (5 * i);
        }
        return v;
    }
    bool literal(const char* s) {
        for (; *s != '\0'; ++s, ++p_)
            if (p_ == end_ || *p_ != static_cast<std::uint8_t>(*s))
                return false;
        return true;
    }

private:
    const std::uint8_t* p_;
    const std::uint8_t* end_;
};

} // namespace gazepriv::core::text_varint

#include "core/common/no_postgres.hpp"
