#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/kanon/demographics.hpp"
#include "core/common/errors.hpp"
#include "invalid_argument.hpp"
#include "core/kanon/k_anonymity_cost.hpp"
#include "core/noise/random.hpp"

using namespace gazepriv::core;
using gazepriv::test::invalid_argument_message;
using namespace gazepriv::core::kanon;

namespace {

struct People {
    std::vector<std::string> participant, gender;
    std::vector<std::int32_t> age;
    std::vector<const char*> p_, g_;

    void add(const std::string& p, const std::string& g, std::int32_t a) {
        participant.push_back(p);
        gender.push_back(g);
        age.push_back(a);
    }
    DemographicRows rows() {
        p_.clear();
        g_.clear();
        for (std::size_t i = 0; i < participant.size(); ++i) {
            p_.push_back(participant[i].c_str());
            g_.push_back(gender[i].c_str());
        }
        return {participant.size(), p_.data(), g_.data(), age.data()};
    }
};

// The supplement's Table 1 (TVCG 2023, section 1): ET-DK2 subjects 2-20 (7 missing) and 360_em subjects
// 2-14, 31 rows. The OCR'd header reads "Age Gender" but the columns hold gender, then age.
People table1() {
    People t;
    const char* etdk2[][2] = {{"M", "43"}, {"F", "27"}, {"M", "29"}, {"M", "32"}, {"F", "28"}, {"M", "26"},
                              {"F", "23"}, {"M", "30"}, {"F", "28"}, {"M", "26"}, {"M", "52"}, {"M", "26"},
                              {"M", "35"}, {"M", "50"}, {"M", "33"}, {"M", "31"}, {"M", "32"}, {"M", "36"}};
    const int etdk2_ids[] = {2, 3, 4, 5, 6, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20};
    for (int i = 0; i < 18; ++i)
        t.add("ET-DK2 " + std::to_string(etdk2_ids[i]), etdk2[i][0], std::stoi(etdk2[i][1]));
    const char* em360[][2] = {{"M", "38"}, {"M", "29"}, {"F", "23"}, {"F", "31"}, {"M", "27"},
                              {"M", "31"}, {"F", "23"}, {"M", "24"}, {"M", "23"}, {"M", "27"},
                              {"M", "23"}, {"M", "23"}, {"M", "32"}};
    for (int i = 0; i < 13; ++i)
        t.add("360_em " + std::to_string(i + 2), em360[i][0], std::stoi(em360[i][1]));
    return t;
}

std::vector<std::string> ranges(const Generalization& g) {
    std::vector<std::string> out;
    for (const auto& c : g.classes)
        out.push_back("(" + c.gender + ", " + std::to_string(c.age_from) + "-" + std::to_string(c.age_to) +
                      ")");
    return out;
}

std::vector<std::size_t> sizes(const Generalization& g) {
    std::vector<std::size_t> out;
    for (const auto& c : g.classes)
        out.push_back(c.rows);
    return out;
}

const CancelCheck kNoCancel;

// Exhaustive reference: every cut of the sorted distinct ages into ranges of >= k rows; best (groups, loss).
std::pair<std::size_t, std::int64_t> brute_force_cut(std::vector<std::int32_t> ages, int k) {
    std::sort(ages.begin(), ages.end());
    std::vector<std::int32_t> v = ages;
    v.erase(std::unique(v.begin(), v.end()), v.end());
    std::pair<std::size_t, std::int64_t> best{0, -1};
    const std::size_t m = v.size();
    for (std::uint32_t mask = 0; mask < (1u << (m - 1)); ++mask) {
        std::size_t groups = 0;
        std::int64_t loss = 0;
        bool ok = true;
        std::size_t start = 0;
        for (std::size_t i = 0; i < m && ok; ++i)
            if (i == m - 1 || (mask >> i & 1)) {
                const auto n = std::count_if(ages.begin(), ages.end(),
                                             [&](int a) { return a >= v[start] && a <= v[i]; });
                ok = n >= k;
                ++groups;
                loss += n * (v[i] - v[start]);
                start = i + 1;
            }
        if (ok && (groups > best.first || (groups == best.first && (best.second < 0 || loss < best.second))))
            best = {groups, loss};
    }
    return best;
}

} // namespace

