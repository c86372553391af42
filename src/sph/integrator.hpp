// Second-order Runge-Kutta (Heun; SPEC.md section 5) or the three-stage, third-order strong-
// stability-preserving Runge-Kutta method (SSP-RK3, Shu & Osher 1988), each with an embedded
// first-order (Euler) error estimate and an adaptive step, bounded by the Courant condition
// (IntegratorOptions::scheme). Integrates the fields the
// field table marks as integrated (core/fields.hpp: position, velocity, density, stress, the
// plastic multiplier and the models' history variables) of the dynamic particles, each with
// its rate in Derivatives; each model's correction (Bui's return mapping, an equation of
// state) is applied after every stage update.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "parallel/domain.hpp"
#include "parallel/thread_tuner.hpp"
#include "sph/body.hpp"
#include "sph/boundary.hpp"
#include "sph/contact.hpp"
#include "sph/equations.hpp"
#include "sph/heun_sweeps.hpp"
#include "sph/neighbours.hpp"
#include "sph/time_scheme.hpp"

namespace regosph {

// "heun" / "ssp_rk3" (run.json, Python), and back; the latter throws std::invalid_argument
// naming integrator.scheme for another name.
const char* time_scheme_name(TimeScheme s);
TimeScheme time_scheme_from_name(const std::string& name);

struct IntegratorOptions {
    TimeScheme scheme = TimeScheme::heun;
    // Local error tolerance of the step control. The error of a step is the largest over the
    // dynamic particles of |dx| / h, |dv| dt / h and |drho| / rho, where d is the difference
    // between the second- and the first-order solution.
    double tolerance = 1e-4;
    double dt_initial = 0.0;    // first step [s]; 0 = the Courant limit
    double dt_min = 1e-10;      // a step below this floor stops the run as a blow-up [s]
    double dt_max = 1e-2;       // [s]
    // Verlet skin as a fraction of the largest h: the narrowest skin. Where the lists live
    // short (a fast flow) the integrator widens it up to kMaxSkinFactor x, and narrows it back
    // where they live long (AdaptiveHeun::next_skin_factor). The pair lists, and so the
    // results, depend on pair_margin x this value, never on the skin used.
    double neighbour_skin = 0.15;
    // Width of the pair lists beyond the interaction radius, as a fraction of the narrowest
    // Verlet skin (neighbour_skin), in [0, 0.5] (NeighbourList::select_pairs): wider lists are
    // selected again less often, at the cost of entries beyond the support in the pair loops
    // and of Verlet rebuilds once a particle moved (skin - margin) / 2, not half the skin. It
    // changes results only in their rounding (the order of the sums' terms in the pair loops'
    // lanes).
    double pair_margin = 0.2;
    // Choose the thread count by timing steps with all allowed threads and with one
    // (parallel::ThreadTuner; single-rank runs). Never changes a result.
    bool tune_threads = true;
};

// A run that cannot continue (non-finite state, step below the floor). The particle set is
// left at the last good state.
class BlowUpError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Wall time spent in each phase of the integrator [s], cumulative.
struct PhaseTimes {
    double neighbours = 0.0;  // Verlet-list checks and rebuilds, pair-list selections
    // Wall density and stress extrapolation, in runs with halo copies; otherwise it runs in
    // the right-hand side's parallel region and counts there (walls_in_staging).
    double boundary = 0.0;
    double derivatives = 0.0; // right-hand side
    double updates = 0.0;     // stage updates, corrections and the error norm
};

struct StepReport {
    double dt = 0.0;       // accepted step [s]
    double error = 0.0;    // error norm / tolerance of the accepted step
    int rejected = 0;      // attempts rejected before this one
    bool yielding_any = false;
    // What the step adds to the energy budget's cumulative terms (energy_budget.hpp), with the
    // weights of the state's update: this rank's share (the bodies' work on rank 0).
    EnergyIncrement energy;
    // Dynamic particles integrated in the step, over the ranks, with physics.sleep
    // (sleep_regions.hpp); -1 without it (every dynamic particle).
    std::int64_t integrated_particles = -1;
};

class AdaptiveHeun {
public:
    explicit AdaptiveHeun(IntegratorOptions options) : opt_(options) {}

    // One accepted step no longer than dt_cap [s], starting at `time` [s], `step` counts
    // accepted steps (for error messages). Throws BlowUpError.
    StepReport step(ParticleSet& p, NeighbourList& nl, const MaterialTable& mt,
                    const PhysicsParameters& pp, double time, std::int64_t step, double dt_cap);

    // The step the controller proposes next [s] (before the Courant bound of the next state).
    double proposed_dt() const { return dt_next_; }
    void set_proposed_dt(double dt) { dt_next_ = dt; }  // restarts
    const IntegratorOptions& options() const { return opt_; }
    const PhaseTimes& phase_times() const { return times_; }
    const parallel::ThreadTuner& thread_tuner() const { return tuner_; }
    // The options for the next steps (Simulation passes its own before each step, so that a
    // change between steps takes effect and the run record states what ran): the step
    // control's at the next step, dt_initial only before the first, the skin and the pair
    // margin at the next neighbour-list build.
    void set_options(const IntegratorOptions& o) { opt_ = o; }
    // The Verlet skin of the last build over IntegratorOptions::neighbour_skin (1 at first).
    double skin_factor() const { return skin_factor_; }

