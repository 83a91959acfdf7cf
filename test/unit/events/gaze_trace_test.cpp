#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/common/errors.hpp"
#include "core/events/gaze_trace.hpp"
#include "core/noise/random.hpp"

using namespace gazepriv::core;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

bool same(double a, double b) {
    return (std::isnan(a) && std::isnan(b)) || a == b;
}

void expect_samples(const std::vector<GazeSample>& got, const std::vector<GazeSample>& want) {
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
        EXPECT_TRUE(same(got[i].t_ms, want[i].t_ms)) << i;
        EXPECT_TRUE(same(got[i].x, want[i].x)) << i;
        EXPECT_TRUE(same(got[i].y, want[i].y)) << i;
        EXPECT_TRUE(same(got[i].pupil, want[i].pupil)) << i;
    }
}

} // namespace

TEST(GazeTrace, MakeSampleMarksMissingValues) {
    const GazeSample a = make_sample(1, kNaN, 5, 3);
    EXPECT_FALSE(has_gaze(a));
    EXPECT_TRUE(std::isnan(a.y)); // both coordinates go missing together
    const GazeSample b = make_sample(1, INFINITY, 5, 0);
    EXPECT_FALSE(has_gaze(b));
    EXPECT_TRUE(std::isnan(b.pupil)); // 0 means "no pupil" for trackers
    const GazeSample c = make_sample(1, 2, 3, -1);
    EXPECT_TRUE(has_gaze(c));
    EXPECT_TRUE(std::isnan(c.pupil));
    EXPECT_THROW(make_sample(kNaN, 1, 1, 1), InvalidArgument);
    EXPECT_THROW(make_sample(-INFINITY, 1, 1, 1), InvalidArgument);
}

TEST(GazeTrace, CanonicalizeSortsAndMergesDuplicatesIndependentlyOfOrder) {
    std::vector<GazeSample> a = {make_sample(30, 3, 3, kNaN), make_sample(10, 1, 1, 2),
                                 make_sample(20, 4, 6, 3),    make_sample(20, kNaN, kNaN, 5),
                                 make_sample(20, 2, 2, kNaN), make_sample(40, kNaN, kNaN, kNaN)};
    std::vector<GazeSample> b = {a[4], a[5], a[3], a[0], a[2], a[1]};
    a.resize(canonicalize(a.data(), a.size(), CancelCheck()));
    b.resize(canonicalize(b.data(), b.size(), CancelCheck()));
    // t = 20: mean of the two samples with gaze, mean of the two valid pupils.
    const std::vector<GazeSample> want = {
        {10, 1, 1, 2}, {20, 3, 4, 4}, {30, 3, 3, kNaN}, {40, kNaN, kNaN, kNaN}};
    expect_samples(a, want);
    expect_samples(b, want);
    EXPECT_TRUE(is_canonical(a.data(), a.size()));
}

TEST(GazeTrace, CanonicalizeKeepsSortedInputAndMergesMissingOnlyDuplicates) {
    std::vector<GazeSample> s = {make_sample(1, kNaN, kNaN, kNaN), make_sample(1, kNaN, kNaN, 4),
                                 make_sample(2, 1, 2, kNaN)};
    s.resize(canonicalize(s.data(), s.size(), CancelCheck()));
    expect_samples(s, {{1, kNaN, kNaN, 4}, {2, 1, 2, kNaN}});
    EXPECT_EQ(canonicalize(nullptr, 0, CancelCheck()), 0u);
}

TEST(GazeTrace, TextRoundTripsExactly) {
    const std::vector<GazeSample> s = {
        {0.1, 1.0 / 3, -2.5e-300, kNaN}, {3.3333333333333335, kNaN, kNaN, 4.25}, {1e15, 1e300, 0, 0.001}};
    const std::string text = format_trace(s.data(), s.size());
    EXPECT_EQ(text.substr(0, 12), "{(0.1,0.3333");
    EXPECT_NE(text.find("(3.3333333333333335,NaN,NaN,4.25)"), std::string::npos);
    std::vector<GazeSample> back;
    std::string error;
    ASSERT_TRUE(parse_trace(text.c_str(), back, error)) << error;
    expect_samples(back, s);
    EXPECT_EQ(format_trace(nullptr, 0), "{}");
}

