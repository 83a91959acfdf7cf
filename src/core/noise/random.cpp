#include "core/noise/random.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/random.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "core/common/errors.hpp"

namespace gazepriv::core {

void kernel_entropy(unsigned char* out, std::size_t n) {
    std::size_t got = 0;
    while (got < n) {
        ssize_t r = getrandom(out + got, n - got, 0);
        if (r > 0) {
            got += static_cast<std::size_t>(r);
            continue;
        }
        if (r < 0 && errno == EINTR)
            continue;
        break;
    }
    if (got == n)
        return;
    int fd = ::open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        throw InternalError("could not read kernel entropy");
    while (got < n) {
        ssize_t r = ::read(fd, out + got, n - got);
        if (r > 0)
            got += static_cast<std::size_t>(r);
        else if (!(r < 0 && errno == EINTR))
            break;
    }
    ::close(fd);
    if (got != n)
        throw InternalError("could not read kernel entropy");
}

namespace {

EVP_CIPHER_CTX* new_ctx() {
    EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
    if (ctx == nullptr || EVP_EncryptInit_ex(ctx, EVP_aes_256_ctr(), nullptr, nullptr, nullptr) != 1) {
        EVP_CIPHER_CTX_free(ctx);
        throw InternalError("could not initialise AES-256-CTR");
    }
    return ctx;
}

} // namespace

Rng::Rng(KernelEntropy) : ctx_(new_ctx()) {
    key_from_kernel();
}

Rng::Rng(std::uint64_t seed, std::uint64_t stream) : ctx_(new_ctx()) {
    key_from_seed(seed, stream);
}

Rng::Rng(Secret secret) : ctx_(new_ctx()) {
    key_from_secret(secret);
}

Rng::~Rng() {
    OPENSSL_cleanse(key_, sizeof key_);
    OPENSSL_cleanse(block_, sizeof block_);
    EVP_CIPHER_CTX_free(ctx_);
}

void Rng::set_key(const unsigned char key[32]) {
    std::memcpy(key_, key, sizeof key_);
    pos_ = kWords;
    bits_left_ = 0;
    bit_pool_ = 0;
    bytes_since_reseed_ = 0;
}

void Rng::key_from_kernel() {
    unsigned char key[32];
    kernel_entropy(key, sizeof key);
    set_key(key);
    OPENSSL_cleanse(key, sizeof key);
    seeded_ = false;
}

void Rng::key_from_seed(std::uint64_t seed, std::uint64_t stream) {
    unsigned char material[32] = "gazepriv.seed v1";
    for (int i = 0; i < 8; ++i) {
        material[16 + i] = static_cast<unsigned char>(seed >> (8 * i));
        material[24 + i] = static_cast<unsigned char>(stream >> (8 * i));
    }
    unsigned char key[32];
    unsigned int len = 0;
    if (EVP_Digest(material, sizeof material, key, &len, EVP_sha256(), nullptr) != 1 || len != 32)
        throw InternalError("could not derive the seeded key");
    set_key(key);
    seeded_ = true;
}

void Rng::key_from_secret(Secret secret) {
    static constexpr unsigned char kDomain[] = "gazepriv.secret v1"; // never the key of a seed
    if (secret.size < kKeyBytes)
        throw InvalidArgument("a generator's secret must have at least 32 bytes");
    unsigned char key[32];
    unsigned int len = 0;
    EVP_MD_CTX* md = EVP_MD_CTX_new();
    const bool ok = md != nullptr && EVP_DigestInit_ex(md, EVP_sha256(), nullptr) == 1 &&
                    EVP_DigestUpdate(md, kDomain, sizeof kDomain) == 1 &&
                    EVP_DigestUpdate(md, secret.bytes, secret.size) == 1 &&
                    EVP_DigestFinal_ex(md, key, &len) == 1 && len == 32;
    EVP_MD_CTX_free(md);
    if (!ok)
        throw InternalError("could not derive the key of a secret");
    set_key(key);
    OPENSSL_cleanse(key, sizeof key);
    seeded_ = true; // deterministic: never re-mixed with kernel entropy
}

void Rng::mix_kernel_entropy() {
    unsigned char fresh[32];
    kernel_entropy(fresh, sizeof fresh);
    for (std::size_t i = 0; i < sizeof key_; ++i)
        key_[i] ^= fresh[i];
    OPENSSL_cleanse(fresh, sizeof fresh);
    bytes_since_reseed_ = 0;
}

void Rng::refill() {
    if (!seeded_ && bytes_since_reseed_ >= kReseedBytes)
        mix_kernel_entropy();
    static const unsigned char zero_iv[16] = {0};
    std::memset(block_, 0, sizeof block_);
    int out_len = 0;
    if (EVP_EncryptInit_ex(ctx_, nullptr, nullptr, key_, zero_iv) != 1 ||
        EVP_EncryptUpdate(ctx_, block_, &out_len, block_, static_cast<int>(sizeof block_)) != 1 ||
        out_len != static_cast<int>(sizeof block_))
        throw InternalError("AES-256-CTR keystream generation failed");
    std::memcpy(key_, block_, kKeyBytes); // the next key; never handed out
    OPENSSL_cleanse(block_, kKeyBytes);
    pos_ = 0;
    bytes_since_reseed_ += kWords * 8;
}

std::uint64_t Rng::uniform_below(std::uint64_t n) {
    if (n == 0)
        throw InternalError("uniform_below(0)");
    unsigned __int128 m = static_cast<unsigned __int128>(next_u64()) * n;
    std::uint64_t low = static_cast<std::uint64_t>(m);
    if (low < n) {
        const std::uint64_t threshold = (0 - n) % n; // 2^64 mod n
        while (low < threshold) {
            m = static_cast<unsigned __int128>(next_u64()) * n;
            low = static_cast<std::uint64_t>(m);
        }
    }
    return static_cast<std::uint64_t>(m >> 64);
}

} // namespace gazepriv::core
