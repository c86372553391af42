// Conversions between Python objects and the C++ types of the core, shared by the binding
// files. Each names the offending argument (`field`) in its errors.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <array>
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "geometry/kinematics.hpp"
#include "geometry/lattice.hpp"
#include "geometry/rigid_body.hpp"
#include "geometry/shapes.hpp"
#include "sph/simulation.hpp"

namespace regosph::python {

namespace py = pybind11;
using DoubleArray = py::array_t<double, py::array::c_style | py::array::forcecast>;

// A point or vector given as 2 or 3 numbers; a 2-vector gets z = 0.
geometry::Vec3 to_vec3(const py::handle& obj, const std::string& field);
// 2 numbers (a point or vector in the x-y plane).
std::array<double, 2> to_vec2(const py::handle& obj, const std::string& field);
// A point of a dim-dimensional run: (x, y) or (x, y, z) in 2D (z is then 0 or ignored),
// (x, y, z) in 3D. The error says what the run needs and what it got.
geometry::Point to_point(const py::handle& obj, int dim, const std::string& field);

// (N, dim) float array -> points; z = 0 for 2D input. A 2D run also takes (N, 3) with z = 0
// (never drops a non-zero z); a 3D run needs all three coordinates.
std::vector<geometry::Point> to_points(const DoubleArray& a, int dim, const std::string& field);
// Points -> (N, dim) array.
py::array_t<double> points_array(const std::vector<geometry::Point>& pts, int dim);

// "(3, 4)": the shape of an array as NumPy writes it, for errors.
std::string shape_text(const py::array& a);

// The index of a material of `sim`: an int (checked by the core), or a Material object that was
// added with add_material (same name and parameters). Throws TypeError for other objects and
// ValueError for a Material that was not added, each naming `field` and saying what to pass.
int to_material_index(const Simulation& sim, const py::handle& material, const std::string& field);

// run(metadata=...) -> {key: value}; every key and value must be a str (TypeError naming the key).
std::map<std::string, std::string> to_metadata(const py::handle& metadata);

// [(time [s], value), ...] -> (time, value) pairs; `entry` names an entry in errors (with its
// index appended), `shape` says what each entry should be.
std::vector<std::pair<double, py::object>> to_timed(const py::object& entries, const std::string& entry,
                                                    const std::string& shape);
// [(until [s], velocity [m/s]), ...] -> the translation schedule of a Kinematics.
std::vector<geometry::VelocitySegment> to_translation(const py::object& segments);
// [(time [s], rate), ...] -> a rate schedule [rad/s]; rates in rev/min when `rpm`, else rad/s.
geometry::PiecewiseLinear<1> to_rate_schedule(const py::object& knots, bool rpm);
// [(time [s], velocity [m/s] (2 or 3 numbers)), ...] -> a velocity ramp.
geometry::PiecewiseLinear<3> to_velocity_ramp(const py::object& knots);
// A force or torque of a rigid body: None (zero), a constant vector (2 or 3 numbers; a torque
// in 2D may be one number, about z) or a schedule [(time [s], vector), ...] interpolated
// linearly in time.
geometry::VectorSchedule to_schedule(const py::object& obj, bool torque, const std::string& field);
// An inertia tensor [kg m^2]: a 3x3 matrix, 3 principal moments (diagonal), or in 2D one
// number (I_zz, per metre of depth).
geometry::Mat3 to_inertia(const py::object& obj, const std::string& field);
// Wall friction of a boundary body: "no-slip" (-1), "free-slip" (0) or a Coulomb coefficient
// mu_w >= 0.
double to_wall_friction(const py::object& obj, const std::string& field);
// An on/off option: Python's True or False (or a NumPy bool), nothing else (1 or "yes" would
// hide a mistyped value).
bool to_flag(const py::object& obj, const std::string& field);
// [(x, y), ...] -> polygon vertices [m].
std::vector<std::array<double, 2>> to_vertices(const py::object& obj);
// [(shape, spacing), ...] from Python, each entry checked.
std::vector<geometry::Zone> to_zones(const py::object& zones);
// None -> the shape's default lattice, else by name.
geometry::Lattice to_lattice(const std::optional<std::string>& name);

template <class T>
py::array_t<T> copy_vector(const std::vector<T>& v) {
    py::array_t<T> out(static_cast<py::ssize_t>(v.size()));
    std::copy(v.begin(), v.end(), out.mutable_data());
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

// Copy of an (N, k) array into structure-of-arrays components; N must match, entries finite.
template <std::size_t K>
void unstack(std::array<std::vector<double>, K>& c, int k, const DoubleArray& a,
             const std::string& field) {
    const auto n = static_cast<py::ssize_t>(c[0].size());
    if (a.ndim() != 2 || a.shape(0) != n || a.shape(1) != k)
        throw std::invalid_argument(field + ": expected an array of shape (" + std::to_string(n) +
                                    ", " + std::to_string(k) + "), got shape " + shape_text(a));
    const auto r = a.unchecked<2>();
    for (py::ssize_t i = 0; i < n; ++i)
        for (int d = 0; d < k; ++d) {
            if (!std::isfinite(r(i, d)))
                throw std::invalid_argument(field + ": entry (" + std::to_string(i) + ", " +
                                            std::to_string(d) + ") is not finite");
            c[d][i] = r(i, d);
        }
}

// Copy of an (N,) array into a scalar field; N must match. The scalar fields settable from
// Python (the density) are positive quantities, so every entry must be finite and > 0.
inline void unstack_positive(std::vector<double>& c, const DoubleArray& a, const std::string& field) {
    const auto n = static_cast<py::ssize_t>(c.size());
    if (a.ndim() != 1 || a.shape(0) != n)
        throw std::invalid_argument(field + ": expected an array of shape (" + std::to_string(n) +
                                    ",), got shape " + shape_text(a));
    const auto r = a.unchecked<1>();
    for (py::ssize_t i = 0; i < n; ++i) {
        if (!(std::isfinite(r(i)) && r(i) > 0.0))
            throw std::invalid_argument(field + ": entry " + std::to_string(i) + " = " +
                                        std::to_string(r(i)) + " must be positive and finite");
        c[i] = r(i);
    }
}

// Applies f to one point (2 or 3 numbers) or to every row of an (N, 2|3) array; returns a
// scalar or an (N,) array.
template <class T, class F>
py::object per_point(const geometry::Shape& s, const py::object& points, F f) {
    const auto a = DoubleArray::ensure(points);
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

}  // namespace regosph::python
