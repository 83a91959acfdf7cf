#include "pg/boundary/limits.hpp"

extern "C" {
#include "postgres.h"
#include "utils/guc.h"
}

namespace gazepriv::pg {

namespace {
int series_length_setting = 1 << 20;
int series_values_setting = 1 << 25;
int kaleido_statement_streams_setting = 10000;
int kaleido_streams_setting = 100000;
int training_saccades_setting = 1000000;

void define_limit(const char* name, const char* description, int* variable, int default_value,
                  int max_value) {
    DefineCustomIntVariable(
        name, description,
        "Exceeding it is ERROR 54000, before anything is allocated, read or charged. "
        "Superuser-only: it bounds the memory and time one statement of any role may take.",
        variable, default_value, 1, max_value, PGC_SUSET, 0, nullptr, nullptr, nullptr);
}
} // namespace

void define_limit_settings() {
    define_limit("gazepriv.max_series_length",
                 "The longest padded signal (samples) a series release, preview or cost may ask for.",
                 &series_length_setting, 1 << 20, INT32_MAX);
    define_limit("gazepriv.max_series_values",
                 "The most values (features x signals x padded length) one series statement may hold.",
                 &series_values_setting, 1 << 25, INT32_MAX);
    define_limit("gazepriv.max_kaleido_streams_per_statement",
                 "The most distinct streams one statement may append to a live Kaleido feed.",
                 &kaleido_statement_streams_setting, 10000, INT32_MAX);
    define_limit("gazepriv.max_kaleido_streams", "The most stream-state rows one live Kaleido feed may keep.",
                 &kaleido_streams_setting, 100000, INT32_MAX);
    define_limit("gazepriv.max_training_saccades",
                 "The most saccades train_saccade_model may train one C-VAE on (time grows with it).",
                 &training_saccades_setting, 1000000, INT32_MAX);
}

std::int64_t max_series_length() {
    return series_length_setting;
}
std::int64_t max_series_values() {
    return series_values_setting;
}
std::int64_t max_kaleido_streams_per_statement() {
    return kaleido_statement_streams_setting;
}
std::int64_t max_kaleido_streams() {
    return kaleido_streams_setting;
}
std::int64_t max_training_saccades() {
    return training_saccades_setting;
}

} // namespace gazepriv::pg
