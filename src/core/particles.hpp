// Particle data of a regosph run: one structure of arrays shared by the physics kernels,
// the neighbour search, the I/O layer and the Python bindings. What each array means, its
// unit and where it goes (files, halos, Python) is the field table in core/fields.hpp. Every
// array has one entry per particle; index order is arbitrary (the stable `id` identifies a
// particle across reorderings, ranks and restarts).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/history.hpp"

namespace regosph {

// What the integrator does with a particle.
enum class ParticleKind : std::uint8_t {
    dynamic = 0,   // integrated in time: regolith, elastic solids
    boundary = 1,  // belongs to a fixed or prescribed-motion body; its density and stress are
                   // extrapolated from the dynamic particles around it (Adami et al. 2012)
};

// Symmetric tensors are stored as six components in this order (Voigt order with the
// in-plane shear first). In 2D plane strain the xz and yz components stay zero and zz is
// carried (SPEC.md section 3).
enum TensorComponent : int { XX = 0, YY = 1, ZZ = 2, XY = 3, XZ = 4, YZ = 5 };
inline constexpr int kSymComponents = 6;
inline constexpr std::array<const char*, kSymComponents> kSymComponentNames{"xx", "yy", "zz",
                                                                            "xy", "xz", "yz"};
// The stress components a run of dimension `dim` computes, integrates and sends to halo
// copies (active_components, core/fields.hpp): the first four in 2D (xz and yz keep the zero
// they start with; Simulation::validate_setup checks it), all six in 3D. The particle loops of
// a step leave the others alone: in 2D they would move two of every six stress arrays for
// nothing, and the per-particle loops are bound by what they store.
constexpr int stress_components(int dim) { return dim == 2 ? XZ : kSymComponents; }

struct ParticleSet {
    int dim = 2;  // 2 (plane strain) or 3

    std::array<std::vector<double>, 3> x;  // position [m]; z stays 0 in 2D
    std::array<std::vector<double>, 3> v;  // velocity [m/s]
    std::vector<double> rho;               // density [kg/m^3]
    std::vector<double> mass;              // [kg]
    std::vector<double> h;                 // kernel support radius [m] (SPEC.md section 1)
    std::array<std::vector<double>, kSymComponents> stress;  // Cauchy stress [Pa], tension > 0
    std::vector<double> plastic_multiplier;  // accumulated plastic multiplier, int lambda_dot dt [-]
    std::vector<std::uint8_t> yielding;  // 1 if the particle flowed plastically in the last step
    // The constitutive models' history variables, one column each (core/history.hpp).
    HistoryColumns history;

    std::vector<std::int32_t> material;  // index into Simulation::materials
    std::vector<std::int32_t> body;      // index into Simulation::bodies
    std::vector<ParticleKind> kind;
    std::vector<std::int64_t> id;  // stable particle id, unique in a run (0 ... N-1)

    // Position at the last selection of the pair lists [m] (NeighbourList::select_pairs): the
    // lists are a function of these positions, so a restart that reads them continues with the
    // same lists (and the same results, bit for bit).
    std::array<std::vector<double>, 3> x_selected;

    // Under MPI the first owned() entries belong to this rank; the last n_halo entries are
    // read-only copies of particles that other ranks own and that lie within interaction range
    // (src/parallel/domain.hpp). Only owned particles are integrated, extrapolated, written and
    // counted; halo particles only appear as neighbours. Without MPI n_halo stays 0.
    std::size_t n_halo = 0;

    std::size_t size() const { return rho.size(); }     // owned + halo
    std::size_t owned() const { return size() - n_halo; }

    // Append one owned particle (no halo may be attached); unset fields start at zero.
    void push_back(const std::array<double, 3>& position, const std::array<double, 3>& velocity,
                   double density, double particle_mass, double support_radius,
                   std::int32_t material_index, std::int32_t body_index, ParticleKind k,
                   std::int64_t particle_id);

    // Resize to n particles (the caller keeps n_halo right; it is reset if it no longer fits).
    void resize(std::size_t n);

    // Removes the halo copies: only the owned particles remain.
    void drop_halo() {
        const std::size_t n = owned();
        n_halo = 0;
        resize(n);
    }
    void reserve(std::size_t n);

    // Apply a permutation: new index i takes the particle that was at order[i].
    void permute(const std::vector<std::size_t>& order);

    // Calls fn(array) for every per-particle array (a std::vector of some element type, one per
    // component), in the order of the field table (core/fields.hpp, which defines it), so that
    // code moving whole particles (resize, permute, MPI migration, halos) cannot forget one.
    template <class Fn>
    void for_each_array(Fn&& fn);
};

// Calls fn(a, b) for each maximal run [a, b) of [first, last) whose indices skip(i) leaves in.
template <class Skip, class Fn>
void for_each_run(std::size_t first, std::size_t last, Skip&& skip, Fn&& fn) {
    while (first < last) {
        if (skip(first)) {
            ++first;
            continue;
        }
        std::size_t e = first + 1;
        while (e < last && !skip(e)) ++e;
        fn(first, e);
        first = e;
    }
}

// Calls fn(a, b) for each run [a, b) of consecutive dynamic particles of one material within
// [first, last): the per-material sweeps (correct_stresses, wave_speeds in
// materials/material.hpp) take a run at a time.
template <class Fn>
void for_each_material_run(const ParticleSet& p, std::size_t first, std::size_t last, Fn&& fn) {
    for (std::size_t a = first; a < last;) {
        if (p.kind[a] != ParticleKind::dynamic) {
            ++a;
            continue;
        }
        std::size_t b = a + 1;
        while (b < last && p.kind[b] == ParticleKind::dynamic && p.material[b] == p.material[a])
            ++b;
        fn(a, b);
        a = b;
    }
}

}  // namespace regosph

// The field table and for_each_array, which every user of ParticleSet may need.
#include "core/fields.hpp"  // IWYU pragma: export
