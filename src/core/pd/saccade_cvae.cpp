#include "core/pd/saccade_cvae.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <string>

#include "core/common/errors.hpp"
#include "core/common/validate.hpp"
#include "core/noise/noise.hpp"

namespace gazepriv::core::pd {

using Matrix = Eigen::MatrixXd;

namespace {

constexpr int kConditions = 2; // ln amplitude, ln duration
constexpr int kMaxLayer = 1024;
constexpr int kMaxEpochs = 1000;
constexpr int kMaxBatch = 100000;
constexpr char kMagic[8] = {'G', 'Z', 'P', 'C', 'V', 'A', 'E', '\0'};
constexpr std::uint32_t kVersion = 1;
constexpr double kMaxLogVariance = 20; // e^20: the variance an untrained encoder may reach without overflow

// The parameters in a fixed order (the blob's order): encoder W1 b1, Wmu bmu, Wlv blv; decoder W3 b3, W4 b4.
enum Param { W1, B1, Wmu, Bmu, Wlv, Blv, W3, B3, W4, B4, kParams };

std::uint64_t fnv1a(const std::uint8_t* bytes, std::size_t n) {
    std::uint64_t h = 1469598103934665603ull;
    for (std::size_t i = 0; i < n; ++i) {
        h ^= bytes[i];
        h *= 1099511628211ull;
    }
    return h;
}

} // namespace

double standard_normal(Rng& rng) {
    static const GridGaussian unit = GridGaussian::with_sigma(1.0);
    return unit.noise(rng);
}

void validate_saccade(const SaccadeShape& s, const char* what) {
    if (!(std::isfinite(s.duration_ms) && s.duration_ms > 0))
        throw InvalidArgument(std::string(what) + ": duration must be positive and finite, got " +
                              format_number(s.duration_ms));
    if (!(std::isfinite(s.amplitude) && s.amplitude >= 0))
        throw InvalidArgument(std::string(what) + ": amplitude must be finite and non-negative, got " +
                              format_number(s.amplitude));
    const bool none = std::isnan(s.a) && std::isnan(s.b) && std::isnan(s.c);
    if (none)
        return;
    if (!(std::isfinite(s.a) && std::isfinite(s.b) && std::isfinite(s.c)))
        throw InvalidArgument(std::string(what) + ": profile a, b, c must be all finite or all NULL, got (" +
                              format_number(s.a) + ", " + format_number(s.b) + ", " + format_number(s.c) +
                              ")");
    if (!(s.c > 0))
        throw InvalidArgument(std::string(what) + ": profile_c must be positive, got " + format_number(s.c));
}

void speed_profile(const SaccadeShape& s, int length, double* out) {
    const double mean_speed = 1000 * std::max(s.amplitude, kMinAmplitude) / s.duration_ms;
    for (int j = 0; j < length; ++j) {
        double v = 1;
        if (!std::isnan(s.a)) {
            const double tau = (j + 0.5) * s.duration_ms / length, u = (tau - s.b) / s.c;
            v = s.a * std::exp(-0.5 * u * u) / mean_speed;
        }
        out[j] = std::isfinite(v) ? std::clamp(v, 0.0, kMaxProfileValue) : kMaxProfileValue;
    }
}

void validate(const CvaeSettings& s) {
    require_range("profile_length", s.profile_length, 2, kMaxProfileLength);
    require_range("encoder_hidden", s.encoder_hidden, 1, kMaxLayer);
    require_range("latent", s.latent, 1, kMaxLayer);
    require_range("decoder_hidden", s.decoder_hidden, 1, kMaxLayer);
    if (!(std::isfinite(s.learning_rate) && s.learning_rate > 0 && s.learning_rate <= 1))
        throw InvalidArgument("learning_rate must be in (0, 1], got " + format_number(s.learning_rate));
    require_range("batch_size", s.batch_size, 1, kMaxBatch);
    require_range("epochs", s.epochs, 1, kMaxEpochs);
    if (!(s.validation_share > 0 && s.validation_share < 1))
        throw InvalidArgument("validation_share must be between 0 and 1, got " +
                              format_number(s.validation_share));
}

struct SaccadeCvae::Impl {
    Matrix p[kParams];
    double cond_mean[kConditions] = {0, 0}, cond_sd[kConditions] = {1, 1};

