#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/common/errors.hpp"
#include "core/kanon/k_same.hpp"

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
        // Rows usually repeat the previous row's string: compare with it before hashing.
        if (r > 0 && std::strcmp(column[r], column[r - 1]) == 0) {
            out.id_of_row[r] = out.id_of_row[r - 1];
            continue;
        }
        const std::string_view key(column[r]);
        auto it = first_id.find(key); // find first: emplace would allocate a node for every row
        if (it == first_id.end()) {
            it = first_id.emplace(key, static_cast<std::uint32_t>(out.row_of_id.size())).first;
            out.row_of_id.push_back(r);
        }
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

// One participant's sequence within one task: order[begin, end) of the sorted usable rows.
struct Sequence {
    std::uint32_t participant;
    std::size_t begin;
    std::size_t end;
    std::size_t length() const { return end - begin; }
};

struct Task {
    std::size_t first_row;           // a row of the task, for messages
    std::size_t dim;                 // the length of its feature vectors
    std::int32_t first_window;       // its smallest window number
    std::size_t longest;             // its longest sequence
    std::vector<Sequence> sequences; // in participant order
};

// Rows with a NaN or an infinity are dropped: which rows are unusable is private, so not reported.
bool usable(const SequenceRows& in, std::size_t r) {
    for (std::size_t i = in.offset[r]; i < in.offset[r + 1]; ++i)
        if (!std::isfinite(in.values[i]))
            return false;
    return true;
}

