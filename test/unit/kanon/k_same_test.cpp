#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/common/errors.hpp"
#include "invalid_argument.hpp"
#include "core/kanon/k_anonymity_cost.hpp"
#include "core/kanon/k_same.hpp"
#include "stats.hpp"

using namespace gazepriv::core;
using gazepriv::test::invalid_argument_message;
using namespace gazepriv::core::kanon;

namespace {

// Feature rows built in a test, with the column arrays the core reads.
struct Table {
    std::vector<std::string> participant, task, cls;
    std::vector<std::int32_t> window;
    std::vector<std::vector<double>> features;

    void add(const std::string& p, const std::string& t, std::int32_t w, std::vector<double> f,
             const std::string& c = "") {
        participant.push_back(p);
        task.push_back(t);
        window.push_back(w);
        features.push_back(std::move(f));
        cls.push_back(c);
    }

    // Keeps the pointer arrays alive as long as the Table.
    SequenceRows rows(bool with_class = false) {
        p_.clear();
        t_.clear();
        c_.clear();
        values_.clear();
        offset_ = {0};
        for (std::size_t r = 0; r < participant.size(); ++r) {
            p_.push_back(participant[r].c_str());
            t_.push_back(task[r].c_str());
            c_.push_back(cls[r].c_str());
            values_.insert(values_.end(), features[r].begin(), features[r].end());
            offset_.push_back(values_.size());
        }
        SequenceRows in;
        in.rows = participant.size();
        in.participant = p_.data();
        in.task = t_.data();
        in.window = window.data();
        in.utility_class = with_class ? c_.data() : nullptr;
        in.values = values_.data();
        in.offset = offset_.data();
        return in;
    }

private:
    std::vector<const char*> p_, t_, c_;
    std::vector<double> values_;
    std::vector<std::size_t> offset_;
};

std::string name(int i) {
    return "p" + std::to_string(100 + i);
}

// n participants, one task, `length` windows each, feature vector (i, 10 w, 1).
Table simple(int n, int length, const std::string& task = "read") {
    Table t;
    for (int i = 0; i < n; ++i)
        for (int w = 1; w <= length; ++w)
            t.add(name(i), task, w, {double(i), 10.0 * w, 1.0});
    return t;
}

std::vector<double> released(const KSameRelease& r, std::size_t row) {
    const std::size_t v = r.rows[row].vector;
    return {r.means.begin() + r.vector_offset[v], r.means.begin() + r.vector_offset[v + 1]};
}

const CancelCheck kNoCancel;

} // namespace

TEST(KSame, BalancedGroupSizesLieBetweenKAnd2KMinus1) {
    for (std::size_t k = 2; k <= 12; ++k)
        for (std::size_t n = k; n <= 300; ++n) {
            const std::size_t groups = n / k;
            std::size_t total = 0, smallest = n, largest = 0;
            for (std::size_t g = 0; g < groups; ++g) {
                const std::size_t s = balanced_group_size(n, groups, g);
                total += s;
                smallest = std::min(smallest, s);
                largest = std::max(largest, s);
            }
            ASSERT_EQ(total, n);
            ASSERT_GE(smallest, k);
            ASSERT_LE(largest, 2 * k - 1);
            ASSERT_LE(largest - smallest, 1u);
        }
}

TEST(KSame, EveryReleasedVectorIsTheMeanOfItsGroupAndSharedByAtLeastK) {
    Table t = simple(10, 3);
    Rng rng(1, 0);
    const KSameRelease r = k_same_select(t.rows(), 3, Grouping::PerTask, rng, kNoCancel);
    ASSERT_EQ(r.rows.size(), 30u);
    EXPECT_EQ(r.groups, 3u); // 10 = 4 + 3 + 3
    std::map<std::uint32_t, std::set<std::uint32_t>> members;
    for (const auto& row : r.rows)
        members[row.group].insert(row.participant);
    std::multiset<std::size_t> sizes;
    for (const auto& [g, m] : members)
        sizes.insert(m.size());
    EXPECT_EQ(sizes, (std::multiset<std::size_t>{3, 3, 4}));
    for (std::size_t i = 0; i < r.rows.size(); ++i) {
        const auto& row = r.rows[i];
        double mean_i = 0;
        for (auto p : members[row.group])
            mean_i += p; // participant i (name order) has feature 0 = i
        mean_i /= members[row.group].size();
        const auto v = released(r, i);
        EXPECT_NEAR(v[0], mean_i, 1e-12);
        EXPECT_EQ(v[1], 10.0 * row.window);
        EXPECT_EQ(v[2], 1.0);
        // Shared by every member of the group at this window, and by no one else.
        std::size_t sharing = 0;
        for (std::size_t j = 0; j < r.rows.size(); ++j)
            if (r.rows[j].window == row.window && released(r, j) == v)
                ++sharing;
        EXPECT_GE(sharing, 3u);
    }
}