TEST(Demographics, TheFixtureIsTable1) {
    People t = table1();
    EXPECT_EQ(t.participant.size(), 31u);
    EXPECT_EQ(std::count(t.gender.begin(), t.gender.end(), "F"), 7);
    EXPECT_EQ(*std::min_element(t.age.begin(), t.age.end()), 23);
    EXPECT_EQ(*std::max_element(t.age.begin(), t.age.end()), 52);
}

TEST(Demographics, ReproducesTable2AtK6AndK15) {
    People t = table1();
    const Generalization k6 = generalize_demographics(t.rows(), 6, kNoCancel);
    EXPECT_EQ(ranges(k6), (std::vector<std::string>{"(F, 23-31)", "(M, 23-27)", "(M, 29-33)", "(M, 35-52)"}));
    EXPECT_EQ(sizes(k6), (std::vector<std::size_t>{7, 9, 9, 6}));
    EXPECT_FALSE(k6.gender_merged);
    const Generalization k15 = generalize_demographics(t.rows(), 15, kNoCancel);
    EXPECT_EQ(ranges(k15), (std::vector<std::string>{"(M/F, 23-28)", "(M/F, 29-52)"}));
    EXPECT_EQ(sizes(k15), (std::vector<std::size_t>{15, 16}));
    EXPECT_TRUE(k15.gender_merged);
}

// At k = 8 three cuts of the merged population have 3 classes; the paper picked one whose ages span 276
// row-years, ours spans 274.
TEST(Demographics, AtK8TheSameNumberOfClassesAsTable2WithLessLoss) {
    People t = table1();
    const Generalization ours = generalize_demographics(t.rows(), 8, kNoCancel);
    EXPECT_EQ(ranges(ours), (std::vector<std::string>{"(M/F, 23-26)", "(M/F, 27-31)", "(M/F, 32-52)"}));
    EXPECT_EQ(sizes(ours), (std::vector<std::size_t>{10, 11, 10}));
    EXPECT_EQ(ours.loss_row_years, 274);
    const Generalization paper =
        apply_demographic_ranges(t.rows(), 8, {"M/F:23-27", "M/F:28-31", "M/F:32-52"}, kNoCancel);
    EXPECT_EQ(ranges(paper), (std::vector<std::string>{"(M/F, 23-27)", "(M/F, 28-31)", "(M/F, 32-52)"}));
    EXPECT_EQ(sizes(paper), (std::vector<std::size_t>{13, 8, 10}));
    EXPECT_EQ(paper.loss_row_years, 276);
}

// At k = 4 Table 2 lists 5 classes, but (M, 23-27) splits into (M, 23-24) and (M, 26-27) of 4 and 5 rows.
TEST(Demographics, AtK4MoreClassesThanTable2) {
    People t = table1();
    const Generalization ours = generalize_demographics(t.rows(), 4, kNoCancel);
    EXPECT_EQ(ranges(ours), (std::vector<std::string>{"(F, 23-31)", "(M, 23-24)", "(M, 26-27)", "(M, 29-31)",
                                                      "(M, 32-36)", "(M, 38-52)"}));
    EXPECT_EQ(sizes(ours), (std::vector<std::size_t>{7, 4, 5, 5, 6, 4}));
    const Generalization paper = apply_demographic_ranges(
        t.rows(), 4, {"F:23-31", "M:23-27", "M:29-31", "M:32-33", "M:35-52"}, kNoCancel);
    EXPECT_EQ(sizes(paper), (std::vector<std::size_t>{7, 9, 5, 4, 6})); // 4-anonymous, one class fewer
    EXPECT_NO_THROW(apply_demographic_ranges(
        t.rows(), 4, {"F:23-31", "M:23-24", "M:26-27", "M:29-31", "M:32-33", "M:35-52"}, kNoCancel));
}

