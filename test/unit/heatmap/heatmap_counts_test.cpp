#include <gtest/gtest.h>
#include <zlib.h>

#include <cctype>
#include <cmath>
#include <map>
#include <memory>
#include <random>
#include <tuple>
#include <vector>

#include "core/common/errors.hpp"
#include "core/heatmap/heatmap_counts.hpp"
#include "core/heatmap/text_varint.hpp"

using namespace gazepriv::core;

namespace {

HeatmapSpec spec_for(std::int32_t width, std::int32_t height, std::int32_t cell_size, std::int32_t cap) {
    HeatmapSpec spec;
    spec.parameters.grid = make_grid(width, height, cell_size, kMaxHeatmapCells);
    spec.parameters.cap = cap;
    return spec;
}

struct Counts {
    HeatmapCounts c;
    Counts(const HeatmapSpec& spec, HeatmapAggregate aggregate = HeatmapAggregate::ExactMap) {
        c.init(aggregate, ParticipantKeyKind::Integer, spec, MemoryArena::heap());
    }
    ~Counts() { c.release_memory(); }
    void add(std::uint64_t participant, double x, double y) { c.add_point(c.participant(participant), x, y); }
    std::vector<std::int64_t> sums() const {
        std::vector<std::int64_t> s(static_cast<std::size_t>(c.parameters().grid.cells()));
        c.cell_sums(s.data(), CancelCheck());
        return s;
    }
};

struct Point {
    std::uint64_t participant;
    double x, y;
};

// Random gaze-like points: participants visit a few cells repeatedly.
std::vector<Point> random_points(std::size_t n, int participants, int width, int height, unsigned seed) {
    std::mt19937_64 gen(seed); // test data only, not noise
    std::vector<Point> points;
    for (std::size_t i = 0; i < n; ++i) {
        const std::uint64_t p = gen() % participants;
        const double x = static_cast<double>(gen() % (width + 4)) - 2 + 0.25;
        const double y = static_cast<double>(gen() % (height + 4)) - 2 + 0.75;
        points.push_back({p, x, y});
    }
    return points;
}

// Brute force: min(count, cap) per (participant, cell), summed per cell.
std::vector<std::int64_t> brute_force(const std::vector<Point>& points, const GazeGrid& grid,
                                      std::int64_t cap) {
    std::map<std::pair<std::uint64_t, std::int64_t>, std::int64_t> counts;
    for (const Point& p : points) {
        const std::int64_t cell = grid.cell_of(p.x, p.y);
        if (cell >= 0)
            ++counts[{p.participant, cell}];
    }
    std::vector<std::int64_t> sums(static_cast<std::size_t>(grid.cells()));
    for (const auto& [key, count] : counts)
        sums[static_cast<std::size_t>(key.second)] += std::min(count, cap);
    return sums;
}

} // namespace

TEST(GazeGrid, CellsDropPointsOutsideNaNAndInfinity) {
    const GazeGrid g = make_grid(10, 7, 3, kMaxHeatmapCells);
    EXPECT_EQ(g.columns, 4);
    EXPECT_EQ(g.rows, 3);
    EXPECT_EQ(g.cell_of(0, 0), 0);
    EXPECT_EQ(g.cell_of(2.999, 0), 0);
    EXPECT_EQ(g.cell_of(3, 0), 1);
    EXPECT_EQ(g.cell_of(9.999, 6.999), 2 * 4 + 3); // last partial cell
    EXPECT_EQ(g.cell_of(10, 0), -1);
    EXPECT_EQ(g.cell_of(0, 7), -1);
    EXPECT_EQ(g.cell_of(-0.001, 0), -1);
    EXPECT_EQ(g.cell_of(NAN, 1), -1);
    EXPECT_EQ(g.cell_of(1, INFINITY), -1);
    EXPECT_EQ(g.cell_of(-INFINITY, 1), -1);
    EXPECT_THROW(make_grid(0, 5, 1, kMaxHeatmapCells), InvalidArgument);
    EXPECT_THROW(make_grid(5, 5, 0, kMaxHeatmapCells), InvalidArgument);
    EXPECT_THROW(make_grid(100, 100, 1, 9999), LimitExceeded); // the cell limit
    EXPECT_NO_THROW(make_grid(100, 100, 1, 10000));
}

