#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/kanon/demographics.hpp"
#include "core/common/errors.hpp"

namespace gazepriv::core::kanon {

namespace {

constexpr std::size_t kMaxDistinctAges = 20000;

std::string quoted(std::string_view s) {
    return "'" + std::string(s) + "'";
}

// Checks the parameters and rows; returns the rows in participant-name order (which also finds duplicates).
std::vector<std::size_t> check_input(const DemographicRows& in, int k, const CancelCheck& cancel) {
    if (k < 2)
        throw InvalidArgument("k must be at least 2, got " + std::to_string(k));
    if (in.rows == 0)
        throw InvalidArgument("the source returned no rows");
    if (static_cast<std::size_t>(k) > in.rows)
        throw InvalidArgument("k = " + std::to_string(k) + " is larger than the number of rows (" +
                              std::to_string(in.rows) + ")");
    std::vector<std::pair<std::string_view, std::size_t>> names(in.rows);
    for (std::size_t r = 0; r < in.rows; ++r) {
        cancel.poll(r);
        names[r] = {in.participant[r], r};
        if (in.age[r] < -kMaxAge || in.age[r] > kMaxAge)
            throw InvalidArgument("the age of participant " + quoted(in.participant[r]) + " (" +
                                  std::to_string(in.age[r]) + ") is outside [-" + std::to_string(kMaxAge) +
                                  ", " + std::to_string(kMaxAge) + "]");
    }
    std::sort(names.begin(), names.end());
    cancel.now();
    std::vector<std::size_t> by_name(in.rows);
    for (std::size_t i = 0; i < in.rows; ++i) {
        if (i > 0 && names[i].first == names[i - 1].first)
            throw InvalidArgument("participant " + quoted(names[i].first) + " appears in more than one row");
        by_name[i] = names[i].second;
    }
    return by_name;
}

// The best cut of one population's ages into consecutive ranges of at least k rows.
struct Cut {
    bool feasible = false;
    std::size_t groups = 0;
    std::int64_t loss = 0;                                     // sum over rows of the range's age span
    std::vector<std::pair<std::int32_t, std::int32_t>> ranges; // (smallest, largest age) per range
    std::vector<std::size_t> sizes;
};

bool better(std::size_t groups, std::int64_t loss, std::size_t best_groups, std::int64_t best_loss) {
    return groups > best_groups || (groups == best_groups && loss < best_loss);
}

// Exact dynamic programme over the sorted distinct ages: best[j] is the best cut of the first j of them.
Cut best_cut(std::vector<std::int32_t> ages, int k, const CancelCheck& cancel) {
    std::sort(ages.begin(), ages.end());
    std::vector<std::int32_t> value;
    std::vector<std::size_t> prefix{0}; // rows with age < value[j] ... prefix[j]
    for (std::size_t i = 0; i < ages.size(); ++i) {
        if (i == 0 || ages[i] != ages[i - 1])
            value.push_back(ages[i]);
        if (value.size() == prefix.size())
            prefix.push_back(prefix.back());
        ++prefix.back();
    }
    const std::size_t m = value.size();
    if (m > kMaxDistinctAges)
        throw LimitExceeded("more than " + std::to_string(kMaxDistinctAges) +
                            " distinct ages in one population: the exact search would take too long");
    const std::size_t kk = static_cast<std::size_t>(k);
    std::vector<char> feasible(m + 1, 0);
    std::vector<std::size_t> groups(m + 1, 0), previous(m + 1, 0);
    std::vector<std::int64_t> loss(m + 1, 0);
    feasible[0] = 1;
    for (std::size_t j = 1; j <= m; ++j) {
        cancel.now();
        for (std::size_t i = 0; i < j && prefix[j] - prefix[i] >= kk; ++i) {
            if (!feasible[i])
                continue;
            const std::size_t rows = prefix[j] - prefix[i];
            const std::size_t g = groups[i] + 1;
            const std::int64_t l = loss[i] + static_cast<std::int64_t>(rows) *
                                                 (static_cast<std::int64_t>(value[j - 1]) - value[i]);
            if (!feasible[j] || better(g, l, groups[j], loss[j])) {
                feasible[j] = 1;
                groups[j] = g;
                loss[j] = l;
                previous[j] = i;
            }
        }
    }
    Cut cut;
    if (!feasible[m])
        return cut;
    cut.feasible = true;
    cut.groups = groups[m];
    cut.loss = loss[m];
    for (std::size_t j = m; j > 0; j = previous[j]) {
        cut.ranges.emplace_back(value[previous[j]], value[j - 1]);
        cut.sizes.push_back(prefix[j] - prefix[previous[j]]);
    }
    std::reverse(cut.ranges.begin(), cut.ranges.end());
    std::reverse(cut.sizes.begin(), cut.sizes.end());
    return cut;
}

// Orders rows by class, then participant name: a stable counting sort of the name order by class.
void order_rows(const std::vector<std::size_t>& by_name, Generalization& g) {
    std::vector<std::size_t> next(g.classes.size() + 1, 0);
    for (std::size_t r : by_name)
        ++next[g.class_of_row[r] + 1];
    for (std::size_t c = 0; c < g.classes.size(); ++c)
        next[c + 1] += next[c];
    g.row_order.resize(by_name.size());
    for (std::size_t r : by_name)
        g.row_order[next[g.class_of_row[r]]++] = r;
}

// The class of a row whose gender label is `label` (a position in `classes` of that label, ranges ascending).
std::uint32_t class_by_age(const std::vector<DemographicClass>& classes, std::size_t first, std::size_t count,
                           std::int32_t age) {
    for (std::size_t c = first; c < first + count; ++c)
        if (age <= classes[c].age_to)
            return static_cast<std::uint32_t>(c);
    return static_cast<std::uint32_t>(first + count - 1); // unreachable: the last range holds the oldest
}

} // namespace

Generalization generalize_demographics(const DemographicRows& in, int k, const CancelCheck& cancel) {
    const std::vector<std::size_t> by_name = check_input(in, k, cancel);

    // Genders in name order with their ages.
    std::map<std::string_view, std::vector<std::int32_t>> ages_of;
    std::int32_t youngest = in.age[0], oldest = in.age[0];
    for (std::size_t r = 0; r < in.rows; ++r) {
        ages_of[in.gender[r]].push_back(in.age[r]);
        youngest = std::min(youngest, in.age[r]);
        oldest = std::max(oldest, in.age[r]);
    }
    const std::int64_t span = std::max<std::int64_t>(1, static_cast<std::int64_t>(oldest) - youngest);

    // Kept gender: every gender cut on its own.
    std::vector<std::pair<std::string, Cut>> kept;
    bool kept_feasible = true;
    std::size_t kept_groups = 0;
    std::int64_t kept_loss = 0;
    for (const auto& [gender, ages] : ages_of) {
        Cut cut = best_cut(ages, k, cancel);
        kept_feasible = kept_feasible && cut.feasible;
        kept_groups += cut.groups;
        kept_loss += cut.loss;
        kept.emplace_back(gender, std::move(cut));
    }
    // Merged gender: one cut of everyone, plus one unit of gender loss per row (in row-years: span per row).
    bool merge = !kept_feasible;
    Cut merged;
    if (ages_of.size() > 1) {
        merged = best_cut(std::vector<std::int32_t>(in.age, in.age + in.rows), k, cancel);
        const std::int64_t merged_loss = merged.loss + static_cast<std::int64_t>(in.rows) * span;
        merge = !kept_feasible || better(merged.groups, merged_loss, kept_groups, kept_loss);
    }

    Generalization g;
    g.gender_merged = merge;
    if (merge) {
        // Label: the genders by decreasing count, ties by name ("M/F" for a male majority).
        std::vector<std::pair<std::string, std::size_t>> counts;
        for (const auto& [gender, ages] : ages_of)
            counts.emplace_back(gender, ages.size());
        std::stable_sort(counts.begin(), counts.end(),
                         [](const auto& a, const auto& b) { return a.second > b.second; });
        std::string label;
        std::vector<std::string> genders;
        for (const auto& [gender, n] : counts) {
            label += (label.empty() ? "" : "/") + gender;
            genders.push_back(gender);
        }
        for (std::size_t i = 0; i < merged.ranges.size(); ++i)
            g.classes.push_back(
                {label, genders, merged.ranges[i].first, merged.ranges[i].second, merged.sizes[i]});
        g.class_of_row.resize(in.rows);
        for (std::size_t r = 0; r < in.rows; ++r)
            g.class_of_row[r] = class_by_age(g.classes, 0, g.classes.size(), in.age[r]);
    } else {
        std::map<std::string_view, std::pair<std::size_t, std::size_t>> classes_of; // first class, count
        for (const auto& [gender, cut] : kept) {
            classes_of[gender] = {g.classes.size(), cut.ranges.size()};
            for (std::size_t i = 0; i < cut.ranges.size(); ++i)
                g.classes.push_back(
                    {gender, {gender}, cut.ranges[i].first, cut.ranges[i].second, cut.sizes[i]});
        }
        g.class_of_row.resize(in.rows);
        for (std::size_t r = 0; r < in.rows; ++r) {
            const auto [first, count] = classes_of.at(in.gender[r]);
            g.class_of_row[r] = class_by_age(g.classes, first, count, in.age[r]);
        }
    }
    for (const auto& c : g.classes)
        g.loss_row_years +=
            static_cast<std::int64_t>(c.rows) * (static_cast<std::int64_t>(c.age_to) - c.age_from);
    order_rows(by_name, g);
    return g;
}

namespace {

struct RangeSpec {
    std::string label;
    std::vector<std::string> genders;
    std::int32_t from;
    std::int32_t to;
};

std::int32_t parse_age(const std::string& spec, const char*& p) {
    char* end = nullptr;
    errno = 0;
    const long v = std::strtol(p, &end, 10);
    if (end == p || errno != 0 || v < -kMaxAge || v > kMaxAge)
        throw InvalidArgument("range " + quoted(spec) + " is not \"<gender>:<from>-<to>\" with ages in [-" +
                              std::to_string(kMaxAge) + ", " + std::to_string(kMaxAge) + "]");
    p = end;
    return static_cast<std::int32_t>(v);
}

RangeSpec parse_range(const std::string& spec) {
    const std::size_t colon = spec.rfind(':');
    if (colon == std::string::npos || colon == 0)
        throw InvalidArgument("range " + quoted(spec) +
                              " is not \"<gender>:<from>-<to>\" (e.g. 'M/F:23-27')");
    RangeSpec r;
    r.label = spec.substr(0, colon);
    std::size_t start = 0;
    while (start <= r.label.size()) {
        const std::size_t slash = std::min(r.label.find('/', start), r.label.size());
        const std::string gender = r.label.substr(start, slash - start);
        if (gender.empty())
            throw InvalidArgument("range " + quoted(spec) + " has an empty gender");
        r.genders.push_back(gender);
        start = slash + 1;
    }
    const std::string bounds = spec.substr(colon + 1);
    const char* p = bounds.c_str();
    r.from = parse_age(spec, p);
    r.to = r.from;
    if (*p == '-') {
        ++p;
        r.to = parse_age(spec, p);
    }
    if (*p != '\0')
        throw InvalidArgument("range " + quoted(spec) +
                              " is not \"<gender>:<from>-<to>\" (e.g. 'M/F:23-27')");
    if (r.from > r.to)
        throw InvalidArgument("range " + quoted(spec) + " ends before it starts");
    return r;
}

} // namespace

Generalization apply_demographic_ranges(const DemographicRows& in, int k,
                                        const std::vector<std::string>& ranges, const CancelCheck& cancel) {
    const std::vector<std::size_t> by_name = check_input(in, k, cancel);
    if (ranges.empty())
        throw InvalidArgument("ranges must hold at least one range");
    std::vector<RangeSpec> specs;
    for (const auto& s : ranges)
        specs.push_back(parse_range(s));

    // Per gender: its ranges by start; they must not overlap.
    std::map<std::string, std::vector<std::size_t>> ranges_of;
    for (std::size_t i = 0; i < specs.size(); ++i)
        for (const auto& gender : specs[i].genders)
            ranges_of[gender].push_back(i);
    for (auto& [gender, list] : ranges_of) {
        std::sort(list.begin(), list.end(),
                  [&](std::size_t a, std::size_t b) { return specs[a].from < specs[b].from; });
        for (std::size_t i = 1; i < list.size(); ++i)
            if (specs[list[i]].from <= specs[list[i - 1]].to)
                throw InvalidArgument("ranges " + quoted(ranges[list[i - 1]]) + " and " +
                                      quoted(ranges[list[i]]) + " overlap for gender " + quoted(gender));
    }

    std::vector<std::size_t> spec_of_row(in.rows), rows_of_spec(specs.size(), 0);
    for (std::size_t r = 0; r < in.rows; ++r) {
        cancel.poll(r);
        const auto it = ranges_of.find(in.gender[r]);
        std::size_t found = specs.size();
        if (it != ranges_of.end())
            for (std::size_t i : it->second)
                if (specs[i].from <= in.age[r] && in.age[r] <= specs[i].to)
                    found = i;
        if (found == specs.size())
            throw InvalidArgument("no range covers participant " + quoted(in.participant[r]) + " (gender " +
                                  quoted(in.gender[r]) + ", age " + std::to_string(in.age[r]) + ")");
        spec_of_row[r] = found;
        ++rows_of_spec[found];
    }
    for (std::size_t i = 0; i < specs.size(); ++i)
        if (rows_of_spec[i] > 0 && rows_of_spec[i] < static_cast<std::size_t>(k))
            throw InvalidArgument("range " + quoted(ranges[i]) + " holds " + std::to_string(rows_of_spec[i]) +
                                  " row" + (rows_of_spec[i] == 1 ? "" : "s") +
                                  ", fewer than k = " + std::to_string(k));

    // Classes: the ranges that hold rows, by label then age.
    std::vector<std::size_t> used;
    for (std::size_t i = 0; i < specs.size(); ++i)
        if (rows_of_spec[i] > 0)
            used.push_back(i);
    std::sort(used.begin(), used.end(), [&](std::size_t a, std::size_t b) {
        return std::make_pair(specs[a].label, specs[a].from) < std::make_pair(specs[b].label, specs[b].from);
    });
    Generalization g;
    std::vector<std::uint32_t> class_of_spec(specs.size(), 0);
    for (std::size_t c = 0; c < used.size(); ++c) {
        const RangeSpec& s = specs[used[c]];
        class_of_spec[used[c]] = static_cast<std::uint32_t>(c);
        g.classes.push_back({s.label, s.genders, s.from, s.to, rows_of_spec[used[c]]});
        g.gender_merged = g.gender_merged || s.genders.size() > 1;
        g.loss_row_years +=
            static_cast<std::int64_t>(rows_of_spec[used[c]]) * (static_cast<std::int64_t>(s.to) - s.from);
    }
    g.class_of_row.resize(in.rows);
    for (std::size_t r = 0; r < in.rows; ++r)
        g.class_of_row[r] = class_of_spec[spec_of_row[r]];
    order_rows(by_name, g);
    return g;
}

} // namespace gazepriv::core::kanon
