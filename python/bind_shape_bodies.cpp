// pybind11 bindings of particle-free rigid bodies with true shapes (geometry/shape_system.hpp):
// ShapeSystem (spheres, ellipsoids and closed meshes with level-set contact, plane walls),
// its collision log, and polyhedron_mass_properties.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>
#include <sstream>
#include <stdexcept>
#include <string>

#include "bindings.hpp"
#include "convert.hpp"
#include "geometry/shape_system.hpp"

namespace regosph::python {

namespace {

using geometry::ShapeBody;
using geometry::ShapeSystem;
using IndexArray = py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>;

std::vector<geometry::Point> to_vertices3(const py::object& obj) {
    const DoubleArray v = DoubleArray::ensure(obj);
    if (!v || v.ndim() != 2 || v.shape(1) != 3) throw std::invalid_argument("vertices [m]: expected an (N, 3) array");
    std::vector<geometry::Point> out(static_cast<std::size_t>(v.shape(0)));
    const auto r = v.unchecked<2>();
    for (py::ssize_t i = 0; i < v.shape(0); ++i) out[i] = {r(i, 0), r(i, 1), r(i, 2)};
    return out;
}

std::vector<std::array<std::int64_t, 3>> to_triangles(const py::object& obj) {
    const auto kind = py::array::ensure(obj);
    if (kind && kind.dtype().kind() != 'i' && kind.dtype().kind() != 'u')
        throw std::invalid_argument("triangles: expected integer vertex indices");
    const IndexArray t = IndexArray::ensure(obj);
    if (!t || t.ndim() != 2 || t.shape(1) != 3) throw std::invalid_argument("triangles: expected an (N, 3) array");
    std::vector<std::array<std::int64_t, 3>> out(static_cast<std::size_t>(t.shape(0)));
    const auto r = t.unchecked<2>();
    for (py::ssize_t i = 0; i < t.shape(0); ++i) out[i] = {r(i, 0), r(i, 1), r(i, 2)};
    return out;
}

geometry::Quaternion to_quaternion(const py::object& obj) {
    const auto v = obj.cast<std::vector<double>>();
    if (v.size() != 4) throw std::invalid_argument("orientation: expected 4 numbers (w, x, y, z)");
    const double n = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2] + v[3] * v[3]);
    if (!(n > 0.0)) throw std::invalid_argument("orientation: the quaternion must not be zero");
    return {v[0] / n, v[1] / n, v[2] / n, v[3] / n};
}

// Places a made body in the system and returns its index.
int place(ShapeSystem& s, ShapeBody b, const py::object& position, const py::object& velocity,
          const py::object& orientation, const py::object& angular_velocity, bool fixed) {
    b.x_m = to_vec3(position, "position");
    b.v_m_s = to_vec3(velocity, "velocity");
    b.q = to_quaternion(orientation);
    b.fixed = fixed;
    if (fixed) b.v_m_s = {0.0, 0.0, 0.0};
    geometry::set_angular_velocity(b, fixed ? geometry::vec::V{} : to_vec3(angular_velocity, "angular_velocity"));
    s.bodies.push_back(std::move(b));
    return static_cast<int>(s.bodies.size()) - 1;
}

py::array_t<double> vec_array(const geometry::vec::V& v) { return py::array_t<double>(3, v.data()); }

py::dict kinematics_dict(const geometry::BodyKinematics& k) {
    py::dict d;
    d["velocity"] = vec_array(k.v_m_s);
    d["angular_velocity"] = vec_array(k.omega_rad_s);
    d["translational_energy"] = k.translational_J;
    d["rotational_energy"] = k.rotational_J;
    return d;
}

py::dict collision_dict(const geometry::CollisionRecord& c) {
    py::dict d;
    d["bodies"] = py::make_tuple(c.body_a, c.body_b);
    d["t_start"] = c.t_start_s;
    d["finished"] = c.finished;
    d["peak_force"] = c.peak_force_N;
    d["peak_nodes"] = c.peak_nodes;
    d["peak_depth"] = c.peak_depth_m;
    d["point"] = vec_array(c.point_m);
    d["normal"] = vec_array(c.normal);
    d["before"] = py::make_tuple(kinematics_dict(c.before_a), kinematics_dict(c.before_b));
    if (!c.finished) return d;
    const geometry::CollisionOutcome o = geometry::collision_outcome(c);
    using namespace pybind11::literals;
    d.attr("update")(py::dict("t_end"_a = c.t_end_s, "energy_ratio"_a = o.energy_ratio,
                              "normal_velocity_ratio"_a = o.normal_velocity_ratio,
                              "v_normal_before"_a = o.v_normal_before_m_s, "v_normal_after"_a = o.v_normal_after_m_s,
                              "duration"_a = o.duration_s,
                              "after"_a = py::make_tuple(kinematics_dict(c.after_a), kinematics_dict(c.after_b))));
    return d;
}