TEST(KSame, TheGroupingHoldsForTheWholeSequenceOfATask) {
    Table t = simple(9, 5);
    Rng rng(2, 0);
    const KSameRelease r = k_same_select(t.rows(), 2, Grouping::PerTask, rng, kNoCancel);
    std::map<std::uint32_t, std::set<std::uint32_t>> groups_of;
    for (const auto& row : r.rows)
        groups_of[row.participant].insert(row.group);
    ASSERT_EQ(groups_of.size(), 9u);
    for (const auto& [p, g] : groups_of)
        EXPECT_EQ(g.size(), 1u);
}

TEST(KSame, ShorterSequencesArePaddedByRepeatingTheirLastVector) {
    Table t;
    t.add("a", "read", 1, {1, 100});
    t.add("a", "read", 2, {2, 200});
    t.add("a", "read", 3, {3, 300});
    t.add("b", "read", 1, {5, 500}); // b's only vector stands for windows 2 and 3 too
    Rng rng(3, 0);
    const KSameRelease r = k_same_select(t.rows(), 2, Grouping::PerTask, rng, kNoCancel);
    ASSERT_EQ(r.rows.size(), 6u); // both released with the task's length
    for (std::size_t i = 0; i < 6; ++i) {
        const auto v = released(r, i);
        const int w = r.rows[i].window;
        EXPECT_EQ(v[0], (w + 5) / 2.0);
        EXPECT_EQ(v[1], (100.0 * w + 500) / 2.0);
    }
    // Participants in name order, each with windows 1..3.
    EXPECT_EQ(r.rows[0].participant, 0u);
    EXPECT_EQ(r.rows[3].participant, 1u);
    EXPECT_EQ(r.rows[3].window, 1);
    EXPECT_EQ(r.rows[5].window, 3);
}

TEST(KSame, WindowsAreAlignedByPositionFromTheTasksFirstWindow) {
    Table t;
    t.add("a", "walk", 5, {1});
    t.add("a", "walk", 9, {2}); // a gap: still the second vector of a's sequence
    t.add("b", "walk", 7, {3});
    t.add("b", "walk", 8, {4});
    Rng rng(4, 0);
    const KSameRelease r = k_same_select(t.rows(), 2, Grouping::PerTask, rng, kNoCancel);
    ASSERT_EQ(r.rows.size(), 4u);
    EXPECT_EQ(r.rows[0].window, 5);
    EXPECT_EQ(r.rows[1].window, 6);
    EXPECT_EQ(released(r, 0), std::vector<double>{2}); // (1 + 3) / 2
    EXPECT_EQ(released(r, 1), std::vector<double>{3}); // (2 + 4) / 2
}

TEST(KSame, TasksAreGroupedIndependentlyOverTheirOwnParticipants) {
    Table t = simple(6, 2, "read");
    Table u = simple(4, 3, "walk");
    for (std::size_t i = 0; i < u.participant.size(); ++i)
        t.add(u.participant[i], u.task[i], u.window[i], u.features[i]);
    Rng rng(5, 0);
    const KSameRelease r = k_same_select(t.rows(), 2, Grouping::PerTask, rng, kNoCancel);
    EXPECT_EQ(r.rows.size(), 6u * 2 + 4u * 3);
    EXPECT_EQ(r.groups, 3u + 2u);
    EXPECT_EQ(r.task_row.size(), 2u);
    EXPECT_EQ(r.participant_row.size(), 6u);
}