    // Batch inputs: profiles (P x B) and conditions (2 x B).
    void inputs(const SaccadeShape* s, const std::size_t* rows, std::size_t b, int length, Matrix& x,
                Matrix& c) const {
        x.resize(length, static_cast<Eigen::Index>(b));
        c.resize(kConditions, static_cast<Eigen::Index>(b));
        for (std::size_t i = 0; i < b; ++i) {
            const SaccadeShape& r = s[rows[i]];
            speed_profile(r, length, x.col(static_cast<Eigen::Index>(i)).data());
            condition(r, c.col(static_cast<Eigen::Index>(i)).data());
        }
    }
    void condition(const SaccadeShape& r, double* out) const {
        out[0] = (std::log(std::max(r.amplitude, kMinAmplitude)) - cond_mean[0]) / cond_sd[0];
        out[1] = (std::log(r.duration_ms) - cond_mean[1]) / cond_sd[1];
    }

    // Forward pass; with grads, accumulates the gradient of the batch's mean loss. Returns the summed loss.
    struct Pass {
        Matrix in, h_pre, h, mu, lv, eps, z_in, g, out;
    };
    double forward(const Matrix& x, const Matrix& c, Rng& rng, Pass& f) const {
        const Eigen::Index b = x.cols(), length = x.rows(), latent = p[Bmu].rows();
        f.in.resize(length + kConditions, b);
        f.in << x, c;
        f.h_pre = (p[W1] * f.in).colwise() + p[B1].col(0);
        f.h = f.h_pre.cwiseMax(0.0);
        f.mu = (p[Wmu] * f.h).colwise() + p[Bmu].col(0);
        f.lv =
            ((p[Wlv] * f.h).colwise() + p[Blv].col(0)).cwiseMin(kMaxLogVariance).cwiseMax(-kMaxLogVariance);
        f.eps.resize(latent, b);
        for (Eigen::Index j = 0; j < b; ++j)
            for (Eigen::Index i = 0; i < latent; ++i)
                f.eps(i, j) = standard_normal(rng);
        f.z_in.resize(latent + kConditions, b);
        f.z_in << f.mu + (0.5 * f.lv.array()).exp().matrix().cwiseProduct(f.eps), c;
        f.g = (p[W3] * f.z_in).colwise() + p[B3].col(0);
        f.out = (p[W4] * f.g).colwise() + p[B4].col(0);
        const double squared = (f.out - x).squaredNorm();
        const double kl = -0.5 * (1 + f.lv.array() - f.mu.array().square() - f.lv.array().exp()).sum();
        return (squared + kl) / static_cast<double>(length);
    }

