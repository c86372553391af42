// pybind11 bindings: module regosph._core. The Python package regosph (python/regosph)
// re-exports these names; setups are written against that package.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <cmath>
#include <numbers>

#include "geometry/lattice.hpp"
#include "io/json.hpp"
#include "io/snapshot.hpp"
#include "parallel/mpi_env.hpp"
#include "sph/kernel.hpp"
#include "sph/simulation.hpp"

namespace py = pybind11;
using namespace regosph;

namespace {

constexpr double kRad = std::numbers::pi / 180.0;

// (N, dim) float array -> points; z = 0 for 2D input. A 2D run also takes (N, 3) with z = 0
// (never drops a non-zero z); a 3D run needs all three coordinates.
std::vector<geometry::Point> to_points(const py::array_t<double, py::array::c_style | py::array::forcecast>& a,
                                       int dim, const std::string& field) {
    const std::string expected = dim == 2 ? "an (N, 2) array" : "an (N, 3) array";
    if (a.ndim() != 2 || a.shape(1) < dim || a.shape(1) > 3)
        throw std::invalid_argument(field + ": expected " + expected + " of positions in m for a " +
                                    std::to_string(dim) + "D simulation");
    const auto r = a.unchecked<2>();
    std::vector<geometry::Point> pts(static_cast<std::size_t>(a.shape(0)));
    for (py::ssize_t i = 0; i < a.shape(0); ++i)
        for (py::ssize_t d = 0; d < a.shape(1); ++d) pts[i][d] = r(i, d);
    if (dim == 2 && a.shape(1) == 3)
        for (py::ssize_t i = 0; i < a.shape(0); ++i)
            if (r(i, 2) != 0.0)
                throw std::invalid_argument(field + ": particle " + std::to_string(i) +
                                            " has z != 0 in a 2D simulation; expected " + expected);
    return pts;
}

py::array_t<double> points_array(const std::vector<geometry::Point>& pts, int dim) {
    py::array_t<double> out({static_cast<py::ssize_t>(pts.size()), static_cast<py::ssize_t>(dim)});
    auto w = out.mutable_unchecked<2>();
    for (std::size_t i = 0; i < pts.size(); ++i)
        for (int d = 0; d < dim; ++d) w(i, d) = pts[i][d];
    return out;
}

// Copy of structure-of-arrays components into an (N, k) array.
template <std::size_t K>
py::array_t<double> stack(const std::array<std::vector<double>, K>& c, int k) {
    const auto n = static_cast<py::ssize_t>(c[0].size());
    py::array_t<double> out({n, static_cast<py::ssize_t>(k)});
    auto w = out.mutable_unchecked<2>();
    for (py::ssize_t i = 0; i < n; ++i)
        for (int d = 0; d < k; ++d) w(i, d) = c[d][i];
    return out;
}

template <std::size_t K>
void unstack(std::array<std::vector<double>, K>& c, int k,
             const py::array_t<double, py::array::c_style | py::array::forcecast>& a,
             const std::string& field) {
    const auto n = static_cast<py::ssize_t>(c[0].size());
    if (a.ndim() != 2 || a.shape(0) != n || a.shape(1) != k)
        throw std::invalid_argument(field + ": expected an array of shape (" + std::to_string(n) +
                                    ", " + std::to_string(k) + ")");
    const auto r = a.unchecked<2>();
    for (py::ssize_t i = 0; i < n; ++i)
        for (int d = 0; d < k; ++d) {
            if (!std::isfinite(r(i, d)))
                throw std::invalid_argument(field + ": entry (" + std::to_string(i) + ", " +
                                            std::to_string(d) + ") is not finite");
            c[d][i] = r(i, d);
        }
}

template <class T>
py::array_t<T> copy_vector(const std::vector<T>& v) {
    py::array_t<T> out(static_cast<py::ssize_t>(v.size()));
    std::copy(v.begin(), v.end(), out.mutable_data());
    return out;
}

Motion parse_motion(const std::string& s) {
    if (s == "dynamic" || s == "free") return Motion::dynamic;
    if (s == "fixed") return Motion::fixed;
    if (s == "kinematic") return Motion::kinematic;
    throw std::invalid_argument("motion: '" + s +
                                "' is not one of 'dynamic' (alias 'free'), 'fixed', 'kinematic'");
}

// A point or vector given as 2 or 3 numbers; a 2-vector gets z = 0. `field` names it in errors.
geometry::Vec3 to_vec3(const py::handle& obj, const std::string& field) {
    std::vector<double> v;
    try {
        v = obj.cast<std::vector<double>>();
    } catch (const py::cast_error&) {
        throw std::invalid_argument(field + ": expected 2 or 3 numbers");
    }
    if (v.size() != 2 && v.size() != 3)
        throw std::invalid_argument(field + ": expected 2 or 3 numbers, got " +
                                    std::to_string(v.size()));
    return {v[0], v[1], v.size() == 3 ? v[2] : 0.0};
}

geometry::Kinematics make_kinematics(const py::object& translation, std::optional<double> rpm,
                                     std::optional<double> angular_velocity,
                                     const py::object& pivot, const py::object& axis) {
    geometry::Kinematics k;
    if (rpm && angular_velocity)
        throw std::invalid_argument("kinematics: give rpm or angular_velocity, not both");
    if (rpm) k.angular_velocity = *rpm * 2.0 * M_PI / 60.0;  // [rev/min] -> [rad/s]
    if (angular_velocity) k.angular_velocity = *angular_velocity;
    k.pivot = to_vec3(pivot, "kinematics: pivot");
    k.axis = to_vec3(axis, "kinematics: axis");
    std::size_t i = 0;
    for (const py::handle seg : translation) {
        const std::string where = "kinematics: translation segment " + std::to_string(i++);
        py::sequence pair;
        try {
            pair = seg.cast<py::sequence>();
        } catch (const py::cast_error&) {
            throw std::invalid_argument(where + ": expected (until [s], velocity [m/s])");
        }
        if (pair.size() != 2)
            throw std::invalid_argument(where + ": expected (until [s], velocity [m/s])");
        double until = 0.0;
        try {
            until = pair[0].cast<double>();
        } catch (const py::cast_error&) {
            throw std::invalid_argument(where + ": end time must be a number");
        }
        k.translation.push_back({until, to_vec3(pair[1], where + ": velocity")});
    }
    return k;
}

Material make_drucker_prager(const std::string& name, double density, double bulk_modulus,
                             double friction_angle_deg, double cohesion,
                             std::optional<double> shear_modulus,
                             std::optional<double> poisson_ratio, double dilatancy_angle_deg,
                             double viscosity_sound_speed) {
    const std::string where = "material '" + name + "': ";
    if (shear_modulus.has_value() == poisson_ratio.has_value())
        throw std::invalid_argument(where + "give exactly one of shear_modulus and poisson_ratio");
    double mu = 0.0;
    if (poisson_ratio) {
        const double nu = *poisson_ratio;
        if (!(std::isfinite(nu) && nu > -1.0 && nu < 0.5))
            throw std::invalid_argument(where + "poisson_ratio = " + std::to_string(nu) +
                                        " must lie in (-1, 0.5)");
        mu = 3.0 * bulk_modulus * (1.0 - 2.0 * nu) / (2.0 * (1.0 + nu));  // mu = 3K(1-2nu)/(2(1+nu))
    } else {
        mu = *shear_modulus;
    }
    DruckerPrager dp;
    dp.density = density;
    dp.bulk_modulus = bulk_modulus;
    dp.shear_modulus = mu;
    dp.friction_angle = friction_angle_deg * kRad;
    dp.cohesion = cohesion;
    dp.dilatancy_angle = dilatancy_angle_deg * kRad;
    Material m{name, dp, viscosity_sound_speed};
    validate(m);
    return m;
}

}  // namespace

