// Loads of the regolith on bodies: the force and torque on a body are the reaction to the
// momentum pair forces (pair_terms.hpp, Schaefer 2017 eq. 37 with the artificial viscosity and,
// for elastic solids, the artificial stress) that its particles exert on their dynamic
// neighbours,
//   F = - sum_{a dynamic, b in body} m_a m_b [momentum + artificial-stress pair term]_ab,
//   T = sum_{a, b} (x_b - x_ref) x F_ab,
// collected by the pair loop in the same pass as the right-hand side (equations.cpp), so that
// a load contains every term the regolith feels. In 2D they are per unit depth ([N/m], [N]).
//
// Deterministic on any number of ranks and threads: each dynamic particle's share is summed
// over its neighbour row (ordered by particle id), and the shares are added in particle-id
// order on every rank.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <vector>

namespace regosph {

struct BodyLoad {
    std::array<double, 3> force{0.0, 0.0, 0.0};   // [N] (2D: [N/m])
    std::array<double, 3> torque{0.0, 0.0, 0.0};  // about the body's reference point [N m] (2D: [N])
    // The load of contact with other boundary bodies (contact.hpp), same units and reference
    // point; zero for bodies that touch none.
    std::array<double, 3> contact_force{0.0, 0.0, 0.0};
    std::array<double, 3> contact_torque{0.0, 0.0, 0.0};
};

// What an evaluation does with the bodies beyond the default no-slip walls: which bodies it
// collects loads for, the point each torque is taken about, and the friction of each body's
// wall particles (pair_terms.hpp).
struct LoadRequest {
    std::vector<std::uint8_t> collect;             // per body: 1 = collect its load
    std::vector<std::array<double, 3>> reference;  // per body: torque reference point [m]
    // Per body: Coulomb coefficient mu >= 0 of its wall particles (0: free-slip); < 0 or
    // absent: no-slip (the default).
    std::vector<double> wall_friction;
};

// The soil's contact with a boundary body's particles (rhs::WallSeparation). 'unilateral': a
// pair that opens (v_ab . x_ab > 0) while its normal stress is not compressive beyond the
// adhesion carries nothing, so that the soil leaves the wall instead of being held by tension
// (walls, tools, bodies). 'tension_cut': a pair whose normal stress is tensile beyond the
// adhesion carries nothing while it opens and no stress while it closes; every other pair is in
// contact as with 'bonded', with its shear and its compression. 'bonded': every pair carries the
// stress extrapolated to the wall whatever its sign, as the soil beyond a symmetry plane would.
enum class WallContact { bonded, unilateral, tension_cut };

struct InterfaceLaw {
    WallContact contact = WallContact::unilateral;
    double adhesion = 0.0;  // the tensile normal stress the interface carries [Pa]
    // 'unilateral': the tensile normal stress beyond which an opening pair drops out [Pa];
    // +inf (never) for the other laws.
    double tension_limit() const {
        return contact == WallContact::unilateral ? adhesion
                                                  : std::numeric_limits<double>::infinity();
    }
    // 'tension_cut': the tensile normal stress beyond which a pair carries no stress [Pa];
    // +inf (never) for the other laws.
    double normal_limit() const {
        return contact == WallContact::tension_cut ? adhesion
                                                   : std::numeric_limits<double>::infinity();
    }
};

// One dynamic particle's share of the load on one body.
struct LoadShare {
    std::int64_t id = 0;  // of the dynamic particle
    std::int32_t body = 0;
    double force[3] = {0.0, 0.0, 0.0};
    double torque[3] = {0.0, 0.0, 0.0};
};

// Sums the shares of every rank (collective under MPI) in (particle id, body) order into one
// load per body; `shares` of one particle and body keep their order. Returns n_bodies loads.
std::vector<BodyLoad> sum_load_shares(std::vector<LoadShare>& shares, std::size_t n_bodies);

// a + w b, component by component (the step-averaged loads of the integrator).
void add_scaled(std::vector<BodyLoad>& a, const std::vector<BodyLoad>& b, double w);

}  // namespace regosph