std::string plural(std::size_t n, const char* word) {
    return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

// Splits the sorted usable rows into tasks and sequences, with the checks on their shape.
std::vector<Task> split_sequences(const SequenceRows& in, const std::vector<std::size_t>& order,
                                  const Interned& tasks, const Interned& participants,
                                  const Interned& classes, const CancelCheck& cancel) {
    std::vector<Task> out;
    std::size_t pos = 0;
    while (pos < order.size()) {
        const std::uint32_t task = tasks.id_of_row[order[pos]];
        Task t{order[pos], in.offset[order[pos] + 1] - in.offset[order[pos]], in.window[order[pos]], 0, {}};
        while (pos < order.size() && tasks.id_of_row[order[pos]] == task) {
            const std::size_t r0 = order[pos];
            Sequence s{participants.id_of_row[r0], pos, pos};
            while (pos < order.size() && tasks.id_of_row[order[pos]] == task &&
                   participants.id_of_row[order[pos]] == s.participant) {
                const std::size_t r = order[pos];
                cancel.poll(pos);
                const std::size_t n = in.offset[r + 1] - in.offset[r];
                if (n == 0)
                    throw InvalidArgument("the features of participant " + quoted(in.participant[r]) +
                                          ", task " + quoted(in.task[r]) + ", window " +
                                          std::to_string(in.window[r]) + " are empty");
                if (n != t.dim)
                    throw InvalidArgument(
                        "the feature vectors of task " + quoted(in.task[r]) +
                        " have different lengths: participant " + quoted(in.participant[t.first_row]) +
                        ", window " + std::to_string(in.window[t.first_row]) + " has " +
                        std::to_string(t.dim) + ", participant " + quoted(in.participant[r]) + ", window " +
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
                t.first_window = std::min(t.first_window, in.window[r]);
                ++pos;
            }
            s.end = pos;
            t.longest = std::max(t.longest, s.length());
            t.sequences.push_back(s);
        }
        out.push_back(std::move(t));
    }
    return out;
}

// Random groups of members (any ids) partitioned by class: each class shuffled (Fisher-Yates on the CSPRNG)
// and cut into floor(n / k) groups of balanced sizes. `where` names the population in messages.
std::vector<std::vector<std::uint32_t>>
draw_groups(const std::vector<std::uint32_t>& members, const std::vector<std::uint32_t>& class_of_member,
            const std::function<std::string(std::uint32_t)>& class_name, const std::string& where, int k,
            Rng& rng) {
    std::vector<std::pair<std::uint32_t, std::uint32_t>> by_class; // (class, member), members in given order
    for (std::size_t i = 0; i < members.size(); ++i)
        by_class.emplace_back(class_of_member.empty() ? 0 : class_of_member[i], members[i]);
    std::stable_sort(by_class.begin(), by_class.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    const std::size_t kk = static_cast<std::size_t>(k);
    std::vector<std::vector<std::uint32_t>> groups;
    for (std::size_t begin = 0; begin < by_class.size();) {
        std::size_t end = begin;
        std::vector<std::uint32_t> cls;
        while (end < by_class.size() && by_class[end].first == by_class[begin].first)
            cls.push_back(by_class[end++].second);
        if (cls.size() < kk)
            throw InvalidArgument(
                (class_of_member.empty()
                     ? ""
                     : "utility class " + quoted(class_name(by_class[begin].first).c_str()) + " of ") +
                where + " has " + plural(cls.size(), "participant") +
                ", fewer than k = " + std::to_string(k));
        for (std::size_t i = cls.size() - 1; i > 0; --i)
            std::swap(cls[i], cls[rng.uniform_below(i + 1)]);
        const std::size_t count = cls.size() / kk;
        for (std::size_t g = 0, next = 0; g < count; ++g) {
            const std::size_t size = balanced_group_size(cls.size(), count, g);
            groups.emplace_back(cls.begin() + next, cls.begin() + next + size);
            next += size;
        }
        begin = end;
    }
    return groups;
}

} // namespace

std::size_t balanced_group_size(std::size_t n, std::size_t groups, std::size_t g) {
    return n / groups + (g < n % groups ? 1 : 0);
}

KSameRelease k_same_select(const SequenceRows& in, int k, Grouping grouping, Rng& rng,
                           const CancelCheck& cancel) {
    if (k < 2)
        throw InvalidArgument("k must be at least 2, got " + std::to_string(k));
    if (in.rows == 0)
        throw InvalidArgument("the source returned no rows");

    const Interned tasks = intern(in.task, in.rows, cancel);
    const Interned participants = intern(in.participant, in.rows, cancel);
    Interned classes;
    if (in.utility_class != nullptr)
        classes = intern(in.utility_class, in.rows, cancel);

    // Usable rows in (task, participant, window) order: a counting sort by (task, participant) when there are
    // not many more (task, participant) pairs than rows, then each sequence by window (rows usually arrive in
    // window order already).
    std::vector<std::size_t> order;
    for (std::size_t r = 0; r < in.rows; ++r) {
        cancel.poll(r);
        if (usable(in, r))
            order.push_back(r);
    }
    if (order.empty())
        throw InvalidArgument("the source returned no rows with finite features");
    const std::size_t n_participants = participants.row_of_id.size();
    const double pairs = static_cast<double>(tasks.row_of_id.size()) * static_cast<double>(n_participants);
    const auto pair_of = [&](std::size_t r) {
        return tasks.id_of_row[r] * n_participants + participants.id_of_row[r];
    };
    const auto by_window = [&](std::size_t a, std::size_t b) { return in.window[a] < in.window[b]; };
    if (pairs <= 4.0 * static_cast<double>(order.size()) + 1024) {
        std::vector<std::size_t> start(static_cast<std::size_t>(pairs) + 1, 0);
        for (std::size_t r : order)
            ++start[pair_of(r) + 1];
        for (std::size_t b = 1; b < start.size(); ++b)
            start[b] += start[b - 1];
        std::vector<std::size_t> next(start.begin(), start.end() - 1), sorted(order.size());
        for (std::size_t r : order)
            sorted[next[pair_of(r)]++] = r;
        order = std::move(sorted);
        for (std::size_t b = 0; b + 1 < start.size(); ++b)
            if (!std::is_sorted(order.begin() + start[b], order.begin() + start[b + 1], by_window))
                std::sort(order.begin() + start[b], order.begin() + start[b + 1], by_window);
    } else {
        std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
            return pair_of(a) != pair_of(b) ? pair_of(a) < pair_of(b) : by_window(a, b);
        });
    }
    cancel.now();

    const std::vector<Task> by_task = split_sequences(in, order, tasks, participants, classes, cancel);

    // The groups of every task, as sequence indices of that task.
    std::vector<std::vector<std::vector<std::uint32_t>>> groups_of_task(by_task.size());
    const auto class_of_sequence = [&](const Sequence& s) { return classes.id_of_row[order[s.begin]]; };
    const auto class_name = [&](std::uint32_t c) {
        return std::string(in.utility_class[classes.row_of_id[c]]);
    };
    if (grouping == Grouping::PerTask) {
        for (std::size_t t = 0; t < by_task.size(); ++t) {
            const Task& task = by_task[t];
            std::vector<std::uint32_t> members, member_class;
            for (std::uint32_t i = 0; i < task.sequences.size(); ++i) {
                members.push_back(i);
                if (in.utility_class != nullptr)
                    member_class.push_back(class_of_sequence(task.sequences[i]));
            }
            groups_of_task[t] = draw_groups(members, member_class, class_name,
                                            "task " + quoted(in.task[task.first_row]), k, rng);
        }
    } else {
        // One grouping of all participants, used in every task: each needs a sequence in every task and
        // one utility class throughout.
        const std::size_t n = participants.row_of_id.size();
        std::vector<std::vector<std::uint32_t>> sequence_of(by_task.size(),
                                                            std::vector<std::uint32_t>(n, UINT32_MAX));
        std::vector<std::uint32_t> class_of(n, UINT32_MAX);
        for (std::size_t t = 0; t < by_task.size(); ++t)
            for (std::uint32_t i = 0; i < by_task[t].sequences.size(); ++i) {
                const Sequence& s = by_task[t].sequences[i];
                sequence_of[t][s.participant] = i;
                if (in.utility_class == nullptr)
                    continue;
                const std::uint32_t c = class_of_sequence(s);
                if (class_of[s.participant] != UINT32_MAX && class_of[s.participant] != c)
                    throw InvalidArgument(
                        "the utility class of participant " + quoted(in.participant[order[s.begin]]) +
                        " differs between tasks (" + quoted(class_name(class_of[s.participant]).c_str()) +
                        " and " + quoted(class_name(c).c_str()) +
                        "); one grouping across tasks needs one class per participant");
                class_of[s.participant] = c;
            }
        std::vector<std::uint32_t> members, member_class;
        for (std::uint32_t p = 0; p < n; ++p) {
            bool anywhere = false, everywhere = true;
            for (std::size_t t = 0; t < by_task.size(); ++t) {
                anywhere = anywhere || sequence_of[t][p] != UINT32_MAX;
                everywhere = everywhere && sequence_of[t][p] != UINT32_MAX;
            }
            if (!anywhere)
                continue; // all of its rows were unusable
            if (!everywhere)
                for (std::size_t t = 0; t < by_task.size(); ++t)
                    if (sequence_of[t][p] == UINT32_MAX)
                        throw InvalidArgument(
                            "participant " + quoted(in.participant[participants.row_of_id[p]]) +
                            " has no usable rows in task " + quoted(in.task[by_task[t].first_row]) +
                            ", and the grouping across tasks (the default) needs every participant in every "
                            "task; across_tasks => false groups each task separately (the paper's variant, "
                            "whose kept ids link a participant's groups across tasks)");
            members.push_back(p);
            if (in.utility_class != nullptr)
                member_class.push_back(class_of[p]);
        }
        const auto groups = draw_groups(members, member_class, class_name, "the source", k, rng);
        for (std::size_t t = 0; t < by_task.size(); ++t)
            for (const auto& g : groups) {
                groups_of_task[t].emplace_back();
                for (std::uint32_t p : g)
                    groups_of_task[t].back().push_back(sequence_of[t][p]);
            }
    }

    // The sizes of the release, checked before anything is allocated for it.
    double released_rows = 0, released_vectors = 0, released_values = 0;
    for (std::size_t t = 0; t < by_task.size(); ++t) {
        const Task& task = by_task[t];
        released_rows += static_cast<double>(task.sequences.size()) * static_cast<double>(task.longest);
        released_vectors += static_cast<double>(groups_of_task[t].size()) * static_cast<double>(task.longest);
        released_values += static_cast<double>(groups_of_task[t].size() * task.longest * task.dim);
        if (static_cast<double>(task.longest) + static_cast<double>(task.first_window) > 2147483648.0)
            throw LimitExceeded("the padded windows of task " + quoted(in.task[task.first_row]) +
                                " would exceed the integer range");
    }
    if (released_rows > static_cast<double>(kMaxReleasedRows))
        throw LimitExceeded("the release would have more than " + std::to_string(kMaxReleasedRows) +
                            " rows (participants x longest sequence, summed over tasks)");

    KSameRelease out;
    out.task_row = tasks.row_of_id;
    out.participant_row = participants.row_of_id;
    out.rows.reserve(static_cast<std::size_t>(released_rows));
    out.vector_offset.reserve(static_cast<std::size_t>(released_vectors) + 1);
    out.means.assign(static_cast<std::size_t>(released_values), 0.0);
    out.vector_offset.push_back(0);
    for (std::size_t t = 0; t < by_task.size(); ++t) {
        const Task& task = by_task[t];
        const auto& groups = groups_of_task[t];

        // The group means at every position, a shorter sequence contributing its last vector.
        std::vector<std::uint32_t> group_of_sequence(task.sequences.size());
        std::vector<std::size_t> first_vector(groups.size());
        for (std::size_t g = 0; g < groups.size(); ++g) {
            first_vector[g] = out.vector_offset.size() - 1;
            for (std::uint32_t m : groups[g])
                group_of_sequence[m] = static_cast<std::uint32_t>(g);
            const double size = static_cast<double>(groups[g].size());
            for (std::size_t i = 0; i < task.longest; ++i) {
                cancel.poll(i);
                double* mean = out.means.data() + out.vector_offset.back();
                for (std::uint32_t m : groups[g]) {
                    const Sequence& s = task.sequences[m];
                    const double* v = in.values + in.offset[order[s.begin + std::min(i, s.length() - 1)]];
                    for (std::size_t j = 0; j < task.dim; ++j)
                        mean[j] += v[j];
                }
                for (std::size_t j = 0; j < task.dim; ++j)
                    mean[j] /= size;
                out.vector_offset.push_back(out.vector_offset.back() + task.dim);
            }
        }
        out.groups += groups.size();
        for (std::uint32_t i = 0; i < task.sequences.size(); ++i) {
            const std::uint32_t g = group_of_sequence[i];
            for (std::size_t w = 0; w < task.longest; ++w)
                out.rows.push_back(
                    {tasks.id_of_row[task.first_row], task.sequences[i].participant,
                     static_cast<std::int32_t>(task.first_window + static_cast<std::int64_t>(w)), g + 1,
                     first_vector[g] + w});
        }
    }
    return out;
}

} // namespace gazepriv::core::kanon