TEST(HeatmapCounts, CapsEachParticipantsCountPerCell) {
    Counts c(spec_for(4, 4, 1, 2));
    for (int i = 0; i < 5; ++i)
        c.add(1, 0.5, 0.5); // 5 points, capped at 2
    c.add(2, 0.5, 0.5);
    c.add(2, 3.5, 3.5);
    c.add(3, 4.0, 0.0); // outside: participant counted, point dropped
    const auto s = c.sums();
    EXPECT_EQ(s[0], 3);
    EXPECT_EQ(s[15], 1);
    EXPECT_EQ(c.c.participants(), 3u);
    EXPECT_EQ(c.c.max_count(CancelCheck()), 2u);
}

TEST(HeatmapCounts, MatchesBruteForceAcrossCompactions) {
    for (std::int32_t cap : {1, 2, 7}) {
        const HeatmapSpec spec = spec_for(37, 23, 2, cap);
        const auto points = random_points(400000, 50, 37, 23, 7 + cap);
        Counts c(spec);
        for (const Point& p : points)
            c.add(p.participant, p.x, p.y);
        EXPECT_EQ(c.sums(), brute_force(points, spec.parameters.grid, cap)) << "cap " << cap;
    }
}

TEST(HeatmapCounts, MatchesBruteForceWithThreeDigitSortKeys) {
    // 1500 x 900 cells (21 bits) and 50 participants (6 bits): the radix sort takes three 9-bit digits.
    for (std::int32_t cap : {1, 3}) {
        const HeatmapSpec spec = spec_for(1500, 900, 1, cap);
        auto points = random_points(300000, 50, 1500, 900, 11 + cap);
        const std::size_t distinct = points.size();
        for (std::size_t i = 0; i < distinct; i += 3) // repeats, near and far apart in time
            points.push_back(points[i % 2 == 0 ? i : distinct - 1 - i]);
        Counts c(spec);
        for (const Point& p : points)
            c.add(p.participant, p.x, p.y);
        EXPECT_EQ(c.sums(), brute_force(points, spec.parameters.grid, cap)) << "cap " << cap;
    }
}

TEST(HeatmapCounts, MergingSplitStatesIsExact) {
    // A participant's points split over several partial states (parallel workers, Citus shards): the merged
    // state equals the single one, byte for byte, although each part alone saturates differently.
    for (std::int32_t cap : {1, 3}) {
        const HeatmapSpec spec = spec_for(16, 16, 1, cap);
        const auto points = random_points(60000, 9, 16, 16, 11 + cap);
        Counts whole(spec);
        std::vector<std::unique_ptr<Counts>> parts;
        for (int k = 0; k < 4; ++k)
            parts.push_back(std::make_unique<Counts>(spec));
        for (std::size_t i = 0; i < points.size(); ++i) {
            whole.add(points[i].participant, points[i].x, points[i].y);
            parts[(i * 7) % 4]->add(points[i].participant, points[i].x, points[i].y);
        }
        for (int k = 1; k < 4; ++k)
            parts[0]->c.merge(parts[k]->c, CancelCheck());
        EXPECT_EQ(parts[0]->sums(), whole.sums());
        EXPECT_EQ(parts[0]->c.serialize(CancelCheck()), whole.c.serialize(CancelCheck()));
        // Naive per-part capping would overcount: show that the parts alone sum to more.
        if (cap == 1) {
            std::int64_t naive = 0, exact = 0;
            for (int k = 0; k < 4; ++k) {
                Counts part(spec);
                for (std::size_t i = k; i < points.size(); i += 4)
                    part.add(points[i].participant, points[i].x, points[i].y);
                for (auto v : part.sums())
                    naive += v;
            }
            for (auto v : whole.sums())
                exact += v;
            EXPECT_GT(naive, exact);
        }
    }
}