    void backward(const Matrix& x, const Pass& f, Matrix* grad) const {
        const double scale = 1.0 / static_cast<double>(x.rows() * x.cols()); // mean over batch, / P
        const Eigen::Index latent = p[Bmu].rows();
        const Matrix d_out = 2 * scale * (f.out - x);
        grad[W4] = d_out * f.g.transpose();
        grad[B4] = d_out.rowwise().sum();
        const Matrix d_g = p[W4].transpose() * d_out;
        grad[W3] = d_g * f.z_in.transpose();
        grad[B3] = d_g.rowwise().sum();
        const Matrix d_z = (p[W3].transpose() * d_g).topRows(latent);
        const Matrix d_mu = d_z + scale * f.mu;
        const Matrix sigma = (0.5 * f.lv.array()).exp().matrix();
        const Matrix d_lv =
            (d_z.array() * f.eps.array() * 0.5 * sigma.array() + 0.5 * scale * (f.lv.array().exp() - 1))
                .matrix();
        grad[Wmu] = d_mu * f.h.transpose();
        grad[Bmu] = d_mu.rowwise().sum();
        grad[Wlv] = d_lv * f.h.transpose();
        grad[Blv] = d_lv.rowwise().sum();
        const Matrix d_h = (p[Wmu].transpose() * d_mu + p[Wlv].transpose() * d_lv)
                               .cwiseProduct((f.h_pre.array() > 0).cast<double>().matrix());
        grad[W1] = d_h * f.in.transpose();
        grad[B1] = d_h.rowwise().sum();
    }
};

SaccadeCvae::SaccadeCvae(const CvaeSettings& s) : settings_(s), impl_(std::make_unique<Impl>()) {
    const int in = s.profile_length + kConditions;
    const int shapes[kParams][2] = {{s.encoder_hidden, in},
                                    {s.encoder_hidden, 1},
                                    {s.latent, s.encoder_hidden},
                                    {s.latent, 1},
                                    {s.latent, s.encoder_hidden},
                                    {s.latent, 1},
                                    {s.decoder_hidden, s.latent + kConditions},
                                    {s.decoder_hidden, 1},
                                    {s.profile_length, s.decoder_hidden},
                                    {s.profile_length, 1}};
    for (int k = 0; k < kParams; ++k)
        impl_->p[k] = Matrix::Zero(shapes[k][0], shapes[k][1]);
}

SaccadeCvae::SaccadeCvae(SaccadeCvae&&) noexcept = default;
SaccadeCvae& SaccadeCvae::operator=(SaccadeCvae&&) noexcept = default;
SaccadeCvae::~SaccadeCvae() = default;

SaccadeCvae SaccadeCvae::train(const SaccadeShape* saccades, std::size_t n, const CvaeSettings& settings,
                               Rng& rng, const CancelCheck& cancel, TrainingReport& report) {
    validate(settings);
    if (n < kMinTrainingSaccades)
        throw InvalidArgument("training needs at least " + std::to_string(kMinTrainingSaccades) +
                              " saccades, got " + std::to_string(n));
    for (std::size_t i = 0; i < n; ++i)
        validate_saccade(saccades[i], ("saccade " + std::to_string(i + 1)).c_str());
    SaccadeCvae model(settings);
    Impl& m = *model.impl_;

    // Split 75/25 by a uniformly random permutation.
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), std::size_t{0});
    for (std::size_t i = n; i > 1; --i)
        std::swap(order[i - 1], order[rng.uniform_below(i)]);
    const auto n_valid = std::max<std::size_t>(
        1, static_cast<std::size_t>(std::floor(settings.validation_share * static_cast<double>(n))));
    std::vector<std::size_t> valid(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(n_valid));
    std::vector<std::size_t> train(order.begin() + static_cast<std::ptrdiff_t>(n_valid), order.end());
    report.training = train.size();
    report.validation = valid.size();

    // Condition normalisation from the training part.
    for (int k = 0; k < kConditions; ++k) {
        double sum = 0, sum2 = 0;
        for (std::size_t r : train) {
            const double v = k == 0 ? std::log(std::max(saccades[r].amplitude, kMinAmplitude))
                                    : std::log(saccades[r].duration_ms);
            sum += v;
            sum2 += v * v;
        }
        const double mean = sum / static_cast<double>(train.size());
        const double var = sum2 / static_cast<double>(train.size()) - mean * mean;
        m.cond_mean[k] = mean;
        m.cond_sd[k] = var > 1e-12 ? std::sqrt(var) : 1;
    }
    // Glorot-uniform weights, zero biases.
    for (int k = 0; k < kParams; k += 2) {
        Matrix& w = m.p[k];
        const double limit = std::sqrt(6.0 / static_cast<double>(w.rows() + w.cols()));
        for (Eigen::Index j = 0; j < w.cols(); ++j)
            for (Eigen::Index i = 0; i < w.rows(); ++i)
                w(i, j) = (2 * rng.uniform01() - 1) * limit;
    }

    Matrix first[kParams], second[kParams], grad[kParams];
    for (int k = 0; k < kParams; ++k) {
        first[k] = Matrix::Zero(m.p[k].rows(), m.p[k].cols());
        second[k] = first[k];
    }
    const double beta1 = 0.9, beta2 = 0.999, adam_eps = 1e-7;
    double power1 = 1, power2 = 1;
    Matrix x, c;
    Impl::Pass pass;
    const auto batch = static_cast<std::size_t>(settings.batch_size);
    std::size_t steps = 0;
    for (int epoch = 0; epoch < settings.epochs; ++epoch) {
        for (std::size_t i = train.size(); i > 1; --i)
            std::swap(train[i - 1], train[rng.uniform_below(i)]);
        double epoch_sum = 0;
        for (std::size_t at = 0; at < train.size(); at += batch) {
            cancel.now();
            const std::size_t b = std::min(batch, train.size() - at);
            m.inputs(saccades, train.data() + at, b, settings.profile_length, x, c);
            epoch_sum += m.forward(x, c, rng, pass);
            m.backward(x, pass, grad);
            ++steps;
            power1 *= beta1;
            power2 *= beta2;
            const double rate = settings.learning_rate * std::sqrt(1 - power2) / (1 - power1);
            for (int k = 0; k < kParams; ++k) {
                first[k] = beta1 * first[k] + (1 - beta1) * grad[k];
                second[k] = beta2 * second[k] + (1 - beta2) * grad[k].cwiseAbs2();
                m.p[k].array() -= rate * first[k].array() / (second[k].array().sqrt() + adam_eps);
            }
        }
        report.epoch_loss.push_back(epoch_sum / static_cast<double>(train.size()));
    }
    std::vector<SaccadeShape> held(valid.size());
    for (std::size_t i = 0; i < valid.size(); ++i)
        held[i] = saccades[valid[i]];
    report.validation_loss = model.loss(held.data(), held.size(), rng);
    return model;
}

