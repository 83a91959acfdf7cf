// Minimum and maximum over a window of indices that only moves forward (both ends non-decreasing):
// two monotone queues of (index, value), amortised O(1) per index and branch-light.
#pragma once

#include <cstddef>
#include <vector>

namespace gazepriv::core {

class SlidingRange {
public:
    // `pushes`: how many indices will be pushed between clears (the queues never reallocate).
    explicit SlidingRange(std::size_t pushes) : min_(pushes + 1), max_(pushes + 1) {}

    void clear() { min_head_ = min_tail_ = max_head_ = max_tail_ = 0; }
    // Adds index k with value v; k must be larger than every index pushed since the last clear.
    void push(std::size_t k, double v) {
        while (min_tail_ > min_head_ && min_[min_tail_ - 1].value >= v)
            --min_tail_;
        min_[min_tail_++] = {k, v};
        while (max_tail_ > max_head_ && max_[max_tail_ - 1].value <= v)
            --max_tail_;
        max_[max_tail_++] = {k, v};
    }
    // Drops the indices below `first` (the window's new start).
    void expire_before(std::size_t first) {
        while (min_head_ < min_tail_ && min_[min_head_].index < first)
            ++min_head_;
        while (max_head_ < max_tail_ && max_[max_head_].index < first)
            ++max_head_;
    }
    bool empty() const { return min_head_ == min_tail_; }
    double min() const { return min_[min_head_].value; }
    double max() const { return max_[max_head_].value; }

private:
    struct Entry {
        std::size_t index;
        double value;
    };
    // Entries [head, tail) are the queue. The tail only moves back over entries pushed after the
    // head, so positions never exceed the number of pushes.
    std::vector<Entry> min_, max_;
    std::size_t min_head_ = 0, min_tail_ = 0, max_head_ = 0, max_tail_ = 0;
};

} // namespace gazepriv::core

#include "core/no_postgres.hpp"
