// The Uniss-FGD gaze samples for the heatmap benchmarks: read from $GAZEPRIV_DATA (default ../shared/data,
// relative to the repository root, where bench/run.sh runs), optionally replicated into new participants.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace gazepriv::bench {

struct GazePoint {
    std::uint64_t participant; // participant number * 100 + replica
    int image;
    double x, y; // screen pixels; NaN when the tracker lost the eyes
};

// The 30 images kept in ../shared/data/uniss_fgd (see its README).
inline const std::vector<int>& uniss_images() {
    static const std::vector<int> ids = {2,  3,  4,  12, 15, 18, 19, 25, 31, 36, 38, 43, 44,  48,  51,
                                         52, 53, 57, 61, 68, 81, 83, 87, 89, 90, 92, 97, 103, 106, 107};
    return ids;
}

inline std::string data_root() {
    const char* env = std::getenv("GAZEPRIV_DATA");
    return env != nullptr && *env != '\0' ? env : "../shared/data";
}

// All samples of the given images, each participant replicated `replicas` times (replica r of participant
// p becomes participant p * 100 + r), replica by replica as a table loaded in that order would be.
inline std::vector<GazePoint> load_uniss(const std::vector<int>& images, int replicas) {
    std::vector<GazePoint> raw;
    for (int id : images) {
        char name[64];
        std::snprintf(name, sizeof name, "/uniss_fgd/samples/img_%03d.csv", id);
        std::ifstream in(data_root() + name);
        if (!in) {
            std::fprintf(stderr, "cannot read %s%s (set GAZEPRIV_DATA)\n", data_root().c_str(), name);
            std::exit(2);
        }
        std::string line;
        std::getline(in, line); // header
        while (std::getline(in, line)) {
            std::stringstream fields(line);
            std::string participant, image, t, x, y;
            std::getline(fields, participant, ',');
            std::getline(fields, image, ',');
            std::getline(fields, t, ',');
            std::getline(fields, x, ',');
            std::getline(fields, y, ',');
            raw.push_back({std::stoull(participant), id, x.empty() ? NAN : std::stod(x),
                           y.empty() ? NAN : std::stod(y)});
        }
    }
    std::vector<GazePoint> out;
    out.reserve(raw.size() * static_cast<std::size_t>(replicas));
    for (int r = 0; r < replicas; ++r)
        for (const GazePoint& g : raw)
            out.push_back({g.participant * 100 + static_cast<std::uint64_t>(r), g.image, g.x, g.y});
    return out;
}

} // namespace gazepriv::bench