    // Adaptive Verlet skin: a list that lasted fewer than kShortListLife evaluations (a rebuild
    // about every 20 steps or more often) is followed by one with a 1.25 x wider skin, up to
    // kMaxSkinFactor x neighbour_skin; one that lasted more than 4 x as long by a 1.25 x
    // narrower one, down to neighbour_skin. A build costs about twelve pair-list selections
    // and the rows grow with the skin: the wider skin pays where
    // builds are frequent (the paper-resolution collapse rebuilt every 8 steps at 0.15 h) and
    // would cost where they are rare (the brush sampler: every 120 steps).
    static constexpr int kShortListLife = 40;
    static constexpr double kMaxSkinFactor = 2.0;
    static double next_skin_factor(double factor, std::int64_t evaluations_lived);

    // The bodies of the run: particles of moving bodies are placed at each stage time, bodies
    // with a state of their own are advanced with the particles (body.hpp, Bodies), and rigid
    // ones touch other boundary bodies (contact.hpp, from the bodies' `materials`). Must
    // outlive the integrator; null (the default) means none.
    void set_bodies(std::vector<Body>* bodies, int dim, const std::vector<Material>& materials);
    // Place the moving bodies at time t [s] (a no-op without any); halo copies included.
    void place(ParticleSet& p, double t);

    // The domain decomposition (must outlive the integrator, and have distributed the
    // particles). Null: a serial run without MPI.
    void set_domain(parallel::Domain* domain) { domain_ = domain; }

    // Neighbours, halo copies and pair lists for the state at time t [s], and with halo copies
    // the boundary values (wall density and stress; otherwise the evaluation gives them,
    // walls_in_staging). When some particle moved more than half the skin (less the pair
    // margin) on any rank, the neighbour lists and halos are rebuilt; at a step boundary
    // (`step_start`) particles first migrate to the ranks that own them now. Collective under
    // MPI.
    void prepare(ParticleSet& p, NeighbourList& nl, const MaterialTable& mt,
                 const PhysicsParameters& pp, double t, bool step_start);
    // The particles' state was changed from outside the integrator (Simulation::particles):
    // what it keeps of sleeping particles and quiet walls between evaluations is taken anew.
    void particles_changed();
    // Loads on the kinematic and rigid bodies averaged over the last accepted step with the
    // weights of the velocity update (dt F is the impulse of the step); empty before the first
    // step or without such bodies.
    const std::vector<BodyLoad>& step_loads() const { return step_loads_; }
    // The accepted-step count (after the step) whose loads step_loads() holds; -1 for none.
    // Every step collects the loads of the kinematic and rigid bodies: the energy budget
    // takes their work at each stage.
    std::int64_t step_loads_step() const { return step_loads_step_; }

    // prepare, then the derivatives of the owned dynamic particles (and the loads on the
    // kinematic and rigid bodies, contact included, in out.loads).
    void evaluate(ParticleSet& p, NeighbourList& nl, const MaterialTable& mt,
                  const PhysicsParameters& pp, double t, bool step_start, Derivatives& out);

private:
    // One accepted step, without the thread tuner (step).
    StepReport attempt_step(ParticleSet& p, NeighbourList& nl, const MaterialTable& mt,
                            const PhysicsParameters& pp, double time, std::int64_t step,
                            double dt_cap);
    LoadRequest load_request(double t) const;  // the kinematic and rigid bodies' loads at t
    // The right-hand side of the prepared state at time t (with the boundary values when
    // walls_in_staging), and the contact loads; returns the step the contacts allow [s].
    double derivatives(ParticleSet& p, const NeighbourList& nl, const MaterialTable& mt,
                       const PhysicsParameters& pp, double t, Derivatives& out);
    // Whether the walls are extrapolated inside the pair loop's region (no halo copies) rather
    // than by prepare; and the accelerations of the walls' bodies, null for fixed walls only.
    bool walls_in_staging() const;
    const std::array<std::vector<double>, 3>* wall_acceleration(const ParticleSet& p) const;
    // The start-of-step state (the table's kStepState fields): sized for the owned particles,
    // saved for particles [first, last) (by the predictor, chunk by chunk), restored for all;
    // not of sleeping particles, which the step leaves as they are (integrated_kinds_).
    void size_start(ParticleSet& p);
    void save_start(const ParticleSet& p, std::size_t first, std::size_t last);
    void restore_start(ParticleSet& p);
    // The step-start copy of one of the particles' step-state arrays (save_start), null for
    // one the step does not save; start_of: its data, or the array's own for one the run
    // does not carry (z and the out-of-plane shears in 2D, which stay as they start).
    const std::vector<double>* saved(const std::vector<double>& array) const;
    const double* start_of(const std::vector<double>& array) const;
    // The integrated arrays for one stage, with their rates (stage_arrays_,
    // list_stage_arrays_of).
    void list_stage_arrays(ParticleSet& p, const MaterialTable& mt, bool final);
    // The stage updates: Heun's predictor and corrector, and SSP-RK3's second stage between
    // them (IntegratorOptions::scheme). The per-particle loops take the particles of the pair
    // loop's partition (NeighbourList).
    enum class Stage { predictor, second, corrector };
    double stage_update(ParticleSet& p, const MaterialTable& mt, const parallel::Partition& part,
                        double dt, Stage stage);
    // SSP-RK3's second stage from the predicted state and its rates (k3_), combined into k2_
    // (and the position rate, combine_rates); returns the bodies' combined power [W] from
    // their powers at the three stages.
    double ssp_rk3_stage(ParticleSet& p, NeighbourList& nl, const MaterialTable& mt,
                         const PhysicsParameters& pp, double time, double dt, double power_1,
                         double power_2);
    void combine_rates(ParticleSet& p, const parallel::Partition& part, double dt);
    // Gives `next` the staged pair-loop records of whichever of k1_, k2_ and k3_ holds them.
    void take_staging(Derivatives& next);
    struct StartState;  // pointers to the step start of what correction_work reads
    void correction_losses(ParticleSet& p, const MaterialTable& mt, const StartState& start,
                           const ParticleKind* kind, const std::uint8_t* corrected,
                           std::size_t first, std::size_t last, double dt);
    double correction_work(const Material& material, const std::vector<int>& columns,
                           const StartState& start, std::size_t a, double dt,
                           const SymTensor& sigma, const ParticleSet& p) const;
    // The accepted step's increment of the energy budget, this rank's share; `part`: the
    // owned particles' partition (NeighbourList::partition), whose threads sum it.
    EnergyIncrement energy_increment(const parallel::Partition& part, double dt, double power_1,
                                     double power_2) const;
    [[noreturn]] void blow_up(ParticleSet& p, double time, std::int64_t step, double dt,
                              const std::string& why);

