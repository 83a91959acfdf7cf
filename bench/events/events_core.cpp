// Event detection and feature extraction in the core alone, on the real recordings (Uniss-FGD and
// Hoppe 2018 from $GAZEPRIV_DATA, default ../shared/data), against a plain pass over the same samples
// in memory (count and sum of x) measured in the same run. Prints a table of samples per second.
// `bench_events_core uniss` (or `hoppe`) instead runs I-VT + feature windows once over that dataset and
// prints a checksum of every event and feature value: the pass to profile (valgrind --tool=callgrind
// --toggle-collect='one_pass*'), and a check that a change keeps the results bit for bit.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "core/events/gaze_events.hpp"
#include "core/events/gaze_features.hpp"
#include "core/events/gaze_trace.hpp"

using namespace gazepriv::core;

namespace {

volatile double sink;

using Trace = std::vector<GazeSample>;

std::vector<std::string> csv_files(const std::string& dir) {
    std::vector<std::string> files;
    if (DIR* d = opendir(dir.c_str())) {
        while (dirent* e = readdir(d)) {
            const std::string name = e->d_name;
            if (name.size() > 4 && name.substr(name.size() - 4) == ".csv")
                files.push_back(dir + "/" + name);
        }
        closedir(d);
    }
    std::sort(files.begin(), files.end());
    return files;
}

std::vector<std::string> split(const std::string& line) {
    std::vector<std::string> out;
    std::stringstream ss(line);
    std::string field;
    while (std::getline(ss, field, ','))
        out.push_back(field);
    if (!line.empty() && line.back() == ',')
        out.emplace_back();
    return out;
}

double number(const std::string& s) {
    return s.empty() ? NAN : std::strtod(s.c_str(), nullptr);
}

// Uniss-FGD: one trace per participant and image; pupil = mean of both eyes.
std::vector<Trace> load_uniss(const std::string& root) {
    std::map<std::string, Trace> traces;
    for (const std::string& file : csv_files(root + "/uniss_fgd/samples")) {
        std::ifstream in(file);
        std::string line;
        std::getline(in, line);
        while (std::getline(in, line)) {
            const auto f = split(line);
            const double pupil = (number(f[5]) + number(f[6])) / 2;
            traces[f[0] + "/" + f[1]].push_back(make_sample(number(f[2]), number(f[3]), number(f[4]), pupil));
        }
    }
    std::vector<Trace> out;
    for (auto& [key, t] : traces)
        out.push_back(std::move(t));
    return out;
}

// Hoppe 2018: one trace per participant; gaze outside [-1, 2]^2 is invalid (data README).
std::vector<Trace> load_hoppe(const std::string& root) {
    std::vector<Trace> out;
    for (const std::string& file : csv_files(root + "/hoppe2018_everyday/samples")) {
        std::ifstream in(file);
        std::string line;
        std::getline(in, line);
        Trace t;
        while (std::getline(in, line)) {
            const auto f = split(line);
            double x = number(f[2]), y = number(f[3]);
            if (!(x >= -1 && x <= 2 && y >= -1 && y <= 2))
                x = y = NAN;
            t.push_back(make_sample(number(f[1]), x, y, (number(f[4]) + number(f[5])) / 2));
        }
        out.push_back(std::move(t));
    }
    return out;
}

std::size_t total(const std::vector<Trace>& traces) {
    std::size_t n = 0;
    for (const auto& t : traces)
        n += t.size();
    return n;
}

// Samples per second of `body` over all traces, best of five runs.
double rate(const std::vector<Trace>& traces, const std::function<double(const Trace&)>& body) {
    double best = 0;
    for (int run = 0; run < 5; ++run) {
        const auto start = std::chrono::steady_clock::now();
        double acc = 0;
        for (const auto& t : traces)
            acc += body(t);
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        sink = acc;
        best = std::max(best, static_cast<double>(total(traces)) / s);
    }
    return best;
}

double scan(const Trace& t) {
    double count = 0, sum = 0;
    for (const auto& s : t) {
        count += 1;
        sum += s.x;
    }
    return count + sum;
}

void report(const char* dataset, const std::vector<Trace>& traces, const DetectorParams& ivt,
            const DetectorParams& idt, const FeatureParams& fp, const char* features) {
    const CancelCheck cancel;
    const double baseline = rate(traces, scan);
    struct Row {
        const char* name;
        double rate;
    };
    const Row rows[] = {
        {"baseline: count and sum of x", baseline},
        {"canonicalise (sorted input)", rate(traces,
                                             [&](const Trace& t) {
                                                 Trace copy = t;
                                                 return static_cast<double>(
                                                     canonicalize(copy.data(), copy.size(), cancel));
                                             })},
        {"I-VT events",
         rate(traces, [&](const Trace& t) { return detect_events(t.data(), t.size(), ivt, cancel).size(); })},
        {"I-DT events",
         rate(traces, [&](const Trace& t) { return detect_events(t.data(), t.size(), idt, cancel).size(); })},
        {features, rate(traces,
                        [&](const Trace& t) {
                            const auto e = detect_events(t.data(), t.size(), ivt, cancel);
                            return feature_windows(t.data(), t.size(), e, fp, cancel).values.size();
                        })},
    };
    std::printf("\n%s: %zu traces, %zu samples\n\n", dataset, traces.size(), total(traces));
    std::printf("| step | M samples/s | vs baseline |\n|---|---:|---:|\n");
    for (const Row& r : rows)
        std::printf("| %s | %.1f | %.3f |\n", r.name, r.rate / 1e6, r.rate / baseline);
}

// FNV-1a over the bits of every value.
void mix(std::uint64_t& hash, double v) {
    std::uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    hash = (hash ^ bits) * 1099511628211ull;
}

[[gnu::noinline]] void one_pass(const std::vector<Trace>& traces, const DetectorParams& ivt,
                                const FeatureParams& fp) {
    const CancelCheck cancel;
    std::size_t values = 0;
    std::uint64_t hash = 1469598103934665603ull;
    for (const auto& t : traces) {
        const auto events = detect_events(t.data(), t.size(), ivt, cancel);
        const FeatureTable f = feature_windows(t.data(), t.size(), events, fp, cancel);
        values += f.values.size();
        for (double v : f.values)
            mix(hash, v);
        for (const GazeEvent& e : events)
            for (double v : {e.start_ms, e.end_ms, e.amplitude, e.sigma_x, e.sigma_y, e.peak_velocity,
                             e.mean_velocity, e.profile_a, e.profile_b, e.profile_c})
                mix(hash, v);
    }
    std::printf("%zu samples, %zu feature values, checksum %016llx\n", total(traces), values,
                static_cast<unsigned long long>(hash));
}

} // namespace

