// What a plausible-deniability synthesis costs: the randomized test's theorem and its composition.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "core/common/errors.hpp"
#include "core/pd/pd_cost.hpp"

using namespace gazepriv::core;
using namespace gazepriv::core::pd;

TEST(PdCost, RandomizedTestVectorOfSection43) {
    const InvocationPrivacy p = randomized_test_privacy(50, 2.0, 0.1, 10);
    EXPECT_NEAR(p.epsilon, 0.2823, 5e-5);
    EXPECT_NEAR(p.delta, 0.0183, 5e-5);
    EXPECT_DOUBLE_EQ(p.epsilon, 0.1 + std::log(1.2));
    EXPECT_DOUBLE_EQ(p.delta, std::exp(-4.0));
    EXPECT_THROW(randomized_test_privacy(50, 2.0, 0.1, 50), InvalidArgument); // t < k
    EXPECT_THROW(randomized_test_privacy(50, 2.0, 0.1, 0), InvalidArgument);
    EXPECT_THROW(randomized_test_privacy(1, 2.0, 0.1, 1), InvalidArgument);
    EXPECT_THROW(randomized_test_privacy(50, 0.9, 0.1, 10), InvalidArgument);
    EXPECT_THROW(randomized_test_privacy(50, 2.0, 0, 10), InvalidArgument);
}

TEST(PdCost, LargestTMeetsTheDeltaTarget) {
    // 1000 invocations, delta 1e-6, epsilon0 1: k - t >= ln(1e9) = 20.72, so t = k - 21.
    EXPECT_EQ(largest_t(50, 1.0, 1000, 1e-6), 29);
    EXPECT_LE(1000 * std::exp(-1.0 * (50 - 29)), 1e-6);
    EXPECT_GT(1000 * std::exp(-1.0 * (50 - 30)), 1e-6);
    EXPECT_EQ(largest_t(20, 1.0, 1000, 1e-6), 0); // impossible
    EXPECT_EQ(largest_t(50, 100.0, 1, 0.5), 49);  // capped at k - 1
}

TEST(PdCost, DeterministicTestsAreLoggedAsPlausibleDeniability) {
    SynthesisParams p;
    p.k = 5;
    p.gamma = 2;
    const ReleaseCost c = synthesis_cost(p, 5, 1000);
    EXPECT_EQ(c.guarantee, Guarantee::PlausibleDeniability);
    EXPECT_EQ(c.epsilon, 0);
    EXPECT_EQ(c.delta, 0);
    EXPECT_TRUE(c.non_private_choices); // bins over the data range
    EXPECT_EQ(c.mechanism, "pd_synthesize");
    EXPECT_NE(c.parameters_json.find("\"bounds\": \"data range (non-private)\""), std::string::npos);
    p.bounds = {0, 1, 0, 1, 0, 1, 0, 1, 0, 1};
    p.model_epsilon = 0.5;
    const ReleaseCost strict = synthesis_cost(p, 5, 1000);
    EXPECT_FALSE(strict.non_private_choices);
    EXPECT_EQ(strict.epsilon, 0.5); // the DP model spends its epsilon
}

TEST(PdCost, RandomizedReleaseComposesOverCandidatesOfTheLargestTask) {
    SynthesisParams p;
    p.k = 50;
    p.gamma = 2;
    p.epsilon0 = 0.1;
    p.t = 10;
    p.model_epsilon = 1;
    p.max_attempts = 2;
    p.bounds = {0, 1};
    // 2 attempts x 3 records of the largest task = 6 invocations, after the model's epsilon.
    ReleaseCost c = synthesis_cost(p, 1, 3);
    EXPECT_EQ(c.guarantee, Guarantee::RecordDifferentialPrivacy);
    EXPECT_FALSE(c.non_private_choices);
    EXPECT_DOUBLE_EQ(c.epsilon, 1 + 6 * (0.1 + std::log(1.2)));
    EXPECT_DOUBLE_EQ(c.delta, 6 * std::exp(-4.0));
    EXPECT_EQ(c.rho, -1);
    // A disjoint split: the model composes in parallel with the test.
    p.split = 0.5;
    c = synthesis_cost(p, 1, 3);
    EXPECT_DOUBLE_EQ(c.epsilon, 6 * (0.1 + std::log(1.2)));
    // Composed delta of 1 or more: refused.
    p.split = 0;
    EXPECT_THROW(synthesis_cost(p, 1, 100), InvalidArgument);
    // A delta target chooses t.
    p.t.reset();
    p.epsilon0 = 1;
    p.target_delta = 1e-6;
    p.max_attempts = 1;
    c = synthesis_cost(p, 1, 1000);
    EXPECT_DOUBLE_EQ(c.delta, 1000 * std::exp(-21.0));
    EXPECT_DOUBLE_EQ(c.epsilon, 1 + 1000 * (1 + std::log1p(2.0 / 29)));
    EXPECT_NE(c.parameters_json.find("\"t\": 29"), std::string::npos);
    p.k = 20; // no t meets it
    EXPECT_THROW(synthesis_cost(p, 1, 1000), InvalidArgument);
}

TEST(PdCost, PublicRecordsReplaceTheDataSize) {
    SynthesisParams p;
    p.k = 50;
    p.gamma = 2;
    p.epsilon0 = 0.1;
    p.t = 10;
    p.model_epsilon = 1;
    p.bounds = {0, 1};
    p.records = 7; // whatever the data holds, the cost counts 7 slots of 1 attempt
    const ReleaseCost small = synthesis_cost(p, 1, 3);
    const ReleaseCost large = synthesis_cost(p, 1, 3000);
    EXPECT_DOUBLE_EQ(small.epsilon, 1 + 7 * (0.1 + std::log(1.2)));
    EXPECT_EQ(small.epsilon, large.epsilon);
    EXPECT_EQ(small.parameters_json, large.parameters_json);
    EXPECT_NE(small.parameters_json.find("\"records\": 7"), std::string::npos);
}
