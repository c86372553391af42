// Right-hand side of the SPH equations (SPEC.md section 2, Schaefer et al. 2017 section 3):
// continuity, momentum with the full stress tensor and Monaghan artificial viscosity,
// strain and rotation rates, and the objective (Jaumann) stress rate of each particle's
// material; for elastic solids optionally Monaghan's (2000) artificial stress in the momentum
// equation and the XSPH position rate. Only dynamic particles get derivatives; boundary
// particles enter as partners. The equations of the pair terms are in pair_terms.hpp, the
// terms a run composes in rhs_terms.hpp and wall_terms.hpp (the walls' laws and the loads on
// bodies, collected in the same pass, body_loads.hpp), the walk over a pair list in
// pair_traversal.hpp; equations.cpp stages the records, composes the terms and turns their
// sums into rates.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "core/aligned_allocator.hpp"
#include "core/particles.hpp"
#include "materials/material.hpp"
#include "sph/body_loads.hpp"
#include "sph/energy_budget.hpp"
#include "sph/neighbours.hpp"

namespace regosph {

// Numerical parameters of the equations; the same for every setup (docs/guide/physics.md).
struct PhysicsParameters {
    std::array<double, 3> gravity{0.0, 0.0, 0.0};  // [m/s^2]
    double av_alpha = 0.3;                          // Monaghan viscosity alpha (eq. 35)
    double av_beta = 0.7;                           // Monaghan viscosity beta (eq. 35)
    double av_epsilon = 0.01;                       // eps_v of eq. 36
    double courant = 0.3;                           // C in dt <= C h / (c + |v| + ...)
    // Balsara's (1995) switch on the viscosity, Pi_ab (f_a + f_b) / 2 (gradient_correction.hpp).
    bool av_balsara = false;
    // Morris & Monaghan's (1997, J. Comput. Phys. 136, 41) switch on the viscosity: Pi_ab times
    // (f_a + f_b) / 2 with each particle's f = alpha_a / av_alpha in [kSwitchFloor, 1], a
    // history column (kSwitchColumn) integrated as
    //   df/dt = -(f - kSwitchFloor) / tau + max(-div v, 0) (1 - f),  tau = h / (kSwitchDecay c),
    // h the smoothing length (half the support radius) and c the viscosity sound speed: it
    // rises in compression and decays to the floor in smooth flow (finish_particle).
    bool av_switch = false;
    // The pair dissipation: Monaghan's artificial viscosity (eq. 35, av_*), or the acoustic
    // Riemann solver of Zhang, Hu & Adams (2017, J. Comput. Phys. 335, 605) with its dissipation
    // limiter (RiemannDissipation, rhs_terms.hpp), whose strength follows the velocity jump.
    enum class Dissipation { monaghan, riemann };
    Dissipation dissipation = Dissipation::monaghan;
    // eta of the limiter beta = min(eta max(U_L - U_R, 0) / cbar, 1) [-]: 3 in Zhang et al.
    // (2017); SPHinXsys's plastic continuum (Zhang et al. 2024) takes 20 x dim.
    double riemann_limiter = 3.0;
    // beta_0 of the limiter's floor, beta = max(beta_0, min(eta jump / cbar, 1)) [-], in [0, 1];
    // 0 = off. With riemann_reconstruction only: the jump is then the particle-scale residual
    // beyond the linear velocity field, which the floor damps linearly (a dissipation linear
    // in small jumps keeps a bed at rest, docs/guide/physics.md).
    double riemann_limiter_floor = 0.0;
    // Which pairs the limiter's jump damps: 'approaching', U_L - U_R = -v_ab . x_ab / r > 0
    // (Zhang, Hu & Adams 2017, eq. 15); 'separating', v_ab . x_ab / r > 0, the sign
    // SPHinXsys's Lagrangian solvers pass (u_jump = (v_i - v_j) . e_ij, e_ij = x_ij / r;
    // docs/validation/collapse.md), its Pi_ab < 0 pulling the pair together.
    enum class RiemannPairs { approaching, separating };
    RiemannPairs riemann_pairs = RiemannPairs::approaching;
    // The limiter's velocity jump from each side's linear reconstruction at the pair's
    // midpoint, v_a - G_a x_ab / 2 and v_b + G_b x_ab / 2 with each particle's velocity gradient
    // G from the gradient pre-pass (MUSCL; RiemannDissipation), in place of v_a and v_b: a
    // linear velocity field has no jump, particle-scale motion keeps its own. With
    // riemann_stress_jump, the normal-stress jump likewise from the stresses reconstructed
    // with each particle's stress gradient (RiemannStressJump).
    bool riemann_reconstruction = false;
    // xi of the hourglass control [-], 0 = off; with dissipation = 'riemann' (HourglassControl,
    // rhs_terms.hpp): each dynamic particle carries an acceleration a_hg (history columns
    // kHourglassColumns, starting at 0), added to its own, with
    //   d a_hg,a / dt = xi (mu_a / rho_a) sum_b V_b F_ab (v_ab - (G_a + G_b) x_ab / 2)
    // over the partners of its own body (materials that cannot yield only: MaterialTable::
    // shear_modulus), F_ab = (1 / r) dW / dr and G the pre-pass's velocity
    // gradient: a shear stiffness mu against the part of the relative motion that the velocity
    // gradient does not describe (the hourglass modes), after the updated-Lagrangian form of
    // Wu, Zhang & Hu's (2023, CMAME 407, 115915) "essentially non-hourglass" correction in
    // SPHinXsys (xi = 4 there).
    double hourglass_control = 0.0;
    // delta of the delta-SPH density diffusion (Molteni & Colagrossi 2009) [-], 0 = off; in
    // runs with the Riemann solver's dissipation only, between particles of one material that
    // can yield (DensityDiffusion, rhs_terms.hpp).
    double density_diffusion = 0.0;
    // The Riemann solver's normal-stress jump (RiemannStressJump, rhs_terms.hpp): the pair's
    // interface velocity moves by (P_a - P_b) / Zbar along the pair, P = -e . sigma . e; for
    // particles of materials that can yield (MaterialTable::can_yield). Where it enters:
    // 'continuity', the density rate only (the form of SPHinXsys's plastic continuum, whose
    // pressure jump enters its continuity equation); 'continuity_and_strain_rate', the velocity
    // gradient that the constitutive update takes too (its share of the stress power is then
    // the scheme's loss). With the jump in the strain rate a prepared bed creeps at its free
    // surface and its walls; in the continuity only it stays at rest (docs/guide/physics.md).
    enum class StressJump { none, continuity, continuity_and_strain_rate };
    StressJump riemann_stress_jump = StressJump::none;
    // The soil's contact with the walls, tools and bodies that do not name their own
    // (Body::interface; InterfaceLaw, body_loads.hpp): 'tension_cut' (the soil separates
    // where it pulls beyond wall_adhesion [Pa]), 'unilateral' or 'bonded'.
    using WallContact = regosph::WallContact;
    WallContact wall_contact = WallContact::tension_cut;
    double wall_adhesion = 0.0;
    InterfaceLaw interface_law() const { return {wall_contact, wall_adhesion}; }
    // Sleeping regions (sph/sleep_regions.hpp): dynamic particles whose neighbourhood is at
    // rest within sleep_speed [m/s] (and the rates that speed implies) are not integrated until
    // motion or a moving body reaches their pair list.
    bool sleep = false;
    double sleep_speed = 1e-3;
};

// Morris & Monaghan's switch (PhysicsParameters::av_switch): the history column of f, its floor
// (their alpha* = 0.1 of alpha = 1) and the decay constant C of tau = h / (C c) (0.1-0.2 in
// their paper; 0.2).
inline constexpr const char* kSwitchColumn = "viscosity_switch";
inline constexpr double kSwitchFloor = 0.1;
// The history columns of the hourglass control's acceleration a_hg, x, y (and z) [m/s^2].
inline constexpr const char* kHourglassColumns[3] = {
    "hourglass_acceleration_x", "hourglass_acceleration_y", "hourglass_acceleration_z"};
inline constexpr double kSwitchDecay = 0.2;

// "monaghan" / "riemann" (run.json, Python), and back; the latter throws
// std::invalid_argument naming physics.dissipation for another name.
const char* dissipation_name(PhysicsParameters::Dissipation d);
PhysicsParameters::Dissipation dissipation_from_name(const std::string& name);
// "bonded" / "unilateral" (run.json, Python), and back; the latter throws
// std::invalid_argument naming `field` for another name.
const char* wall_contact_name(WallContact c);
WallContact wall_contact_from_name(const std::string& name,
                                   const std::string& field = "physics.wall_contact");
// "approaching" / "separating" (run.json, Python), and back; the latter throws
// std::invalid_argument naming physics.riemann_pairs for another name.
const char* riemann_pairs_name(PhysicsParameters::RiemannPairs r);
PhysicsParameters::RiemannPairs riemann_pairs_from_name(const std::string& name);
// "none" / "continuity" / "continuity_and_strain_rate" (run.json, Python), and back; the latter
// throws std::invalid_argument naming physics.riemann_stress_jump for another name.
const char* stress_jump_name(PhysicsParameters::StressJump j);
PhysicsParameters::StressJump stress_jump_from_name(const std::string& name);

// Per-material data the particle loops need, computed once per run.
struct MaterialTable {
    // `history`: the particle set's history columns, which hold every material's history
    // variables (register_history).
    MaterialTable(const std::vector<Material>& materials, int dim,
                  const HistoryColumns& history = {});
    std::vector<Material> materials;      // prepared for the run's dimension
    // Per material: the column of each of its model's history variables (history_columns),
    // and per column the index of its variable among the model's, -1 for none.
    std::vector<std::vector<int>> history_columns;
    std::vector<std::vector<int>> history_index;
    std::vector<double> viscosity_speed;  // c of the artificial viscosity [m/s]
    std::vector<double> artificial_stress;           // Monaghan (2000) epsilon, 0 = off [-]
    std::vector<double> artificial_stress_exponent;  // n of f_ab^n [-]
    std::vector<double> xsph;                        // XSPH epsilon, 0 = off [-]
    std::vector<std::uint8_t> kernel_correction;     // Material::kernel_correction
    int sleep_column = -1;  // the history column of the sleep states (sleep_regions.hpp), -1: none
    // Whether any material uses the option: runs without it take a pair loop that does not
    // contain the term at all.
    bool any_artificial_stress = false;
    bool any_xsph = false;
    bool any_kernel_correction = false;
    // Whether any material can yield (ConstitutiveModel::kPlastic). Without one, the plastic
    // rate, the yielding flag and the plastic power of every particle are zero, set once
    // (Derivatives::plastic_written), not at every evaluation.
    bool any_plastic = false;
    // The exponent n of f_ab^n when every material with artificial stress has the same whole
    // number 1 <= n <= 15 (the usual n = 4): the pair loop then multiplies it out. 0 otherwise
    // (std::pow per pair, with n_ab = max(n_a, n_b)).
    int artificial_stress_power = 0;
    // The history column of Morris & Monaghan's switch (kSwitchColumn), -1 without it.
    int switch_column = -1;
    // The history columns of the hourglass control (kHourglassColumns), -1 without it, and
    // each material's shear modulus mu [Pa] (0 for a model without one and for a model that
    // can yield: no hourglass control).
    int hourglass_column[3] = {-1, -1, -1};
    std::vector<double> shear_modulus;
    // Whether each material can yield (1): the Riemann solver's stress jump and the density
    // diffusion act on these only (rhs::RiemannStressJump, rhs::DensityDiffusion).
    std::vector<std::uint8_t> can_yield;
};

// Per-particle quantities the pair loop reads, staged once per evaluation so that the loop
// does no divisions by density and finds all it needs of a neighbour in one place.
struct StagedParticles {
    // One record per particle, `record_size` doubles apart (whole cache lines): the fields the
    // run's pair terms read of a partner, named by rhs::Record (rhs_terms.hpp).
    std::vector<double, AlignedAllocator<double>> record;  // from a cache-line boundary
    int record_size = 0;
    // Artificial stress with no common whole exponent (MaterialTable::artificial_stress_power
    // == 0): the exponent n of each particle (0 where its material does not use it) and
    // 1 / shape(dp / h) [-] (write_record in equations.cpp).
    std::vector<double> n_art;
    std::vector<double> inv_w_rest;
    // Evaluations that collect loads: per particle, the body its pair forces count towards
    // (-1: none).
    std::vector<std::int32_t> load_body;
    // Runs with the kernel gradient correction or Balsara's switch: per particle the kernel
    // correction L and Balsara's f of the gradient pre-pass (gradient_correction.hpp).
    std::vector<double> prepass;
    // Runs with walls: per body, the tensile normal stress an opening pair with its boundary
    // particles carries (InterfaceLaw::tension_limit, +inf where bonded; the run's default
    // for bodies beyond the table) [Pa], the same for the tensile normal stress a pair carries
    // (InterfaceLaw::normal_limit), and whether some wall's is finite: the pair loop then
    // takes the shape with WallSeparation (rhs::Shape::Unilateral).
    std::vector<double> tension_limit, normal_limit;
    double default_tension_limit = 0.0, default_normal_limit = 0.0;
    bool separation = false;
    // Sleeping regions (sleep_regions.hpp): per owned particle, whether its record was staged
    // while it slept, in the record layout `asleep_layout`. A sleeping particle does not
    // change, so such a record is still its own while it sleeps, and the staging leaves it as
    // it is (not with the gradient pre-pass, whose L follows the partners). The owner of these
    // records clears the flags whenever a sleeping particle may have changed or moved to
    // another index since they were staged (a restored step start, a Verlet rebuild, a
    // change from outside the integrator; AdaptiveHeun::derivatives).
    std::vector<std::uint8_t> asleep_staged;
    const void* asleep_layout = nullptr;
    // With those flags: per owned particle the walls' SleepingWalls::quiet (boundary.hpp) as
    // this evaluation's extrapolation leaves it, or null. A wall at 2 is as it was at the last
    // evaluation, whose record it keeps too.
    const std::uint8_t* unchanged_walls = nullptr;
};

// Refreshes per-particle values of the dynamic halo copies from their owners: `values` holds
// `stride` doubles per particle (owned, then halo). Collective under MPI; empty: one rank.
using HaloRefresh = std::function<void(std::vector<double>& values, int stride)>;

// Work on the owned particles [first, last) that compute_derivatives runs in its parallel
// region, chunk by chunk, each chunk just before the same thread stages those particles'
// records: it may change the state of the boundary particles of its range (their
// extrapolation from the dynamic ones, AdaptiveHeun), which the records then take. The
// chunks must not depend on each other's results.
using StagePrologue = std::function<void(std::size_t first, std::size_t last)>;

// The rates of the integrated fields (StateRates, core/fields.hpp: dx, dv, drho, dstress,
// dplastic, dhistory) and what else an evaluation gives.
struct Derivatives : StateRates {
    std::vector<std::uint8_t> yielding;                       // plastic loading this evaluation
    // Step limit of each dynamic particle [s], the Courant limit or its model's own
    // (StressRate::dt_limit), whichever is smaller; +inf elsewhere.
    std::vector<double> dt_limit;
    double dt_min = 0.0;           // the smallest of dt_limit over the owned particles [s]
    // Energy budget (energy_budget.hpp): each dynamic particle's power in the EnergyRate
    // terms [W] (2D: [W/m]); zero for boundary particles.
    std::array<std::vector<double>, kEnergyRates> power;
    std::vector<double> stress_power;  // V sigma : eps_dot of each dynamic particle [W]
    // Loads on the bodies a LoadRequest asked for (one entry per body, zero for the others);
    // empty when the evaluation collected none. The same on every rank.
    std::vector<BodyLoad> loads;
    StagedParticles staged;        // workspace of compute_derivatives
    // Whether dplastic, yielding and power[kPlasticPower] may hold non-zero values (an
    // evaluation with a plastic material wrote them); resize zeroes them.
    bool plastic_written = false;
    void resize(std::size_t n, bool position_rate = true, std::size_t history_columns = 0);
};

// Whether the pair loop runs the gradient pre-pass (gradient_correction.hpp: the kernel
// correction, Balsara's or Morris & Monaghan's switch, the Riemann solver's reconstruction),
// which reads the pair lists of every
// dynamic particle, sleeping ones included.
inline bool runs_gradient_prepass(const MaterialTable& mt, const PhysicsParameters& pp) {
    return mt.any_kernel_correction || pp.av_balsara || pp.av_switch ||
           pp.riemann_reconstruction || pp.hourglass_control > 0.0;
}

// Derivatives of the owned dynamic particles (halo particles enter as partners). With `loads`,
// also the loads on the bodies it asks for, into out.loads (collective under MPI). `refresh`
// brings the gradient pre-pass of the halo copies (runs with the kernel correction or
// Balsara's switch on more than one rank). `walls`: whether the run has boundary particles
// on any rank. Without them the walls' energy term (power[kWallPower]) is exactly zero: its
// pair work over dynamic pairs cancels the stress and viscous powers in the sum over all
// particles (energy_budget.hpp), so the pair loop leaves that pair work out (~5 % of a
// wall-free run's time); every rank must pass the same value. `prologue`: see StagePrologue
// (with the gradient pre-pass it runs over all owned particles before it). `interfaces`: the
// soil's contact law with each body's boundary particles (interface_law, body.hpp); bodies
// beyond it take pp's (PhysicsParameters::interface_law).
void compute_derivatives(const ParticleSet& p, const NeighbourList& nl, const MaterialTable& mt,
                         const PhysicsParameters& pp, Derivatives& out,
                         const LoadRequest* loads = nullptr, const HaloRefresh& refresh = {},
                         bool walls = true, const StagePrologue& prologue = {},
                         std::span<const InterfaceLaw> interfaces = {});

}  // namespace regosph
