// History variables: per-particle state that a constitutive model carries besides the stress
// (a porosity, a hardening parameter). A model declares its own (materials/constitutive_model.hpp,
// `history()`); at run setup every distinct name becomes one column of ParticleSet::history
// (register_history_columns, materials/material.hpp). The field table (core/fields.hpp) has one
// entry for the columns, which for_each_field expands into one scalar field per column: so
// snapshots, checkpoints, halos, resize, permute and migration carry a history variable, and
// the integrator integrates it, with no code of their own.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace regosph {

// What a model declares about one history variable.
struct HistoryVariable {
    std::string name;         // dataset /particles/<name>; no other field may have it
    std::string units;        // SI, "-" for dimensionless
    std::string description;
    double initial = 0.0;     // value of a new particle of a material that declares it
};

// The history variables of a particle set: one column of values per variable, in name order
// (the order in which a particle file lists its datasets, so that one read back has the same
// columns in the same places and the same checkpoint checksum). A particle of a material that
// does not declare a column's variable holds 0 there, which nothing reads.
struct HistoryColumns {
    std::vector<HistoryVariable> variables;   // one per column, by name
    std::vector<std::vector<double>> values;  // values[column][particle]

    std::size_t size() const { return variables.size(); }
    // The column of `name`, -1 if there is none.
    int find(std::string_view name) const {
        for (std::size_t k = 0; k < variables.size(); ++k)
            if (variables[k].name == name) return static_cast<int>(k);
        return -1;
    }
    // Adds a column for v (all `particles` at 0) unless there is one of its name: a model that
    // declares a name another one declared shares its column. The columns after it move one
    // place on. Throws std::invalid_argument if that column has other units.
    void add(const HistoryVariable& v, std::size_t particles) {
        const int k = find(v.name);
        if (k >= 0) {
            if (variables[static_cast<std::size_t>(k)].units != v.units)
                throw std::invalid_argument("history variable '" + v.name + "': declared in " +
                                            variables[static_cast<std::size_t>(k)].units +
                                            " and in " + v.units);
            return;
        }
        std::size_t at = 0;
        while (at < variables.size() && variables[at].name < v.name) ++at;
        variables.insert(variables.begin() + static_cast<std::ptrdiff_t>(at), v);
        values.insert(values.begin() + static_cast<std::ptrdiff_t>(at),
                      std::vector<double>(particles, 0.0));
    }
    // The variables' names, in column order.
    std::vector<std::string> names() const {
        std::vector<std::string> out;
        for (const HistoryVariable& v : variables) out.push_back(v.name);
        return out;
    }
    bool operator==(const HistoryColumns& o) const {
        return names() == o.names() && values == o.values;
    }
};

}  // namespace regosph
