// The names SQL uses for the core's enumerations, in one table per enumeration, so that parsing a name and
// printing a value cannot disagree and every unknown name is refused with the same message:
//   unknown <what> "<name>": expected a, b or c
#pragma once

#include <cstddef>
#include <cstring>
#include <string>

#include "core/common/errors.hpp"

namespace gazepriv::core {

template <typename Enum> struct Named {
    Enum value;
    const char* name;
};

// The value named `name`; InvalidArgument naming `what` and the accepted names otherwise. Names that only
// print (accepted == false, e.g. "none" for an exact map) are not accepted as input.
template <typename Enum, std::size_t N>
Enum parse_name(const Named<Enum> (&table)[N], const char* what, const std::string& name,
                std::size_t accepted = N) {
    for (std::size_t i = 0; i < accepted; ++i)
        if (name == table[i].name)
            return table[i].value;
    std::string expected;
    for (std::size_t i = 0; i < accepted; ++i) {
        if (i > 0)
            expected += i + 1 == accepted ? " or " : ", ";
        expected += table[i].name;
    }
    throw InvalidArgument(std::string("unknown ") + what + " \"" + name + "\": expected " + expected);
}

template <typename Enum, std::size_t N> const char* name_of(const Named<Enum> (&table)[N], Enum value) {
    for (const Named<Enum>& entry : table)
        if (entry.value == value)
            return entry.name;
    return "?";
}

} // namespace gazepriv::core

#include "core/common/no_postgres.hpp"