// Steps to t_end_s and returns the states every `every` steps (and the last one).
py::dict run(ShapeSystem& s, double t_end_s, double dt_s, int every) {
    if (!(dt_s > 0.0)) throw std::invalid_argument("dt: must be > 0");
    if (every < 1) throw std::invalid_argument("every: must be >= 1");
    const auto steps = static_cast<long>(std::ceil((t_end_s - s.time_s) / dt_s - 1e-9));
    const std::size_t n = s.bodies.size();
    std::vector<double> t, x, q, v, w;
    auto record = [&]() {
        t.push_back(s.time_s);
        for (const ShapeBody& b : s.bodies) {
            const auto omega = geometry::angular_velocity(b);
            for (int k = 0; k < 3; ++k) {
                x.push_back(b.x_m[k]);
                v.push_back(b.v_m_s[k]);
                w.push_back(omega[k]);
            }
            for (int k = 0; k < 4; ++k) q.push_back(b.q[k]);
        }
    };
    {
        py::gil_scoped_release release;
        record();
        for (long k = 1; k <= steps; ++k) {
            geometry::step(s, dt_s);
            if (k % every == 0 || k == steps) record();
        }
    }
    const auto rows = static_cast<py::ssize_t>(t.size());
    const auto nb = static_cast<py::ssize_t>(n);
    py::dict d;
    d["t"] = py::array_t<double>(rows, t.data());
    d["position"] = py::array_t<double>({rows, nb, py::ssize_t{3}}, x.data());
    d["orientation"] = py::array_t<double>({rows, nb, py::ssize_t{4}}, q.data());
    d["velocity"] = py::array_t<double>({rows, nb, py::ssize_t{3}}, v.data());
    d["angular_velocity"] = py::array_t<double>({rows, nb, py::ssize_t{3}}, w.data());
    return d;
}

// The shapes as Python objects: a mesh body's level-set grid is built once and shared by
// every system the body is added to.
void bind_body_factories(py::module_& m) {
    py::class_<ShapeBody>(m, "ShapeBody", "A rigid body's shape, surface nodes and mass properties; place it "
                                          "with ShapeSystem.add_body.")
        .def_property_readonly("mass", [](const ShapeBody& b) { return b.mass_kg; }, "[kg]")
        .def_property_readonly("inertia", [](const ShapeBody& b) { return py::array_t<double>({3, 3}, b.inertia_kg_m2.data()); },
                               "Body frame, about the centre of mass [kg m^2].")
        .def_property_readonly("nodes", [](const ShapeBody& b) { return b.shape.nodes.x_m.size(); })
        .def_property_readonly("bounding_radius", [](const ShapeBody& b) { return b.shape.bounding_radius_m; }, "[m]");
    m.def("sphere_body", &geometry::make_sphere_body, py::arg("radius"), py::arg("density"), py::arg("nodes") = 642,
          "A sphere of radius [m] and density [kg/m^3] with about `nodes` surface nodes.");
    m.def("ellipsoid_body",
          [](const py::object& semi_axes, double density, int nodes) {
              return geometry::make_ellipsoid_body(to_vec3(semi_axes, "semi_axes"), density, nodes);
          },
          py::arg("semi_axes"), py::arg("density"), py::arg("nodes") = 642,
          "An ellipsoid with semi-axes (a, b, c) [m] along its body x, y, z.");
    m.def("mesh_body",
          [](const py::object& vertices, const py::object& triangles, double mass, double grid_spacing,
             const std::string& name) {
              auto pts = to_vertices3(vertices);
              auto tris = to_triangles(triangles);
              py::gil_scoped_release release;
              return geometry::make_mesh_body(name, pts, tris, mass, grid_spacing);
          },
          py::arg("vertices"), py::arg("triangles"), py::arg("mass"), py::arg("grid_spacing"),
          py::arg("name") = "mesh body",
          "A closed mesh [m] of uniform density and the given mass [kg]; its body frame is the mesh frame "
          "moved to the centroid. Its level set is sampled every grid_spacing [m].");
}