TEST(GazeTrace, ParseAcceptsSpacesInfinitiesAndUnsortedSamples) {
    std::vector<GazeSample> s;
    std::string error;
    ASSERT_TRUE(parse_trace(" { ( 20 , 1 , 2 ) , (10,Infinity,3,NaN),(15, +4, -5, 6) } ", s, error)) << error;
    expect_samples(s, {{10, kNaN, kNaN, kNaN}, {15, 4, -5, 6}, {20, 1, 2, kNaN}});
    ASSERT_TRUE(parse_trace("{}", s, error));
    EXPECT_TRUE(s.empty());
}

TEST(GazeTrace, ParseRejectsMalformedText) {
    std::vector<GazeSample> s;
    std::string error;
    for (const char* bad :
         {"", "(1,2,3)", "{(1,2)}", "{(1,2,3,4,5)}", "{(1,2,3),}", "{(1,2,3)} x", "{(1,2,3)", "{(NaN,1,1)}",
          "{(Infinity,1,1)}", "{(1,2,abc)}", "{(1,,3)}", "{1,2,3}"}) {
        EXPECT_FALSE(parse_trace(bad, s, error)) << bad;
        EXPECT_FALSE(error.empty()) << bad;
    }
    EXPECT_FALSE(parse_trace("{(NaN,1,1)}", s, error));
    EXPECT_NE(error.find("t_ms"), std::string::npos);
}

TEST(GazeTrace, CanonicalizeMatchesAFullSortForAnyDisorder) {
    // Nearly sorted (late rows moved early, as in heap pages), interleaved blocks (parallel workers),
    // reversed and shuffled inputs, with duplicate timestamps: always the reference result.
    gazepriv::core::Rng rng(9, 0);
    for (int pattern = 0; pattern < 4; ++pattern) {
        std::vector<GazeSample> s;
        for (int k = 0; k < 5000; ++k)
            s.push_back(make_sample(static_cast<double>(k / 2 * 3 + (k % 7 == 0)), k % 11, k % 13, kNaN));
        if (pattern == 0)
            for (int m = 0; m < 40; ++m)
                std::swap(s[rng.uniform_below(5000)], s.back());
        if (pattern == 1)
            for (int b = 0; b + 512 <= 5000; b += 1024)
                std::rotate(s.begin() + b, s.begin() + b + 256, s.begin() + b + 512);
        if (pattern == 2)
            std::reverse(s.begin(), s.end());
        if (pattern == 3)
            for (std::size_t i = s.size() - 1; i > 0; --i)
                std::swap(s[i], s[rng.uniform_below(i + 1)]);
        std::vector<GazeSample> want = s;
        std::sort(want.begin(), want.end(), [](const GazeSample& a, const GazeSample& b) {
            return a.t_ms < b.t_ms || (a.t_ms == b.t_ms && (a.x < b.x || (a.x == b.x && a.y < b.y)));
        });
        std::vector<GazeSample> merged;
        for (std::size_t i = 0; i < want.size();) {
            std::size_t j = i;
            double sx = 0, sy = 0;
            while (j < want.size() && want[j].t_ms == want[i].t_ms) {
                sx += want[j].x;
                sy += want[j].y;
                ++j;
            }
            merged.push_back(
                {want[i].t_ms, sx / static_cast<double>(j - i), sy / static_cast<double>(j - i), kNaN});
            i = j;
        }
        s.resize(canonicalize(s.data(), s.size(), CancelCheck()));
        expect_samples(s, merged);
    }
}

