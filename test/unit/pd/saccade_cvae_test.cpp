// The saccade C-VAE of event-synth-PD: training lowers the loss, is reproducible under one seed, and the
// stored blob round-trips exactly while corrupt or truncated blobs are refused (CorruptData, never a crash).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/common/errors.hpp"
#include "core/pd/saccade_cvae.hpp"

using namespace gazepriv::core;
using namespace gazepriv::core::pd;

namespace {

// Saccades following the main sequence: duration grows with amplitude, a Gaussian speed profile whose
// integral over the duration is the amplitude, peak a little before the middle.
std::vector<SaccadeShape> main_sequence(std::size_t n, std::uint64_t seed) {
    Rng rng(seed, 1);
    std::vector<SaccadeShape> out(n);
    for (SaccadeShape& s : out) {
        s.amplitude = 1 + 19 * rng.uniform01();
        s.duration_ms = 20 + 2.2 * s.amplitude + 5 * rng.uniform01();
        s.b = s.duration_ms * (0.35 + 0.2 * rng.uniform01());
        s.c = s.duration_ms / (5 + 2 * rng.uniform01());
        s.a = 1000 * s.amplitude / (s.c * std::sqrt(2 * M_PI));
    }
    return out;
}

CvaeSettings small_settings() {
    CvaeSettings s; // the paper's network, fewer epochs to keep the test quick
    s.epochs = 8;
    return s;
}

} // namespace

TEST(SaccadeCvae, SpeedProfileIsNormalisedByTheMeanSpeed) {
    SaccadeShape constant{10, 40, NAN, NAN, NAN};
    double profile[16];
    speed_profile(constant, 16, profile);
    for (double v : profile)
        EXPECT_DOUBLE_EQ(v, 1);
    SaccadeShape gaussian{10, 40, 0, 20, 5};
    gaussian.a = 1000 * 10 / (5 * std::sqrt(2 * M_PI));
    speed_profile(gaussian, 16, profile);
    double mean = 0;
    for (double v : profile)
        mean += v / 16;
    EXPECT_NEAR(mean, 1, 1e-3); // the whole Gaussian lies inside the duration
    EXPECT_GT(profile[7], profile[0]);
}

TEST(SaccadeCvae, TrainingLowersTheLoss) {
    const std::vector<SaccadeShape> data = main_sequence(600, 3);
    Rng rng(7, 0);
    TrainingReport report;
    const SaccadeCvae model =
        SaccadeCvae::train(data.data(), data.size(), small_settings(), rng, CancelCheck(), report);
    EXPECT_EQ(report.training, 450u);
    EXPECT_EQ(report.validation, 150u);
    ASSERT_EQ(report.epoch_loss.size(), 8u);
    EXPECT_LT(report.epoch_loss.back(), 0.5 * report.epoch_loss.front());
    EXPECT_TRUE(std::isfinite(report.validation_loss));
    EXPECT_LT(report.validation_loss, report.epoch_loss.front());
    // The decoder reproduces a profile's shape from its encoding's mean: better than the all-ones guess.
    std::vector<double> mu(64), sigma(64), decoded(32), truth(32);
    double error = 0, baseline = 0;
    for (std::size_t i = 0; i < 50; ++i) {
        model.encode(data[i], mu.data(), sigma.data());
        model.decode(mu.data(), data[i], decoded.data());
        speed_profile(data[i], 32, truth.data());
        for (int j = 0; j < 32; ++j) {
            error += (decoded[j] - truth[j]) * (decoded[j] - truth[j]);
            baseline += (1 - truth[j]) * (1 - truth[j]);
        }
    }
    EXPECT_LT(error, 0.5 * baseline);
}

TEST(SaccadeCvae, TrainingIsDeterministicUnderOneSeed) {
    const std::vector<SaccadeShape> data = main_sequence(200, 4);
    auto blob = [&](std::uint64_t seed) {
        Rng rng(seed, 0);
        TrainingReport report;
        return SaccadeCvae::train(data.data(), data.size(), small_settings(), rng, CancelCheck(), report)
            .serialize();
    };
    EXPECT_EQ(blob(11), blob(11));
    EXPECT_NE(blob(11), blob(12));
}

