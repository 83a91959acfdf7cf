// The only ways core code reports failure. The PostgreSQL glue (src/pg/boundary/guard.hpp) maps each kind to
// an SQLSTATE after every C++ frame has been unwound.
#pragma once

#include <stdexcept>
#include <string>

namespace gazepriv::core {

enum class ErrorKind {
    InvalidParameter, // 22023: a parameter or input value the caller can fix
    DataCorrupted,    // XX001: a serialized state or stored value that fails validation
    LimitExceeded,    // 54000: a size above a documented limit
    Internal,         // XX000: a bug or an environment failure (no entropy, ...)
};

class Error : public std::runtime_error {
public:
    Error(ErrorKind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
    ErrorKind kind() const noexcept { return kind_; }

private:
    ErrorKind kind_;
};

struct InvalidArgument : Error {
    explicit InvalidArgument(const std::string& message) : Error(ErrorKind::InvalidParameter, message) {}
};

struct CorruptData : Error {
    explicit CorruptData(const std::string& message) : Error(ErrorKind::DataCorrupted, message) {}
};

struct LimitExceeded : Error {
    explicit LimitExceeded(const std::string& message) : Error(ErrorKind::LimitExceeded, message) {}
};

struct InternalError : Error {
    explicit InternalError(const std::string& message) : Error(ErrorKind::Internal, message) {}
};

// Thrown by long loops when the cancel probe fires; the glue then lets PostgreSQL raise its own
// cancel or terminate error. Deliberately not a std::exception.
struct Cancelled {};

} // namespace gazepriv::core

#include "core/common/no_postgres.hpp"
