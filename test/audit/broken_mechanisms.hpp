// Deliberately broken variants of shipped mechanisms: the audit's negative controls. Each reproduces a
// published or plausible mistake; the audit must flag it.
#pragma once

#include <cstddef>
#include <vector>

#include "core/noise/random.hpp"
#include "loss.hpp"

namespace gazepriv::audit {

// The textbook floating-point Laplace mechanism (Mironov, CCS 2012): x + s b ln(u) computed in doubles,
// u uniform on the multiples of 2^-53 in (0, 1], s a random sign. The set of doubles it can output depends
// on x, so some outputs of x = 0 are impossible from x = 1.
double textbook_laplace(double x, double scale, core::Rng& rng);

// Whether the textbook mechanism can output y from x (Mironov's attack): y - x determines the sign, and
// fl(x + s fl(b fl(ln u))) is monotone in u, so a binary search over the 2^53 values of u decides it.
bool textbook_laplace_reachable(double y, double x, double scale);

// Kalεido with the supplement's accounting taken literally (David-John et al. 2023, supplement §2.3):
// n_test = ceil(w / t_skip) with t_skip counted in samples of a nominal 60 Hz stream, each test gets
// epsilon / (h n_test), and nothing limits the tests of a window but t_skip in milliseconds, so a stream
// sampled more slowly than 60 Hz tests more often than n_test per window. Test noise is Laplace(r /
// epsilon_test) and publications use the window's remainder as in gazepriv (only the accounting differs).
struct LiteralKaleido {
    double epsilon, r, l_thresh, t_skip_ms, h;
    int w;
    double epsilon_test() const;
    std::vector<StreamOutput> run(const std::vector<double>& t, const std::vector<Point>& g,
                                  core::Rng& rng) const;
};

} // namespace gazepriv::audit
