// A regosph run: materials, bodies and their particles, the physics parameters, the
// integrator, and the run loop. What the loop writes is the Recorder's (recorder.hpp), the
// directory it writes into the RunDirectory's (io/run_directory.hpp).
// Setups (examples/, validation/) build one of these; the physics never knows which
// experiment it runs.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "io/run_directory.hpp"
#include "geometry/lattice.hpp"
#include "geometry/shapes.hpp"
#include "materials/material.hpp"
#include "parallel/domain.hpp"
#include "sph/body.hpp"
#include "sph/diagnostics.hpp"
#include "sph/equations.hpp"
#include "sph/integrator.hpp"
#include "sph/neighbours.hpp"
#include "sph/observers.hpp"
#include "sph/run_options.hpp"
#include "core/particles.hpp"

namespace regosph {

// A body given as the lattice points inside a shape (Simulation::add_body).
// What relax_with_kinetic_damping did: the steps, the velocity resets, the last peak of the
// kinetic energy [J, 2D J/m], the simulated time at its end [s] and the dynamic particles
// integrated (with physics.sleep, the awake ones of each step; else every one).
struct RelaxationReport {
    std::int64_t steps = 0;
    std::int64_t resets = 0;
    double last_peak_energy = 0.0;
    double time = 0.0;
    std::int64_t particle_steps = 0;
    std::int64_t wakes = 0;  // physics.sleep: steps after which every particle slept, all woken
};

struct BodyFill {
    geometry::ShapePtr shape;
    geometry::Point origin{0, 0, 0};  // of the lattice [m]
    geometry::Lattice lattice = geometry::Lattice::automatic;
};

class Simulation {
public:
    explicit Simulation(int dim);

    int dim() const { return particles_.dim; }

    // Validates and stores a material; returns its index.
    int add_material(const Material& m);

    // Adds a body whose particles sit at `positions` [m], each of volume spacing^dim, density
    // the material's reference density, support radius `smoothing_length` [m], moving as
    // `motion` ("dynamic", "fixed", "kinematic" or "rigid"; body.hpp) says, with initial
    // velocity `velocity` [m/s] (dynamic and rigid bodies). A kinematic body follows
    // `kinematics` from t = 0, `positions` being its configuration at t = 0. A rigid body
    // takes `rigid` (mass properties, applied loads, fixed_dofs; all optional), and
    // `kinematics` for its prescribed degrees of freedom. Returns the body index. Throws
    // std::invalid_argument naming the body and field on bad input (empty body, NaN
    // coordinates, non-positive spacing/h, kinematics given to a body that is not kinematic).
    int add_body(const std::string& name, int material, const std::string& motion,
                 const std::vector<geometry::Point>& positions, double spacing,
                 double smoothing_length, geometry::Point velocity = {0, 0, 0},
                 const std::optional<geometry::Kinematics>& kinematics = std::nullopt,
                 const std::optional<geometry::RigidSpec>& rigid = std::nullopt);

    // The same for a body that fills `fill.shape` with lattice points
    // (geometry::lattice_fill(shape, spacing, origin, lattice)). Under MPI this splits the
    // setup: each rank builds only its share of every body (parallel::setup_share: of the
    // bodies added so far, of this one and of those added later), so that a setup's memory per
    // rank falls as 1 / ranks, and the first run or step sends each particle to its owner. The
    // particle arrays a script reads before that hold this rank's share only. A kinematic or
    // rigid body is still filled whole on every rank first (its motion needs every position).
    int add_filled_body(const std::string& name, int material, const std::string& motion,
                        const BodyFill& fill, double spacing, double smoothing_length,
                        geometry::Point velocity = {0, 0, 0},
                        const std::optional<geometry::Kinematics>& kinematics = std::nullopt,
                        const std::optional<geometry::RigidSpec>& rigid = std::nullopt);
    // Whether each rank holds only its share of the setup (above).
    bool split_setup() const { return split_setup_; }

    // Friction of a boundary body's wall particles against the regolith: a Coulomb coefficient
    // mu_w >= 0 (0 is free-slip, e.g. a symmetry plane), or < 0 for no-slip (the default).
    // Throws std::invalid_argument naming the body for a dynamic body or a non-finite value.
    void set_wall_friction(int body, double mu);
    // The soil's contact with a boundary body's particles (InterfaceLaw): a symmetry plane is
    // 'bonded'; bodies that do not set one take physics.wall_contact and wall_adhesion. Throws
    // std::invalid_argument naming the body and field (check_interface).
    void set_interface(int body, const InterfaceLaw& law);

