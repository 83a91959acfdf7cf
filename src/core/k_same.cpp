#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/errors.hpp"
#include "core/k_same.hpp"
#include "core/validate.hpp"

namespace gazepriv::core::kanon {

namespace {

// Dense ids for the distinct strings of one column, numbered in byte-wise name order so that the result
// (and the shuffle under a test seed) does not depend on the order in which the rows arrived.
struct Interned {
    std::vector<std::uint32_t> id_of_row;
    std::vector<std::size_t> row_of_id; // a representative row per id
};

Interned intern(const char* const* column, std::size_t rows, const CancelCheck& cancel) {
    std::unordered_map<std::string_view, std::uint32_t> first_id;
    Interned out;
    out.id_of_row.resize(rows);
    for (std::size_t r = 0; r < rows; ++r) {
        cancel.poll(r);
        const auto [it, inserted] =
            first_id.emplace(std::string_view(column[r]), static_cast<std::uint32_t>(out.row_of_id.size()));
        if (inserted)
            out.row_of_id.push_back(r);
        out.id_of_row[r] = it->second;
    }
    // Renumber in name order.
    std::vector<std::uint32_t> order(out.row_of_id.size());
    for (std::uint32_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
        return std::strcmp(column[out.row_of_id[a]], column[out.row_of_id[b]]) < 0;
    });
    std::vector<std::uint32_t> rank(order.size());
    std::vector<std::size_t> row_of_rank(order.size());
    for (std::uint32_t i = 0; i < order.size(); ++i) {
        rank[order[i]] = i;
        row_of_rank[i] = out.row_of_id[order[i]];
    }
    for (auto& id : out.id_of_row)
        id = rank[id];
    out.row_of_id = std::move(row_of_rank);
    return out;
}

std::string quoted(const char* s) {
    return "'" + std::string(s) + "'";
}

// One participant's sequence within one task: rows[begin, end) of the sorted row index.
struct Sequence {
    std::uint32_t participant;
    std::size_t begin;
    std::size_t end;
    std::size_t length() const { return end - begin; }
};

// Rows with a NaN or an infinity are dropped: which rows are unusable is private, so not reported.
bool usable(const SequenceRows& in, std::size_t r) {
    for (std::size_t i = in.offset[r]; i < in.offset[r + 1]; ++i)
        if (!std::isfinite(in.values[i]))
            return false;
    return true;
}

} // namespace

std::size_t balanced_group_size(std::size_t n, std::size_t groups, std::size_t g) {
    return n / groups + (g < n % groups ? 1 : 0);
}