TEST(Demographics, RowsAreMappedToTheirClassInClassThenNameOrder) {
    People t = table1();
    const Generalization g = generalize_demographics(t.rows(), 6, kNoCancel);
    ASSERT_EQ(g.row_order.size(), 31u);
    for (std::size_t r = 0; r < 31; ++r) {
        const DemographicClass& c = g.classes[g.class_of_row[r]];
        EXPECT_EQ(c.gender, t.gender[r]);
        EXPECT_GE(t.age[r], c.age_from);
        EXPECT_LE(t.age[r], c.age_to);
    }
    for (std::size_t i = 1; i < 31; ++i) {
        const std::size_t a = g.row_order[i - 1], b = g.row_order[i];
        EXPECT_TRUE(g.class_of_row[a] < g.class_of_row[b] ||
                    (g.class_of_row[a] == g.class_of_row[b] && t.participant[a] < t.participant[b]));
    }
}

// The dynamic programme against exhaustive search, on random populations.
TEST(Demographics, TheOptimumMatchesExhaustiveSearch) {
    Rng rng(11, 0);
    for (int trial = 0; trial < 300; ++trial) {
        People t;
        const int n = 4 + static_cast<int>(rng.uniform_below(40));
        const int k = 2 + static_cast<int>(rng.uniform_below(5));
        if (k > n)
            continue;
        for (int i = 0; i < n; ++i)
            t.add("p" + std::to_string(i), rng.uniform_below(3) == 0 ? "F" : "M",
                  18 + static_cast<int>(rng.uniform_below(14)));
        const Generalization g = generalize_demographics(t.rows(), k, kNoCancel);
        std::map<std::string, std::vector<std::int32_t>> by_gender;
        for (int i = 0; i < n; ++i)
            by_gender[t.gender[i]].push_back(t.age[i]);
        std::size_t kept_groups = 0;
        std::int64_t kept_loss = 0;
        bool kept_ok = true;
        for (const auto& [gender, ages] : by_gender) {
            const auto [groups, loss] = brute_force_cut(ages, k);
            kept_ok = kept_ok && groups > 0;
            kept_groups += groups;
            kept_loss += loss;
        }
        const auto [merged_groups, merged_loss] = brute_force_cut(t.age, k);
        const int span = std::max(1, *std::max_element(t.age.begin(), t.age.end()) -
                                         *std::min_element(t.age.begin(), t.age.end()));
        const std::int64_t merged_total = merged_loss + (by_gender.size() > 1 ? std::int64_t{n} * span : 0);
        const bool merge = !kept_ok || merged_groups > kept_groups ||
                           (merged_groups == kept_groups && merged_total < kept_loss);
        EXPECT_EQ(g.classes.size(), merge ? merged_groups : kept_groups) << "trial " << trial;
        EXPECT_EQ(g.loss_row_years, merge ? merged_loss : kept_loss) << "trial " << trial;
        for (const auto& c : g.classes)
            EXPECT_GE(c.rows, static_cast<std::size_t>(k));
    }
}

TEST(Demographics, AppliedRangesKeepTheirBoundsAndSkipEmptyOnes) {
    People t = table1();
    const Generalization g =
        apply_demographic_ranges(t.rows(), 10, {"M/F:100-120", "M/F:30-99", "M/F:18-29"}, kNoCancel);
    EXPECT_EQ(ranges(g), (std::vector<std::string>{"(M/F, 18-29)", "(M/F, 30-99)"}));
    EXPECT_EQ(sizes(g), (std::vector<std::size_t>{17, 14}));
    EXPECT_EQ(g.classes[0].genders, (std::vector<std::string>{"M", "F"}));
    // Public decades are not 10-anonymous here: one person is in their forties.
    EXPECT_EQ(invalid_argument_message([&] {
                  apply_demographic_ranges(t.rows(), 10, {"M/F:18-29", "M/F:30-39", "M/F:40-49", "M/F:50-59"},
                                           kNoCancel);
              }),
              "range 'M/F:40-49' holds 1 row, fewer than k = 10");
}