void bind_system_bodies(py::class_<ShapeSystem>& c) {
    c.def("add_body",
          [](ShapeSystem& s, const ShapeBody& body, const py::object& position, const py::object& velocity,
             const py::object& orientation, const py::object& angular_velocity, bool fixed) {
              return place(s, body, position, velocity, orientation, angular_velocity, fixed);
          },
          py::arg("body"), py::arg("position"), py::arg("velocity") = py::make_tuple(0, 0, 0),
          py::arg("orientation") = py::make_tuple(1, 0, 0, 0), py::arg("angular_velocity") = py::make_tuple(0, 0, 0),
          py::arg("fixed") = false,
          "Places a copy of body with its centre of mass at position [m]; returns its index.")
        .def("add_wall",
             [](ShapeSystem& s, const py::object& point, const py::object& normal) {
                 geometry::PlaneWall w;
                 w.point_m = to_vec3(point, "point");
                 const auto n = to_vec3(normal, "normal");
                 const double nn = geometry::vec::norm(n);
                 if (!(nn > 0.0)) throw std::invalid_argument("normal: must not be zero");
                 w.normal = {n[0] / nn, n[1] / nn, n[2] / nn};
                 s.walls.push_back(w);
             },
             py::arg("point"), py::arg("normal"), "A plane wall through point [m]; the bodies are on the side of normal.");
}

// The state a restart needs to continue bit for bit: time, the bodies' states, the random
// generator and the tangential springs (ContactHistory). Shapes and the law are the setup's.
py::dict checkpoint(const ShapeSystem& s) {
    const auto n = static_cast<py::ssize_t>(s.bodies.size());
    py::array_t<double> x({n, py::ssize_t{3}}), q({n, py::ssize_t{4}}), v({n, py::ssize_t{3}}), l({n, py::ssize_t{3}});
    py::array_t<double> f({n, py::ssize_t{3}}), t({n, py::ssize_t{3}});
    for (py::ssize_t i = 0; i < n; ++i) {
        const ShapeBody& b = s.bodies[i];
        std::memcpy(f.mutable_data(i), s.force_N.at(i).data(), 3 * sizeof(double));
        std::memcpy(t.mutable_data(i), s.torque_N_m.at(i).data(), 3 * sizeof(double));
        std::memcpy(x.mutable_data(i), b.x_m.data(), 3 * sizeof(double));
        std::memcpy(q.mutable_data(i), b.q.data(), 4 * sizeof(double));
        std::memcpy(v.mutable_data(i), b.v_m_s.data(), 3 * sizeof(double));
        std::memcpy(l.mutable_data(i), b.angular_momentum.data(), 3 * sizeof(double));
    }
    const auto k = static_cast<py::ssize_t>(s.history.size());
    py::array_t<std::uint64_t> keys(k);
    py::array_t<double> springs({k, py::ssize_t{3}});
    py::array_t<bool> sliding(k);
    py::ssize_t j = 0;
    for (const auto& [key, spring] : s.history) {
        keys.mutable_at(j) = key;
        std::memcpy(springs.mutable_data(j), spring.spring_m.data(), 3 * sizeof(double));
        sliding.mutable_at(j++) = spring.sliding;
    }
    std::ostringstream rng;
    rng << s.rng;
    using namespace pybind11::literals;
    return py::dict("time"_a = s.time_s, "position"_a = x, "orientation"_a = q, "velocity"_a = v,
                    "angular_momentum"_a = l, "force"_a = f, "torque"_a = t, "rng"_a = rng.str(), "history_keys"_a = keys,
                    "history_springs"_a = springs, "history_sliding"_a = sliding);
}

