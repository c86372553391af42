// Bindings: the options and the Simulation's setup and control (bodies, observers, bounds,
// run, restart, single steps), and the kernel for tests and analysis.
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <algorithm>
#include <csignal>
#include <filesystem>

#include "bindings.hpp"
#include "convert.hpp"
#include "sph/kernel.hpp"

namespace regosph::python {

namespace {

void bind_interface_and_sleep(py::class_<PhysicsParameters>& physics);

// A True/False option of PhysicsParameters (to_flag: a TypeError naming it otherwise).
void def_flag(py::class_<PhysicsParameters>& physics, const char* field,
              bool PhysicsParameters::*member, const char* doc) {
    physics.def_property(
        field, [member](const PhysicsParameters& p) { return p.*member; },
        [member, error = "physics: " + std::string(field)](PhysicsParameters& p,
                                                            const py::object& on) {
            p.*member = to_flag(on, error);
        },
        doc);
}

// An option of PhysicsParameters chosen by name: `name` and `parse` convert (equations.hpp).
template <class Choice>
void def_choice(py::class_<PhysicsParameters>& physics, const char* field,
                Choice PhysicsParameters::*member, const char* (*name)(Choice),
                Choice (*parse)(const std::string&), const char* doc) {
    physics.def_property(
        field, [member, name](const PhysicsParameters& p) { return std::string(name(p.*member)); },
        [member, parse](PhysicsParameters& p, const std::string& value) { p.*member = parse(value); },
        doc);
}

void bind_options(py::module_& m) {
    py::class_<PhysicsParameters> physics(m, "PhysicsParameters");
    physics
        .def_property(
            "gravity", [](const PhysicsParameters& p) { return p.gravity; },
            [](PhysicsParameters& p, const py::object& g) { p.gravity = to_vec3(g, "physics: gravity"); },
            "Gravitational acceleration [m/s^2], 2 or 3 components.")
        .def_readwrite("av_alpha", &PhysicsParameters::av_alpha,
                       "alpha [-] of the Monaghan artificial viscosity, the term linear in the "
                       "sound speed (Schaefer 2017 eq. 35); >= 0, default 0.3.")
        .def_readwrite("av_beta", &PhysicsParameters::av_beta,
                       "beta [-] of the Monaghan artificial viscosity, the term quadratic in the "
                       "approach velocity (Schaefer 2017 eq. 35); >= 0, default 0.7.")
        .def_readwrite("av_epsilon", &PhysicsParameters::av_epsilon,
                       "eps_v [-] of Schaefer 2017 eq. 36: keeps the viscosity finite when two "
                       "particles meet (adds eps_v h^2 to r^2); > 0, default 0.01.")
        .def_readwrite("courant", &PhysicsParameters::courant,
                       "Courant number C [-]: dt <= C h / (c + |v| + 1.2 (alpha c + beta "
                       "max|nu|)); in (0, 1], default 0.3.");
    def_flag(physics, "av_balsara", &PhysicsParameters::av_balsara,
             "Balsara's (1995) switch on the artificial viscosity (True/False, default False): "
             "Pi_ab times (f_a + f_b)/2, f = |div v| / (|div v| + |curl v| + 1e-4 c/h), so that "
             "shear and rotation are not damped and compression is (docs/guide/physics.md).");
    def_flag(physics, "av_switch", &PhysicsParameters::av_switch,
             "Morris & Monaghan's (1997) switch on the artificial viscosity (True/False, default "
             "False): each particle's alpha / av_alpha, a history variable viscosity_switch in "
             "[0.1, 1], rises in compression and decays over h / (0.2 c) in smooth flow; Pi_ab "
             "times the pair's mean (docs/validation/collapse.md).");
    def_choice(physics, "dissipation", &PhysicsParameters::dissipation, &dissipation_name,
               &dissipation_from_name,
               "The pair dissipation (default 'monaghan'): 'monaghan', the artificial viscosity of "
               "av_alpha and av_beta, or 'riemann', the acoustic Riemann solver of Zhang, Hu & "
               "Adams (2017) with its dissipation limiter, which damps velocity jumps of approaching "
               "pairs quadratically below cbar / riemann_limiter, whatever the sound speed "
               "(docs/guide/physics.md; its work is the budget's riemann_dissipation).");
    physics.def_readwrite("riemann_limiter", &PhysicsParameters::riemann_limiter,
                       "eta [-] of the Riemann solver's limiter beta = min(eta max(jump, 0) / "
                       "cbar, 1); > 0, default 3 (Zhang et al. 2017).");
    physics.def_readwrite("riemann_limiter_floor", &PhysicsParameters::riemann_limiter_floor,
                       "beta_0 [-] of the limiter's floor, beta = max(beta_0, min(eta jump / "
                       "cbar, 1)), in [0, 1]; 0 (default) = off. Needs riemann_reconstruction: "
                       "it damps the particle-scale residual beyond the linear velocity field "
                       "linearly (docs/guide/physics.md).");
    def_choice(physics, "riemann_pairs", &PhysicsParameters::riemann_pairs, &riemann_pairs_name,
               &riemann_pairs_from_name,
               "The pairs the Riemann solver's limiter damps (default 'approaching', Zhang et al. "
               "2017's U_L - U_R > 0): 'separating' damps v_ab . x_ab > 0, the sign SPHinXsys's "
               "Lagrangian solvers pass (docs/validation/collapse.md).");
    physics.def_readwrite("density_diffusion", &PhysicsParameters::density_diffusion,
                       "delta [-] of the delta-SPH density diffusion (Molteni & Colagrossi "
                       "2009), 0 = off (default); with dissipation = 'riemann' only, between "
                       "particles of one material that can yield.");
    def_choice(physics, "riemann_stress_jump", &PhysicsParameters::riemann_stress_jump,
               &stress_jump_name, &stress_jump_from_name,
               "The Riemann solver's normal-stress jump: each pair's interface velocity moves "
               "by (P_a - P_b) / Zbar along the pair (P = -e . sigma . e, Zbar the mean "
               "acoustic impedance), for particles whose material can yield; with dissipation "
               "= 'riemann' only. 'none' (default); 'continuity': it enters the density rate "
               "(SPHinXsys's plastic continuum); 'continuity_and_strain_rate': the velocity "
               "gradient of the constitutive update too (docs/guide/physics.md).");
    physics.def_readwrite("riemann_reconstruction", &PhysicsParameters::riemann_reconstruction,
                          "True: the Riemann solver's velocity jump between each side's linear "
                          "reconstruction at the pair's midpoint (each particle's corrected "
                          "velocity gradient), so that a linear velocity field is not damped; "
                          "default False; with dissipation = 'riemann' only.");
    physics.def_readwrite("hourglass_control", &PhysicsParameters::hourglass_control,
                          "xi [-] of the hourglass control (a shear stiffness against the "
                          "relative motion the velocity gradient does not describe; Wu, Zhang & "
                          "Hu 2023 after SPHinXsys), 0 = off (default); with dissipation = "
                          "'riemann' only.");
    bind_interface_and_sleep(physics);
}

// The soil's interface with walls and bodies, and the sleeping regions.
void bind_interface_and_sleep(py::class_<PhysicsParameters>& physics) {
    def_choice(
        physics, "wall_contact", &PhysicsParameters::wall_contact, &wall_contact_name,
        +[](const std::string& name) { return wall_contact_from_name(name); },
        "The soil's contact with the walls, tools and bodies that do not set their own "
        "(add_body's contact): 'tension_cut' (default), a soil-wall pair whose normal stress "
        "is tensile beyond wall_adhesion carries no stress (and nothing at all while it opens), "
        "so the soil separates from the wall, and every other pair keeps its shear and "
        "compression; 'unilateral', a pair that opens "
        "while its normal stress is not compressive beyond wall_adhesion carries nothing; "
        "'bonded', every pair with a wall particle carries the stress extrapolated to the wall, "
        "tension included, as across a symmetry plane (docs/guide/physics.md).");
    physics
        .def_readwrite("wall_adhesion", &PhysicsParameters::wall_adhesion,
                       "The tensile normal stress [Pa] a soil-wall interface carries "
                       "with wall_contact = 'unilateral' or 'tension_cut' (for bodies that set no contact of "
                       "their own); >= 0, default 0.")
        .def_readwrite("sleep", &PhysicsParameters::sleep,
                       "Sleeping regions (default False): a dynamic particle whose pair list is "
                       "at rest within sleep_speed is not integrated (it stays as it is and acts "
                       "as a boundary for its awake partners) until a moving partner or a "
                       "kinematic or rigid body reaches its pair list; decided at step ends, "
                       "the same on any number of ranks; its state is the history variable "
                       "'sleep_state' (docs/guide/physics.md).")
        .def_readwrite("sleep_speed", &PhysicsParameters::sleep_speed,
                       "Speed tolerance v_s [m/s] of the sleeping regions: at rest means |v| <= "
                       "v_s, |dv/dt| <= c v_s / h and |dsigma/dt| <= rho c^2 v_s / h; > 0, "
                       "default 1e-3.");
}

// rs.IntegratorOptions (Simulation.integrator).
void bind_integrator_options(py::module_& m) {
    py::class_<IntegratorOptions>(m, "IntegratorOptions",
                                  "The time integrator's options (Simulation.integrator). A "
                                  "change between steps takes effect at the next step "
                                  "(dt_initial only before the first; neighbour_skin and "
                                  "pair_margin at the next neighbour-list build).")
        .def_property(
            "scheme",
            [](const IntegratorOptions& o) { return std::string(time_scheme_name(o.scheme)); },
            [](IntegratorOptions& o, const std::string& name) {
                o.scheme = time_scheme_from_name(name);
            },
            "The time-stepping method (default 'heun'): 'heun', Heun's second-order method "
            "(SPEC.md section 5, two right-hand sides per step), or 'ssp_rk3', the third-order "
            "strong-stability-preserving Runge-Kutta method of Shu & Osher (1988, three per "
            "step), which does not amplify undamped oscillations as Heun's does: the Riemann "
            "solver's dissipation keeps a bed at rest only with it (docs/guide/physics.md). "
            "Both with an embedded Euler error estimate and the same step control.")
        .def_readwrite("tolerance", &IntegratorOptions::tolerance,
                       "Local error tolerance [-] of the step control: a step is rejected when "
                       "the largest |dx|/h, |dv| dt/h or |drho|/rho between the second- and the "
                       "first-order solution exceeds it; > 0, default 1e-4.")
        .def_readwrite("dt_initial", &IntegratorOptions::dt_initial,
                       "First time step [s]; 0 (default) starts at the Courant limit.")
        .def_readwrite("dt_min", &IntegratorOptions::dt_min,
                       "Smallest time step [s]: a step below it stops the run as a blow-up "
                       "(BlowUpError); > 0, default 1e-10.")
        .def_readwrite("dt_max", &IntegratorOptions::dt_max,
                       "Largest time step [s]; >= dt_min, default 1e-2.")
        .def_readwrite("neighbour_skin", &IntegratorOptions::neighbour_skin,
                       "Narrowest Verlet skin [-] as a fraction of the largest h: neighbour "
                       "lists (and MPI halos) are rebuilt when a particle has moved half of the "
                       "skin (less the pair margin). Where lists live fewer than 40 evaluations "
                       "the skin widens 1.25 x per rebuild, up to 2 x, and narrows back where "
                       "they live long; results never depend on it. Default 0.15.")
        .def_readwrite("pair_margin", &IntegratorOptions::pair_margin,
                       "Width of the pair lists beyond the interaction radius [-] as a fraction "
                       "of the narrowest Verlet skin (neighbour_skin), in [0, 0.5]: the lists "
                       "are selected again when a particle has moved half of it. Changes "
                       "results only in their rounding; default 0.2.")
        .def_readwrite("tune_threads", &IntegratorOptions::tune_threads,
                       "Choose the OpenMP thread count by timing windows of steps with one "
                       "thread and with all allowed threads (OMP_NUM_THREADS), keeping the "
                       "faster; the second window stops early when clearly slower "
                       "(single-rank runs; results never depend on it); default True. False: "
                       "always all allowed threads (benchmarks of a fixed count).");
}

// The rigid-body arguments of add_body as a RigidSpec: for motion "rigid", or wherever one of
// them is given (Simulation::add_body then refuses them for another motion, naming it).
std::optional<geometry::RigidSpec> rigid_spec(
    const std::string& motion, std::optional<double> mass, const py::object& centre,
    const py::object& inertia, const py::object& angular_velocity, const py::object& force,
    const py::object& torque, const std::string& force_frame, const std::string& torque_frame,
    const py::object& fixed_dofs, const std::string& where) {
    const bool rigid_args = mass || !centre.is_none() || !inertia.is_none() ||
                            !angular_velocity.is_none() || !force.is_none() ||
                            !torque.is_none() || !fixed_dofs.is_none();
    if (motion == RigidMotion::kName || rigid_args) {
        geometry::RigidSpec r;
        r.mass = mass;
        if (!centre.is_none()) r.centre = to_vec3(centre, where + "centre");
        if (!inertia.is_none()) r.inertia = to_inertia(inertia, where + "inertia");
        if (!angular_velocity.is_none())
            r.angular_velocity = py::isinstance<py::sequence>(angular_velocity)
                                     ? to_vec3(angular_velocity, where + "angular_velocity")
                                     : geometry::Vec3{0.0, 0.0, angular_velocity.cast<double>()};
        r.force = to_schedule(force, false, where + "force");
        r.torque = to_schedule(torque, true, where + "torque");
        r.force_in_body_frame = geometry::parse_frame(force_frame, where + "force_frame");
        r.torque_in_body_frame = geometry::parse_frame(torque_frame, where + "torque_frame");
        if (!fixed_dofs.is_none())
            r.fixed_dofs = fixed_dofs.cast<std::vector<std::string>>();
        return r;
    }
    return std::nullopt;
}

// The contact and adhesion arguments of add_body as an InterfaceLaw, none when neither is
// given (the body then takes the run's default); refuses adhesion without a contact.
std::optional<InterfaceLaw> interface_arguments(const std::optional<std::string>& contact,
                                                std::optional<double> adhesion, bool boundary,
                                                const std::string& where) {
    if (!contact && !adhesion) return std::nullopt;
    if (!contact)
        throw std::invalid_argument(where + "adhesion goes with contact='unilateral' or "
                                    "'tension_cut'");
    const InterfaceLaw law{wall_contact_from_name(*contact, where + "contact"),
                           adhesion.value_or(0.0)};
    check_interface(boundary, law, where);
    return law;
}

// Simulation.add_body: a body from positions or from a Shape, its motion, rigid-body data,
// wall law and interface checked first, each error naming the body.
int add_body(Simulation& s, const std::string& name, const py::object& positions,
             const py::object& material, const std::string& motion, double spacing,
             double smoothing_length, const py::object& velocity,
             std::optional<geometry::Kinematics> kinematics, std::optional<double> mass,
             const py::object& centre, const py::object& inertia,
             const py::object& angular_velocity, const py::object& force, const py::object& torque,
             const std::string& force_frame, const std::string& torque_frame,
             const py::object& fixed_dofs, const py::object& wall_friction,
             const py::object& origin, std::optional<std::string> lattice,
             std::optional<std::string> contact, std::optional<double> adhesion) {
    const std::string where = "body '" + name + "': ";
    const bool boundary = boundary_motion(motion);  // refuses unknown names first
    const std::optional<geometry::RigidSpec> rigid =
        rigid_spec(motion, mass, centre, inertia, angular_velocity, force, torque,
                   force_frame, torque_frame, fixed_dofs, where);
    const double mu = to_wall_friction(wall_friction, where + "wall_friction");
    check_wall_friction(boundary, mu, where);
    const std::optional<InterfaceLaw> interface =
        interface_arguments(contact, adhesion, boundary, where);
    const int m = to_material_index(s, material, where + "material");
    const geometry::Point v = to_vec3(velocity, where + "velocity");
    int index = 0;
    if (py::isinstance<geometry::Shape>(positions)) {
        BodyFill fill{positions.cast<geometry::ShapePtr>(),
                      origin.is_none() ? geometry::Point{0, 0, 0}
                                       : to_vec3(origin, where + "origin"),
                      to_lattice(lattice)};
        index = s.add_filled_body(name, m, motion, fill, spacing, smoothing_length, v,
                                  kinematics, rigid);
    } else {
        if (!origin.is_none() || lattice)
            throw std::invalid_argument(where + "origin and lattice go with a shape, "
                                        "not with positions");
        index = s.add_body(name, m, motion,
                           to_points(positions.cast<DoubleArray>(), s.dim(),
                                     where + "positions"),
                           spacing, smoothing_length, v, kinematics, rigid);
    }
    if (mu >= 0.0) s.set_wall_friction(index, mu);
    if (interface) s.set_interface(index, *interface);
    return index;
}

void bind_setup(py::class_<Simulation>& sim) {
    sim.def(py::init<int>(), py::arg("dim"))
        .def_property_readonly("dim", &Simulation::dim)
        .def("add_material", &Simulation::add_material, py::arg("material"),
             "Add a material; returns its index.")
        .def("add_body", &add_body,
            py::arg("name"), py::arg("positions"), py::kw_only(), py::arg("material"),
            py::arg("motion"), py::arg("spacing"), py::arg("smoothing_length"),
            py::arg("velocity") = py::make_tuple(0.0, 0.0, 0.0),
            py::arg("kinematics") = py::none(), py::arg("mass") = py::none(),
            py::arg("centre") = py::none(), py::arg("inertia") = py::none(),
            py::arg("angular_velocity") = py::none(), py::arg("force") = py::none(),
            py::arg("torque") = py::none(), py::arg("force_frame") = "world",
            py::arg("torque_frame") = "world", py::arg("fixed_dofs") = py::none(),
            py::arg("wall_friction") = "no-slip", py::arg("origin") = py::none(),
            py::arg("lattice") = py::none(), py::arg("contact") = py::none(),
            py::arg("adhesion") = py::none(),
            "Add a body of particles at positions (N, dim) [m]; returns its index. positions may "
            "be a Shape instead: the body is then its lattice_fill(shape, spacing, origin, "
            "lattice=lattice), and under MPI each rank builds only its share of every body (the "
            "setup is split: sim.split_setup; the arrays hold this rank's particles), so that "
            "the setup's memory per rank falls as 1/ranks. material: the "
            "index add_material returned, or the added Material itself. motion: "
            "'dynamic' (deformable SPH body), 'fixed', 'kinematic' (then "
            "kinematics=Kinematics(...)) or 'rigid' (moved by the regolith; optional mass [kg, "
            "2D kg/m], centre [m], inertia [kg m^2], velocity [m/s], angular_velocity [rad/s], "
            "force [N] and torque [N m] as constants or [(t, value), ...] schedules in the "
            "'world' or 'body' frame, fixed_dofs from x, y, z, rx, ry, rz: prescribed by "
            "kinematics when given, else locked). wall_friction of a boundary body: 'no-slip' "
            "(default), 'free-slip' (symmetry planes) or a Coulomb coefficient mu_w >= 0. "
            "contact of a boundary body: 'tension_cut' (the soil separates from it where it pulls "
            "beyond adhesion [Pa], default 0; it keeps its shear and compression elsewhere), "
            "'unilateral' (a pair that opens without compression beyond adhesion carries "
            "nothing) or 'bonded' (every pair carries tension: a symmetry plane, a clamp); "
            "default: physics.wall_contact and "
            "wall_adhesion.");
}

// Observers, bounds, the physics and integrator options, and what a setup reads back.
void bind_setup_state(py::class_<Simulation>& sim) {
    sim.def(
            "add_observer",
            [](Simulation& s, const std::string& name, geometry::ShapePtr region,
               const py::object& material, std::optional<int> body) {
                const int m = material.is_none()
                                  ? -1
                                  : to_material_index(s, material, "observer '" + name + "': material");
                return s.add_observer(name, std::move(region), m, body.value_or(-1));
            },
            py::arg("name"), py::arg("region"), py::kw_only(), py::arg("material") = py::none(),
            py::arg("body") = py::none(),
            "Count dynamic particles (of `material`, an index or an added Material) inside "
            "`region`, which moves with `body` (an index) when that body is kinematic. Written "
            "to observers.csv/.h5 by run().")
        .def(
            "set_bounds",
            [](Simulation& s, const py::object& lo, const py::object& hi) {
                s.set_bounds(to_point(lo, s.dim(), "bounds: lo"), to_point(hi, s.dim(), "bounds: hi"));
            },
            py::arg("lo"), py::arg("hi"),
            "Optional bounding box [m], lo and hi as (x, y) in 2D or (x, y, z) in 3D: particles "
            "outside it are refused; a particle leaving it stops a run (BlowUpError).")
        .def_property(
            "physics", [](Simulation& s) -> PhysicsParameters& { return s.physics(); },
            [](Simulation& s, const PhysicsParameters& p) { s.physics() = p; },
            py::return_value_policy::reference_internal)
        .def_property(
            "integrator", [](Simulation& s) -> IntegratorOptions& { return s.integrator_options(); },
            [](Simulation& s, const IntegratorOptions& o) { s.integrator_options() = o; },
            py::return_value_policy::reference_internal)
        .def_property_readonly("time", &Simulation::time)
        .def_property_readonly("step", &Simulation::step_count)
        .def_property_readonly("split_setup", &Simulation::split_setup,
                               "True when each MPI rank holds only its share of the setup (a "
                               "body was given as a Shape under MPI).")
        .def_property_readonly("size", [](const Simulation& s) { return s.particles().size(); })
        .def_property_readonly("materials", &Simulation::materials)
        .def_property_readonly("body_names", [](const Simulation& s) {
            std::vector<std::string> n;
            for (const auto& b : s.bodies()) n.push_back(b.name);
            return n;
        });
}

// Wall minutes between the checkpoints of a run with an output directory, unless the script sets
// checkpoint_interval: at most this much computing is lost when a run is killed (SIGKILL, a
// crash of the machine); run_control's --checkpoint-minutes has the same default.
constexpr double kDefaultCheckpointMinutes = 10.0;

// Ctrl-C in a script: the checkpoint is written; KeyboardInterrupt stops the script (a loop
// over cases does not go on to the next one) and says where the run can be continued from.
[[noreturn]] void raise_keyboard_interrupt(const RunSummary& summary) {
    const std::string where = summary.last_checkpoint.empty()
                                  ? "no output directory, nothing saved"
                                  : "checkpoint " + summary.last_checkpoint +
                                        " (continue with Simulation.restart)";
    PyErr_SetString(PyExc_KeyboardInterrupt, ("run interrupted by Ctrl-C; " + where).c_str());
    throw py::error_already_set();
}

// The snapshot file restart(run_dir, snapshot=...) starts from: an index into the run's
// snapshot_*.h5 files in order (negative from the end) or a file name (in run_dir or a path).
std::string snapshot_path(const std::string& run_dir, const py::object& snapshot) {
    namespace fs = std::filesystem;
    if (py::isinstance<py::str>(snapshot)) {
        const fs::path name = snapshot.cast<std::string>();
        return (fs::exists(name) || name.is_absolute() ? name : fs::path(run_dir) / name).string();
    }
    if (!py::isinstance<py::int_>(snapshot))
        throw py::type_error("restart: snapshot must be an index (int) or a file name (str)");
    std::vector<fs::path> files;
    if (fs::is_directory(run_dir))
        for (const auto& e : fs::directory_iterator(run_dir)) {
            const std::string n = e.path().filename().string();
            if (n.rfind("snapshot_", 0) == 0 && e.path().extension() == ".h5") files.push_back(e.path());
        }
    std::sort(files.begin(), files.end());  // zero-padded indices sort in order
    const auto count = static_cast<long long>(files.size());
    const long long k = snapshot.cast<long long>();
    if (k >= count || k < -count)
        throw py::index_error("restart: snapshot " + std::to_string(k) + " out of range ('" +
                              run_dir + "' holds " + std::to_string(count) + " snapshots)");
    return files[static_cast<std::size_t>(k < 0 ? k + count : k)].string();
}

void bind_control(py::class_<Simulation>& sim) {
    sim.def(
           "run",
           [](Simulation& s, double end_time, const std::string& output_dir,
              double snapshot_interval, int diagnostics_every, double progress_interval,
              const py::object& metadata, bool overwrite, int checkpoint_every,
              std::optional<double> checkpoint_interval, bool checkpoint_on_signal,
              bool keyboard_interrupt, int observe_every,
              std::vector<std::string> allow_changes, bool take_over_lock) {
               RunOptions o;
               o.allow_changes = std::move(allow_changes);
               o.take_over_lock = take_over_lock;
               o.observe_every = observe_every;
               o.end_time = end_time;
               o.output_dir = output_dir;
               o.snapshot_interval = snapshot_interval;
               o.diagnostics_every = diagnostics_every;
               o.progress_interval = progress_interval;
               o.metadata = to_metadata(metadata);
               o.overwrite = overwrite;
               o.checkpoint_every = checkpoint_every;
               // A run with an output directory can always be continued: a checkpoint every
               // kDefaultCheckpointMinutes of wall time unless the script chose otherwise.
               o.checkpoint_interval = checkpoint_interval.value_or(
                   output_dir.empty() ? 0.0 : 60.0 * kDefaultCheckpointMinutes);
               o.checkpoint_on_signal = checkpoint_on_signal;
               RunSummary summary;
               {
                   py::gil_scoped_release release;
                   summary = s.run(o);
               }
               if (keyboard_interrupt && summary.interrupted_by == SIGINT)
                   raise_keyboard_interrupt(summary);
               return summary;
           },
           py::arg("end_time"), py::kw_only(), py::arg("output_dir") = std::string(),
           py::arg("snapshot_interval") = 0.0, py::arg("diagnostics_every") = 10,
           py::arg("progress_interval") = 5.0,
           py::arg("metadata") = py::dict(),
           py::arg("overwrite") = false, py::arg("checkpoint_every") = 0,
           py::arg("checkpoint_interval") = py::none(), py::arg("checkpoint_on_signal") = true,
           py::arg("keyboard_interrupt") = true,
           py::arg("observe_every") = 10,
           py::arg("allow_changes") = std::vector<std::string>{},
           py::arg("take_over_lock") = false,
           "Integrate to end_time [s]; writes snapshots, series.xdmf, diagnostics.csv and "
           "run.json to output_dir when given. Checkpoints every checkpoint_every steps and/or "
           "checkpoint_interval wall seconds (default with an output_dir: every 10 wall minutes; "
           "0: not by time), at the end, and on SIGTERM/SIGINT. After SIGTERM it returns early "
           "with interrupted_by set; after SIGINT (Ctrl-C) it raises KeyboardInterrupt, so "
           "that a script stops, unless keyboard_interrupt=False (drivers that handle "
           "interrupted_by themselves). Refuses a directory that holds a run unless overwrite, and one "
           "that another run is using (run.lock; take_over_lock takes over one left on another "
           "host). After restart(), or into the directory of this simulation's previous run, "
           "it continues that run: changed physics or setup fields are refused unless listed "
           "in allow_changes (run.json paths, e.g. 'physics.gravity_m_s2'). "
           "metadata: {str: str}, recorded in run.json and in every snapshot's attributes.")
        .def(
            "restart",
            [](Simulation& s, const std::string& run_dir, const py::object& snapshot) {
                std::vector<std::string> rejected;
                if (!snapshot.is_none()) {
                    const std::string file = snapshot_path(run_dir, snapshot);
                    s.start_from_snapshot(file);
                    return py::make_tuple(file, rejected);
                }
                std::string file = s.restart(run_dir, &rejected);
                return py::make_tuple(file, rejected);
            },
            py::arg("run_dir"), py::kw_only(), py::arg("snapshot") = py::none(),
            "Continue from the newest valid checkpoint in run_dir; returns (file, rejected). "
            "Call run(end_time, output_dir=run_dir, ...) next. With snapshot (an index into "
            "the run's snapshots, -1 the last, or a file name): start from that snapshot "
            "instead, for a run without a usable checkpoint; not bit-identical to the "
            "original run, refused with rigid bodies; run() then writes to a new output_dir.");
}

// Stepping without run()'s output: advance and the kinetic-damping relaxation.
void bind_stepping(py::class_<Simulation>& sim) {
    sim.def("advance", &Simulation::advance, py::arg("dt_cap"),
             py::call_guard<py::gil_scoped_release>(), "One accepted step of at most dt_cap [s].")
        .def(
            "relax_with_kinetic_damping",
            [](Simulation& s, double energy_tolerance, std::int64_t max_steps, double dt_cap,
               double progress_interval) {
                RelaxationReport r;
                {
                    py::gil_scoped_release release;
                    r = s.relax_with_kinetic_damping(energy_tolerance, max_steps, dt_cap,
                                                     progress_interval);
                }
                using namespace pybind11::literals;
                return py::dict("steps"_a = r.steps, "resets"_a = r.resets,
                                "last_peak_energy"_a = r.last_peak_energy, "time"_a = r.time,
                                "particle_steps"_a = r.particle_steps, "wakes"_a = r.wakes);
            },
            py::arg("energy_tolerance"), py::arg("max_steps"), py::arg("dt_cap") = 1.0,
            py::arg("progress_interval") = 0.0,
            "Cundall's kinetic damping in the core (regosph.bed): steps of at most dt_cap [s]; "
            "every velocity set to zero at each peak of the dynamic particles' kinetic energy; "
            "stops at the first peak below energy_tolerance [J, 2D J/m] (RuntimeError after "
            "max_steps); with physics.sleep, a step in which every dynamic particle slept wakes them "
            "all (wakes counts them). A progress line every progress_interval wall seconds (0: "
            "never). Returns steps, resets, last_peak_energy, time [s], particle_steps (the "
            "dynamic particles integrated, awake ones only with physics.sleep) and wakes.");
}

// Names that were renamed: scripts written for the old name are told the new one instead of a
// bare AttributeError.
void bind_renamed(py::class_<Simulation>& sim) {
    sim.def(
        "set_domain",
        [](const Simulation&, const py::args&, const py::kwargs&) {
            throw py::attribute_error(
                "Simulation.set_domain was renamed set_bounds(lo, hi): the optional bounding box "
                "[m], (x, y) in 2D or (x, y, z) in 3D. 'domain' now means only the MPI domain "
                "decomposition.");
        },
        "Removed: the optional bounding box is set with set_bounds(lo, hi).");
}

}  // namespace

py::class_<Simulation> bind_simulation(py::module_& m) {
    bind_options(m);
    bind_integrator_options(m);
    py::class_<Simulation> sim(m, "Simulation");
    bind_setup(sim);
    bind_setup_state(sim);
    bind_control(sim);
    bind_stepping(sim);
    bind_renamed(sim);
    m.def("kernel_value", [](double r, double h, int dim) {
        return dim == 2 ? kernel::value<2>(r, h) : kernel::value<3>(r, h);
    }, py::arg("r"), py::arg("h"), py::arg("dim"));
    return sim;
}

}  // namespace regosph::python