    IntegratorOptions opt_;
    PhaseTimes times_;
    parallel::ThreadTuner tuner_;
    double dt_next_ = 0.0;
    double last_courant_ = 0.0;  // Courant limit of the last step [s] (0 before the first)
    // Adaptive Verlet skin (next_skin_factor): the factor of the present list, and the
    // right-hand sides evaluated since it was built (-1: no list built yet). Neither is
    // checkpointed: the skin never changes a result (IntegratorOptions::neighbour_skin).
    double skin_factor_ = 1.0;
    std::int64_t evaluations_since_build_ = -1;
    // Start-of-step state of every owned particle but the sleeping ones (boundary particles
    // included, they are cheap; a sleeping particle's entries are stale and never read: the
    // stage updates keep its state): start_[i] is the copy of the particles' array
    // step_arrays_[i], for every component a run carries of every kStepState field, in table
    // order (size_start).
    std::vector<std::vector<double>*> step_arrays_;
    std::vector<std::vector<double>> start_;
    bool start_saved_ = false;  // whether they hold this step's start (stage_update)
    std::vector<StageArray> stage_arrays_;
    // With physics.sleep, the kinds the stage updates see for the owned particles (sleeping
    // ones as boundary: not advanced), set at the step start; empty without it.
    std::vector<ParticleKind> integrated_kinds_;
    Derivatives k1_, k2_, k3_;  // k3_: SSP-RK3's third right-hand side
    std::vector<double> particle_error_;
    // Plastic work of each particle whose stress a correction changed in this step [J],
    // beyond the integrated dissipation rate, and whether the correction of a stage before the
    // corrector did.
    std::vector<double> correction_loss_;
    std::vector<std::uint8_t> corrected_before_;
    // Per owned particle: a wall last extrapolated with every neighbour asleep
    // (SleepingWalls, boundary.hpp); cleared with new pair lists and restored step starts.
    std::vector<std::uint8_t> quiet_walls_;
    // Whether the staged records that k1_, k2_ and k3_ take turns with (take_staging) are those of
    // the last evaluation, with no sleeping particle changed or moved to another index since
    // (StagedParticles::asleep_staged); cleared with a rebuild and a restored step start.
    bool records_current_ = false;
    SleepingWalls sleeping_walls(const ParticleSet& p, const MaterialTable& mt,
                                 const PhysicsParameters& pp);
    // With physics.sleep and no gradient pre-pass (which reads every dynamic particle's pair
    // list): per owned particle whether it sleeps, the rows that need no pair list
    // (NeighbourList::select_pairs); null otherwise.
    const std::uint8_t* idle_rows(const ParticleSet& p, const MaterialTable& mt,
                                  const PhysicsParameters& pp);
    std::vector<std::uint8_t> idle_rows_;
    Bodies bodies_;
    BodyContact contact_;
    parallel::Domain* domain_ = nullptr;
    std::array<std::vector<double>, 3> wall_acceleration_;  // of moving bodies' particles [m/s^2]
    std::vector<BodyLoad> step_loads_;
    std::int64_t step_loads_step_ = -1;
};

}  // namespace regosph