KSameRelease k_same_select(const SequenceRows& in, int k, Rng& rng, const CancelCheck& cancel) {
    if (k < 2)
        throw InvalidArgument("k must be at least 2, got " + std::to_string(k));
    if (in.rows == 0)
        throw InvalidArgument("the source returned no rows");

    const Interned tasks = intern(in.task, in.rows, cancel);
    const Interned participants = intern(in.participant, in.rows, cancel);
    Interned classes;
    if (in.utility_class != nullptr)
        classes = intern(in.utility_class, in.rows, cancel);

    // Usable rows in (task, participant, window) order.
    std::vector<std::size_t> order;
    for (std::size_t r = 0; r < in.rows; ++r)
        if (usable(in, r))
            order.push_back(r);
    if (order.empty())
        throw InvalidArgument("the source returned no rows with finite features");
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        const auto ka = std::make_tuple(tasks.id_of_row[a], participants.id_of_row[a], in.window[a]);
        const auto kb = std::make_tuple(tasks.id_of_row[b], participants.id_of_row[b], in.window[b]);
        return ka < kb;
    });
    cancel.now();

    KSameRelease out;
    out.task_row = tasks.row_of_id;
    out.participant_row = participants.row_of_id;
    out.vector_offset.push_back(0);
    std::size_t released_rows = 0;

    std::size_t pos = 0;
    const std::size_t rows = order.size();
    while (pos < rows) {
        const std::uint32_t task = tasks.id_of_row[order[pos]];
        const std::size_t first_row = order[pos];
        const std::size_t dim = in.offset[first_row + 1] - in.offset[first_row];

        // The task's sequences, with their checks.
        std::vector<Sequence> sequences;
        std::int32_t first_window = in.window[first_row];
        std::size_t longest = 0;
        while (pos < rows && tasks.id_of_row[order[pos]] == task) {
            const std::size_t r0 = order[pos];
            Sequence s{participants.id_of_row[r0], pos, pos};
            while (pos < rows && tasks.id_of_row[order[pos]] == task &&
                   participants.id_of_row[order[pos]] == s.participant) {
                const std::size_t r = order[pos];
                cancel.poll(pos);
                const std::size_t n = in.offset[r + 1] - in.offset[r];
                if (n == 0)
                    throw InvalidArgument("the features of participant " + quoted(in.participant[r]) +
                                          ", task " + quoted(in.task[r]) + ", window " +
                                          std::to_string(in.window[r]) + " are empty");
                if (n != dim)
                    throw InvalidArgument(
                        "the feature vectors of task " + quoted(in.task[r]) +
                        " have different lengths: participant " + quoted(in.participant[first_row]) +
                        ", window " + std::to_string(in.window[first_row]) + " has " + std::to_string(dim) +
                        ", participant " + quoted(in.participant[r]) + ", window " +
                        std::to_string(in.window[r]) + " has " + std::to_string(n));
                if (pos > s.begin && in.window[order[pos - 1]] == in.window[r])
                    throw InvalidArgument("participant " + quoted(in.participant[r]) +
                                          " has two rows for task " + quoted(in.task[r]) + ", window " +
                                          std::to_string(in.window[r]));
                if (in.utility_class != nullptr && classes.id_of_row[r] != classes.id_of_row[r0])
                    throw InvalidArgument("the utility class of participant " + quoted(in.participant[r]) +
                                          " changes within task " + quoted(in.task[r]) + " (" +
                                          quoted(in.utility_class[r0]) + " and " +
                                          quoted(in.utility_class[r]) + ")");
                first_window = std::min(first_window, in.window[r]);
                ++pos;
            }
            s.end = pos;
            longest = std::max(longest, s.length());
            sequences.push_back(s);
        }
        if (sequences.size() < static_cast<std::size_t>(k))
            throw InvalidArgument("task " + quoted(in.task[first_row]) + " has " +
                                  std::to_string(sequences.size()) + " participant" +
                                  (sequences.size() == 1 ? "" : "s") +
                                  ", fewer than k = " + std::to_string(k));
        if (static_cast<double>(sequences.size()) * static_cast<double>(longest) >
            static_cast<double>(kMaxReleasedRows - released_rows))
            throw LimitExceeded("the release would have more than " + std::to_string(kMaxReleasedRows) +
                                " rows (participants x longest sequence, summed over tasks)");
        released_rows += sequences.size() * longest;
        if (static_cast<double>(longest) + static_cast<double>(first_window) > 2147483647.0)
            throw LimitExceeded("the padded windows of task " + quoted(in.task[first_row]) +
                                " would exceed the integer range");

        // Members per utility class (one class without a class column), in participant order.
        std::vector<std::vector<std::uint32_t>> members_of_class;
        if (in.utility_class == nullptr) {
            members_of_class.emplace_back();
            for (std::uint32_t i = 0; i < sequences.size(); ++i)
                members_of_class[0].push_back(i);
        } else {
            std::vector<std::pair<std::uint32_t, std::uint32_t>> by_class; // (class, sequence)
            for (std::uint32_t i = 0; i < sequences.size(); ++i)
                by_class.emplace_back(classes.id_of_row[order[sequences[i].begin]], i);
            std::stable_sort(by_class.begin(), by_class.end(),
                             [](const auto& a, const auto& b) { return a.first < b.first; });
            for (std::size_t i = 0; i < by_class.size(); ++i) {
                if (i == 0 || by_class[i].first != by_class[i - 1].first)
                    members_of_class.emplace_back();
                members_of_class.back().push_back(by_class[i].second);
            }
            for (const auto& members : members_of_class)
                if (members.size() < static_cast<std::size_t>(k)) {
                    const std::size_t r = order[sequences[members[0]].begin];
                    throw InvalidArgument("utility class " + quoted(in.utility_class[r]) + " of task " +
                                          quoted(in.task[r]) + " has " + std::to_string(members.size()) +
                                          " participant" + (members.size() == 1 ? "" : "s") +
                                          ", fewer than k = " + std::to_string(k));
                }
        }

        // Random groups (the only randomness of the release), then the group means at every index.
        std::vector<std::uint32_t> group_of_sequence(sequences.size());
        std::vector<std::size_t> first_vector_of_group; // index of the group's first released vector
        std::uint32_t group = 0;
        for (auto& members : members_of_class) {
            for (std::size_t i = members.size() - 1; i > 0; --i)
                std::swap(members[i], members[rng.uniform_below(i + 1)]);
            const std::size_t groups = members.size() / static_cast<std::size_t>(k);
            std::size_t next = 0;
            for (std::size_t g = 0; g < groups; ++g, ++group) {
                const std::size_t size = balanced_group_size(members.size(), groups, g);
                first_vector_of_group.push_back(out.vector_offset.size() - 1);
                for (std::size_t i = 0; i < longest; ++i) {
                    cancel.poll(i);
                    const std::size_t at = out.means.size();
                    out.means.resize(at + dim, 0.0);
                    for (std::size_t m = next; m < next + size; ++m) {
                        const Sequence& s = sequences[members[m]];
                        const std::size_t r = order[s.begin + std::min(i, s.length() - 1)];
                        const double* v = in.values + in.offset[r];
                        for (std::size_t j = 0; j < dim; ++j)
                            out.means[at + j] += v[j];
                    }
                    for (std::size_t j = 0; j < dim; ++j)
                        out.means[at + j] /= static_cast<double>(size);
                    out.vector_offset.push_back(out.means.size());
                }
                for (std::size_t m = next; m < next + size; ++m)
                    group_of_sequence[members[m]] = group;
                next += size;
            }
        }
        out.groups += group;

        for (std::uint32_t i = 0; i < sequences.size(); ++i) {
            const std::uint32_t g = group_of_sequence[i];
            for (std::size_t w = 0; w < longest; ++w)
                out.rows.push_back({task, sequences[i].participant,
                                    static_cast<std::int32_t>(first_window + static_cast<std::int64_t>(w)),
                                    g + 1, first_vector_of_group[g] + w});
        }
    }
    return out;
}

} // namespace gazepriv::core::kanon
