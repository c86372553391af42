// The names of an enumeration's values as run.json and Python spell them, and back.
#pragma once

#include <span>
#include <stdexcept>
#include <string>
#include <utility>

namespace regosph {

template <class Enum>
using NameTable = std::span<const std::pair<Enum, const char*>>;

// The name of `value` in `table` (each value of the enumeration has one entry).
template <class Enum>
const char* name_of(NameTable<Enum> table, Enum value) {
    for (const auto& [e, name] : table)
        if (e == value) return name;
    throw std::logic_error("name_of: a value without a name");
}

// The value named `name`; otherwise std::invalid_argument
// "<field>: '<name>' is not <what> (<a>, <b> or <c>)".
template <class Enum>
Enum from_name(NameTable<Enum> table, const std::string& name, const std::string& field,
               const char* what) {
    std::string valid;
    for (std::size_t i = 0; i < table.size(); ++i) {
        if (table[i].second == name) return table[i].first;
        valid += (i == 0 ? "" : i + 1 == table.size() ? " or " : ", ");
        valid += table[i].second;
    }
    throw std::invalid_argument(field + ": '" + name + "' is not " + what + " (" + valid + ")");
}

}  // namespace regosph