double SaccadeCvae::loss(const SaccadeShape* saccades, std::size_t n, Rng& rng) const {
    if (n == 0)
        return 0;
    std::vector<std::size_t> rows(n);
    std::iota(rows.begin(), rows.end(), std::size_t{0});
    Matrix x, c;
    Impl::Pass pass;
    double sum = 0;
    for (std::size_t at = 0; at < n; at += 1000) {
        const std::size_t b = std::min<std::size_t>(1000, n - at);
        impl_->inputs(saccades, rows.data() + at, b, settings_.profile_length, x, c);
        sum += impl_->forward(x, c, rng, pass);
    }
    return sum / static_cast<double>(n);
}

void SaccadeCvae::encode(const SaccadeShape& s, double* mu, double* sigma) const {
    const Impl& m = *impl_;
    Eigen::VectorXd in(settings_.profile_length + kConditions);
    speed_profile(s, settings_.profile_length, in.data());
    m.condition(s, in.data() + settings_.profile_length);
    const Eigen::VectorXd h = (m.p[W1] * in + m.p[B1].col(0)).cwiseMax(0.0);
    const Eigen::VectorXd mean = m.p[Wmu] * h + m.p[Bmu].col(0);
    const Eigen::VectorXd lv =
        (m.p[Wlv] * h + m.p[Blv].col(0)).cwiseMin(kMaxLogVariance).cwiseMax(-kMaxLogVariance);
    for (int i = 0; i < settings_.latent; ++i) {
        mu[i] = mean(i);
        sigma[i] = std::exp(0.5 * lv(i));
    }
}

void SaccadeCvae::decode(const double* z, const SaccadeShape& condition, double* profile) const {
    const Impl& m = *impl_;
    Eigen::VectorXd in(settings_.latent + kConditions);
    std::copy(z, z + settings_.latent, in.data());
    m.condition(condition, in.data() + settings_.latent);
    const Eigen::VectorXd out = m.p[W4] * (m.p[W3] * in + m.p[B3].col(0)) + m.p[B4].col(0);
    std::copy(out.data(), out.data() + settings_.profile_length, profile);
}

// Blob layout (native byte order, x86-64 little-endian): magic[8], u32 version, u32 profile_length,
// encoder_hidden, latent, decoder_hidden, epochs, batch_size, f64 learning_rate, validation_share,
// cond_mean[2], cond_sd[2], the parameters column-major in enum order, u64 FNV-1a of everything before it.
namespace {

struct Writer {
    std::vector<std::uint8_t> bytes;
    template <typename T> void put(T v) {
        const auto* b = reinterpret_cast<const std::uint8_t*>(&v);
        bytes.insert(bytes.end(), b, b + sizeof v);
    }
};

struct Reader {
    const std::uint8_t* bytes;
    std::size_t size, at = 0;
    template <typename T> T get() {
        if (size - at < sizeof(T))
            throw CorruptData("saccade model blob is truncated");
        T v;
        std::memcpy(&v, bytes + at, sizeof v);
        at += sizeof v;
        return v;
    }
    double number() {
        const double v = get<double>();
        if (!std::isfinite(v))
            throw CorruptData("saccade model blob holds a non-finite number");
        return v;
    }
};

} // namespace

