// Minimum or maximum of an array over a window of indices that only moves forward (both ends
// non-decreasing): a monotone queue, amortised O(1) per index.
#pragma once

#include <cstddef>
#include <vector>

namespace gazepriv::core {

template <bool Max> class SlidingExtremum {
public:
    explicit SlidingExtremum(const double* values) : v_(values) {}

    void clear() {
        q_.clear();
        head_ = 0;
    }
    // Adds index k, which must be larger than every index added before.
    void push(std::size_t k) {
        while (q_.size() > head_ && !better(v_[q_.back()], v_[k]))
            q_.pop_back();
        q_.push_back(k);
    }
    // Drops the indices below `first` (the window's new start).
    void expire_before(std::size_t first) {
        while (q_.size() > head_ && q_[head_] < first)
            ++head_;
    }
    bool empty() const { return q_.size() == head_; }
    double value() const { return v_[q_[head_]]; }

private:
    static bool better(double a, double b) { return Max ? a > b : a < b; }
    const double* v_;
    std::vector<std::size_t> q_; // indices [head_, size) are the queue; earlier ones have expired
    std::size_t head_ = 0;
};

} // namespace gazepriv::core

#include "core/no_postgres.hpp"
