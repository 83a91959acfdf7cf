#include <gtest/gtest.h>

#include "core/common/cancel.hpp"

using gazepriv::core::CancelCheck;
using gazepriv::core::Cancelled;

namespace {
int probe_calls = 0;
bool cancel_on_third_probe() {
    return ++probe_calls >= 3;
}
} // namespace

TEST(Cancel, LoopStopsSoonAfterTheProbeFires) {
    probe_calls = 0;
    CancelCheck check(&cancel_on_third_probe);
    std::size_t reached = 0;
    EXPECT_THROW(
        {
            for (std::size_t i = 0; i < 1000000; ++i) {
                check.poll(i);
                reached = i;
            }
        },
        Cancelled);
    EXPECT_EQ(probe_calls, 3);
    EXPECT_LT(reached, 3 * 4096u);
}

TEST(Cancel, NoProbeNeverCancels) {
    CancelCheck check;
    for (std::size_t i = 0; i < 100000; ++i)
        check.poll(i);
    SUCCEED();
}