TEST(GazeTrace, MergeByTimeJoinsTwoSortedRuns) {
    std::vector<GazeSample> s;
    for (int k = 0; k < 100; ++k)
        s.push_back(make_sample(2 * k, 1, 1, kNaN));
    for (int k = 0; k < 50; ++k)
        s.push_back(make_sample(4 * k + 1, 2, 2, kNaN));
    merge_by_time(s.data(), 100, s.size(), CancelCheck());
    for (std::size_t i = 1; i < s.size(); ++i)
        ASSERT_LE(s[i - 1].t_ms, s[i].t_ms);
    std::vector<GazeSample> one = {make_sample(3, 1, 1, kNaN), make_sample(1, 1, 1, kNaN)};
    sort_by_time(one.data(), one.size(), CancelCheck());
    EXPECT_EQ(one[0].t_ms, 1);
}

// Issue 16: partial states (parallel workers, Citus shards) travel as text and are combined before the final
// function merges duplicate times. Rows sharing a time in different states must weigh one sample each, not
// one state each: {(1,10,0),(1,20,0)} and {(1,60,0)} make (1,30,0), not the mean of the means, 37.5.
TEST(GazeTrace, PartialStatesCombineExactlyThroughTheirTextForm) {
    auto through_text = [](const std::vector<GazeSample>& state) {
        std::vector<GazeSample> back;
        std::string error;
        EXPECT_TRUE(parse_samples(format_trace(state.data(), state.size()).c_str(), back, error)) << error;
        return back;
    };
    auto combine = [](std::vector<GazeSample> a, const std::vector<GazeSample>& b) {
        const std::size_t mid = a.size();
        a.insert(a.end(), b.begin(), b.end());
        combine_partial(a.data(), mid, a.size(), CancelCheck());
        return a;
    };
    auto final_trace = [](std::vector<GazeSample> s) {
        s.resize(canonicalize(s.data(), s.size(), CancelCheck()));
        return s;
    };

    const std::vector<GazeSample> two =
        through_text({make_sample(1, 10, 0, kNaN), make_sample(1, 20, 0, kNaN)});
    ASSERT_EQ(two.size(), 2u); // the state's text form keeps duplicate times apart
    expect_samples(final_trace(combine(two, through_text({make_sample(1, 60, 0, kNaN)}))),
                   {{1, 30, 0, kNaN}});

    // Any split of rows with many shared times (and missing gaze and pupils) into up to 6 states, combined
    // in any order: the same trace as all rows in one state, bit for bit.
    gazepriv::core::Rng rng(16, 2);
    for (int round = 0; round < 200; ++round) {
        std::vector<GazeSample> rows;
        const int n = 1 + static_cast<int>(rng.uniform_below(300));
        for (int k = 0; k < n; ++k) {
            const double t = static_cast<double>(rng.uniform_below(40));
            const bool gaze = rng.uniform_below(5) != 0;
            rows.push_back(make_sample(
                t, gaze ? static_cast<double>(rng.uniform_below(1000)) / 7 : kNaN,
                static_cast<double>(rng.uniform_below(1000)) / 3,
                rng.uniform_below(3) ? 2 + static_cast<double>(rng.uniform_below(100)) / 9 : kNaN));
        }
        const std::vector<GazeSample> want = final_trace(rows);
        std::vector<std::vector<GazeSample>> states(1 + rng.uniform_below(6));
        for (const GazeSample& s : rows)
            states[rng.uniform_below(states.size())].push_back(s);
        std::vector<GazeSample> combined;
        for (std::size_t i = states.size(); i-- > 0;)
            combined = combine(through_text(states[i]), combined);
        ASSERT_TRUE(std::is_sorted(combined.begin(), combined.end(),
                                   [](const GazeSample& a, const GazeSample& b) { return a.t_ms < b.t_ms; }));
        expect_samples(final_trace(combined), want);
    }
}
