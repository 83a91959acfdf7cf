// Minimum and maximum of a series over a window [lo, hi) of indices whose ends only move forward,
// amortised O(1) per index with predictable branches: the window is split at b into a front part
// [lo, b), whose suffix minima and maxima are precomputed, and a back part [b, hi), whose running
// minimum and maximum grow as hi advances. When lo passes b, the suffix extremes of [lo, hi) are
// rebuilt and b moves to hi; every index is rebuilt at most once. NaN values are ignored.
#pragma once

#include <cstddef>
#include <limits>
#include <memory>

namespace gazepriv::core {

class SlidingRange {
public:
    // values[k * stride] for k < size.
    SlidingRange(const double* values, std::size_t stride, std::size_t size)
        : v_(values), stride_(stride), suffix_min_(new double[size + 1]), suffix_max_(new double[size + 1]) {}

    // Empties the window and places it at index `at`.
    void reset(std::size_t at) {
        lo_ = hi_ = split_ = at;
        back_min_ = kInf;
        back_max_ = -kInf;
    }
    // Moves the window's end to `hi` (not before the current end).
    void extend_to(std::size_t hi) {
        for (; hi_ < hi; ++hi_) {
            const double v = at(hi_);
            back_min_ = v < back_min_ ? v : back_min_;
            back_max_ = v > back_max_ ? v : back_max_;
        }
    }
    // Moves the window's start to `lo` (not before the current start, not after its end).
    void shrink_from(std::size_t lo) { lo_ = lo; }

    // +Infinity and -Infinity for a window without values.
    double min() {
        settle();
        return lo_ < split_ && suffix_min_[lo_] < back_min_ ? suffix_min_[lo_] : back_min_;
    }
    double max() {
        settle();
        return lo_ < split_ && suffix_max_[lo_] > back_max_ ? suffix_max_[lo_] : back_max_;
    }

private:
    static constexpr double kInf = std::numeric_limits<double>::infinity();
    double at(std::size_t k) const { return v_[k * stride_]; }
    void settle() {
        if (lo_ < split_)
            return;
        double lo = kInf, hi = -kInf; // suffix extremes of [lo_, hi_)
        for (std::size_t k = hi_; k-- > lo_;) {
            const double v = at(k);
            lo = v < lo ? v : lo;
            hi = v > hi ? v : hi;
            suffix_min_[k] = lo;
            suffix_max_[k] = hi;
        }
        split_ = hi_;
        back_min_ = kInf;
        back_max_ = -kInf;
    }

    const double* v_;
    std::size_t stride_;
    std::unique_ptr<double[]> suffix_min_, suffix_max_; // uninitialised: written by settle() first
    std::size_t lo_ = 0, hi_ = 0, split_ = 0;
    double back_min_ = kInf, back_max_ = -kInf;
};

} // namespace gazepriv::core

#include "core/common/no_postgres.hpp"