TEST(HeatmapCounts, DeserializedStatesMergeLinearlyAndStayUsable) {
    // States that come back from workers or shards are canonical (participants in key order): they merge in
    // one linear pass, including participants only one side has, and the result still accepts points.
    const HeatmapSpec spec = spec_for(12, 9, 1, 2);
    const auto points = random_points(30000, 23, 12, 9, 5);
    Counts whole(spec);
    std::vector<std::unique_ptr<Counts>> parts;
    for (int k = 0; k < 3; ++k)
        parts.push_back(std::make_unique<Counts>(spec));
    for (std::size_t i = 0; i < points.size(); ++i) {
        whole.add(points[i].participant, points[i].x, points[i].y);
        // participant-dependent split: some participants appear in one part only
        parts[(points[i].participant % 5 == 0) ? 0 : (i % 3)]->add(points[i].participant, points[i].x,
                                                                   points[i].y);
    }
    std::vector<HeatmapCounts> back(3);
    for (int k = 0; k < 3; ++k) {
        const auto bytes = parts[k]->c.serialize(CancelCheck());
        back[k].deserialize(bytes.data(), bytes.size(), MemoryArena::heap(), CancelCheck());
    }
    back[0].merge(back[1], CancelCheck());
    back[0].merge(back[2], CancelCheck());
    EXPECT_EQ(back[0].serialize(CancelCheck()), whole.c.serialize(CancelCheck()));
    // Points added after the merge land on the right participants.
    for (std::uint64_t p : {3u, 10u, 22u, 999u}) {
        back[0].add_point(back[0].participant(p), 0.5, 0.5);
        whole.add(p, 0.5, 0.5);
    }
    EXPECT_EQ(back[0].serialize(CancelCheck()), whole.c.serialize(CancelCheck()));
    for (auto& b : back)
        b.release_memory();
}

TEST(HeatmapCounts, SameIntegerParticipantInTwoStatesIsOneParticipant) {
    const HeatmapSpec spec = spec_for(2, 1, 1, 1);
    Counts a(spec), b(spec);
    a.add(42, 0.5, 0.5);
    b.add(42, 0.5, 0.5);
    b.add(43, 1.5, 0.5);
    a.c.merge(b.c, CancelCheck());
    EXPECT_EQ(a.c.participants(), 2u);
    EXPECT_EQ(a.sums(), (std::vector<std::int64_t>{1, 1}));
}

TEST(HeatmapCounts, MergeRefusesDifferentParameters) {
    Counts a(spec_for(4, 4, 1, 1)), b(spec_for(4, 4, 1, 2)), c(spec_for(4, 4, 2, 1));
    EXPECT_THROW(a.c.merge(b.c, CancelCheck()), InvalidArgument);
    EXPECT_THROW(a.c.merge(c.c, CancelCheck()), InvalidArgument);
}

TEST(HeatmapCounts, MemoryGrowsWithDistinctPairsNotPoints) {
    Counts c(spec_for(1000, 1000, 1, 5));
    for (int i = 0; i < 2000000; ++i)
        c.add(static_cast<std::uint64_t>(i % 10), 10.5 + i % 7, 20.5); // 70 distinct pairs
    EXPECT_EQ(c.c.pairs(CancelCheck()), 70u);
    EXPECT_LT(c.c.memory_bytes(), std::size_t{2} << 20); // not 2 M points, not 10 x 10^6 cells
}

TEST(HeatmapCounts, SerializationRoundTripsAndValidates) {
    HeatmapSpec spec = spec_for(20, 10, 1, 2);
    spec.parameters.mechanism = HeatmapMechanism::Gaussian;
    spec.parameters.epsilon = 1;
    spec.parameters.delta = 1e-5;
    spec.dataset = "study \"A\"";
    Counts c(spec, HeatmapAggregate::Release);
    for (const Point& p : random_points(5000, 13, 20, 10, 3))
        c.add(p.participant, p.x, p.y);
    c.c.participant(999); // a participant without points
    const std::vector<std::uint8_t> bytes = c.c.serialize(CancelCheck());
    HeatmapCounts back;
    back.deserialize(bytes.data(), bytes.size(), MemoryArena::heap(), CancelCheck());
    EXPECT_TRUE(back.compatible(c.c));
    EXPECT_EQ(back.participants(), c.c.participants());
    EXPECT_EQ(back.spec().dataset, spec.dataset);
    EXPECT_EQ(back.serialize(CancelCheck()), bytes);
    std::vector<std::int64_t> s(200);
    back.cell_sums(s.data(), CancelCheck());
    EXPECT_EQ(s, c.sums());
    back.release_memory();

    // Every flipped bit and every truncation is caught (checksum), never a crash.
    for (std::size_t i = 0; i < bytes.size(); ++i) {
        std::vector<std::uint8_t> bad = bytes;
        bad[i] ^= static_cast<std::uint8_t>(1u << (i % 8));
        HeatmapCounts g;
        EXPECT_THROW(g.deserialize(bad.data(), bad.size(), MemoryArena::heap(), CancelCheck()), CorruptData)
            << i;
    }
    for (std::size_t n = 0; n < bytes.size(); n += 7) {
        HeatmapCounts g;
        EXPECT_THROW(g.deserialize(bytes.data(), n, MemoryArena::heap(), CancelCheck()), CorruptData) << n;
    }
}

