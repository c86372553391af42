// Bindings of systems of particle-free spheres (geometry/body_system.hpp): BodySystem with its
// spheres, contact law, walls with friction, tides and integrator, integrate() with a record of the state, energies
// and H-bar^2, and the post-processing of the tidal three-body problem (Levine 2016).
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>
#include <string>

#include "bindings.hpp"
#include "convert.hpp"
#include "geometry/body_system.hpp"

namespace regosph::python {

namespace {

using geometry::BodySystem;
using geometry::SphereBody;

geometry::BodyIntegrator to_method(const std::string& name) {
    if (name == "verlet") return geometry::BodyIntegrator::verlet;
    if (name == "yoshida4") return geometry::BodyIntegrator::yoshida4;
    if (name == "dopri45") return geometry::BodyIntegrator::dopri45;
    throw std::invalid_argument("BodySystem.integrator: method: expected 'verlet', 'yoshida4' or 'dopri45', got '" +
                                name + "'");
}

// (samples, bodies, 3) array of one vector field of the recorded states.
template <class Field>
py::array_t<double> state_field(const std::vector<SphereBody>& states, std::size_t n_bodies, Field field) {
    const auto samples = static_cast<py::ssize_t>(states.size() / n_bodies);
    py::array_t<double> out({samples, static_cast<py::ssize_t>(n_bodies), py::ssize_t{3}});
    auto w = out.mutable_unchecked<3>();
    for (py::ssize_t s = 0; s < samples; ++s) {
        for (py::ssize_t i = 0; i < static_cast<py::ssize_t>(n_bodies); ++i) {
            const geometry::vec::V& v = field(states[static_cast<std::size_t>(s) * n_bodies + static_cast<std::size_t>(i)]);
            for (int k = 0; k < 3; ++k) w(s, i, k) = v[k];
        }
    }
    return out;
}

// The post-processing of one state: H-bar^2 (eq. 2.12) and the energy function (eq. 2.6), NaN
// without gravity or angular momentum; the configuration label for three bodies.
void derived_quantities(const std::vector<SphereBody>& b, double g, double contact_tolerance, double& h2,
                        double& energy_function, std::string& label) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const bool spinning = geometry::vec::norm(geometry::barycentric_angular_momentum(b)) > 0.0;
    h2 = g > 0.0 ? geometry::normalised_h2(b, g) : nan;
    energy_function = g > 0.0 && spinning ? geometry::energy_function_J(b, g) : nan;
    label = b.size() == 3 ? geometry::configuration_label(b, contact_tolerance) : "";
}

py::dict record_dict(const geometry::BodyRecord& rec, std::size_t n_bodies, double g, double contact_tolerance) {
    py::dict out;
    out["time"] = py::array_t<double>(static_cast<py::ssize_t>(rec.time_s.size()), rec.time_s.data());
    out["energy"] = py::array_t<double>(static_cast<py::ssize_t>(rec.energy_J.size()), rec.energy_J.data());
    out["dissipated"] = py::array_t<double>(static_cast<py::ssize_t>(rec.dissipated_J.size()), rec.dissipated_J.data());
    out["tidal_rate"] = py::array_t<double>(static_cast<py::ssize_t>(rec.tidal_rate_W.size()), rec.tidal_rate_W.data());
    py::array_t<double> h({static_cast<py::ssize_t>(rec.angular_momentum.size()), py::ssize_t{3}});
    auto hw = h.mutable_unchecked<2>();
    for (py::ssize_t s = 0; s < h.shape(0); ++s) {
        for (int k = 0; k < 3; ++k) hw(s, k) = rec.angular_momentum[static_cast<std::size_t>(s)][k];
    }
    out["angular_momentum"] = h;
    out["position"] = state_field(rec.states, n_bodies, [](const SphereBody& b) -> const auto& { return b.x_m; });
    out["velocity"] = state_field(rec.states, n_bodies, [](const SphereBody& b) -> const auto& { return b.v_m_s; });
    out["spin"] = state_field(rec.states, n_bodies, [](const SphereBody& b) -> const auto& { return b.omega_rad_s; });
    const std::size_t samples = rec.time_s.size();
    py::array_t<double> h2(static_cast<py::ssize_t>(samples)), ef(static_cast<py::ssize_t>(samples));
    py::list labels;
    for (std::size_t s = 0; s < samples; ++s) {
        const std::vector<SphereBody> b(rec.states.begin() + static_cast<std::ptrdiff_t>(s * n_bodies),
                                        rec.states.begin() + static_cast<std::ptrdiff_t>((s + 1) * n_bodies));
        std::string label;
        derived_quantities(b, g, contact_tolerance, h2.mutable_at(s), ef.mutable_at(s), label);
        labels.append(label);
    }
    out["h2"] = h2;
    out["energy_function"] = ef;
    out["label"] = labels;
    return out;
}

py::list impacts_list(const BodySystem& s) {
    py::list out;
    for (const geometry::ImpactEvent& e : s.impacts) {
        py::dict d;
        d["time"] = e.time_s;
        d["bodies"] = py::make_tuple(e.body_a, e.body_b);
        d["approach_speed"] = e.approach_speed_m_s;
        d["energy_lost"] = e.energy_lost_J;
        out.append(d);
    }
    return out;
}

void add_sphere(BodySystem& s, double radius, const py::object& density, const py::object& mass,
                const py::object& position, const py::object& velocity, const py::object& spin) {
    if (density.is_none() == mass.is_none())
        throw std::invalid_argument("BodySystem.add_sphere: give one of density [kg/m^3] or mass [kg]");
    SphereBody b;
    if (!density.is_none()) {
        b = geometry::make_sphere(radius, density.cast<double>());
    } else {
        b = geometry::make_sphere(radius, 1.0);
        b.mass_kg = mass.cast<double>();
        if (!(b.mass_kg > 0.0)) throw std::invalid_argument("BodySystem.add_sphere: mass must be > 0");
    }
    b.x_m = to_vec3(position, "BodySystem.add_sphere: position");
    b.v_m_s = to_vec3(velocity, "BodySystem.add_sphere: velocity");
    b.omega_rad_s = to_vec3(spin, "BodySystem.add_sphere: spin");
    s.bodies.push_back(b);
}

// (N, 3) array of one vector of every body, and its setter.
template <class Get>
py::array_t<double> body_vectors(const BodySystem& s, Get get) {
    py::array_t<double> out({static_cast<py::ssize_t>(s.bodies.size()), py::ssize_t{3}});
    auto w = out.mutable_unchecked<2>();
    for (std::size_t i = 0; i < s.bodies.size(); ++i) {
        for (int k = 0; k < 3; ++k) w(static_cast<py::ssize_t>(i), k) = get(s.bodies[i])[k];
    }
    return out;
}
template <class Get>
void set_body_vectors(BodySystem& s, const DoubleArray& a, const std::string& field, Get get) {
    if (a.ndim() != 2 || a.shape(0) != static_cast<py::ssize_t>(s.bodies.size()) || a.shape(1) != 3)
        throw std::invalid_argument("BodySystem." + field + ": expected an (N, 3) array for the " +
                                    std::to_string(s.bodies.size()) + " bodies, got " + shape_text(a));
    auto r = a.unchecked<2>();
    for (std::size_t i = 0; i < s.bodies.size(); ++i) {
        for (int k = 0; k < 3; ++k) get(s.bodies[i])[k] = r(static_cast<py::ssize_t>(i), k);
    }
}

// What a restart needs to continue bit for bit (a dict): time, the spheres' positions,
// velocities and spins, the walls' tangential springs, the dissipated energy and the step
// control. The impact log is not part of it (a restart's log starts anew).
py::dict system_state(const BodySystem& s) {
    py::dict d;
    d["time"] = s.time_s;
    d["position"] = body_vectors(s, [](const SphereBody& b) { return b.x_m; });
    d["velocity"] = body_vectors(s, [](const SphereBody& b) { return b.v_m_s; });
    d["spin"] = body_vectors(s, [](const SphereBody& b) { return b.omega_rad_s; });
    const auto springs = static_cast<py::ssize_t>(s.wall_history.size());
    py::array_t<double> spring({springs, py::ssize_t{3}});
    py::array_t<bool> sliding(springs);
    for (py::ssize_t i = 0; i < springs; ++i) {
        for (int k = 0; k < 3; ++k) spring.mutable_at(i, k) = s.wall_history[static_cast<std::size_t>(i)].spring_m[k];
        sliding.mutable_at(i) = s.wall_history[static_cast<std::size_t>(i)].sliding;
    }
    d["wall_spring"] = spring;
    d["wall_sliding"] = sliding;
    d["dissipated"] = s.dissipated_J;
    d["next_step"] = s.next_step_s;
    d["steps"] = s.steps;
    d["rejected_steps"] = s.rejected_steps;
    return d;
}

void restore_system_state(BodySystem& s, const py::dict& d) {
    for (const char* key : {"time", "position", "velocity", "spin", "wall_spring", "wall_sliding",
                            "dissipated", "next_step", "steps", "rejected_steps"}) {
        if (!d.contains(key)) throw std::invalid_argument(std::string("BodySystem.set_state: state has no '") + key + "'");
    }
    const auto spring = d["wall_spring"].cast<DoubleArray>();
    const auto sliding = d["wall_sliding"].cast<py::array_t<bool, py::array::c_style | py::array::forcecast>>();
    const std::size_t n = static_cast<std::size_t>(spring.ndim() == 2 ? spring.shape(0) : -1);
    if (spring.ndim() != 2 || spring.shape(1) != 3 || sliding.ndim() != 1 ||
        static_cast<std::size_t>(sliding.shape(0)) != n ||
        (n != 0 && n != s.bodies.size() * s.walls.size()))
        throw std::invalid_argument("BodySystem.set_state: wall_spring (" + shape_text(spring) +
                                    ") and wall_sliding must hold one spring per body and wall (" +
                                    std::to_string(s.bodies.size() * s.walls.size()) + ") or none");
    set_body_vectors(s, d["position"].cast<DoubleArray>(), "position", [](SphereBody& b) -> auto& { return b.x_m; });
    set_body_vectors(s, d["velocity"].cast<DoubleArray>(), "velocity", [](SphereBody& b) -> auto& { return b.v_m_s; });
    set_body_vectors(s, d["spin"].cast<DoubleArray>(), "spin", [](SphereBody& b) -> auto& { return b.omega_rad_s; });
    s.wall_history.assign(n, {});
    for (std::size_t i = 0; i < n; ++i) {
        for (int k = 0; k < 3; ++k) s.wall_history[i].spring_m[k] = spring.at(static_cast<py::ssize_t>(i), k);
        s.wall_history[i].sliding = sliding.at(static_cast<py::ssize_t>(i));
    }
    s.time_s = d["time"].cast<double>();
    s.dissipated_J = d["dissipated"].cast<double>();
    s.next_step_s = d["next_step"].cast<double>();
    s.steps = d["steps"].cast<long long>();
    s.rejected_steps = d["rejected_steps"].cast<long long>();
    s.impacts.clear();
}

void set_contact(BodySystem& s, const std::string& law, double stiffness, double youngs_modulus,
                 double poisson_ratio, double restitution) {
    if (law == "hooke") {
        if (!(stiffness > 0.0)) throw std::invalid_argument("BodySystem.contact: stiffness [N/m] must be > 0");
        s.law.law = geometry::NormalLaw::hooke;
    } else if (law == "hertz") {
        if (!(youngs_modulus > 0.0)) throw std::invalid_argument("BodySystem.contact: youngs_modulus [Pa] must be > 0");
        s.law.law = geometry::NormalLaw::hertz;
    } else {
        throw std::invalid_argument("BodySystem.contact: law: expected 'hooke' or 'hertz', got '" + law + "'");
    }
    geometry::damping_ratio(restitution);  // checks e in [0, 1]
    s.law.stiffness_N_m = stiffness;
    s.law.youngs_modulus_Pa = youngs_modulus;
    s.law.poisson_ratio = poisson_ratio;
    s.law.restitution = restitution;
}

void add_wall(BodySystem& s, const py::object& point, const py::object& normal) {
    geometry::PlaneWall w;
    w.point_m = to_vec3(point, "BodySystem.add_wall: point");
    const geometry::vec::V n = to_vec3(normal, "BodySystem.add_wall: normal");
    const double len = geometry::vec::norm(n);
    if (!(len > 0.0)) throw std::invalid_argument("BodySystem.add_wall: normal must be non-zero");
    w.normal = {n[0] / len, n[1] / len, n[2] / len};
    s.walls.push_back(w);
}

void set_friction(BodySystem& s, double tangential_stiffness, double mu_static, const py::object& mu_dynamic) {
    const double mu_d = mu_dynamic.is_none() ? mu_static : mu_dynamic.cast<double>();
    if (!(tangential_stiffness > 0.0))
        throw std::invalid_argument("BodySystem.friction: tangential_stiffness [N/m] must be > 0");
    if (!(mu_static >= 0.0 && mu_d >= 0.0 && mu_d <= mu_static))
        throw std::invalid_argument("BodySystem.friction: need 0 <= mu_dynamic <= mu_static");
    s.friction = {tangential_stiffness, mu_static, mu_d};
}

void set_tides(BodySystem& s, double love_number, double quality_factor) {
    if (!(love_number > 0.0 && quality_factor > 0.0))
        throw std::invalid_argument("BodySystem.tides: love_number and quality_factor must be > 0");
    s.tidal.clear();
    for (const SphereBody& b : s.bodies) {
        const double density = b.mass_kg / (4.0 / 3.0 * std::numbers::pi * b.radius_m * b.radius_m * b.radius_m);
        s.tidal.push_back({love_number, quality_factor, density, s.law.gravitational_constant});
    }
}

void set_integrator(BodySystem& s, const std::string& method, double dt, double relative_tolerance,
                    const py::object& impact_restitution, double impact_gap_tolerance) {
    if (!(dt > 0.0)) throw std::invalid_argument("BodySystem.integrator: dt [s] must be > 0");
    s.options.method = to_method(method);
    s.options.dt_s = dt;
    s.options.relative_tolerance = relative_tolerance;
    s.options.impact_restitution = impact_restitution.is_none() ? -1.0 : impact_restitution.cast<double>();
    if (!impact_restitution.is_none() && !(s.options.impact_restitution >= 0.0 && s.options.impact_restitution <= 1.0))
        throw std::invalid_argument("BodySystem.integrator: impact_restitution must be None or in [0, 1]");
    s.options.impact_gap_tolerance_m = impact_gap_tolerance;
    s.next_step_s = 0.0;
}

// The system's state as properties: time [s], energies [J], impacts, step counts, the bodies'
// masses [kg], positions [m], velocities [m/s] and spins [rad/s].
void bind_body_system_state(py::class_<BodySystem>& system) {
    system
        .def_property_readonly("time", [](const BodySystem& s) { return s.time_s; })
        .def_property_readonly("dissipated", [](const BodySystem& s) { return s.dissipated_J; })
        .def_property_readonly("energy", &geometry::body_system_energy_J)
        .def_property_readonly("impacts", &impacts_list)
        .def_property_readonly("steps", [](const BodySystem& s) { return s.steps; })
        .def_property_readonly("rejected_steps", [](const BodySystem& s) { return s.rejected_steps; })
        .def_property_readonly("masses", [](const BodySystem& s) {
            std::vector<double> out;
            for (const SphereBody& b : s.bodies) out.push_back(b.mass_kg);
            return out;
        })
        .def_property_readonly("gravitational_constant", [](const BodySystem& s) { return s.law.gravitational_constant; })
        .def_property("position", [](const BodySystem& s) { return body_vectors(s, [](const SphereBody& b) { return b.x_m; }); },
                      [](BodySystem& s, const DoubleArray& a) { set_body_vectors(s, a, "position", [](SphereBody& b) -> auto& { return b.x_m; }); })
        .def_property("velocity", [](const BodySystem& s) { return body_vectors(s, [](const SphereBody& b) { return b.v_m_s; }); },
                      [](BodySystem& s, const DoubleArray& a) { set_body_vectors(s, a, "velocity", [](SphereBody& b) -> auto& { return b.v_m_s; }); })
        .def_property("spin", [](const BodySystem& s) { return body_vectors(s, [](const SphereBody& b) { return b.omega_rad_s; }); },
                      [](BodySystem& s, const DoubleArray& a) { set_body_vectors(s, a, "spin", [](SphereBody& b) -> auto& { return b.omega_rad_s; }); });
}

}  // namespace

