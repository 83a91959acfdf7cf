// Progress of long core loops, for the people who wait on them (the view gazepriv.progress and NOTICEs at a
// rate the session chooses: src/pg/boundary/progress.hpp). The glue passes a reporter that stores numbers
// (and may throw, like any C++ code, if a NOTICE cannot be sent); the core says which phase it is in and how
// many of that phase's units are done.
#pragma once

#include <cstdint>

namespace gazepriv::core {

using ProgressReporter = void (*)(const char* phase, std::uint64_t done, std::uint64_t total);

class Progress {
public:
    explicit Progress(ProgressReporter reporter = nullptr) : reporter_(reporter) {}

    void operator()(const char* phase, std::uint64_t done, std::uint64_t total) const {
        if (reporter_ != nullptr)
            reporter_(phase, done, total);
    }

private:
    ProgressReporter reporter_;
};

} // namespace gazepriv::core

#include "core/common/no_postgres.hpp"
