// Sleeping regions (physics.sleep): dynamic particles whose neighbourhood is at rest are not
// integrated and act as a frozen boundary for their awake partners until motion reaches them,
// after the "active domains" of Chrono's continuum terramechanics (Unjhawala et al. 2025,
// arXiv:2507.05643, Chrono::CRM: boxes around the bodies), here decided per particle from its
// own rates and its pair list, so that any motion, not only a body's, keeps its region awake.
//
// The state of each particle is a history column of the particle set ("sleep_state", added
// when the option is on: Simulation::ensure_integrator), so that halos, migration, snapshots,
// checkpoints and restarts carry it with no code of their own. Its rate is zero, so the
// stages leave it as it is; it changes only at step boundaries (decide_sleep).
//
// The decision at the end of an accepted step, for each owned dynamic particle a, with the
// speed tolerance v_s (physics.sleep_speed) and a's reference wave speed c (the material's
// viscosity sound speed) and support h:
//   a is calm     when asleep, or |v_a| <= v_s, |dv_a/dt| <= c v_s / h and every
//                 |dsigma_a/dt| <= rho c^2 v_s / h at both stages of the step (the rates
//                 that change its speed by v_s, or its strain by v_s / c, within the signal's
//                 crossing time h / c);
//   a is touched  when a partner of its pair list (the support plus the pair margin) was
//                 moving at the previous decision, or is a particle of a kinematic or rigid
//                 body;
//   new state     moving if not calm; else awake at rest if touched; else asleep.
// Partners are read as they were at the previous decision (the halo copies' values: one step
// late, the same for every partner on any number of ranks), and every input is a step-boundary
// quantity that does not depend on the decomposition, so the decisions, like the results, are
// the same on any number of ranks and threads. A wake front advances one pair list per step,
// faster than any signal (the Courant limit keeps c dt below h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/history.hpp"
#include "core/particles.hpp"
#include "sph/equations.hpp"
#include "sph/neighbours.hpp"

namespace regosph {

inline constexpr const char* kSleepStateName = "sleep_state";
// The values of the column.
inline constexpr double kMoving = 0.0;   // awake, over the tolerance (or not yet judged)
inline constexpr double kResting = 1.0;  // awake, calm, but a partner moves
inline constexpr double kAsleep = 2.0;   // not integrated

// The column's declaration (units, description; new particles start moving).
HistoryVariable sleep_state_variable();

// The sleep states of p (one per particle, halo copies included) when physics.sleep is on and
// the column exists; null otherwise.
const double* sleep_states(const ParticleSet& p, const MaterialTable& mt,
                           const PhysicsParameters& pp);

inline bool asleep(const double* states, std::size_t a) {
    return states && states[a] == kAsleep;
}

// The kinds the stage updates see for the owned particles: a sleeping particle counts as a
// boundary particle, which they leave exactly as it is.
void integrated_kinds(const ParticleSet& p, const double* states, std::vector<ParticleKind>& out);

// Calls fn(first, last) for each run of [a, b) whose kinds are dynamic.
template <class Fn>
void for_each_dynamic_run(const ParticleKind* kinds, std::size_t a, std::size_t b, Fn&& fn) {
    while (a < b) {
        if (kinds[a] != ParticleKind::dynamic) {
            ++a;
            continue;
        }
        std::size_t e = a + 1;
        while (e < b && kinds[e] == ParticleKind::dynamic) ++e;
        fn(a, e);
        a = e;
    }
}

// The decision at the end of an accepted step (see above): k1, k2 the step's rates,
// `moving_body` per body whether it is kinematic or rigid. Returns the dynamic particles
// integrated in the step (awake before the decision), summed over the ranks. Collective.
std::int64_t decide_sleep(ParticleSet& p, const NeighbourList& nl, const MaterialTable& mt,
                          const PhysicsParameters& pp, const Derivatives& k1,
                          const Derivatives& k2, const std::vector<std::uint8_t>& moving_body);

}  // namespace regosph