std::vector<std::uint8_t> SaccadeCvae::serialize() const {
    Writer w;
    w.bytes.insert(w.bytes.end(), kMagic, kMagic + sizeof kMagic);
    w.put<std::uint32_t>(kVersion);
    for (int v : {settings_.profile_length, settings_.encoder_hidden, settings_.latent,
                  settings_.decoder_hidden, settings_.epochs, settings_.batch_size})
        w.put<std::uint32_t>(static_cast<std::uint32_t>(v));
    w.put(settings_.learning_rate);
    w.put(settings_.validation_share);
    for (int k = 0; k < kConditions; ++k)
        w.put(impl_->cond_mean[k]);
    for (int k = 0; k < kConditions; ++k)
        w.put(impl_->cond_sd[k]);
    for (const Matrix& m : impl_->p)
        for (Eigen::Index i = 0; i < m.size(); ++i)
            w.put(m.data()[i]);
    w.put(fnv1a(w.bytes.data(), w.bytes.size()));
    return std::move(w.bytes);
}

SaccadeCvae SaccadeCvae::deserialize(const std::uint8_t* bytes, std::size_t size) {
    Reader r{bytes, size};
    if (size < sizeof kMagic + 8 || std::memcmp(bytes, kMagic, sizeof kMagic) != 0)
        throw CorruptData("not a saccade model blob (bad magic)");
    r.at = sizeof kMagic;
    const auto version = r.get<std::uint32_t>();
    if (version != kVersion)
        throw CorruptData("saccade model blob has version " + std::to_string(version) + ", expected " +
                          std::to_string(kVersion));
    if (size < sizeof(std::uint64_t) || fnv1a(bytes, size - sizeof(std::uint64_t)) != [&] {
            std::uint64_t stored;
            std::memcpy(&stored, bytes + size - sizeof stored, sizeof stored);
            return stored;
        }())
        throw CorruptData("saccade model blob fails its checksum (corrupted or truncated)");
    CvaeSettings s;
    int* sizes[] = {&s.profile_length, &s.encoder_hidden, &s.latent,
                    &s.decoder_hidden, &s.epochs,         &s.batch_size};
    for (int* v : sizes) {
        const auto u = r.get<std::uint32_t>();
        if (u > static_cast<std::uint32_t>(kMaxBatch))
            throw CorruptData("saccade model blob has an implausible size " + std::to_string(u));
        *v = static_cast<int>(u);
    }
    s.learning_rate = r.number();
    s.validation_share = r.number();
    try {
        validate(s);
    } catch (const InvalidArgument& e) {
        throw CorruptData(std::string("saccade model blob: ") + e.what());
    }
    SaccadeCvae model(s);
    for (int k = 0; k < kConditions; ++k)
        model.impl_->cond_mean[k] = r.number();
    for (int k = 0; k < kConditions; ++k) {
        model.impl_->cond_sd[k] = r.number();
        if (!(model.impl_->cond_sd[k] > 0))
            throw CorruptData("saccade model blob has a non-positive condition deviation");
    }
    std::size_t expected = r.at + sizeof(std::uint64_t);
    for (const Matrix& m : model.impl_->p)
        expected += static_cast<std::size_t>(m.size()) * sizeof(double);
    if (expected != size)
        throw CorruptData("saccade model blob has " + std::to_string(size) + " bytes, its sizes need " +
                          std::to_string(expected));
    for (Matrix& m : model.impl_->p)
        for (Eigen::Index i = 0; i < m.size(); ++i)
            m.data()[i] = r.number();
    return model;
}

} // namespace gazepriv::core::pd