void bind_bodies(py::module_& m) {
    py::class_<BodySystem> system(m, "BodySystem",
                           "Rigid spheres without particles: mutual and uniform gravity, Hooke or Hertz contact, "
                           "plane walls with friction, planar tides (Levine 2016 eqs. 3.9, 3.18), impacts, long-run integrators. SI units.");
    system
        .def(py::init([](double g) {
                 if (!(g >= 0.0)) throw std::invalid_argument("BodySystem: gravitational_constant must be >= 0");
                 BodySystem s;
                 s.law.gravitational_constant = g;
                 return s;
             }),
             py::arg("gravitational_constant") = 6.674e-11)
        .def("add_sphere", &add_sphere, py::arg("radius"), py::arg("density") = py::none(),
             py::arg("mass") = py::none(), py::arg("position") = py::make_tuple(0.0, 0.0, 0.0),
             py::arg("velocity") = py::make_tuple(0.0, 0.0, 0.0), py::arg("spin") = py::make_tuple(0.0, 0.0, 0.0),
             "A sphere of radius [m] with density [kg/m^3] or mass [kg]; position [m], velocity "
             "[m/s], spin [rad/s].")
        .def("contact", &set_contact, py::arg("law") = "hooke", py::arg("stiffness") = 0.0,
             py::arg("youngs_modulus") = 0.0, py::arg("poisson_ratio") = 0.0, py::arg("restitution") = 1.0,
             "Normal contact: 'hooke' (stiffness [N/m]) or 'hertz' (youngs_modulus [Pa], poisson_ratio), "
             "viscous damping from the restitution e in [0, 1].")
        .def("add_wall", &add_wall, py::arg("point"), py::arg("normal"),
             "A fixed plane through point [m] with normal pointing to the side the spheres are on; its "
             "contacts take the contact law and the friction (integrator verlet only).")
        .def("friction", &set_friction, py::arg("tangential_stiffness"), py::arg("mu_static"),
             py::arg("mu_dynamic") = py::none(),
             "Cundall-Strack friction at the walls: tangential spring [N/m], static and dynamic Coulomb "
             "coefficients (mu_dynamic defaults to mu_static).")
        .def_property("uniform_gravity", [](const BodySystem& s) { return s.law.uniform_gravity_m_s2; },
                      [](BodySystem& s, const py::object& g) {
                          s.law.uniform_gravity_m_s2 = to_vec3(g, "BodySystem.uniform_gravity");
                      },
                      "Uniform gravitational acceleration [m/s^2] on every sphere.")
        .def("tides", &set_tides, py::arg("love_number") = 1e-5, py::arg("quality_factor") = 100.0,
             "Planar tides between every ordered pair (k2, Q of every body; density from its mass and radius). "
             "Call after adding the spheres.")
        .def("integrator", &set_integrator, py::arg("method") = "verlet", py::arg("dt") = 1.0,
             py::arg("relative_tolerance") = 1e-10, py::arg("impact_restitution") = py::none(),
             py::arg("impact_gap_tolerance") = 1e-6,
             "method 'verlet' | 'yoshida4' (fixed dt [s]) | 'dopri45' (first step dt, relative_tolerance); "
             "impact_restitution None (contact law only) or e in [0, 1]: an impulse when two spheres touch, "
             "located to impact_gap_tolerance [m].")
        .def("integrate",
             [](BodySystem& s, double t_end, double interval, double contact_tolerance) {
                 geometry::BodyRecord rec;
                 {
                     py::gil_scoped_release release;
                     rec = geometry::integrate_bodies(s, t_end, interval);
                 }
                 return record_dict(rec, s.bodies.size(), s.law.gravitational_constant, contact_tolerance);
             },
             py::arg("t_end"), py::arg("interval"), py::arg("contact_tolerance") = 1e-3,
             "Integrates to t_end [s]; returns the record every interval [s]: time, position, velocity, "
             "spin (samples, N, 3), energy [J] (kinetic, gravity, springs), dissipated [J], tidal_rate [W], "
             "angular_momentum (about the barycentre), h2, energy_function [J], label (three bodies; "
             "contacts closer than (R_i + R_j)(1 + contact_tolerance)).")
        .def("rescale", [](BodySystem& s, double l, double mass, double t) { geometry::rescale_body_system(s, l, mass, t); },
             py::arg("length"), py::arg("mass"), py::arg("time"),
             "Expresses the system in units of length, mass and time these multiples of the present ones.")
        .def("state", &system_state,
             "What a restart needs (a dict): time, position, velocity, spin, the walls' tangential "
             "springs (wall_spring, wall_sliding), dissipated, the step control.")
        .def("set_state", &restore_system_state, py::arg("state"),
             "Continues from state() of a system set up alike, bit for bit; the impact log starts anew.");
    bind_body_system_state(system);
    m.def("canonical_units",
          [](double length, double mass, double g) {
              const geometry::CanonicalUnits u = geometry::canonical_units(length, mass, g);
              return py::make_tuple(u.length_m, u.mass_kg, u.time_s);
          },
          py::arg("length"), py::arg("mass"), py::arg("gravitational_constant") = 6.674e-11,
          "(DU [m], MU [kg], TU [s]) with TU = sqrt(DU^3 / (G MU)), so that G = 1 (Levine sec. 4.3.1).");
    m.def("restitution_from_damping", &geometry::restitution_from_damping, py::arg("stiffness"), py::arg("damping"),
          py::arg("reduced_mass"),
          "Restitution e of a linear spring [N/m] and dashpot [N s/m] between bodies of reduced mass [kg].");
}

}  // namespace regosph::python