// A serialized state written field by field (the format of HeatmapCounts::serialize), sealed with a valid
// CRC-32, so that structural checks can be tested behind a checksum that passes.
std::vector<std::uint8_t> forged(const std::vector<std::uint64_t>& numbers, const char* magic = "GZHM",
                                 const char* extra = "") {
    text_varint::Writer w;
    w.literal(magic);
    for (std::uint64_t n : numbers)
        w.number(n);
    w.literal(extra);
    const std::vector<std::uint8_t>& b = w.data();
    w.fixed(static_cast<std::uint32_t>(crc32_z(crc32_z(0, nullptr, 0), b.data(), b.size())), 7);
    return w.data();
}

TEST(HeatmapCounts, StructurallyInvalidStatesAreRejectedEvenWithAValidChecksum) {
    // An 8 x 8 exact map with cap 2: version, aggregate, key kind, flags, width, height, cell size, cap,
    // participants; then per participant: key (later ones as gap - 1), cells, and (gap, count - 1) per cell.
    const std::vector<std::uint64_t> header = {2, 1, 2, 0, 8, 8, 1, 2};
    auto state = [&](std::vector<std::uint64_t> body) {
        std::vector<std::uint64_t> all = header;
        all.insert(all.end(), body.begin(), body.end());
        return all;
    };
    const std::vector<std::uint64_t> good = state({2, 7, 2, 0, 0, 1, 1, 9, 1, 9, 0});
    {
        // The forger writes what serialize writes: participant 7 has cells 0 (count 1) and 2 (count 2),
        // participant 17 cell 9 (count 1).
        Counts c(spec_for(8, 8, 1, 2));
        c.add(7, 0.5, 0.5);
        c.add(7, 2.5, 0.5);
        c.add(7, 2.5, 0.5);
        c.add(17, 1.5, 1.5);
        EXPECT_EQ(c.c.serialize(CancelCheck()), forged(good));
        EXPECT_NO_THROW(HeatmapCounts::validate(forged(good).data(), forged(good).size(), CancelCheck()));
    }
    auto with = [&](std::size_t at, std::uint64_t value) {
        std::vector<std::uint64_t> b = good;
        b[at] = value;
        return forged(b);
    };
    std::vector<std::vector<std::uint8_t>> bad = {
        with(0, 9),                                        // version
        with(1, 7),                                        // aggregate kind
        with(2, 3),                                        // participant key kind
        with(3, 4),                                        // unknown flag
        with(3, 1),                                        // parameters an exact map does not have
        with(4, 0),                                        // width 0
        with(4, std::uint64_t{1} << 40),                   // width beyond int4
        with(6, 0),                                        // cell size 0
        with(7, 0),                                        // cap 0
        with(8, 3),                                        // more participants than written
        with(8, 1),                                        // fewer (trailing bytes)
        with(10, 4),                                       // more cells than written
        with(10, 65),                                      // more cells than the grid has
        with(11, 64),                                      // a cell outside the grid
        with(13, 63),                                      // the second cell outside the grid
        with(12, 2),                                       // count 3 > cap 2
        with(15, ~std::uint64_t{0}),                       // keys overflow
        forged(good, "GZHN"),                              // marker
        forged(state({1, 7, 1, 0}), "GZHM", "*"),          // a character outside the alphabet
        forged(state({1, 7, 1}), "GZHM", "_____________"), // a number longer than 64 bits
    };
    for (std::size_t i = 0; i < bad.size(); ++i) {
        HeatmapCounts g;
        EXPECT_THROW(g.deserialize(bad[i].data(), bad[i].size(), MemoryArena::heap(), CancelCheck()),
                     CorruptData)
            << i;
        EXPECT_THROW(HeatmapCounts::validate(bad[i].data(), bad[i].size(), CancelCheck()), CorruptData) << i;
        Counts target(spec_for(8, 8, 1, 2));
        EXPECT_THROW(target.c.merge_serialized(bad[i].data(), bad[i].size(), CancelCheck()), CorruptData)
            << i;
    }
}

