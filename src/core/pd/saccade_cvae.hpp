// The conditional variational autoencoder over saccade velocity profiles that event-synth-PD draws
// saccades from (David-John et al., TVCG 2023, supplement §2.2-4).
//
// A saccade (amplitude A, duration D ms, fitted Gaussian speed profile a, b, c as detect_events gives it)
// becomes a profile x of P values: the speed at the centres tau_j = (j + 1/2) D / P of P equal bins, divided
// by the mean speed 1000 A / D (so a constant-speed saccade is all ones; clamped to [0, kMaxProfileValue]);
// without a fitted profile the speed is constant. The condition c is (ln A, ln D), standardised by the
// training set's means and deviations (stored with the model; A is floored at kMinAmplitude).
//   encoder: [x, c] -> 32 ReLU -> (mu, ln sigma^2) of `latent` independent Normals
//   decoder: [z, c] -> 96 linear -> P values
// Loss per saccade: (|x - x'|^2 + KL(N(mu, sigma^2) || N(0, I))) / P, i.e. the mean squared error plus the
// KL divergence per profile value; Adam (beta 0.9, 0.999, eps 1e-7), mini-batches, Glorot-uniform weights and
// zero biases, reparameterised z = mu + sigma eps. The supplement's settings are the defaults.
// Training draws everything (initial weights, the 75/25 split, batch order, eps) from the given Rng, so a
// seeded Rng makes it reproducible bit for bit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/common/cancel.hpp"
#include "core/noise/random.hpp"

namespace gazepriv::core::pd {

constexpr int kMaxProfileLength = 256;
constexpr double kMaxProfileValue = 20;
constexpr double kMinAmplitude = 1e-6;
constexpr std::size_t kMinTrainingSaccades = 8; // at least 2 in the validation quarter

// A saccade as the model sees it.
struct SaccadeShape {
    double amplitude = 0;       // finite, >= 0
    double duration_ms = 0;     // finite, > 0
    double a = 0, b = 0, c = 0; // all NaN (no profile) or all finite with c > 0
};

// Throws InvalidArgument naming `what` and the offending value.
void validate_saccade(const SaccadeShape& s, const char* what);

// The normalised speed profile of P values (see the header comment).
void speed_profile(const SaccadeShape& s, int length, double* out);

struct CvaeSettings {
    int profile_length = 32; // P
    int encoder_hidden = 32;
    int latent = 64;
    int decoder_hidden = 96;
    double learning_rate = 0.01;
    int batch_size = 100;
    int epochs = 20;
    double validation_share = 0.25;
};
void validate(const CvaeSettings& settings);

struct TrainingReport {
    std::size_t training = 0, validation = 0; // saccades in each part
    std::vector<double> epoch_loss;           // mean training loss of each epoch
    double validation_loss = 0;               // mean loss on the validation part after training
};

class SaccadeCvae {
public:
    // Trains on n saccades (validated; n >= kMinTrainingSaccades).
    static SaccadeCvae train(const SaccadeShape* saccades, std::size_t n, const CvaeSettings& settings,
                             Rng& rng, const CancelCheck& cancel, TrainingReport& report);

    // The blob: magic, version, sizes, normalisation, weights, FNV-1a checksum. Loading checks every size
    // against the limits, the exact length, the checksum and that every number is finite: CorruptData
    // otherwise.
    std::vector<std::uint8_t> serialize() const;
    static SaccadeCvae deserialize(const std::uint8_t* bytes, std::size_t size);

    int profile_length() const { return settings_.profile_length; }
    int latent() const { return settings_.latent; }
    const CvaeSettings& settings() const { return settings_; }

    // The encoder's Normals for one saccade: mu and sigma, `latent` values each.
    void encode(const SaccadeShape& s, double* mu, double* sigma) const;
    // The decoder's profile (P values) for latent z under the saccade's condition.
    void decode(const double* z, const SaccadeShape& condition, double* profile) const;
    // The mean loss over the saccades, eps drawn from rng (as in training).
    double loss(const SaccadeShape* saccades, std::size_t n, Rng& rng) const;

    struct Impl;
    SaccadeCvae(SaccadeCvae&&) noexcept;
    SaccadeCvae& operator=(SaccadeCvae&&) noexcept;
    ~SaccadeCvae();

private:
    explicit SaccadeCvae(const CvaeSettings& settings);
    CvaeSettings settings_;
    std::unique_ptr<Impl> impl_;
};

// A standard normal variate from the exact discrete Gaussian sampler (grid 2^-24).
double standard_normal(Rng& rng);

} // namespace gazepriv::core::pd

#include "core/common/no_postgres.hpp"