void restore(ShapeSystem& s, const py::dict& d) {
    const DoubleArray x = d["position"].cast<DoubleArray>(), q = d["orientation"].cast<DoubleArray>(),
                      v = d["velocity"].cast<DoubleArray>(), l = d["angular_momentum"].cast<DoubleArray>(),
                      f = d["force"].cast<DoubleArray>(), t = d["torque"].cast<DoubleArray>();
    const auto n = static_cast<py::ssize_t>(s.bodies.size());
    for (const DoubleArray* a : {&x, &q, &v, &l, &f, &t})
        if (a->ndim() != 2 || a->shape(0) != n)
            throw std::invalid_argument("state: position, orientation, velocity, angular_momentum, force, torque: "
                                        "one row per body of this system");
    s.force_N.assign(static_cast<std::size_t>(n), geometry::vec::V{});
    s.torque_N_m.assign(static_cast<std::size_t>(n), geometry::vec::V{});
    for (py::ssize_t i = 0; i < n; ++i) {
        ShapeBody& b = s.bodies[i];
        std::memcpy(s.force_N[i].data(), f.data(i), 3 * sizeof(double));
        std::memcpy(s.torque_N_m[i].data(), t.data(i), 3 * sizeof(double));
        std::memcpy(b.x_m.data(), x.data(i), 3 * sizeof(double));
        std::memcpy(b.q.data(), q.data(i), 4 * sizeof(double));
        std::memcpy(b.v_m_s.data(), v.data(i), 3 * sizeof(double));
        std::memcpy(b.angular_momentum.data(), l.data(i), 3 * sizeof(double));
    }
    const auto keys = d["history_keys"].cast<py::array_t<std::uint64_t>>();
    const DoubleArray springs = d["history_springs"].cast<DoubleArray>();
    const auto sliding = d["history_sliding"].cast<py::array_t<bool>>();
    s.history.clear();
    for (py::ssize_t j = 0; j < keys.size(); ++j) {
        geometry::NodeSpring spring;
        std::memcpy(spring.spring_m.data(), springs.data(j), 3 * sizeof(double));
        spring.sliding = sliding.at(j);
        s.history.emplace(keys.at(j), spring);
    }
    std::istringstream rng(d["rng"].cast<std::string>());
    rng >> s.rng;
    s.time_s = d["time"].cast<double>();
    s.collisions.clear();
    s.contacts.clear();
}

void bind_system_state(py::class_<ShapeSystem>& c) {
    c.def("state", &checkpoint, "What a restart needs (a dict of arrays): time, the bodies' states, the random "
                                "generator and the tangential springs of the contacts.")
        .def("set_state", &restore, py::arg("state"),
             "Continues from state() of a system set up alike (after its start()); the collision log starts anew.");
    c.def("start", &geometry::start, "Validates the system and evaluates the loads of the initial state.")
        .def("step",
             [](ShapeSystem& s, double dt, int n) {
                 py::gil_scoped_release release;
                 for (int k = 0; k < n; ++k) geometry::step(s, dt);
             },
             py::arg("dt"), py::arg("n") = 1, "n steps of dt [s].")
        .def("run", &run, py::arg("t_end"), py::arg("dt"), py::arg("every") = 1,
             "Steps to t_end [s]; returns {t, position, orientation, velocity, angular_velocity} every `every` steps.")
        .def_property_readonly("time", [](const ShapeSystem& s) { return s.time_s; })
        .def_property_readonly("kinetic_energy", &geometry::kinetic_energy_J, "Translation and rotation [J].")
        .def("body", [](const ShapeSystem& s, int i) {
                const ShapeBody& b = s.bodies.at(static_cast<std::size_t>(i));
                py::dict d;
                d["mass"] = b.mass_kg;
                d["inertia"] = py::array_t<double>({3, 3}, b.inertia_kg_m2.data());
                d["position"] = vec_array(b.x_m);
                d["orientation"] = py::array_t<double>(4, b.q.data());
                d["velocity"] = vec_array(b.v_m_s);
                d["angular_velocity"] = vec_array(geometry::angular_velocity(b));
                d["nodes"] = b.shape.nodes.x_m.size();
                d["bounding_radius"] = b.shape.bounding_radius_m;
                return d;
            }, py::arg("index"), "Mass [kg], body-frame inertia [kg m^2], state and surface nodes of a body.")
        .def("contacts", [](const ShapeSystem& s) {
                py::list out;
                for (const auto& c : s.contacts) {
                    py::dict d;
                    d["bodies"] = py::make_tuple(c.body_a, c.body_b);
                    d["nodes"] = c.nodes;
                    d["normal_force"] = c.normal_force_N;
                    d["point"] = vec_array(c.point_m);
                    d["normal"] = vec_array(c.normal);
                    d["depth"] = c.depth_m;
                    out.append(d);
                }
                return out;
            }, "The contacts of the current state (a wall is body -1 - its index).")
        .def("collisions", [](const ShapeSystem& s) {
                py::list out;
                for (const auto& c : s.collisions) out.append(collision_dict(c));
                return out;
            }, "Collisions so far (body pairs, and bodies with walls: body -1 - wall index), with CoR_E, the "
               "normal-velocity ratio and the duration once ended.");
}

}  // namespace