TEST(HeatmapCounts, SerializedStatesMergeWithoutBeingBuilt) {
    // What a Citus coordinator does with 32 shard states: merge each text state straight into the result.
    // By participant (every participant in one state) and by another column (every participant in all).
    const HeatmapSpec spec = spec_for(40, 30, 1, 2);
    const auto points = random_points(50000, 40, 40, 30, 17);
    Counts whole(spec);
    for (const Point& p : points)
        whole.add(p.participant, p.x, p.y);
    for (bool by_participant : {true, false}) {
        std::vector<std::unique_ptr<Counts>> shards;
        for (int k = 0; k < 32; ++k)
            shards.push_back(std::make_unique<Counts>(spec));
        for (std::size_t i = 0; i < points.size(); ++i)
            shards[by_participant ? points[i].participant % 32 : i % 32]->add(points[i].participant,
                                                                              points[i].x, points[i].y);
        Counts combined(spec);
        for (const auto& shard : shards) {
            const auto bytes = shard->c.serialize(CancelCheck());
            combined.c.merge_serialized(bytes.data(), bytes.size(), CancelCheck());
        }
        EXPECT_EQ(combined.sums(), whole.sums()) << by_participant;
        EXPECT_EQ(combined.c.participants(), whole.c.participants());
        EXPECT_EQ(combined.c.serialize(CancelCheck()), whole.c.serialize(CancelCheck())) << by_participant;
    }
    // A state of other parameters is refused, as merge refuses it.
    Counts other(spec_for(40, 30, 1, 3));
    other.add(1, 0.5, 0.5);
    const auto bytes = other.c.serialize(CancelCheck());
    EXPECT_THROW(whole.c.merge_serialized(bytes.data(), bytes.size(), CancelCheck()), InvalidArgument);
}

TEST(HeatmapCounts, TheSerializedFormIsPrintable) {
    // Citus ships it as text and the flat value is the same bytes: no byte outside the alphabet and "GZHM".
    HeatmapSpec spec = spec_for(300, 200, 1, 3);
    spec.parameters.mechanism = HeatmapMechanism::Laplace;
    spec.parameters.epsilon = 0.5;
    spec.dataset = "caf\xc3\xa9 \"x\"\n";
    Counts c(spec, HeatmapAggregate::Release);
    for (const Point& p : random_points(20000, 300, 300, 200, 23))
        c.add(p.participant * 0x9E3779B97F4A7C15ull, p.x, p.y); // keys across the whole 64-bit range
    const auto bytes = c.c.serialize(CancelCheck());
    for (std::uint8_t b : bytes)
        EXPECT_TRUE(std::isalnum(b) || b == '-' || b == '_') << static_cast<int>(b);
    HeatmapCounts back;
    back.deserialize(bytes.data(), bytes.size(), MemoryArena::heap(), CancelCheck());
    EXPECT_EQ(back.spec().dataset, spec.dataset);
    EXPECT_EQ(back.serialize(CancelCheck()), bytes);
    back.release_memory();
}

TEST(HeatmapCounts, TextKeysAreStableAcrossPlatforms) {
    // Fixed values: every node of a cluster must map a participant to the same key.
    EXPECT_EQ(text_participant_key("", 0), text_participant_key("", 0));
    EXPECT_NE(text_participant_key("00", 2), text_participant_key("01", 2));
    EXPECT_NE(text_participant_key("participant-0001", 16), text_participant_key("participant-0002", 16));
    EXPECT_EQ(text_participant_key("gaze", 4), 0xe0d1931f159068d7ull)
        << std::hex << text_participant_key("gaze", 4);
}