int main(int argc, char** argv) {
    const std::string only = argc > 1 ? argv[1] : "";
    const char* env = std::getenv("GAZEPRIV_DATA");
    const std::string root = env ? env : "../shared/data";
    const auto uniss = only == "hoppe" ? std::vector<Trace>() : load_uniss(root);
    const auto hoppe = only == "uniss" ? std::vector<Trace>() : load_hoppe(root);
    if ((uniss.empty() && only != "hoppe") || (hoppe.empty() && only != "uniss")) {
        std::printf("real data not found under %s (set GAZEPRIV_DATA)\n", root.c_str());
        return 1;
    }
    DetectorParams ivt, idt;
    ivt.velocity_threshold = 30;
    ivt.velocity_window_ms = 20;
    ivt.gap_fill_ms = 75;
    idt.method = DetectionMethod::DispersionThreshold;
    idt.dispersion_threshold = 1;
    idt.min_fixation_ms = 100;
    idt.gap_fill_ms = 75;
    ivt.geometry = idt.geometry = screen_geometry(1280, 1024, 1040, 580, 1370, NAN, NAN);
    // Uniss traces last 3 s (one image): 1 s windows every 0.25 s; Hoppe: MPIIDPEye's 30 s every 0.5 s.
    FeatureParams short_windows;
    short_windows.large_saccade = 5;
    short_windows.window_ms = 1000;
    short_windows.step_ms = 250;
    if (only == "uniss") {
        one_pass(uniss, ivt, short_windows);
        return 0;
    }
    if (only.empty())
        report("Uniss-FGD (300 Hz, screen geometry)", uniss, ivt, idt, short_windows,
               "I-VT events + features (1 s / 0.25 s)");
    ivt.geometry = idt.geometry = camera_geometry(60, 46, 1, 1);
    ivt.velocity_window_ms = 0;
    idt.dispersion_threshold = 3;
    FeatureParams mpiidpeye;
    mpiidpeye.large_saccade = 5;
    if (only == "hoppe") {
        one_pass(hoppe, ivt, mpiidpeye);
        return 0;
    }
    report("Hoppe 2018 (60 Hz, scene camera 60 x 46 degrees)", hoppe, ivt, idt, mpiidpeye,
           "I-VT events + features (30 s / 0.5 s)");
    return 0;
}