void bind_shape_bodies(py::module_& m) {
    bind_body_factories(m);
    py::class_<ShapeSystem> c(m, "ShapeSystem",
                              "Particle-free rigid bodies (spheres, ellipsoids, closed meshes) in level-set "
                              "contact with each other and with plane walls (geometry/shape_contact.hpp).");
    c.def(py::init([](double stiffness_per_area, double restitution, double tangential_ratio, double mu_static,
                      double mu_dynamic, const py::object& gravity, double random_acceleration, std::uint64_t seed) {
              ShapeSystem s;
              s.law.stiffness_per_area_N_m3 = stiffness_per_area;
              s.law.restitution = restitution;
              s.law.tangential_ratio = tangential_ratio;
              s.law.mu_static = mu_static;
              s.law.mu_dynamic = mu_dynamic;
              s.gravity_m_s2 = to_vec3(gravity, "gravity");
              s.random_acceleration_m_s2 = random_acceleration;
              s.rng.seed(seed);
              return s;
          }),
          py::arg("stiffness_per_area"), py::arg("restitution"), py::arg("tangential_ratio") = 1.0,
          py::arg("mu_static") = 0.0, py::arg("mu_dynamic") = 0.0, py::arg("gravity") = py::make_tuple(0, 0, 0),
          py::arg("random_acceleration") = 0.0, py::arg("seed") = 0,
          "Contact: node stiffness per unit area [N/m^3], restitution e in [0, 1], k_t/k_n, static and "
          "dynamic friction; uniform gravity [m/s^2]; random accelerations (rms per component [m/s^2], "
          "redrawn every step from `seed`).");
    bind_system_bodies(c);
    bind_system_state(c);
    m.def("polyhedron_mass_properties",
          [](const py::object& vertices, const py::object& triangles, double density) {
              const auto mesh = geometry::close_mesh("mesh", to_vertices3(vertices), to_triangles(triangles));
              const auto p = geometry::polyhedron_mass_properties(mesh, density);
              py::dict d;
              d["mass"] = p.mass;
              d["volume"] = mesh.volume;
              d["centre"] = vec_array(p.centre);
              d["inertia"] = py::array_t<double>({3, 3}, p.inertia.data());
              return d;
          },
          py::arg("vertices"), py::arg("triangles"), py::arg("density"),
          "Mass [kg], volume [m^3], centre [m] and inertia about the centre [kg m^2] of a closed mesh of uniform density.");
    m.def("icosphere",
          [](int level) {
              if (level < 0 || level > 7) throw std::invalid_argument("level: must be in 0..7");
              const geometry::SurfaceMesh mesh = geometry::icosphere(level);
              const auto nv = static_cast<py::ssize_t>(mesh.vertices.size());
              const auto nt = static_cast<py::ssize_t>(mesh.triangles.size());
              py::array_t<double> v({nv, py::ssize_t{3}});
              py::array_t<std::int64_t> t({nt, py::ssize_t{3}});
              std::memcpy(v.mutable_data(), mesh.vertices.data(), sizeof(double) * 3 * nv);
              std::memcpy(t.mutable_data(), mesh.triangles.data(), sizeof(std::int64_t) * 3 * nt);
              return py::make_tuple(v, t);
          },
          py::arg("level"),
          "(vertices, triangles) of the unit icosphere with 10 * 4^level + 2 vertices, outward oriented.");
    m.def("damping_ratio_power_law", &geometry::damping_ratio_power_law, py::arg("restitution"), py::arg("exponent"),
          "zeta for which a contact F ~ delta^p with dashpot 2 zeta sqrt(m dF/d delta) rebounds with e.");
}

}  // namespace regosph::python
