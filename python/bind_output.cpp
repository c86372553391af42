// Bindings: what a run and a Simulation report. Particle fields are copies as NumPy arrays,
// SI units.
#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "bindings.hpp"
#include "convert.hpp"
#include "core/fields.hpp"
#include "io/run_lock.hpp"
#include "parallel/mpi_env.hpp"

namespace regosph::python {

void bind_output(py::module_& m) {
    py::class_<PhaseTimes>(m, "PhaseTimes",
                           "Wall seconds of the integrator's phases, cumulative. `boundary`: "
                           "the wall extrapolation of runs with MPI halo copies; in other runs "
                           "it runs inside the right-hand side and counts in `derivatives`.")
        .def_readonly("neighbours", &PhaseTimes::neighbours)
        .def_readonly("boundary", &PhaseTimes::boundary)
        .def_readonly("derivatives", &PhaseTimes::derivatives)
        .def_readonly("updates", &PhaseTimes::updates);
    py::class_<RunSummary>(m, "RunSummary")
        .def_readonly("phases", &RunSummary::phases)
        .def_readonly("steps", &RunSummary::steps)
        .def_readonly("rejected", &RunSummary::rejected)
        .def_readonly("wall_seconds", &RunSummary::wall_seconds)
        .def_readonly("total_wall_seconds", &RunSummary::total_wall_seconds)
        .def_readonly("particle_steps_per_second", &RunSummary::particle_steps_per_second)
        .def_readonly("neighbour_builds", &RunSummary::neighbour_builds)
        .def_readonly("pair_selections", &RunSummary::pair_selections)
        .def_readonly("steps_all_threads", &RunSummary::steps_all_threads,
                      "steps the thread tuner ran with all allowed threads (cumulative; 0 "
                      "when it did not choose)")
        .def_readonly("steps_one_thread", &RunSummary::steps_one_thread,
                      "steps the thread tuner ran with one thread (cumulative)")
        .def_readonly("snapshots", &RunSummary::snapshots)
        .def_readonly("interrupted_by", &RunSummary::interrupted_by)
        .def_readonly("last_checkpoint", &RunSummary::last_checkpoint)
        .def("__repr__", [](const RunSummary& r) {
            std::ostringstream s;
            s << "RunSummary(steps=" << r.steps << ", rejected=" << r.rejected
              << ", wall_seconds=" << r.wall_seconds << ", particle_steps_per_second="
              << r.particle_steps_per_second << ", snapshots=" << r.snapshots
              << ", interrupted_by=" << r.interrupted_by << ", last_checkpoint='"
              << r.last_checkpoint << "')";
            return s.str();
        });
    py::class_<StepReport>(m, "StepReport")
        .def_readonly("dt", &StepReport::dt)
        .def_readonly("error", &StepReport::error)
        .def_readonly("rejected", &StepReport::rejected)
        .def_readonly("integrated_particles", &StepReport::integrated_particles,
                      "Dynamic particles integrated in the step with physics.sleep (awake), "
                      "over the ranks; -1 without it.");
    py::class_<Diagnostics>(m, "Diagnostics")
        .def_readonly("mass", &Diagnostics::mass)
        .def_readonly("kinetic_energy", &Diagnostics::kinetic_energy)
        .def_readonly("momentum", &Diagnostics::momentum)
        .def_readonly("max_speed", &Diagnostics::max_speed)
        .def_readonly("yielding", &Diagnostics::yielding)
        .def_readonly("dynamic_particles", &Diagnostics::dynamic_particles)
        // The energy budget (docs/guide/output.md, "Energy budget"), [J] (2D: [J/m]).
        .def_readonly("potential_energy", &Diagnostics::potential_energy)
        .def_readonly("strain_energy", &Diagnostics::strain_energy)
        .def_readonly("plastic_dissipation", &Diagnostics::plastic_dissipation)
        .def_readonly("viscous_dissipation", &Diagnostics::viscous_dissipation)
        .def_readonly("wall_dissipation", &Diagnostics::wall_dissipation)
        .def_readonly("artificial_stress_dissipation", &Diagnostics::artificial_stress_dissipation)
        .def_readonly("riemann_dissipation", &Diagnostics::riemann_dissipation)
        .def_readonly("body_work", &Diagnostics::body_work)
        .def_readonly("energy_residual", &Diagnostics::energy_residual);
    m.def(
        "run_lock_holder",
        [](const std::string& dir) { return io::RunLock::holder(dir); }, py::arg("run_dir"),
        "Who holds the lock of run_dir now (\"process <pid> on host '<host>' (started ...)\"), "
        "or None when no live run on this host holds it (src/io/run_lock.hpp).");
}

namespace {

// The rigid bodies' states and loads, for Simulation.bodies_state.
py::dict rigid_bodies_state(Simulation& s) {
    py::dict out;
    const auto reports = s.rigid_body_reports();
    const int dim = s.dim();
    for (std::size_t k = 0; k < reports.size(); ++k) {
        if (!reports[k]) continue;
        const RigidBodyReport& r = *reports[k];
        py::dict d;
        d["centre"] = r.state.centre;
        if (dim == 2)
            d["angle"] = r.angle;
        else
            d["orientation"] = r.state.orientation;
        d["velocity"] = r.state.velocity;
        d["angular_velocity"] = r.angular_velocity;
        d["angular_momentum"] = r.state.angular_momentum;
        d["force"] = r.regolith.force;
        d["torque"] = r.regolith.torque;
        d["applied_force"] = r.applied_force;
        d["applied_torque"] = r.applied_torque;
        d["contact_force"] = r.regolith.contact_force;
        d["contact_torque"] = r.regolith.contact_torque;
        d["mass"] = rigid_body(s.bodies()[k])->mass;
        out[py::str(s.bodies()[k].name)] = d;
    }
    return out;
}

void bind_readings(py::class_<Simulation>& sim) {
    sim.def(
           "observe",
           [](const Simulation& s) {
               py::dict out;
               const auto readings = s.observe();
               for (std::size_t k = 0; k < readings.size(); ++k)
                   out[py::str(s.observers()[k].name)] =
                       py::make_tuple(readings[k].count, readings[k].mass);
               return out;
           },
           "{observer: (count, mass [kg, 2D: kg/m])} at the current state.")
        .def(
            "body_loads",
            [](Simulation& s) {
                py::dict out;
                const auto loads = s.body_loads();
                for (std::size_t k = 0; k < loads.size(); ++k) {
                    if (!collects_loads(s.bodies()[k])) continue;
                    py::dict d;
                    d["force"] = loads[k].force;
                    d["torque"] = loads[k].torque;
                    out[py::str(s.bodies()[k].name)] = d;
                }
                return out;
            },
            "{kinematic body: {'force': [N] (2D: N/m), 'torque': about its pivot [N m] (2D: "
            "N m/m)}} exerted by the dynamic particles at the current state.")
        .def(
            "bodies_state",
            &rigid_bodies_state,
            "{rigid body: {'centre' [m], 'angle' [rad] (2D) or 'orientation' (unit quaternion w, "
            "x, y, z; 3D), 'velocity' [m/s], 'angular_velocity' [rad/s], 'angular_momentum' "
            "[kg m^2/s] (world frame), 'force'/'torque' of the regolith over the last step [N, "
            "N m about the centre; 2D per metre], 'applied_force'/'applied_torque', "
            "'contact_force'/'contact_torque' of other bodies (docs/guide/tools.md, 'Contact between bodies'), "
            "'mass'}}.")
        .def("diagnostics", &Simulation::diagnostics)
        .def(
            "parallel_statistics",
            [](const Simulation& s) {
                const parallel::DomainStatistics& d = s.domain_statistics();
                py::dict out;
                out["rank"] = mpi::rank();
                out["ranks"] = mpi::size();
                out["owned_particles"] = s.particles().owned();
                out["bytes_sent"] = d.bytes_sent;
                out["halo_bytes_sent"] = d.halo_bytes_sent;
                out["halo_updates"] = d.halo_updates;
                out["halo_builds"] = d.halo_builds;
                out["migrations"] = d.migrations;
                out["particles_migrated"] = d.particles_migrated;
                out["rebalances"] = d.rebalances;
                out["halo_particles"] = d.halo_particles;
                out["halo_partners"] = d.halo_partners;
                out["pair_entries"] = s.neighbours().pair_list_entries();
                out["wall_entries"] = s.neighbours().wall_entries();
                out["neighbour_skin"] = s.neighbours().skin();
                out["collective_calls"] = mpi::collective_calls();
                return out;
            },
            "This rank's decomposition counters (cumulative): owned particles, bytes sent in "
            "halo exchanges and migrations, halo builds and updates, rebalances, collective "
            "calls (reductions and gathers of the process); and the pair-list entries of its "
            "owned dynamic particles, the wall rows' entries and the Verlet skin [m] of the last "
            "list build (its work; the halo reaches the largest support radius + the skin).");
}

// The run's description and its right-hand side now.
void bind_inspection(py::class_<Simulation>& sim) {
    sim.def("describe", [](const Simulation& s) { return s.describe(RunOptions{}); })
        .def("derivatives", [](Simulation& s) {
            const Derivatives& d = s.evaluate_derivatives();
            py::dict out;
            out["acceleration"] = stack(d.dv, s.dim());
            out["density_rate"] = copy_vector(d.drho);
            out["stress_rate"] = stack(d.dstress, kSymComponents);
            out["dt_limit"] = copy_vector(d.dt_limit);
            py::dict history;  // the rate of each history variable, by name
            const std::vector<std::string> names = s.particles().history.names();
            for (std::size_t k = 0; k < names.size() && k < d.dhistory.size(); ++k)
                history[py::str(names[k])] = copy_vector(d.dhistory[k]);
            out["history_rate"] = history;
            return out;
        }, "Right-hand side of the current state (neighbours and walls updated).");
}

// Columns of a field's NumPy array: a vector has dim, other fields all their components.
template <class A>
int columns(int dim) {
    return kComponents<A> == 3 ? dim : static_cast<int>(kComponents<A>);
}

// One NumPy property per field of the table (core/fields.hpp) marked kPython or kPythonSettable:
// (N,) for a scalar, (N, columns) for several components; enums as their underlying integers.
void bind_particle_fields(py::class_<Simulation>& sim) {
    for_each_field_entry([&](const auto& field) {
        const FieldInfo& f = field.info;
        if (!(f.use & (kPython | kPythonSettable))) return;
        const auto member = field.member;
        using A = std::remove_cvref_t<decltype(std::declval<ParticleSet&>().*member)>;
        using T = FieldElement<A>;
        std::string doc = std::string(f.description) + " [" + f.units + "]";
        if (f.plane_strain_units) doc += std::string(" (2D: [") + f.plane_strain_units + "])";
        if constexpr (kComponents<A> == kSymComponents) doc += ", columns xx yy zz xy xz yz";
        if (f.extra_attribute) doc += std::string(", ") + f.extra_attribute + ": " + f.extra_value;
        const auto get = [member](const Simulation& s) -> py::object {
            const A& a = s.particles().*member;
            if constexpr (kComponents<A> > 1) {
                return stack(a, columns<A>(s.dim()));
            } else if constexpr (std::is_enum_v<T>) {
                std::vector<std::underlying_type_t<T>> values(a.size());
                for (std::size_t i = 0; i < a.size(); ++i) values[i] = static_cast<std::underlying_type_t<T>>(a[i]);
                return copy_vector(values);
            } else {
                return copy_vector(a);
            }
        };
        if constexpr (kComponents<A> > 1 && std::is_same_v<T, double>) {
            if (f.use & kPythonSettable) {
                const std::string name = f.property_name();
                sim.def_property(
                    f.property_name(), get,
                    [member, name](Simulation& s, DoubleArray values) {
                        unstack(s.particles().*member, columns<A>(s.dim()), values, name);
                    },
                    doc.c_str());
                return;
            }
        }
        if constexpr (kComponents<A> == 1 && std::is_same_v<T, double>) {
            if (f.use & kPythonSettable) {  // e.g. the density of a prepared bed (regosph.bed)
                const std::string name = f.property_name();
                sim.def_property(
                    f.property_name(), get,
                    [member, name](Simulation& s, DoubleArray values) {
                        unstack_positive(s.particles().*member, values, name);
                    },
                    doc.c_str());
                return;
            }
        }
        if (f.use & kPythonSettable)
            throw std::logic_error(std::string("field '") + f.name +
                                   "': only double fields can be set from Python");
        sim.def_property_readonly(f.property_name(), get, doc.c_str());
    });
}

// "a, b, c"
std::string join(const std::vector<std::string>& names) {
    std::string out;
    for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
    return out;
}

// The constitutive models' history variables (core/history.hpp), which a run registers from
// its materials: by name.
void bind_history(py::class_<Simulation>& sim) {
    sim.def_property_readonly(
           "history_variables",
           [](const Simulation& s) { return s.particles().history.names(); },
           "Names of the constitutive models' history variables, each a field of its own in "
           "snapshots and checkpoints.")
        .def(
            "history",
            [](const Simulation& s, const std::string& name) {
                const HistoryColumns& h = s.particles().history;
                const int k = h.find(name);
                if (k < 0)
                    throw py::key_error("no history variable '" + name + "' (the run has: " +
                                        (h.size() ? join(h.names()) : std::string("none")) + ")");
                return copy_vector(h.values[static_cast<std::size_t>(k)]);
            },
            py::arg("name"), "Values of one history variable, one per particle (a copy).")
        .def(
            "set_history",
            [](Simulation& s, const std::string& name, const DoubleArray& values) {
                HistoryColumns& h = s.particles().history;
                const int k = h.find(name);
                if (k < 0)
                    throw py::key_error("no history variable '" + name + "' (the run has: " +
                                        (h.size() ? join(h.names()) : std::string("none")) + ")");
                std::vector<double>& column = h.values[static_cast<std::size_t>(k)];
                const auto n = static_cast<py::ssize_t>(column.size());
                if (values.ndim() != 1 || values.shape(0) != n)
                    throw py::value_error("history '" + name + "': expected an array of shape (" +
                                          std::to_string(n) + ",), got shape " + shape_text(values));
                for (py::ssize_t i = 0; i < n; ++i)
                    if (!std::isfinite(values.data()[i]))
                        throw py::value_error("history '" + name + "': entry " +
                                              std::to_string(i) + " is not finite");
                std::copy(values.data(), values.data() + n, column.begin());
            },
            py::arg("name"), py::arg("values"),
            "Sets one history variable of every particle (e.g. a prepared bed's distension, "
            "regosph.load_bed), one value per particle, before the run.");
}

}  // namespace

void bind_simulation_output(py::class_<Simulation>& sim) {
    bind_readings(sim);
    bind_inspection(sim);
    bind_particle_fields(sim);
    bind_history(sim);
}

}  // namespace regosph::python
