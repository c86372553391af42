// Bindings: shapes (signed distances in m, angles in degrees; geometry/shapes.hpp), lattice
// fills (geometry/lattice.hpp) and prescribed motion (geometry/kinematics.hpp).
#include <pybind11/stl.h>

#include "bindings.hpp"
#include "convert.hpp"

namespace regosph::python {

namespace {

void bind_shapes(py::module_& m) {
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
}

void bind_fills(py::module_& m) {
    using geometry::ShapePtr;
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
}

void bind_kinematics(py::module_& m) {
    py::class_<geometry::Kinematics>(m, "Kinematics")
        .def(py::init([](const py::object& translation, std::optional<double> rpm,
                         std::optional<double> angular_velocity, const py::object& pivot,
                         const py::object& axis) {
                 geometry::Kinematics k;
                 k.angular_velocity = geometry::rotation_rate(rpm, angular_velocity);
                 k.pivot = to_vec3(pivot, "kinematics: pivot");
                 k.axis = to_vec3(axis, "kinematics: axis");
                 k.translation = to_translation(translation);
                 return k;
             }),
             py::kw_only(), py::arg("translation") = py::list(),
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
}

}  // namespace

void bind_geometry(py::module_& m) {
    bind_shapes(m);
    bind_fills(m);
    bind_kinematics(m);
}

}  // namespace regosph::python