    // Adds an observer (observers.hpp); `material` and `body` are indices or -1. Its readings
    // go to observers.csv / observers.h5 every RunOptions::observe_every steps. Returns its
    // index. Throws std::invalid_argument naming the observer and field.
    int add_observer(const std::string& name, geometry::ShapePtr region, int material = -1,
                     int body = -1);
    const std::vector<Observer>& observers() const { return observers_; }
    std::vector<ObserverReading> observe() const;

    // Force and torque of the dynamic particles on every body at the current state (zero for
    // bodies that are not kinematic), from the pair loop (body_loads.hpp).
    std::vector<BodyLoad> body_loads();
    // The loads a diagnostics row records: those of the last step, averaged with the weights
    // of the velocity update (AdaptiveHeun::step_loads); before any step, body_loads().
    std::vector<BodyLoad> recorded_loads();
    // The state of every rigid body (an empty entry for the others), with the loads of
    // recorded_loads().
    std::vector<std::optional<RigidBodyReport>> rigid_body_reports();

    // Optional bounds [m]: a setup with particles outside them is refused, and a particle that
    // leaves them during a run stops it (BlowUpError).
    void set_bounds(const geometry::Point& lo, const geometry::Point& hi);

    PhysicsParameters& physics() { return physics_; }
    IntegratorOptions& integrator_options() { return integrator_options_; }
    // (Writable: the integrator then takes anew what it keeps between evaluations.)
    ParticleSet& particles() {
        if (integrator_) integrator_->particles_changed();
        return particles_;
    }
    const ParticleSet& particles() const { return particles_; }
    // The integrator of the run, null before the first step (its skin, thread tuner, timers).
    const AdaptiveHeun* integrator() const { return integrator_.get(); }
    const std::vector<Material>& materials() const { return materials_; }
    const std::vector<Body>& bodies() const { return bodies_; }
    double time() const { return time_; }
    std::int64_t step_count() const { return step_; }

    // Integrate to options.end_time. A run into the directory the previous run() of this
    // simulation wrote into, from where that one ended, continues it (unless
    // options.overwrite), like a restart: nothing of the first part is lost. Under MPI each rank keeps (and afterwards holds) only the
    // particles it owns. Throws std::invalid_argument on a bad setup before anything runs, BlowUpError when the run cannot continue (the particle set then holds
    // the last good state; snapshots already written stay intact).
    RunSummary run(const RunOptions& options);

    // Continue from the newest valid checkpoint in run_dir (a corrupt newest one is reported
    // and the previous one used). The setup must be the one that wrote it (same particles);
    // the next run() compares physics and setup with run.json (RunOptions::allow_changes).
    // Snapshots and diagnostics rows after the checkpoint are dropped, so that the continued
    // series has neither gaps nor duplicates. Returns the checkpoint file used; `rejected`
    // receives the checkpoints skipped as corrupt. Refused while a live run holds run_dir.
    std::string restart(const std::string& run_dir, std::vector<std::string>* rejected = nullptr);

    // Start a new run from a snapshot file of a run of this setup (same particles), at its time
    // and step: for a run that wrote no usable checkpoint. Not bit-identical to the run that
    // wrote it (the first step starts at the Courant limit; the energy budget's cumulative terms
    // are unknown); refused for setups with rigid bodies, whose state snapshots do not hold. The
    // next run() writes a new output directory.
    void start_from_snapshot(const std::string& file);

    // One accepted step no longer than dt_cap [s] (for tests and Python drivers).
    StepReport advance(double dt_cap);

    // Cundall's kinetic damping (a prepared bed, regosph.bed): steps of at most dt_cap [s];
    // when the kinetic energy of the dynamic particles has dropped below the previous step's,
    // that step was its peak and every velocity is set to zero; stops at the first peak below
    // energy_tolerance [J, 2D J/m], or throws std::runtime_error after max_steps. Prints a
    // progress line every progress_seconds of wall time (0: never; rank 0). With physics.sleep
    // a step in which every dynamic particle slept wakes them all. Collective.
    // (sleep_relaxation.cpp)
    RelaxationReport relax_with_kinetic_damping(double energy_tolerance, std::int64_t max_steps,
                                                double dt_cap, double progress_seconds);

    // Derivatives of the current state (for tests): neighbours and boundary values updated.
    const Derivatives& evaluate_derivatives();

    // The global quantities of the current state and the energy budget (energy_budget.hpp)
    // since the start of the run: what a row of diagnostics.csv holds. Collective under MPI.
    Diagnostics diagnostics() const;

