// The particle fields, one table (kParticleFields): for each array of ParticleSet its name,
// unit, description and where it goes. The table drives snapshot writing and reading and the
// XDMF index (io/snapshot.cpp), checkpoints and their checksum (io/checkpoint.cpp), halo
// exchange (parallel/domain.cpp), ParticleSet::for_each_array (resize, permute, migration) and
// the NumPy properties of Simulation (python/bind_output.cpp), and the time integration: which
// fields a step saves and restores, which it integrates with which rate of StateRates, and
// which enter the step's error norm (AdaptiveHeun, sph/integrator.cpp). A new field is one
// member of ParticleSet plus one entry here; a new history variable of a constitutive model is
// not even that (core/history.hpp: the entry for ParticleSet::history covers it).
//
// The number of components follows from the member's type: std::vector<T> is a scalar,
// std::array<std::vector<double>, 3> a vector (z = 0 in 2D), std::array<std::vector<double>,
// kSymComponents> a symmetric tensor in the order kSymComponentNames.
#pragma once

#include <array>
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <vector>

#include "core/history.hpp"
#include "core/particles.hpp"

namespace regosph {

// Where a field goes; bit flags.
enum FieldUse : unsigned {
    kSnapshot = 1u << 0,     // snapshot_*.h5 (/particles/<name>) and series.xdmf
    kCheckpoint = 1u << 1,   // checkpoint_*.h5 and its checksum: what a restart needs
    kHaloState = 1u << 2,    // refreshed on dynamic halo copies before every evaluation
                             // (HaloFields::dynamic_state); a vector sends its first dim
                             // components, a tensor the ones that can be non-zero in dim
    kHaloBoundary = 1u << 3, // refreshed on boundary halo copies after the wall extrapolation
                             // (HaloFields::boundary_values)
    kPython = 1u << 4,       // a read-only NumPy property of Simulation (a copy)
    kPythonSettable = 1u << 5,  // ... that can also be set (a vector as (N, dim), else (N, k);
                                // a scalar as (N,), positive)
    kStepState = 1u << 6,    // saved at a step's start and put back when the step is rejected
                             // (every integrated field, and what the stages change besides:
                             // the walls' masses follow their extrapolated density)
};

// How Heun's method (AdaptiveHeun: predictor y1 = y0 + dt k1, corrector y = y0 + dt/2 (k1 + k2))
// steps an integrated field. The two forms are the same step but round differently (fused
// multiply-adds), so a field's form is part of its results: position and velocity take
// summed_rates, the other fields weighted_rates.
enum class HeunForm : unsigned char {
    none,            // not integrated
    summed_rates,    // y0 + dt k1, then y0 + dt/2 (k1 + k2)
    weighted_rates,  // y0 + dt k1 + 0 k1, then y0 + dt/2 k1 + dt/2 k2
};

// What an integrated field adds to the step's error norm, from the difference between the
// second- and the first-order solution, e = dt/2 |k2 - k1| (the Euclidean norm over the
// components a run carries). Every integrated field must in any case stay finite.
enum class StepError : unsigned char {
    none,
    length,    // e / h (a position)
    velocity,  // e dt / h
    relative,  // e / y (a scalar such as the density)
};

struct Integration {
    HeunForm form = HeunForm::none;
    StepError error = StepError::none;
    // An empty rate array means dy/dt is the velocity (the position without XSPH: StateRates::dx).
    bool velocity_if_no_rate = false;
    // Its rate is zero in runs without a plastic material (MaterialTable::any_plastic), which
    // then leave it alone.
    bool plastic_only = false;
};

struct FieldInfo {
    const char* name;         // HDF5 dataset /particles/<name>, XDMF attribute
    const char* units;        // "units" attribute: SI, "-" for dimensionless and indices
    const char* description;  // "description" attribute, docstring of the NumPy property
    unsigned use;             // FieldUse flags
    const char* python_name = nullptr;  // Simulation.<python_name>; nullptr: `name`
    // One further string attribute of the dataset (e.g. what the values of an enum mean).
    const char* extra_attribute = nullptr;
    const char* extra_value = nullptr;
    // The dataset's name in older files, read when `name` is missing; nullptr: none.
    const char* former_name = nullptr;
    // Units in a 2D (plane-strain) run where they differ: a mass is per metre of depth there.
    const char* plane_strain_units = nullptr;
    // A field added after files were written: in a file without it, the dataset of this other
    // field (of the same shape) is read in its place; nullptr: none.
    const char* stand_in = nullptr;
    // For an integrated field (its entry names its rate, Field::rate): how it is stepped.
    Integration integration{};

