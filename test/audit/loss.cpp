#include "loss.hpp"

#include <cmath>

namespace gazepriv::audit {

namespace {

// ln P[z + eta <= 0] for eta ~ Laplace(b) (the test says "close"), and ln P[z + eta > 0].
double log_close(double z, double b) {
    return z > 0 ? std::log(0.5) - z / b : std::log1p(-0.5 * std::exp(z / b));
}
double log_far(double z, double b) {
    return z > 0 ? std::log1p(-0.5 * std::exp(-z / b)) : std::log(0.5) + z / b;
}

} // namespace

double kaleido_loss(const std::vector<StreamOutput>& out, const std::vector<Point>& d,
                    const std::vector<Point>& d_prime, double r, double l_thresh, double epsilon_test) {
    const double b = r / epsilon_test;
    double loss = 0;
    bool released = false;
    Point last{0, 0};
    for (std::size_t i = 0; i < out.size(); ++i) {
        const StreamOutput& o = out[i];
        const double dist = std::hypot(d[i].x - last.x, d[i].y - last.y);
        const double dist_prime = std::hypot(d_prime[i].x - last.x, d_prime[i].y - last.y);
        if (o.action == StreamAction::Reused) {
            loss += log_close(dist - l_thresh, b) - log_close(dist_prime - l_thresh, b);
        } else if (o.action == StreamAction::Published) {
            double epsilon_pub = o.epsilon_spent;
            if (released) {
                loss += log_far(dist - l_thresh, b) - log_far(dist_prime - l_thresh, b);
                epsilon_pub -= epsilon_test;
            }
            const double to_d = std::hypot(o.x - d[i].x, o.y - d[i].y);
            const double to_d_prime = std::hypot(o.x - d_prime[i].x, o.y - d_prime[i].y);
            loss += epsilon_pub / r * (to_d_prime - to_d);
            released = true;
            last = {o.x, o.y};
        }
    }
    return loss;
}

} // namespace gazepriv::audit