    // Parameters, materials and bodies as JSON, written to run.json (reproducibility).
    std::string describe(const RunOptions& options) const;

    // Throws std::invalid_argument when the setup cannot run (no dynamic particles, ...).
    // Collective under MPI, like run, advance, restart, body_loads, observe and
    // evaluate_derivatives: every rank must call them, in the same order.
    void validate_setup() const;

    // MPI: the decomposition's counters on this rank (halo traffic, migrations).
    const parallel::DomainStatistics& domain_statistics() const { return decomposition_.statistics(); }
    // The neighbour and pair lists of the last build (their sizes are each rank's work).
    const NeighbourList& neighbours() const { return neighbours_; }

private:
    // Refuses a particle set read from `source` that another setup wrote.
    void check_same_particles(const ParticleSet& q, const std::string& source) const;
    void add_sleep_states();
    void add_hourglass_columns();
    void ensure_integrator();
    // After a public call: only owned particles stay visible (Python views the arrays).
    void release_halo() { particles_.drop_halo(); }
    // One integrator step of at most dt_cap [s], counted in the time, the step and the energy
    // account; the halo copies are dropped when it throws and kept otherwise.
    StepReport integrate_step(double dt_cap);
    // Calls its argument with every point of a body being added, one at a time.
    using PointSource =
        std::function<void(const std::function<void(const geometry::Point&)>&)>;
    Body make_body(const std::string& name, int material, const std::string& motion,
                   const std::vector<geometry::Point>& positions, double spacing,
                   double smoothing_length, geometry::Point velocity,
                   const std::optional<geometry::Kinematics>& kinematics,
                   const std::optional<geometry::RigidSpec>& rigid_spec) const;
    int append_body(Body body, const std::string& motion, geometry::Point velocity,
                    std::size_t total, parallel::Share share, const PointSource& points);
    // Under MPI: from now on each rank keeps only its share of every body (add_body).
    void begin_split_setup();
    // Removes from q (every particle of this setup) what is not this rank's share.
    void keep_shares(ParticleSet& q) const;
    // Runs a check of the setup; in a split setup, where each rank checks what it holds, every
    // rank throws the first rank's error.
    void agree(const std::function<void()>& check) const;
    void check_overlap(const std::string& name, double spacing, bool among_new,
                       const PointSource& points) const;
    std::ptrdiff_t first_outside_bounds() const;  // index of a particle outside, or -1
    // 2D: index of a particle with xz or yz stress (stress_components), or -1.
    std::ptrdiff_t first_out_of_plane_shear() const;
    // The blow-up report when a particle has left the bounds during a run, "" otherwise.
    // Collective under MPI when bounds are set.
    std::string left_bounds_report() const;
    // The directory of a run with output (locked until it is destroyed); `continued` tells
    // whether the run continues the one recorded there.
    std::optional<io::RunDirectory> open_run_directory(const RunOptions& o, bool& continued);
    // What a checkpoint of the current state holds besides the particles (collective).
    io::CheckpointState checkpoint_state() const;

    ParticleSet particles_;
    std::vector<Material> materials_;
    std::vector<Body> bodies_;
    std::vector<Observer> observers_;
    PhysicsParameters physics_;
    IntegratorOptions integrator_options_;
    std::unique_ptr<MaterialTable> table_;
    std::unique_ptr<AdaptiveHeun> integrator_;
    NeighbourList neighbours_;
    // Which rank owns which particle. Setups build the whole particle set on every rank, or
    // each rank its share (split_setup_); the first run (or advance) gives each rank its own
    // part.
    parallel::Domain decomposition_;
    bool split_setup_ = false;  // each rank holds only its share of the setup (add_body)
    Derivatives scratch_;
    double time_ = 0.0;
    std::int64_t step_ = 0;
    // The energy budget's cumulative terms: since the start of the run's series (a new run
    // resets them), this rank's share, carried by checkpoints.
    EnergyBudget energy_;
    std::optional<geometry::BoundingBox> bounds_;
    // Where the next run() continues: the directory and checkpoint of restart(), or the
    // directory the last run() wrote into, as long as the state is still where that run ended.
    std::string resumed_from_, resumed_checkpoint_;
    double resumed_dt_next_ = 0.0;
    // Wall seconds of the run's earlier segments (a restart's checkpoint, or the previous run()
    // that this one continues) [s].
    double wall_seconds_before_ = 0.0;
    std::string last_run_dir_;
    std::int64_t last_run_step_ = -1;
};

}  // namespace regosph