// --- geometry helpers ----------------------------------------------------------------------
namespace {

// 2 numbers (a point or vector in the x-y plane); `field` names it in errors.
std::array<double, 2> to_vec2(const py::handle& obj, const std::string& field) {
    std::vector<double> v;
    try {
        v = obj.cast<std::vector<double>>();
    } catch (const py::cast_error&) {
        throw std::invalid_argument(field + ": expected 2 numbers (x, y)");
    }
    if (v.size() != 2)
        throw std::invalid_argument(field + ": expected 2 numbers (x, y), got " + std::to_string(v.size()));
    return {v[0], v[1]};
}

// Applies f to one point (2 or 3 numbers) or to every row of an (N, 2|3) array; returns a
// scalar or an (N,) array.
template <class T, class F>
py::object per_point(const geometry::Shape& s, const py::object& points, F f) {
    const auto a = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(points);
    const char* expected = "points: expected 2 or 3 numbers or an (N, 2) or (N, 3) array in m";
    if (!a) throw std::invalid_argument(expected);
    const py::ssize_t k = a.ndim() == 1 ? a.shape(0) : a.ndim() == 2 ? a.shape(1) : 0;
    if (k < 2 || k > 3 || (s.dim() == 3 && k != 3))
        throw std::invalid_argument(std::string(expected) + (s.dim() == 3 ? " (a 3D shape needs x, y, z)" : ""));
    const double* x = a.data();
    const auto point = [&](py::ssize_t i) {
        return geometry::Point{x[i * k], x[i * k + 1], k == 3 ? x[i * k + 2] : 0.0};
    };
    if (a.ndim() == 1) return py::cast(f(point(0)));
    py::array_t<T> out(a.shape(0));
    T* w = out.mutable_data();
    for (py::ssize_t i = 0; i < a.shape(0); ++i) w[i] = f(point(i));
    return out;
}

std::vector<std::array<double, 2>> to_vertices(const py::object& obj) {
    const auto a = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(obj);
    if (!a || a.ndim() != 2 || a.shape(1) != 2) {
        const py::ssize_t n = a && a.ndim() >= 1 ? a.shape(0) : 0;
        throw std::invalid_argument("polygon: vertices: expected a list of (x, y) pairs in m" +
                                    (a && a.ndim() == 1 ? ", got " + std::to_string(n) + " numbers" : std::string()));
    }
    std::vector<std::array<double, 2>> v(static_cast<std::size_t>(a.shape(0)));
    for (py::ssize_t i = 0; i < a.shape(0); ++i) v[i] = {a.at(i, 0), a.at(i, 1)};
    return v;
}

geometry::Lattice to_lattice(const std::optional<std::string>& name) {
    return name ? geometry::parse_lattice(*name) : geometry::Lattice::automatic;
}

// [(shape, spacing), ...] from Python, each entry checked.
std::vector<geometry::Zone> to_zones(const py::object& zones) {
    std::vector<geometry::Zone> out;
    std::size_t k = 0;
    for (const py::handle z : zones) {
        const std::string field = "graded_fill: zones[" + std::to_string(k++) + "]";
        py::tuple pair;
        try {
            pair = py::tuple(z.cast<py::sequence>());
        } catch (const py::cast_error&) {
            throw std::invalid_argument(field + ": expected (shape, spacing [m])");
        }
        if (pair.size() != 2) throw std::invalid_argument(field + ": expected (shape, spacing [m])");
        geometry::Zone zone;
        try {
            zone.shape = pair[0].cast<geometry::ShapePtr>();
        } catch (const py::cast_error&) {
            throw std::invalid_argument(field + ".shape: expected a Shape");
        }
        try {
            zone.spacing = pair[1].cast<double>();
        } catch (const py::cast_error&) {
            throw std::invalid_argument(field + ".spacing: expected a number in m");
        }
        out.push_back(zone);
    }
    return out;
}

}  // namespace