TEST(SaccadeCvae, BlobRoundTripsExactly) {
    const std::vector<SaccadeShape> data = main_sequence(100, 5);
    Rng rng(1, 0);
    TrainingReport report;
    const SaccadeCvae model =
        SaccadeCvae::train(data.data(), data.size(), small_settings(), rng, CancelCheck(), report);
    const std::vector<std::uint8_t> blob = model.serialize();
    const SaccadeCvae loaded = SaccadeCvae::deserialize(blob.data(), blob.size());
    EXPECT_EQ(loaded.serialize(), blob);
    EXPECT_EQ(loaded.latent(), 64);
    EXPECT_EQ(loaded.profile_length(), 32);
    std::vector<double> mu1(64), s1(64), mu2(64), s2(64);
    model.encode(data[0], mu1.data(), s1.data());
    loaded.encode(data[0], mu2.data(), s2.data());
    EXPECT_EQ(mu1, mu2);
    EXPECT_EQ(s1, s2);
}

TEST(SaccadeCvae, CorruptOrTruncatedBlobsAreRefused) {
    const std::vector<SaccadeShape> data = main_sequence(40, 6);
    Rng rng(2, 0);
    TrainingReport report;
    CvaeSettings settings = small_settings();
    settings.epochs = 1;
    const std::vector<std::uint8_t> blob =
        SaccadeCvae::train(data.data(), data.size(), settings, rng, CancelCheck(), report).serialize();
    auto refused = [](std::vector<std::uint8_t> bytes) {
        try {
            SaccadeCvae::deserialize(bytes.data(), bytes.size());
        } catch (const CorruptData&) {
            return true;
        }
        return false;
    };
    EXPECT_TRUE(refused({}));
    EXPECT_TRUE(refused({blob.begin(), blob.begin() + 7}));
    EXPECT_TRUE(refused({blob.begin(), blob.begin() + 30}));
    EXPECT_TRUE(refused({blob.begin(), blob.end() - 1}));
    std::vector<std::uint8_t> longer = blob;
    longer.push_back(0);
    EXPECT_TRUE(refused(longer));
    for (std::size_t at : {std::size_t{0}, std::size_t{9}, std::size_t{13}, std::size_t{100}, blob.size() / 2,
                           blob.size() - 1}) {
        std::vector<std::uint8_t> flipped = blob;
        flipped[at] ^= 0x40;
        EXPECT_TRUE(refused(flipped)) << "byte " << at;
    }
    // A forged blob with a valid checksum but huge sizes is refused before anything is allocated.
    std::vector<std::uint8_t> forged(blob.begin(), blob.begin() + 12);
    for (int i = 0; i < 6; ++i)
        for (std::uint8_t b : {0xff, 0xff, 0xff, 0x7f})
            forged.push_back(b);
    forged.resize(forged.size() + 48, 0);
    std::uint64_t h = 1469598103934665603ull;
    for (std::uint8_t b : forged) {
        h ^= b;
        h *= 1099511628211ull;
    }
    for (int i = 0; i < 8; ++i)
        forged.push_back(static_cast<std::uint8_t>(h >> (8 * i)));
    EXPECT_TRUE(refused(forged));
}

TEST(SaccadeCvae, BadInputIsRefusedNamingTheValue) {
    std::vector<SaccadeShape> data = main_sequence(20, 7);
    Rng rng(3, 0);
    TrainingReport report;
    data[4].duration_ms = 0;
    try {
        SaccadeCvae::train(data.data(), data.size(), small_settings(), rng, CancelCheck(), report);
        FAIL();
    } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find("saccade 5: duration must be positive"), std::string::npos);
    }
    data[4].duration_ms = 30;
    data[2].a = NAN;
    EXPECT_THROW(SaccadeCvae::train(data.data(), data.size(), small_settings(), rng, CancelCheck(), report),
                 InvalidArgument);
    EXPECT_THROW(SaccadeCvae::train(data.data(), 5, small_settings(), rng, CancelCheck(), report),
                 InvalidArgument);
    CvaeSettings bad = small_settings();
    bad.learning_rate = NAN;
    EXPECT_THROW(validate(bad), InvalidArgument);
    bad = small_settings();
    bad.profile_length = 100000;
    EXPECT_THROW(validate(bad), InvalidArgument);
}
