// The particle fields, one table (kParticleFields): for each array of ParticleSet its name,
// unit, description and where it goes. The table drives snapshot writing and reading and the
// XDMF index (io/snapshot.cpp), checkpoints and their checksum (io/checkpoint.cpp), halo
// exchange (parallel/domain.cpp), ParticleSet::for_each_array (resize, permute, migration) and
// the NumPy properties of Simulation (python/bind_output.cpp). A new field is one member of
// ParticleSet plus one entry here.
//
// The number of components follows from the member's type: std::vector<T> is a scalar,
// std::array<std::vector<double>, 3> a vector (z = 0 in 2D), std::array<std::vector<double>,
// kSymComponents> a symmetric tensor in the order kSymComponentNames.
#pragma once

#include <array>
#include <tuple>
#include <type_traits>
#include <vector>

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

    const char* property_name() const { return python_name ? python_name : name; }
    const char* units_in(int dim) const {
        return dim == 2 && plane_strain_units ? plane_strain_units : units;
    }
};

// One table entry: the metadata and the ParticleSet member it describes.
template <class Member>
struct Field {
    FieldInfo info;
    Member ParticleSet::*member;
};
template <class Member>
Field(FieldInfo, Member ParticleSet::*) -> Field<Member>;

// The fields in the order in which every consumer handles them (datasets in a file, bytes of a
// particle in MPI messages and in the checkpoint checksum): changing the order changes the
// checksum of existing checkpoints.
inline constexpr auto kParticleFields = std::make_tuple(
    Field{{"position", "m", "position, z = 0 in 2D",
           kSnapshot | kCheckpoint | kHaloState | kPythonSettable, "positions"},
          &ParticleSet::x},
    Field{{"velocity", "m/s", "velocity", kSnapshot | kCheckpoint | kHaloState | kPythonSettable,
           "velocities"},
          &ParticleSet::v},
    Field{{"density", "kg/m^3", "mass density",
           kSnapshot | kCheckpoint | kHaloState | kHaloBoundary | kPythonSettable},
          &ParticleSet::rho},
    Field{{"mass", "kg", "particle mass (2D: per metre of depth)",
           kSnapshot | kCheckpoint | kHaloBoundary | kPython, nullptr, nullptr, nullptr, nullptr,
           "kg/m"},
          &ParticleSet::mass},
    Field{{"smoothing_length", "m", "kernel support radius h", kSnapshot | kCheckpoint | kPython},
          &ParticleSet::h},
    Field{{"stress", "Pa", "Cauchy stress, tension positive",
           kSnapshot | kCheckpoint | kHaloState | kHaloBoundary | kPythonSettable},
          &ParticleSet::stress},
    // Until 0.1.0 (a7e0257) the dataset was called plastic_strain; files under that name still
    // read (former_name).
    Field{{"plastic_multiplier", "-",
           "accumulated plastic multiplier: time integral of the rate lambda_dot of Schaefer 2017 "
           "eqs. 19-20 (not a strain)",
           kSnapshot | kCheckpoint | kPython, nullptr, nullptr, nullptr, "plastic_strain"},
          &ParticleSet::plastic_multiplier},
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

// Calls fn(info, array) for every field of p (ParticleSet or const ParticleSet), in table
// order; `array` is the member: a std::vector or a std::array of component vectors.
template <class P, class Fn>
void for_each_field(P& p, Fn&& fn) {
    std::apply([&](const auto&... f) { (fn(f.info, p.*(f.member)), ...); }, kParticleFields);
}

// Calls fn(entry) for every table entry (a Field with .info and .member), without a ParticleSet.
template <class Fn>
void for_each_field_entry(Fn&& fn) {
    std::apply([&](const auto&... f) { (fn(f), ...); }, kParticleFields);
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