    const char* property_name() const { return python_name ? python_name : name; }
    const char* units_in(int dim) const {
        return dim == 2 && plane_strain_units ? plane_strain_units : units;
    }
};

// The rates of the integrated fields, one member per field (named by its table entry,
// Field::rate), shaped as the ParticleSet member it is the rate of. sph::Derivatives holds them.
struct StateRates {
    // Position rate [m/s]: v plus the XSPH term; empty when no material uses XSPH (the rate is
    // then the velocity itself, which the integrator reads from the particles).
    std::array<std::vector<double>, 3> dx;
    std::array<std::vector<double>, 3> dv;                    // acceleration [m/s^2]
    std::vector<double> drho;                                 // [kg/m^3/s]
    std::array<std::vector<double>, kSymComponents> dstress;  // [Pa/s]
    std::vector<double> dplastic;                             // lambda_dot [1/s]
    std::vector<std::vector<double>> dhistory;  // per column of ParticleSet::history [unit/s]
};

// One table entry: the metadata, the ParticleSet member it describes and, for an integrated
// field, the member of StateRates that holds its rate (nullptr otherwise).
template <class Member, class Rate = std::nullptr_t>
struct Field {
    using Array = Member;
    static constexpr bool kIntegrated = !std::is_same_v<Rate, std::nullptr_t>;
    FieldInfo info;
    Member ParticleSet::*member;
    Rate rate = nullptr;
};
template <class Member>
Field(FieldInfo, Member ParticleSet::*) -> Field<Member>;
template <class Member, class RateMember>
Field(FieldInfo, Member ParticleSet::*, RateMember StateRates::*)
    -> Field<Member, RateMember StateRates::*>;

// The dataset attribute that marks a history variable in a particle file.
inline constexpr const char* kHistoryAttribute = "history_variable";

// The fields in the order in which every consumer handles them (datasets in a file, bytes of a
// particle in MPI messages and in the checkpoint checksum): changing the order changes the
// checksum of existing checkpoints.
inline constexpr auto kParticleFields = std::make_tuple(
    Field{{.name = "position",
           .units = "m",
           .description = "position, z = 0 in 2D",
           .use = kSnapshot | kCheckpoint | kHaloState | kPythonSettable | kStepState,
           .python_name = "positions",
           .integration = {HeunForm::summed_rates, StepError::length, true}},
          &ParticleSet::x, &StateRates::dx},
    // After the position: the position's corrector reads the predicted velocity as its rate.
    Field{{.name = "velocity",
           .units = "m/s",
           .description = "velocity",
           .use = kSnapshot | kCheckpoint | kHaloState | kPythonSettable | kStepState,
           .python_name = "velocities",
           .integration = {HeunForm::summed_rates, StepError::velocity}},
          &ParticleSet::v, &StateRates::dv},
    Field{{.name = "density",
           .units = "kg/m^3",
           .description = "mass density",
           .use = kSnapshot | kCheckpoint | kHaloState | kHaloBoundary | kPythonSettable |
                  kStepState,
           .integration = {HeunForm::weighted_rates, StepError::relative}},
          &ParticleSet::rho, &StateRates::drho},
    Field{{"mass", "kg", "particle mass (2D: per metre of depth)",
           kSnapshot | kCheckpoint | kHaloBoundary | kPython | kStepState, nullptr, nullptr,
           nullptr, nullptr, "kg/m"},
          &ParticleSet::mass},
    Field{{"smoothing_length", "m", "kernel support radius h", kSnapshot | kCheckpoint | kPython},
          &ParticleSet::h},
    Field{{.name = "stress",
           .units = "Pa",
           .description = "Cauchy stress, tension positive",
           .use = kSnapshot | kCheckpoint | kHaloState | kHaloBoundary | kPythonSettable |
                  kStepState,
           .integration = {HeunForm::weighted_rates}},
          &ParticleSet::stress, &StateRates::dstress},
    // Files written until 0.1.0 (a7e0257) call the dataset plastic_strain (former_name).
    Field{{.name = "plastic_multiplier",
           .units = "-",
           .description = "accumulated plastic multiplier: time integral of the rate lambda_dot "
                          "of Schaefer 2017 eqs. 19-20 (not a strain)",
           .use = kSnapshot | kCheckpoint | kPython | kStepState,
           .former_name = "plastic_strain",
           .integration = {HeunForm::weighted_rates, StepError::none, false, true}},
          &ParticleSet::plastic_multiplier, &StateRates::dplastic},
    // The constitutive models' history variables (core/history.hpp): for_each_field gives one
    // scalar field per column, named by its variable, and these flags apply to each. Halo
    // copies carry them so that a pair term may read a partner's.
    Field{{.name = "history",
           .units = "-",
           .description = "history variables of the constitutive models, one field each",
           .use = kSnapshot | kCheckpoint | kHaloState | kStepState,
           .extra_attribute = kHistoryAttribute,
           .extra_value = "1",
           .integration = {HeunForm::weighted_rates}},
          &ParticleSet::history, &StateRates::dhistory},
    Field{{"yielding", "-", "1 if the particle yielded in the last step",
           kSnapshot | kCheckpoint | kPython},
          &ParticleSet::yielding},
    Field{{"material", "-", "material index", kSnapshot | kCheckpoint | kPython},
          &ParticleSet::material},
    Field{{"body", "-", "body index", kSnapshot | kCheckpoint | kPython}, &ParticleSet::body},
    Field{{"kind", "-", "particle kind", kSnapshot | kCheckpoint | kPython, nullptr, "values",
           "0 dynamic, 1 boundary"},
          &ParticleSet::kind},
    Field{{"id", "-", "stable particle id", kSnapshot | kCheckpoint | kPython, "ids"},
          &ParticleSet::id},
    // Added with the pair lists (after 0.1.0). A checkpoint written before holds none: its
    // particles then count as selected where they are (position), which gives valid lists.
    Field{{.name = "pair_selection_position",
           .units = "m",
           .description = "position at the last selection of the pair lists",
           .use = kCheckpoint,
           .stand_in = "position"},
          &ParticleSet::x_selected});

// The field of one history column: its variable's name, units and description, the flags
// and integration of the table's entry for the columns (`block`). Points into `v`.
inline FieldInfo history_field_info(const FieldInfo& block, const HistoryVariable& v) {
    FieldInfo f = block;
    f.name = v.name.c_str();
    f.units = v.units.c_str();
    f.description = v.description.c_str();
    return f;
}

// Calls fn(info, member) for one table entry, or fn(column info, column) for each history
// column of the entry of ParticleSet::history.
template <class Member, class Fn>
void visit_field(const FieldInfo& info, Member& member, Fn& fn) {
    if constexpr (std::is_same_v<std::remove_const_t<Member>, HistoryColumns>) {
        for (std::size_t k = 0; k < member.size(); ++k)
            fn(history_field_info(info, member.variables[k]), member.values[k]);
    } else {
        fn(info, member);
    }
}

// Calls fn(info, array) for every field of p (ParticleSet or const ParticleSet), in table
// order, each history column as a field of its own; `array` is the member: a std::vector or a
// std::array of component vectors.
template <class P, class Fn>
void for_each_field(P& p, Fn&& fn) {
    std::apply([&](const auto&... f) { (visit_field(f.info, p.*(f.member), fn), ...); },
               kParticleFields);
}

// Whether a table entry is the one of the history columns, whose fields exist at run time.
template <class Entry>
inline constexpr bool kHistoryEntry = std::is_same_v<typename Entry::Array, HistoryColumns>;

// Calls fn(entry) for every table entry (a Field with .info, .member and .rate) but the one
// of the history columns, without a ParticleSet: the fields every run has.
template <class Fn>
void for_each_field_entry(Fn&& fn) {
    std::apply(
        [&](const auto&... f) {
            (
                [&] {
                    if constexpr (!kHistoryEntry<std::remove_cvref_t<decltype(f)>>) fn(f);
                }(),
                ...);
        },
        kParticleFields);
}

// Calls fn(info, array, rate) for every integrated field of p (info.integration.form is not
// none), in table order, each history column as a field of its own: `array` is the member
// (a std::vector or a std::array of component vectors), rate(r) its rate array(s) of the
// same shape in a (const) StateRates r.
template <class Fn>
void for_each_integrated_field(ParticleSet& p, Fn&& fn) {
    std::apply(
        [&](const auto&... f) {
            (
                [&] {
                    using Entry = std::remove_cvref_t<decltype(f)>;
                    if constexpr (Entry::kIntegrated) {
                        if constexpr (kHistoryEntry<Entry>) {
                            HistoryColumns& h = p.history;
                            for (std::size_t k = 0; k < h.size(); ++k)
                                fn(history_field_info(f.info, h.variables[k]), h.values[k],
                                   [k, rate = f.rate](auto& r) -> auto& { return (r.*rate)[k]; });
                        } else {
                            fn(f.info, p.*(f.member),
                               [rate = f.rate](auto& r) -> auto& { return r.*rate; });
                        }
                    }
                }(),
                ...);
        },
        kParticleFields);
}

// Components of a field member: 1 for a std::vector, K for a std::array of K vectors.
template <class T>
inline constexpr std::size_t kComponents = 1;
template <class T, std::size_t K>
inline constexpr std::size_t kComponents<std::array<std::vector<T>, K>> = K;

// Component c of a field member.
template <class T>
auto& component(std::vector<T>& a, std::size_t) { return a; }
template <class T>
const auto& component(const std::vector<T>& a, std::size_t) { return a; }
template <class T, std::size_t K>
auto& component(std::array<std::vector<T>, K>& a, std::size_t c) { return a[c]; }
template <class T, std::size_t K>
const auto& component(const std::array<std::vector<T>, K>& a, std::size_t c) { return a[c]; }

// Element type of a field member (double, std::int32_t, ParticleKind, ...).
template <class A>
using FieldElement = typename std::remove_cvref_t<decltype(component(std::declval<A&>(), 0))>::value_type;

// Components of a field that can be non-zero in a dim-dimensional run: a scalar's one, a
// vector's first dim, a symmetric tensor's first stress_components(dim) (all six in 3D; xx, yy,
// zz, xy in 2D plane strain, where xz and yz stay zero).
inline std::vector<int> active_components(std::size_t components, int dim) {
    const int n = components == 1 ? 1 : components == 3 ? dim : stress_components(dim);
    std::vector<int> c(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) c[static_cast<std::size_t>(i)] = i;
    return c;
}

template <class Fn>
void ParticleSet::for_each_array(Fn&& fn) {
    for_each_field(*this, [&](const FieldInfo&, auto& a) {
        for (std::size_t c = 0; c < kComponents<std::remove_cvref_t<decltype(a)>>; ++c)
            fn(component(a, c));
    });
}

}  // namespace regosph