// The paper's per-task groupings differ between tasks, so a participant's combined release can be unique;
// the default grouping across tasks uses one grouping everywhere.
TEST(KSame, OneGroupingAcrossTasksKeepsWholeReleasesKAnonymous) {
    Table t = simple(12, 2, "read");
    Table u = simple(12, 3, "walk");
    for (std::size_t i = 0; i < u.participant.size(); ++i)
        t.add(u.participant[i], u.task[i], u.window[i], u.features[i]);
    const auto groups_per_participant = [](const KSameRelease& r) {
        std::map<std::uint32_t, std::map<std::uint32_t, std::uint32_t>>
            group_in; // participant -> task -> group
        for (const auto& row : r.rows)
            group_in[row.participant][row.task] = row.group;
        std::set<std::vector<std::uint32_t>> combined; // a participant's group in each task
        std::map<std::vector<std::uint32_t>, int> sharing;
        for (const auto& [p, g] : group_in) {
            std::vector<std::uint32_t> key;
            for (const auto& [task, group] : g)
                key.push_back(group);
            ++sharing[key];
        }
        int smallest = 1000;
        for (const auto& [key, n] : sharing)
            smallest = std::min(smallest, n);
        return smallest;
    };
    Rng rng(13, 0);
    const KSameRelease across = k_same_select(t.rows(), 3, Grouping::AcrossTasks, rng, kNoCancel);
    EXPECT_EQ(across.groups, 8u); // the same 4 groups in both tasks
    EXPECT_GE(groups_per_participant(across), 3);
    // Per task, some participant's pair of groups is shared by fewer than k (unless both tasks drew the same
    // partition: 1 chance in 15,400).
    const KSameRelease per_task = k_same_select(t.rows(), 3, Grouping::PerTask, rng, kNoCancel);
    EXPECT_LT(groups_per_participant(per_task), 3);

    Table missing = t;
    missing.add("p999", "read", 1, {0, 0, 0});
    EXPECT_EQ(invalid_argument_message(
                  [&] { k_same_select(missing.rows(), 3, Grouping::AcrossTasks, rng, kNoCancel); }),
              "participant 'p999' has no usable rows in task 'walk', and the grouping across tasks (the "
              "default) needs every participant in every task; across_tasks => false groups each task "
              "separately (the paper's variant, whose kept ids link a participant's groups across tasks)");
    Table classes = t;
    for (std::size_t i = 0; i < classes.cls.size(); ++i)
        classes.cls[i] = classes.task[i] == "read" ? "a" : (classes.participant[i] < "p106" ? "a" : "b");
    EXPECT_EQ(
        invalid_argument_message(
            [&] { k_same_select(classes.rows(true), 3, Grouping::AcrossTasks, rng, kNoCancel); }),
        "the utility class of participant 'p106' differs between tasks ('a' and 'b'); one grouping across "
        "tasks needs one class per participant");
    for (std::size_t i = 0; i < classes.cls.size(); ++i)
        classes.cls[i] = classes.participant[i] < "p106" ? "a" : "b";
    const KSameRelease by_class = k_same_select(classes.rows(true), 3, Grouping::AcrossTasks, rng, kNoCancel);
    EXPECT_EQ(by_class.groups, 8u);
    EXPECT_EQ(invalid_argument_message(
                  [&] { k_same_select(classes.rows(true), 7, Grouping::AcrossTasks, rng, kNoCancel); }),
              "utility class 'a' of the source has 6 participants, fewer than k = 7");
}

// Many tasks with few participants each: the rows are ordered by a comparison sort instead of a counting
// sort over (task, participant) pairs.
TEST(KSame, ManySparseTasksAreOrderedToo) {
    Table t;
    for (int task = 599; task >= 0; --task)
        for (int w = 2; w >= 1; --w)
            for (int p : {2 * task + 1, 2 * task})
                t.add(name(p), "t" + std::to_string(task), w, {double(p), double(w)});
    Rng rng(14, 0);
    const KSameRelease r = k_same_select(t.rows(), 2, Grouping::PerTask, rng, kNoCancel);
    ASSERT_EQ(r.rows.size(), 2400u);
    EXPECT_EQ(r.groups, 600u);
    for (std::size_t i = 0; i < r.rows.size(); ++i) {
        const std::string task = t.task[r.task_row[r.rows[i].task]];
        const int first = 2 * std::stoi(task.substr(1));
        EXPECT_EQ(released(r, i), (std::vector<double>{first + 0.5, double(r.rows[i].window)})) << task;
    }
}

