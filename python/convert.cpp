#include "convert.hpp"

#include <pybind11/stl.h>

#include "core/units.hpp"
#include "io/json.hpp"

namespace regosph::python {

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

geometry::Point to_point(const py::handle& obj, int dim, const std::string& field) {
    const std::string needs = dim == 2 ? "2 numbers (x, y) in m for a 2D simulation"
                                       : "3 numbers (x, y, z) in m for a 3D simulation";
    std::vector<double> v;
    try {
        v = obj.cast<std::vector<double>>();
    } catch (const py::cast_error&) {
        throw std::invalid_argument(field + ": expected " + needs + ", got " +
                                    py::repr(obj).cast<std::string>());
    }
    if (v.size() != static_cast<std::size_t>(dim) && !(dim == 2 && v.size() == 3))
        throw std::invalid_argument(field + ": expected " + needs + ", got " +
                                    std::to_string(v.size()) + " number" + (v.size() == 1 ? "" : "s"));
    return {v[0], v[1], v.size() == 3 ? v[2] : 0.0};
}

std::vector<geometry::Point> to_points(const DoubleArray& a, int dim, const std::string& field) {
    const std::string expected = dim == 2 ? "an (N, 2) array" : "an (N, 3) array";
    if (a.ndim() != 2 || a.shape(1) < dim || a.shape(1) > 3)
        throw std::invalid_argument(field + ": expected " + expected + " of positions in m for a " +
                                    std::to_string(dim) + "D simulation, got shape " + shape_text(a));
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

std::string shape_text(const py::array& a) {
    std::string text = "(";
    for (py::ssize_t d = 0; d < a.ndim(); ++d)
        text += (d ? ", " : "") + std::to_string(a.shape(d));
    return text + (a.ndim() == 1 ? ",)" : ")");
}

namespace {
// "str 'soil'": the Python type and repr of an object, for errors.
std::string type_and_repr(const py::handle& obj) {
    return std::string(py::str(obj.get_type().attr("__name__"))) + " " +
           std::string(py::repr(obj));
}
}  // namespace

int to_material_index(const Simulation& sim, const py::handle& material, const std::string& field) {
    if (py::isinstance<Material>(material)) {
        const auto& m = material.cast<const Material&>();
        const auto& added = sim.materials();
        for (std::size_t k = 0; k < added.size(); ++k) {
            if (added[k].name != m.name) continue;
            if (io::describe_material(added[k]) != io::describe_material(m))
                throw std::invalid_argument(
                    field + ": Material '" + m.name + "' differs from the material of that name " +
                    "added as index " + std::to_string(k) + "; pass that index, or give the new " +
                    "material another name and add it with sim.add_material(...)");
            return static_cast<int>(k);
        }
        throw std::invalid_argument(field + ": Material '" + m.name +
                                    "' has not been added to this simulation; pass the index "
                                    "that sim.add_material(material) returns");
    }
    try {
        return material.cast<int>();
    } catch (const py::cast_error&) {
        throw py::type_error(field + ": expected the index that sim.add_material(...) returned "
                             "(an int) or an added Material, got " + type_and_repr(material));
    }
}

std::map<std::string, std::string> to_metadata(const py::handle& metadata) {
    if (!py::isinstance<py::dict>(metadata))
        throw py::type_error("metadata: expected a dict of str keys and str values, got " +
                             type_and_repr(metadata));
    std::map<std::string, std::string> out;
    for (const auto& [key, value] : metadata.cast<py::dict>()) {
        if (!py::isinstance<py::str>(key))
            throw py::type_error("metadata: key " + type_and_repr(key) +
                                 " must be a str; convert it with str(...)");
        const std::string name = key.cast<std::string>();
        if (!py::isinstance<py::str>(value))
            throw py::type_error("metadata['" + name + "']: expected a str, got " +
                                 type_and_repr(value) + "; convert it with str(...) (run.json and "
                                 "snapshot attributes store metadata as text)");
        out[name] = value.cast<std::string>();
    }
    return out;
}

std::vector<std::pair<double, py::object>> to_timed(const py::object& entries, const std::string& entry,
                                                    const std::string& shape) {
    std::vector<std::pair<double, py::object>> out;
    std::size_t i = 0;
    for (const py::handle e : entries) {
        const std::string where = entry + " " + std::to_string(i++);
        if (!py::isinstance<py::sequence>(e) || py::isinstance<py::str>(e) || py::len(e) != 2)
            throw std::invalid_argument(where + ": expected " + shape);
        const auto pair = py::reinterpret_borrow<py::sequence>(e);
        double time = 0.0;
        try {
            time = pair[0].cast<double>();
        } catch (const py::cast_error&) {
            throw std::invalid_argument(where + ": the time must be a number");
        }
        out.emplace_back(time, py::reinterpret_borrow<py::object>(pair[1]));
    }
    return out;
}

std::vector<geometry::VelocitySegment> to_translation(const py::object& segments) {
    const std::string entry = "kinematics: translation segment";
    std::vector<geometry::VelocitySegment> out;
    for (const auto& [until, velocity] : to_timed(segments, entry, "(until [s], velocity [m/s])"))
        out.push_back({until, to_vec3(velocity, entry + " " + std::to_string(out.size()) + ": velocity")});
    return out;
}

geometry::PiecewiseLinear<1> to_rate_schedule(const py::object& knots, bool rpm) {
    const std::string entry = std::string("kinematics: ") + (rpm ? "rpm_schedule" : "angular_velocity_schedule") + " knot";
    geometry::PiecewiseLinear<1> out;
    for (const auto& [time, value] : to_timed(knots, entry, rpm ? "(time [s], rpm [rev/min])" : "(time [s], rate [rad/s])")) {
        double rate = 0.0;
        try {
            rate = value.cast<double>();
        } catch (const py::cast_error&) {
            throw std::invalid_argument(entry + " " + std::to_string(out.knots.size()) + ": the rate must be a number");
        }
        out.knots.push_back({time, {rpm ? rpm_to_radians_per_second(rate) : rate}});
    }
    return out;
}

geometry::PiecewiseLinear<3> to_velocity_ramp(const py::object& knots) {
    const std::string entry = "kinematics: velocity_ramp knot";
    geometry::PiecewiseLinear<3> out;
    for (const auto& [time, velocity] : to_timed(knots, entry, "(time [s], velocity [m/s])"))
        out.knots.push_back({time, to_vec3(velocity, entry + " " + std::to_string(out.knots.size()) + ": velocity")});
    return out;
}

namespace {
// A vector of a force or torque: 2 or 3 numbers, or for a torque one number (about z).
geometry::Vec3 to_load_vector(const py::handle& obj, bool torque, const std::string& field) {
    if (torque && py::isinstance<py::float_>(obj)) return {0.0, 0.0, obj.cast<double>()};
    if (torque && py::isinstance<py::int_>(obj)) return {0.0, 0.0, obj.cast<double>()};
    return to_vec3(obj, field);
}
}  // namespace

geometry::VectorSchedule to_schedule(const py::object& obj, bool torque, const std::string& field) {
    geometry::VectorSchedule s;
    if (obj.is_none()) return s;
    // A schedule is a sequence of (time, value) pairs; a constant is a vector of numbers.
    const bool is_schedule = py::isinstance<py::sequence>(obj) && py::len(obj) > 0 &&
                             py::isinstance<py::sequence>(obj.cast<py::sequence>()[0]);
    if (!is_schedule) {
        s.knots = {{0.0, to_load_vector(obj, torque, field)}};
        return s;
    }
    for (const auto& [time, value] : to_timed(obj, field + ": schedule entry", "(time [s], value)")) {
        const std::string entry = field + ": schedule entry " + std::to_string(s.knots.size());
        s.knots.push_back({time, to_load_vector(value, torque, entry)});
    }
    return s;
}

geometry::Mat3 to_inertia(const py::object& obj, const std::string& field) {
    if (py::isinstance<py::float_>(obj) || py::isinstance<py::int_>(obj)) {
        geometry::Mat3 m{};
        m[8] = obj.cast<double>();
        return m;
    }
    const auto a = DoubleArray::ensure(obj);
    if (a && a.ndim() == 1 && a.shape(0) == 3) return {a.at(0), 0, 0, 0, a.at(1), 0, 0, 0, a.at(2)};
    if (a && a.ndim() == 2 && a.shape(0) == 3 && a.shape(1) == 3) {
        geometry::Mat3 m;
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) m[3 * i + j] = a.at(i, j);
        return m;
    }
    throw std::invalid_argument(field + ": expected a 3x3 tensor, 3 principal moments or (2D) "
                                "one number I_zz, in kg m^2");
}

double to_wall_friction(const py::object& obj, const std::string& field) {
    if (py::isinstance<py::str>(obj)) {
        const std::string s = obj.cast<std::string>();
        if (s == "no-slip") return -1.0;
        if (s == "free-slip") return 0.0;
        throw std::invalid_argument(field + ": '" + s +
                                    "' is not 'no-slip', 'free-slip' or a Coulomb coefficient >= 0");
    }
    double mu = 0.0;
    try {
        mu = obj.cast<double>();
    } catch (const py::cast_error&) {
        throw std::invalid_argument(field + ": expected 'no-slip', 'free-slip' or a number >= 0");
    }
    if (!(std::isfinite(mu) && mu >= 0.0))
        throw std::invalid_argument(field + ": Coulomb coefficient " + std::to_string(mu) +
                                    " must be a finite number >= 0");
    return mu;
}

bool to_flag(const py::object& obj, const std::string& field) {
    if (py::isinstance<py::bool_>(obj) ||
        py::str(py::type::of(obj).attr("__name__")).cast<std::string>() == "bool_")
        return obj.cast<bool>();
    throw std::invalid_argument(field + " = " + py::repr(obj).cast<std::string>() +
                                " must be True or False");
}

std::vector<std::array<double, 2>> to_vertices(const py::object& obj) {
    const auto a = DoubleArray::ensure(obj);
    if (!a || a.ndim() != 2 || a.shape(1) != 2) {
        const py::ssize_t n = a && a.ndim() >= 1 ? a.shape(0) : 0;
        throw std::invalid_argument("polygon: vertices: expected a list of (x, y) pairs in m" +
                                    (a && a.ndim() == 1 ? ", got " + std::to_string(n) + " numbers" : std::string()));
    }
    std::vector<std::array<double, 2>> v(static_cast<std::size_t>(a.shape(0)));
    for (py::ssize_t i = 0; i < a.shape(0); ++i) v[i] = {a.at(i, 0), a.at(i, 1)};
    return v;
}

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

geometry::Lattice to_lattice(const std::optional<std::string>& name) {
    return name ? geometry::parse_lattice(*name) : geometry::Lattice::automatic;
}

}  // namespace regosph::python