PYBIND11_MODULE(_core, m) {
    m.doc() = "regosph: SPH for the continuum mechanics of regolith (compiled core)";
    // Initialise MPI unless mpi4py did, so that only rank 0 reports under mpirun.
    mpi::ensure_initialized();
    m.attr("__version__") = io::version_string();
    py::register_exception<BlowUpError>(m, "BlowUpError", PyExc_RuntimeError);
    m.def("mpi_rank", &mpi::rank, "This process's MPI rank (0 without mpirun).");
    m.def("mpi_size", &mpi::size, "Number of MPI ranks (1 without mpirun).");
    m.def("_abort", [](const std::string& message, int status) { mpi::abort(message, status); },
          py::arg("message"), py::arg("status") = 1,
          "Print message to stderr and stop every MPI rank (MPI_Abort).");

    // --- geometry -------------------------------------------------------------------------
    // Shapes: signed distances in m (negative inside), angles in degrees (geometry/shapes.hpp).
    using geometry::ShapePtr;
    py::class_<geometry::Shape, ShapePtr>(m, "Shape")
        .def("contains",
             [](const geometry::Shape& s, const py::object& p) {
                 return per_point<bool>(s, p, [&](const geometry::Point& x) { return s.contains(x); });
             },
             py::arg("points"), "Membership of one point (2 or 3 numbers) or of an (N, 2|3) array.")
        .def("signed_distance",
             [](const geometry::Shape& s, const py::object& p) {
                 return per_point<double>(s, p, [&](const geometry::Point& x) { return s.signed_distance(x); });
             },
             py::arg("points"),
             "Signed distance [m] (negative inside) of a point or an (N, 2|3) array: exact for "
             "primitives, translations and rotations; a bound with the right sign for combinations.")
        .def_property_readonly("bounds", [](const geometry::Shape& s) {
            const geometry::BoundingBox b = s.bounds();
            const auto part = [&](const geometry::Point& p) {
                return s.dim() == 2 ? py::make_tuple(p[0], p[1]) : py::make_tuple(p[0], p[1], p[2]);
            };
            return py::make_tuple(part(b.lo), part(b.hi));
        }, "(lo, hi) of a box enclosing the shape [m].")
        .def_property_readonly("dim", &geometry::Shape::dim)
        .def("__or__", [](ShapePtr a, ShapePtr b) { return geometry::unite(a, b); })
        .def("__sub__", [](ShapePtr a, ShapePtr b) { return geometry::subtract(a, b); })
        .def("__and__", [](ShapePtr a, ShapePtr b) { return geometry::intersect(a, b); });
    m.def("rectangle", &geometry::rectangle, py::arg("lo"), py::arg("hi"),
          "Axis-aligned rectangle [lo, hi) in m (2D).");
    m.def("box", &geometry::box, py::arg("lo"), py::arg("hi"), "Axis-aligned box [lo, hi) in m (3D).");
    m.def("disc", [](const py::object& c, double r) { return geometry::disc(to_vec2(c, "disc: centre"), r); },
          py::arg("centre"), py::arg("radius"), "Disc |p - centre| < radius [m] (2D).");
    m.def("annulus",
          [](const py::object& c, double r_in, double r_out) {
              return geometry::annulus(to_vec2(c, "annulus: centre"), r_in, r_out);
          },
          py::arg("centre"), py::arg("r_in"), py::arg("r_out"), "Ring r_in <= |p - centre| < r_out [m] (2D).");
    m.def("annular_sector",
          [](const py::object& c, double r_in, double r_out, double start, double opening) {
              return geometry::annular_sector(to_vec2(c, "annular_sector: centre"), r_in, r_out, start, opening);
          },
          py::arg("centre"), py::arg("r_in"), py::arg("r_out"), py::arg("start_angle"), py::arg("opening"),
          "Arc band: the ring r_in <= r < r_out [m] between the polar angles start_angle and "
          "start_angle + opening [degrees, counter-clockwise from +x] (2D), e.g. a shield.");
    m.def("polygon", [](const py::object& v) { return geometry::polygon(to_vertices(v)); }, py::arg("vertices"),
          "Simple polygon from >= 3 (x, y) vertices [m] in either orientation (2D).");
    m.def("cylinder",
          [](const py::object& c, double r, double z0, double z1) {
              return geometry::cylinder(to_vec2(c, "cylinder: centre"), r, z0, z1);
          },
          py::arg("centre"), py::arg("radius"), py::arg("z0"), py::arg("z1"),
          "Cylinder along z: |(x, y) - centre| < radius, z0 <= z < z1 [m] (3D).");
    m.def("sphere", [](const py::object& c, double r) { return geometry::sphere(to_vec3(c, "sphere: centre"), r); },
          py::arg("centre"), py::arg("radius"), "Ball |p - centre| < radius [m] (3D).");
    m.def("extrude", &geometry::extrude, py::arg("shape"), py::arg("z0"), py::arg("z1"),
          "A 2D shape extruded along z over [z0, z1) [m] (3D).");
    m.def("unite", &geometry::unite, py::arg("a"), py::arg("b"), "Points in a or b (also a | b).");
    m.def("subtract", &geometry::subtract, py::arg("a"), py::arg("b"), "Points in a, not in b (also a - b).");
    m.def("intersect", &geometry::intersect, py::arg("a"), py::arg("b"), "Points in a and b (also a & b).");
    m.def("translate",
          [](ShapePtr s, const py::object& off) { return geometry::translate(std::move(s), to_vec3(off, "translate: offset")); },
          py::arg("shape"), py::arg("offset"), "The shape moved by offset [m] (2 or 3 numbers).");
    m.def("rotate",
          [](ShapePtr s, double angle, const py::object& about) {
              return geometry::rotate(std::move(s), angle, to_vec2(about, "rotate: about"));
          },
          py::arg("shape"), py::arg("angle"), py::arg("about") = py::make_tuple(0.0, 0.0),
          "The shape turned counter-clockwise by angle [degrees] about the point about (x, y) "
          "[m] (3D: about the axis parallel to z through it).");
    m.def("offset", &geometry::offset, py::arg("shape"), py::arg("distance"),
          "Points closer than distance [m] to the shape (grows it; < 0 shrinks it).");
    m.def("wall_layer", &geometry::wall_layer, py::arg("shape"), py::arg("thickness"),
          "offset(shape, thickness) - shape: the layer of wall particles around a region [m].");
    m.def(
        "lattice_fill",
        [](const ShapePtr& s, double spacing, const py::object& origin, std::optional<std::string> lattice) {
            if (!s) throw std::invalid_argument("lattice_fill: shape is None");
            const geometry::Point o = to_vec3(origin, "lattice_fill: origin");
            std::vector<geometry::Point> pts;
            {
                py::gil_scoped_release release;
                pts = geometry::lattice_fill(*s, spacing, o, to_lattice(lattice));
            }
            return points_array(pts, s->dim());
        },
        py::arg("shape"), py::arg("spacing"), py::arg("origin") = py::make_tuple(0.0, 0.0, 0.0),
        py::kw_only(), py::arg("lattice") = py::none(),
        "Lattice points (N, dim) [m] inside the shape. lattice: 'square' (2D default, cell "
        "centres origin + (i + 1/2) spacing), 'hexagonal' (2D) or 'cubic' (3D default). spacing "
        "[m] = (area or volume per point)^(1/dim) for every lattice.");
    m.def(
        "graded_fill",
        [](const py::object& zones, std::optional<std::string> lattice, const py::object& origin) {
            const auto z = to_zones(zones);
            const geometry::Point o = to_vec3(origin, "graded_fill: origin");
            std::vector<geometry::ZoneFill> fills;
            {
                py::gil_scoped_release release;
                fills = geometry::graded_fill(z, to_lattice(lattice), o);
            }
            py::list out;
            for (const auto& f : fills) out.append(py::make_tuple(points_array(f.positions, z[0].shape->dim()), f.spacing));
            return out;
        },
        py::arg("zones"), py::kw_only(), py::arg("lattice") = py::none(),
        py::arg("origin") = py::make_tuple(0.0, 0.0, 0.0),
        "Variable resolution: zones = [(shape, spacing [m]), ...] from fine to coarse; returns "
        "[(positions (N, dim), spacing), ...], one per zone, to add as one body each. Zones meet "
        "without particles closer than half the finer spacing; integer spacing ratios give an "
        "interface gap of exactly the mean spacing.");

    // --- materials ------------------------------------------------------------------------
    py::class_<Material>(m, "Material")
        .def_readonly("name", &Material::name)
        .def_readonly("viscosity_sound_speed", &Material::viscosity_sound_speed)
        .def_property_readonly("density", [](const Material& x) { return reference_density(x); })
        .def_property_readonly("wave_speed", [](const Material& x) { return elastic_wave_speed(x); });
    m.def("DruckerPrager", &make_drucker_prager, py::arg("name"), py::kw_only(), py::arg("density"),
          py::arg("bulk_modulus"), py::arg("friction_angle"), py::arg("cohesion"),
          py::arg("shear_modulus") = py::none(), py::arg("poisson_ratio") = py::none(),
          py::arg("dilatancy_angle") = 0.0, py::arg("viscosity_sound_speed") = 0.0,
          "Drucker-Prager elastic-plastic regolith (Bui 2008). SI units, angles in degrees.");
    m.def(
        "ElasticSolid",
        [](const std::string& name, double density, std::optional<double> bulk_modulus,
           std::optional<double> shear_modulus, std::optional<double> youngs_modulus,
           std::optional<double> poisson_ratio, double murnaghan_n, double viscosity_sound_speed,
           double artificial_stress, double artificial_stress_exponent, double xsph) {
            const ElasticModuli k = elastic_moduli(name, bulk_modulus, shear_modulus,
                                                   youngs_modulus, poisson_ratio);
            const ElasticSolid es{density,           k.bulk_modulus,
                                  k.shear_modulus,   murnaghan_n,
                                  artificial_stress, artificial_stress_exponent,
                                  xsph};
            Material mat{name, es, viscosity_sound_speed};
            validate(mat);
            return mat;
        },
        py::arg("name"), py::kw_only(), py::arg("density"), py::arg("bulk_modulus") = py::none(),
        py::arg("shear_modulus") = py::none(), py::arg("youngs_modulus") = py::none(),
        py::arg("poisson_ratio") = py::none(), py::arg("murnaghan_n") = 1.0,
        py::arg("viscosity_sound_speed") = 0.0, py::arg("artificial_stress") = 0.0,
        py::arg("artificial_stress_exponent") = 4.0, py::arg("xsph") = 0.0,
        "Elastic solid (SPEC.md section 4): Murnaghan EoS p = (K0/n)((rho/rho0)^n - 1) with "
        "K0 = bulk_modulus, Hooke deviatoric stress with the Jaumann rate. Give exactly two of "
        "bulk_modulus, shear_modulus, youngs_modulus [Pa], poisson_ratio. artificial_stress: "
        "Monaghan (2000) epsilon with exponent artificial_stress_exponent (0 = off); xsph: XSPH "
        "epsilon (0 = off). SI units.");
    m.def(
        "Rigid",
        [](const std::string& name, double density) {
            Material mat{name, Rigid{density}, 0.0};
            validate(mat);
            return mat;
        },
        py::arg("name"), py::kw_only(), py::arg("density"),
        "Material of fixed boundary bodies (walls); density in kg/m^3.");
    m.def(
        "drucker_prager_constants",
        [](double phi_deg, double c, int dim) {
            const auto k = drucker_prager_constants(phi_deg * kRad, c, dim);
            return py::make_tuple(k.alpha_phi, k.k_c);
        },
        py::arg("friction_angle"), py::arg("cohesion"), py::arg("dim") = 2,
        "(alpha_phi, k_c) of the Drucker-Prager yield function.");

    // --- prescribed motion ----------------------------------------------------------------
    py::class_<geometry::Kinematics>(m, "Kinematics")
        .def(py::init(&make_kinematics), py::kw_only(), py::arg("translation") = py::list(),
             py::arg("rpm") = py::none(), py::arg("angular_velocity") = py::none(),
             py::arg("pivot") = py::make_tuple(0.0, 0.0, 0.0),
             py::arg("axis") = py::make_tuple(0.0, 0.0, 1.0),
             "Prescribed motion of a kinematic body: translation = [(until [s], velocity [m/s]), "
             "...] (piecewise constant, then rest), rotation at rpm [rev/min] or "
             "angular_velocity [rad/s] (positive: counter-clockwise about +z in 2D) about pivot "
             "[m] (its position at t = 0; it moves with the translation).")
        .def_readonly("angular_velocity", &geometry::Kinematics::angular_velocity)
        .def_readonly("pivot", &geometry::Kinematics::pivot)
        .def("pivot_at", &geometry::Kinematics::pivot_at, py::arg("t"), "Pivot at time t [m].")
        .def("displacement", &geometry::Kinematics::displacement, py::arg("t"))
        .def("angle", &geometry::Kinematics::angle, py::arg("t"), "Rotation angle at t [rad].");

    // --- options --------------------------------------------------------------------------
    py::class_<PhysicsParameters>(m, "PhysicsParameters")
        .def_property(
            "gravity", [](const PhysicsParameters& p) { return p.gravity; },
            [](PhysicsParameters& p, const py::object& g) { p.gravity = to_vec3(g, "physics: gravity"); },
            "Gravitational acceleration [m/s^2], 2 or 3 components.")
        .def_readwrite("av_alpha", &PhysicsParameters::av_alpha)
        .def_readwrite("av_beta", &PhysicsParameters::av_beta)
        .def_readwrite("av_epsilon", &PhysicsParameters::av_epsilon)
        .def_readwrite("courant", &PhysicsParameters::courant);
    py::class_<IntegratorOptions>(m, "IntegratorOptions")
        .def_readwrite("tolerance", &IntegratorOptions::tolerance)
        .def_readwrite("dt_initial", &IntegratorOptions::dt_initial)
        .def_readwrite("dt_min", &IntegratorOptions::dt_min)
        .def_readwrite("dt_max", &IntegratorOptions::dt_max)
        .def_readwrite("neighbour_skin", &IntegratorOptions::neighbour_skin);
    py::class_<PhaseTimes>(m, "PhaseTimes")
        .def_readonly("neighbours", &PhaseTimes::neighbours)
        .def_readonly("boundary", &PhaseTimes::boundary)
        .def_readonly("derivatives", &PhaseTimes::derivatives)
        .def_readonly("updates", &PhaseTimes::updates);
    py::class_<RunSummary>(m, "RunSummary")
        .def_readonly("phases", &RunSummary::phases)
        .def_readonly("steps", &RunSummary::steps)
        .def_readonly("rejected", &RunSummary::rejected)
        .def_readonly("wall_seconds", &RunSummary::wall_seconds)
        .def_readonly("particle_steps_per_second", &RunSummary::particle_steps_per_second)
        .def_readonly("neighbour_builds", &RunSummary::neighbour_builds)
        .def_readonly("snapshots", &RunSummary::snapshots)
        .def_readonly("interrupted_by", &RunSummary::interrupted_by)
        .def_readonly("last_checkpoint", &RunSummary::last_checkpoint);
    py::class_<StepReport>(m, "StepReport")
        .def_readonly("dt", &StepReport::dt)
        .def_readonly("error", &StepReport::error)
        .def_readonly("rejected", &StepReport::rejected);
    py::class_<Diagnostics>(m, "Diagnostics")
        .def_readonly("mass", &Diagnostics::mass)
        .def_readonly("kinetic_energy", &Diagnostics::kinetic_energy)
        .def_readonly("momentum", &Diagnostics::momentum)
        .def_readonly("max_speed", &Diagnostics::max_speed)
        .def_readonly("yielding", &Diagnostics::yielding)
        .def_readonly("dynamic_particles", &Diagnostics::dynamic_particles);

    // --- the simulation -------------------------------------------------------------------
    py::class_<Simulation>(m, "Simulation")
        .def(py::init<int>(), py::arg("dim"))
        .def_property_readonly("dim", &Simulation::dim)
        .def("add_material", &Simulation::add_material, py::arg("material"),
             "Add a material; returns its index.")
        .def(
            "add_body",
            [](Simulation& s, const std::string& name,
               const py::array_t<double, py::array::c_style | py::array::forcecast>& positions,
               int material, const std::string& motion, double spacing, double smoothing_length,
               const py::object& velocity, std::optional<geometry::Kinematics> kinematics) {
                const std::string where = "body '" + name + "': ";
                return s.add_body(name, material, parse_motion(motion),
                                  to_points(positions, s.dim(), where + "positions"), spacing,
                                  smoothing_length, to_vec3(velocity, where + "velocity"),
                                  kinematics);
            },
            py::arg("name"), py::arg("positions"), py::kw_only(), py::arg("material"),
            py::arg("motion"), py::arg("spacing"), py::arg("smoothing_length"),
            py::arg("velocity") = py::make_tuple(0.0, 0.0, 0.0),
            py::arg("kinematics") = py::none(),
            "Add a body of particles at positions (N, dim) [m]; returns its index. motion: "
            "'dynamic' (alias 'free'), 'fixed' or 'kinematic' (then kinematics=Kinematics(...)).")
        .def(
            "add_observer",
            [](Simulation& s, const std::string& name, geometry::ShapePtr region,
               std::optional<int> material, std::optional<int> body) {
                return s.add_observer(name, std::move(region), material.value_or(-1),
                                      body.value_or(-1));
            },
            py::arg("name"), py::arg("region"), py::kw_only(), py::arg("material") = py::none(),
            py::arg("body") = py::none(),
            "Count dynamic particles (of `material`, an index) inside `region`, which moves with "
            "`body` (an index) when that body is kinematic. Written to observers.csv/.h5 by run().")
        .def(
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
                    if (s.bodies()[k].motion != Motion::kinematic) continue;
                    py::dict d;
                    d["force"] = loads[k].force;
                    d["torque"] = loads[k].torque;
                    out[py::str(s.bodies()[k].name)] = d;
                }
                return out;
            },
            "{kinematic body: {'force': [N] (2D: N/m), 'torque': about its pivot [N m] (2D: "
            "N m/m)}} exerted by the dynamic particles at the current state.")
        .def("set_domain", &Simulation::set_domain, py::arg("lo"), py::arg("hi"),
             "Bounds [m]: particles outside are refused; leaving them stops a run.")
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
        .def_property_readonly("size", [](const Simulation& s) { return s.particles().size(); })
        .def_property_readonly("materials", &Simulation::materials)
        .def_property_readonly("body_names", [](const Simulation& s) {
            std::vector<std::string> n;
            for (const auto& b : s.bodies()) n.push_back(b.name);
            return n;
        })
        .def(
            "run",
            [](Simulation& s, double end_time, const std::string& output_dir,
               double snapshot_interval, int diagnostics_every, double progress_interval,
               std::map<std::string, std::string> metadata, bool overwrite, int checkpoint_every,
               double checkpoint_interval, bool checkpoint_on_signal, int observe_every,
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
                o.metadata = std::move(metadata);
                o.overwrite = overwrite;
                o.checkpoint_every = checkpoint_every;
                o.checkpoint_interval = checkpoint_interval;
                o.checkpoint_on_signal = checkpoint_on_signal;
                py::gil_scoped_release release;
                return s.run(o);
            },
            py::arg("end_time"), py::kw_only(), py::arg("output_dir") = std::string(),
            py::arg("snapshot_interval") = 0.0, py::arg("diagnostics_every") = 10,
            py::arg("progress_interval") = 5.0,
            py::arg("metadata") = std::map<std::string, std::string>{},
            py::arg("overwrite") = false, py::arg("checkpoint_every") = 0,
            py::arg("checkpoint_interval") = 0.0, py::arg("checkpoint_on_signal") = true,
            py::arg("observe_every") = 10,
            py::arg("allow_changes") = std::vector<std::string>{}, py::arg("take_over_lock") = false,
            "Integrate to end_time [s]; writes snapshots, series.xdmf, diagnostics.csv and "
            "run.json to output_dir when given. Checkpoints every checkpoint_every steps and/or "
            "checkpoint_interval wall seconds, and on SIGTERM/SIGINT (then returns early with "
            "interrupted_by set). Refuses a directory that holds a run unless overwrite, and one "
            "that another run is using (run.lock; take_over_lock takes over one left on another "
            "host). After restart(), or into the directory of this simulation's previous run, "
            "it continues that run: changed physics or setup fields are refused unless listed "
            "in allow_changes (run.json paths, e.g. 'physics.gravity_m_s2').")
        .def(
            "restart",
            [](Simulation& s, const std::string& run_dir) {
                std::vector<std::string> rejected;
                std::string file = s.restart(run_dir, &rejected);
                return py::make_tuple(file, rejected);
            },
            py::arg("run_dir"),
            "Continue from the newest valid checkpoint in run_dir; returns (file, rejected). "
            "Call run(end_time, output_dir=run_dir, ...) next.")
        .def("advance", &Simulation::advance, py::arg("dt_cap"),
             py::call_guard<py::gil_scoped_release>(), "One accepted step of at most dt_cap [s].")
        .def("diagnostics", [](const Simulation& s) { return compute_diagnostics(s.particles()); })
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
                return out;
            },
            "This rank's decomposition counters (cumulative): owned particles, bytes sent in "
            "halo exchanges and migrations, halo builds and updates, rebalances.")
        .def("describe", [](const Simulation& s) { return s.describe(RunOptions{}); })
        .def("derivatives", [](Simulation& s) {
            const Derivatives& d = s.evaluate_derivatives();
            py::dict out;
            out["acceleration"] = stack(d.dv, s.dim());
            out["density_rate"] = copy_vector(d.drho);
            out["stress_rate"] = stack(d.dstress, kSymComponents);
            out["dt_limit"] = copy_vector(d.dt_limit);
            return out;
        }, "Right-hand side of the current state (neighbours and walls updated).")
        // Particle fields: copies as NumPy arrays, SI units.
        .def_property(
            "positions", [](const Simulation& s) { return stack(s.particles().x, s.dim()); },
            [](Simulation& s, py::array_t<double, py::array::c_style | py::array::forcecast> a) {
                unstack(s.particles().x, s.dim(), a, "positions");
            })
        .def_property(
            "velocities", [](const Simulation& s) { return stack(s.particles().v, s.dim()); },
            [](Simulation& s, py::array_t<double, py::array::c_style | py::array::forcecast> a) {
                unstack(s.particles().v, s.dim(), a, "velocities");
            })
        .def_property(
            "stress", [](const Simulation& s) { return stack(s.particles().stress, kSymComponents); },
            [](Simulation& s, py::array_t<double, py::array::c_style | py::array::forcecast> a) {
                unstack(s.particles().stress, kSymComponents, a, "stress");
            })
        .def_property_readonly("density", [](const Simulation& s) { return copy_vector(s.particles().rho); })
        .def_property_readonly("mass", [](const Simulation& s) { return copy_vector(s.particles().mass); })
        .def_property_readonly("smoothing_length", [](const Simulation& s) { return copy_vector(s.particles().h); })
        .def_property_readonly("plastic_strain", [](const Simulation& s) { return copy_vector(s.particles().plastic_strain); })
        .def_property_readonly("yielding", [](const Simulation& s) { return copy_vector(s.particles().yielding); })
        .def_property_readonly("material", [](const Simulation& s) { return copy_vector(s.particles().material); })
        .def_property_readonly("body", [](const Simulation& s) { return copy_vector(s.particles().body); })
        .def_property_readonly("ids", [](const Simulation& s) { return copy_vector(s.particles().id); })
        .def_property_readonly("kind", [](const Simulation& s) {
            std::vector<std::uint8_t> k(s.particles().kind.size());
            for (std::size_t i = 0; i < k.size(); ++i) k[i] = static_cast<std::uint8_t>(s.particles().kind[i]);
            return copy_vector(k);
        });

    // --- kernel (for tests and analysis) -------------------------------------------------
    m.def("kernel_value", [](double r, double h, int dim) {
        return dim == 2 ? kernel::value<2>(r, h) : kernel::value<3>(r, h);
    }, py::arg("r"), py::arg("h"), py::arg("dim"));
}