TEST(KSame, UnderOneSeedTheReleaseIsReproducibleAndIndependentOfRowOrder) {
    Table t = simple(12, 4);
    Table reversed;
    for (std::size_t i = t.participant.size(); i-- > 0;)
        reversed.add(t.participant[i], t.task[i], t.window[i], t.features[i]);
    Rng a(6, 0), b(6, 0), c(7, 0);
    const KSameRelease ra = k_same_select(t.rows(), 3, Grouping::PerTask, a, kNoCancel);
    const KSameRelease rb = k_same_select(reversed.rows(), 3, Grouping::PerTask, b, kNoCancel);
    const KSameRelease rc = k_same_select(t.rows(), 3, Grouping::PerTask, c, kNoCancel);
    std::vector<std::uint32_t> ga, gb, gc;
    for (std::size_t i = 0; i < ra.rows.size(); ++i) {
        ga.push_back(ra.rows[i].group);
        gb.push_back(rb.rows[i].group);
        gc.push_back(rc.rows[i].group);
        EXPECT_EQ(released(ra, i), released(rb, i));
    }
    EXPECT_EQ(ga, gb);
    EXPECT_NE(ga, gc); // another seed, another grouping (1 chance in 15400 of a clash)
}

// The grouping must be uniform over all partitions: 6 participants, k = 3 gives 10 partitions into two
// groups of 3, each with probability 1/10.
TEST(KSame, GroupingsAreUniformOverPartitions) {
    Table t = simple(6, 1);
    Rng rng(8, 0);
    const int draws = 200000;
    std::vector<std::int64_t> partition;
    for (int d = 0; d < draws; ++d) {
        const KSameRelease r = k_same_select(t.rows(), 3, Grouping::PerTask, rng, kNoCancel);
        // The partition is named by participant 0's partners: a pair from 1..5 (10 pairs).
        std::vector<std::uint32_t> partners;
        for (const auto& row : r.rows)
            if (row.participant != 0 && row.group == r.rows[0].group)
                partners.push_back(row.participant);
        ASSERT_EQ(partners.size(), 2u);
        const int a = partners[0] - 1, b = partners[1] - 1; // a < b in 0..4
        partition.push_back(a * 5 + b - (a + 1) * (a + 2) / 2);
    }
    const auto uniform = [](std::int64_t x) { return x >= 0 && x < 10 ? 0.1 : 0.0; };
    EXPECT_LT(std::fabs(gazepriv::test::chi_square_z(partition, uniform, 0, 9)), 5);
    // Power: the same draws reject a distribution with one partition 5% more likely.
    const auto skewed = [](std::int64_t x) { return x == 0 ? 0.105 : (x > 0 && x < 10 ? 0.895 / 9 : 0.0); };
    EXPECT_GT(gazepriv::test::chi_square_z(partition, skewed, 0, 9), 5);
}

TEST(KSame, RowsWithNonFiniteFeaturesAreDroppedSilently) {
    Table t = simple(3, 2);
    t.features[4][1] = std::numeric_limits<double>::quiet_NaN(); // p102, window 1
    t.features[0][0] = -std::numeric_limits<double>::infinity(); // p100, window 1
    Rng rng(12, 0);
    const KSameRelease r = k_same_select(t.rows(), 3, Grouping::PerTask, rng, kNoCancel);
    ASSERT_EQ(r.rows.size(), 6u); // everyone still released over the task's two windows
    // One group of all three: window 1 averages p100's and p102's window 2 (their only rows) with p101's
    // window 1.
    EXPECT_EQ(released(r, 0), (std::vector<double>{1, (20 + 10 + 20) / 3.0, 1}));
    EXPECT_EQ(released(r, 1), (std::vector<double>{1, 20, 1}));
    Table all_bad = simple(2, 1);
    all_bad.features[0][0] = all_bad.features[1][2] = std::numeric_limits<double>::quiet_NaN();
    EXPECT_EQ(invalid_argument_message(
                  [&] { k_same_select(all_bad.rows(), 2, Grouping::PerTask, rng, kNoCancel); }),
              "the source returned no rows with finite features");
}

