// Privacy-loss statistics: ln(P[output | D] / P[output | D']) under the mechanism as documented, computed
// from an output and the two inputs. Thresholding the loss is the most powerful test between D and D' when
// the implementation follows its documentation (Neyman-Pearson), and still a valid event when it does not:
// the audit's bound never depends on the statistic being right, only its power does.
#pragma once

#include <cstddef>
#include <vector>

namespace gazepriv::audit {

// Laplace distributions of the given scale centred at a and b.
inline double laplace_loss(double y, double a, double b, double scale) {
    return ((y > b ? y - b : b - y) - (y > a ? y - a : a - y)) / scale;
}

struct Point {
    double x, y;
};

// One Kalεido output sample: the released point after it, the action and the budget spent at it, as
// kaleido() returns them.
enum class StreamAction { Published, Reused, Other };
struct StreamOutput {
    double x, y;
    StreamAction action;
    double epsilon_spent;
};

// The loss of a Kalεido output stream between input streams d and d_prime (same timestamps), for test
// noise Laplace(r / epsilon_test) against l_thresh and planar Laplace publications of parameter
// epsilon_pub / r, epsilon_pub read from the output (epsilon_spent less the test's share).
double kaleido_loss(const std::vector<StreamOutput>& out, const std::vector<Point>& d,
                    const std::vector<Point>& d_prime, double r, double l_thresh, double epsilon_test);

} // namespace gazepriv::audit
