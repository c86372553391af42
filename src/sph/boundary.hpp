// Wall boundary condition (SPEC.md section 6): boundary particles of fixed walls and of
// kinematic tools take the density and stress of the dynamic particles around them
// (Adami, Hu & Adams 2012).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "core/particles.hpp"
#include "sph/equations.hpp"
#include "sph/neighbours.hpp"

namespace regosph {

// Kernel-weighted average over the dynamic neighbours (Adami et al. 2012 eq. 27 generalised to
// the stress tensor):
//   sigma_w = sum_f [sigma_f - rho_f ((g - a_w) . (x_w - x_f)) I] W_wf / sum_f W_wf,
// so that the wall carries the hydrostatic load it must, and m_w = rho_w V_w with the
// particle's fixed volume V_w. A boundary particle without dynamic neighbours keeps its
// density and gets zero stress. Owned boundary particles only: under MPI the owners send the
// values to the halo copies (parallel::Domain::update_halo). a_w is the acceleration of the
// body: wall_acceleration (one entry per particle, [m/s^2]) for kinematic bodies, zero when
// null (fixed walls).
//
// Sleeping regions (sleep_regions.hpp): a wall whose dynamic neighbours (none, or all) were
// asleep when it was last extrapolated, and still are, keeps its values, which are those it
// would get again (sleeping particles do not change). `states`: the sleep states, null to
// extrapolate every wall; `quiet`: one flag per owned particle, whether its last extrapolation
// saw every neighbour asleep (1), and whether it then kept its values on a body that does not
// move (2: the wall is as it was at the evaluation before), kept by the caller between
// evaluations and cleared whenever the rows or the walls' values change otherwise (new pair
// lists, a step's start restored); `moving_body`: per body, whether it moves (Bodies).
struct SleepingWalls {
    const double* states = nullptr;
    std::uint8_t* quiet = nullptr;
    const std::vector<std::uint8_t>* moving_body = nullptr;
};
void extrapolate_boundary(ParticleSet& p, const NeighbourList& nl, const PhysicsParameters& pp,
                          const std::array<std::vector<double>, 3>* wall_acceleration = nullptr,
                          SleepingWalls sleeping = {});
// The same for the boundary particles among the owned particles [first, last), for a caller
// that runs it in chunks of its own (compute_derivatives' StagePrologue). A wall's values
// come from its dynamic neighbours only, so ranges are independent of each other.
void extrapolate_boundary(ParticleSet& p, const NeighbourList& nl, const PhysicsParameters& pp,
                          const std::array<std::vector<double>, 3>* wall_acceleration,
                          std::size_t first, std::size_t last, SleepingWalls sleeping = {});

}  // namespace regosph