TEST(KSame, AUtilityClassIsNeverMixedInAGroup) {
    Table t;
    for (int i = 0; i < 9; ++i)
        for (int w = 1; w <= 2; ++w)
            t.add(name(i), "read", w, {double(i)}, i < 4 ? "comic" : "textbook");
    Rng rng(9, 0);
    const KSameRelease r = k_same_select(t.rows(true), 2, Grouping::PerTask, rng, kNoCancel);
    EXPECT_EQ(r.groups, 2u + 2u); // 4 comic readers -> 2 groups, 5 textbook readers -> 2 groups
    for (const auto& row : r.rows)
        for (const auto& other : r.rows)
            if (row.group == other.group)
                EXPECT_EQ(row.participant < 4, other.participant < 4);
    t.add(name(9), "read", 1, {9.0}, "newspaper");
    EXPECT_EQ(
        invalid_argument_message([&] { k_same_select(t.rows(true), 2, Grouping::PerTask, rng, kNoCancel); }),
        "utility class 'newspaper' of task 'read' has 1 participant, fewer than k = 2");
}

TEST(KSame, BadInputIsRejectedWithAClearMessage) {
    Rng rng(10, 0);
    Table t = simple(3, 2);
    EXPECT_EQ(
        invalid_argument_message([&] { k_same_select(t.rows(), 1, Grouping::PerTask, rng, kNoCancel); }),
        "k must be at least 2, got 1");
    EXPECT_EQ(
        invalid_argument_message([&] { k_same_select(t.rows(), 4, Grouping::PerTask, rng, kNoCancel); }),
        "task 'read' has 3 participants, fewer than k = 4");
    Table empty;
    EXPECT_EQ(
        invalid_argument_message([&] { k_same_select(empty.rows(), 2, Grouping::PerTask, rng, kNoCancel); }),
        "the source returned no rows");

    Table lengths = simple(3, 2);
    lengths.features[3] = {1, 2};
    EXPECT_EQ(
        invalid_argument_message(
            [&] { k_same_select(lengths.rows(), 2, Grouping::PerTask, rng, kNoCancel); }),
        "the feature vectors of task 'read' have different lengths: participant 'p100', window 1 has 3, "
        "participant 'p101', window 2 has 2");
    Table hollow = simple(3, 2);
    hollow.features[2].clear();
    EXPECT_EQ(
        invalid_argument_message([&] { k_same_select(hollow.rows(), 2, Grouping::PerTask, rng, kNoCancel); }),
        "the features of participant 'p101', task 'read', window 1 are empty");
    Table twice = simple(3, 2);
    twice.add("p101", "read", 2, {0, 0, 0});
    EXPECT_EQ(
        invalid_argument_message([&] { k_same_select(twice.rows(), 2, Grouping::PerTask, rng, kNoCancel); }),
        "participant 'p101' has two rows for task 'read', window 2");
    Table switching = simple(3, 2);
    switching.cls = {"a", "a", "a", "b", "b", "b"};
    EXPECT_EQ(invalid_argument_message(
                  [&] { k_same_select(switching.rows(true), 2, Grouping::PerTask, rng, kNoCancel); }),
              "the utility class of participant 'p101' changes within task 'read' ('a' and 'b')");
}

TEST(KSame, TheCostIsALoggedKAnonymityReleaseWithoutEpsilon) {
    const ReleaseCost c = k_same_select_cost(4, nullptr, false, "SELECT * FROM \"my features\"");
    EXPECT_EQ(c.epsilon, 0);
    EXPECT_EQ(c.delta, 0);
    EXPECT_LT(c.rho, 0);
    EXPECT_EQ(c.guarantee, Guarantee::KAnonymity);
    EXPECT_FALSE(c.non_private_choices);
    EXPECT_EQ(c.mechanism, "k_same_select");
    EXPECT_EQ(c.parameters_json,
              "{\"k\": 4, \"across_tasks\": false, \"grouping\": \"per task (paper)\", \"class_column\": "
              "null, \"source\": \"SELECT * FROM \\\"my features\\\"\"}");
    EXPECT_EQ(k_same_select_cost(2, "c", true, "t").parameters_json,
              "{\"k\": 2, \"across_tasks\": true, \"grouping\": \"across tasks\", \"class_column\": \"c\", "
              "\"source\": \"t\"}");
    EXPECT_EQ(invalid_argument_message([] { k_same_select_cost(0, "c", false, "t"); }),
              "k must be at least 2, got 0");
}