TEST(Demographics, BadInputIsRejectedWithAClearMessage) {
    People t = table1();
    EXPECT_EQ(invalid_argument_message([&] { generalize_demographics(t.rows(), 1, kNoCancel); }),
              "k must be at least 2, got 1");
    EXPECT_EQ(invalid_argument_message([&] { generalize_demographics(t.rows(), 32, kNoCancel); }),
              "k = 32 is larger than the number of rows (31)");
    People none;
    EXPECT_EQ(invalid_argument_message([&] { generalize_demographics(none.rows(), 2, kNoCancel); }),
              "the source returned no rows");
    People twice = table1();
    twice.add("360_em 5", "F", 31);
    EXPECT_EQ(invalid_argument_message([&] { generalize_demographics(twice.rows(), 2, kNoCancel); }),
              "participant '360_em 5' appears in more than one row");
    People old = table1();
    old.age[0] = 2000000;
    EXPECT_EQ(invalid_argument_message([&] { generalize_demographics(old.rows(), 2, kNoCancel); }),
              "the age of participant 'ET-DK2 2' (2000000) is outside [-1000000, 1000000]");

    EXPECT_EQ(invalid_argument_message([&] {
                  apply_demographic_ranges(t.rows(), 4, {"M:23-40", "M:35-52", "F:23-31"}, kNoCancel);
              }),
              "ranges 'M:23-40' and 'M:35-52' overlap for gender 'M'");
    EXPECT_EQ(invalid_argument_message([&] {
                  apply_demographic_ranges(t.rows(), 4, {"M:23-51", "F:23-31"}, kNoCancel);
              }),
              "no range covers participant 'ET-DK2 13' (gender 'M', age 52)");
    EXPECT_EQ(
        invalid_argument_message([&] { apply_demographic_ranges(t.rows(), 4, {"M:23-52"}, kNoCancel); }),
        "no range covers participant 'ET-DK2 3' (gender 'F', age 27)");
    EXPECT_EQ(invalid_argument_message([&] {
                  apply_demographic_ranges(t.rows(), 5, {"M:23-24", "M:25-52", "F:23-31"}, kNoCancel);
              }),
              "range 'M:23-24' holds 4 rows, fewer than k = 5");
    EXPECT_EQ(
        invalid_argument_message([&] { apply_demographic_ranges(t.rows(), 4, {"M 23-52"}, kNoCancel); }),
        "range 'M 23-52' is not \"<gender>:<from>-<to>\" (e.g. 'M/F:23-27')");
    EXPECT_EQ(
        invalid_argument_message([&] { apply_demographic_ranges(t.rows(), 4, {"M:52-23"}, kNoCancel); }),
        "range 'M:52-23' ends before it starts");
    EXPECT_EQ(
        invalid_argument_message([&] { apply_demographic_ranges(t.rows(), 4, {"M/:23-52"}, kNoCancel); }),
        "range 'M/:23-52' has an empty gender");
    EXPECT_EQ(invalid_argument_message([&] { apply_demographic_ranges(t.rows(), 4, {"M:23-x"}, kNoCancel); }),
              "range 'M:23-x' is not \"<gender>:<from>-<to>\" with ages in [-1000000, 1000000]");
    EXPECT_EQ(invalid_argument_message([&] { apply_demographic_ranges(t.rows(), 4, {}, kNoCancel); }),
              "ranges must hold at least one range");
}

TEST(Demographics, TheCostMarksOptimisedRangesAsADataDependentChoice) {
    const ReleaseCost optimised =
        generalize_demographics_cost("generalize_demographics", 4, "sex", "age", nullptr, "people");
    EXPECT_EQ(optimised.guarantee, Guarantee::KAnonymity);
    EXPECT_EQ(optimised.epsilon, 0);
    EXPECT_TRUE(optimised.non_private_choices);
    EXPECT_EQ(
        optimised.parameters_json,
        "{\"k\": 4, \"quasi_identifiers\": [\"sex\", \"age\"], \"ranges\": null, \"source\": \"people\"}");
    const std::vector<std::string> given{"M/F:18-29", "M/F:30-99"};
    const ReleaseCost fixed =
        generalize_demographics_cost("generalize_demographics", 4, "sex", "age", &given, "people");
    EXPECT_FALSE(fixed.non_private_choices);
    EXPECT_EQ(fixed.parameters_json, "{\"k\": 4, \"quasi_identifiers\": [\"sex\", \"age\"], \"ranges\": "
                                     "[\"M/F:18-29\", \"M/F:30-99\"], \"source\": \"people\"}");
}
