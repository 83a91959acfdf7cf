// The one source of randomness for every mechanism: a cryptographically secure generator.
//
// Construction: AES-256 in counter mode produces a keystream block of 32 + 16384 bytes; the first 32
// bytes become the next key and the rest is handed out ("fast key erasure", Bernstein 2017), so a
// later memory disclosure cannot reconstruct noise that was already drawn. The generator is keyed
// from the kernel (getrandom) in production and mixes fresh kernel entropy into the key every
// 2^30 output bytes. For reproducible tests it can instead be keyed from a 64-bit seed and a stream
// number (SHA-256 of both); the glue only allows that through the superuser-only gazepriv.seed.
//
// Not thread-safe (PostgreSQL backends are single-threaded); one instance per process.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

struct evp_cipher_ctx_st; // OpenSSL's EVP_CIPHER_CTX, kept out of this header

namespace gazepriv::core {

class Rng {
public:
    struct KernelEntropy {};

    explicit Rng(KernelEntropy);
    Rng(std::uint64_t seed, std::uint64_t stream);
    // Keyed from a secret of at least 32 bytes: the same secret gives the same stream (as a seed does), but
    // nobody without the secret can predict it. Served-once releases draw from their dataset's secret, so
    // that computing one again (after a rolled-back transaction) gives the identical release.
    struct Secret {
        const unsigned char* bytes;
        std::size_t size;
    };
    explicit Rng(Secret secret);
    ~Rng();
    Rng(const Rng&) = delete;
    Rng& operator=(const Rng&) = delete;

    // Re-key in place (drops any buffered output).
    void key_from_kernel();
    void key_from_seed(std::uint64_t seed, std::uint64_t stream);
    void key_from_secret(Secret secret);
    bool seeded() const { return seeded_; }

    std::uint64_t next_u64() {
        if (pos_ == kWords)
            refill();
        unsigned char* at = block_ + kKeyBytes + 8 * pos_++;
        std::uint64_t v;
        std::memcpy(&v, at, sizeof v);
        std::memset(at, 0, sizeof v); // erase what was handed out
        return v;
    }
    bool next_bit() {
        if (bits_left_ == 0) {
            bit_pool_ = next_u64();
            bits_left_ = 64;
        }
        bool b = bit_pool_ & 1u;
        bit_pool_ >>= 1;
        --bits_left_;
        return b;
    }
    // Exactly uniform on {0, ..., n-1}; n >= 1 (Lemire's multiply-and-reject).
    std::uint64_t uniform_below(std::uint64_t n);
    // Uniform on the 2^53 multiples of 2^-53 in [0, 1).
    double uniform01() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }

private:
    static constexpr std::size_t kKeyBytes = 32;
    static constexpr std::size_t kWords = 2048; // 16 KiB of output per refill
    static constexpr std::uint64_t kReseedBytes = std::uint64_t{1} << 30;

    void set_key(const unsigned char key[32]);
    void refill();
    void mix_kernel_entropy();

    evp_cipher_ctx_st* ctx_ = nullptr;
    unsigned char key_[kKeyBytes];
    // Keystream: the first kKeyBytes are the next key (erased at once), the rest is output.
    alignas(64) unsigned char block_[kKeyBytes + kWords * 8];
    std::size_t pos_ = kWords;
    std::uint64_t bit_pool_ = 0;
    int bits_left_ = 0;
    std::uint64_t bytes_since_reseed_ = 0;
    bool seeded_ = false;
};

// Reads n bytes of kernel entropy (getrandom, falling back to /dev/urandom); throws on failure.
void kernel_entropy(unsigned char* out, std::size_t n);

} // namespace gazepriv::core

#include "core/common/no_postgres.hpp"
