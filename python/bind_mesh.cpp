// pybind11 bindings of closed triangle meshes (geometry/triangle_mesh.hpp): the TriangleMesh
// shape and triangle_mesh(vertices, triangles). Files are read in Python (regosph/mesh.py,
// with meshio), which passes the arrays here.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <stdexcept>
#include <string>

#include "bindings.hpp"
#include "convert.hpp"
#include "geometry/triangle_mesh.hpp"

namespace regosph::python {

namespace {

using IndexArray = py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>;

// An (N, 3) array from Python, `field` naming it in errors.
template <class Array>
Array rows_of_three(const py::object& obj, const std::string& where, const std::string& field) {
    const Array a = Array::ensure(obj);
    if (!a || a.ndim() != 2 || a.shape(1) != 3)
        throw std::invalid_argument(where + ": " + field + ": expected an (N, 3) array");
    return a;
}

std::shared_ptr<geometry::TriangleMesh> make_mesh(const py::object& vertices, const py::object& triangles,
                                                  const std::string& name) {
    const std::string where = name.empty() ? std::string("triangle mesh") : name;
    // Indices must be whole numbers: a float array would be truncated silently by forcecast.
    const auto index_kind = py::array::ensure(triangles);
    if (index_kind && index_kind.dtype().kind() != 'i' && index_kind.dtype().kind() != 'u' && index_kind.size() > 0)
        throw std::invalid_argument(where + ": triangles: expected integer vertex indices");
    const DoubleArray v = rows_of_three<DoubleArray>(vertices, where, "vertices [m]");
    const IndexArray t = rows_of_three<IndexArray>(triangles, where, "triangles");
    std::vector<geometry::Point> points(static_cast<std::size_t>(v.shape(0)));
    const auto rv = v.unchecked<2>();
    for (py::ssize_t i = 0; i < v.shape(0); ++i) points[i] = {rv(i, 0), rv(i, 1), rv(i, 2)};
    std::vector<std::array<std::int64_t, 3>> tris(static_cast<std::size_t>(t.shape(0)));
    const auto rt = t.unchecked<2>();
    for (py::ssize_t i = 0; i < t.shape(0); ++i) tris[i] = {rt(i, 0), rt(i, 1), rt(i, 2)};
    py::gil_scoped_release release;
    return geometry::triangle_mesh(where, points, tris);
}

}  // namespace

void bind_mesh(py::module_& m) {
    using geometry::TriangleMesh;
    py::class_<TriangleMesh, geometry::Shape, std::shared_ptr<TriangleMesh>>(
        m, "TriangleMesh",
        "A closed triangle mesh as a 3D shape: contains by the winding number, signed_distance to "
        "the nearest triangle [m]. Build with triangle_mesh() or read_mesh().")
        .def_property_readonly("name", [](const TriangleMesh& s) { return s.mesh().name; })
        .def_property_readonly("volume", [](const TriangleMesh& s) { return s.mesh().volume; },
                               "Enclosed volume [m^3].")
        .def_property_readonly("area", [](const TriangleMesh& s) { return s.mesh().area; }, "Surface area [m^2].")
        .def_property_readonly("triangle_count", [](const TriangleMesh& s) { return s.mesh().triangles.size(); })
        .def_property_readonly("vertex_count", [](const TriangleMesh& s) { return s.mesh().vertices.size(); },
                               "Vertices after merging coincident ones.")
        .def_property_readonly("reoriented", [](const TriangleMesh& s) { return s.mesh().reoriented; },
                               "True when the input faced inward and was turned round.")
        .def("winding_number",
             [](const TriangleMesh& s, const py::object& p) {
                 const DoubleArray a = DoubleArray::ensure(p);
                 if (!a || a.ndim() != 1 || a.shape(0) != 3)
                     throw std::invalid_argument("winding_number: expected a point (x, y, z) in m");
                 return s.winding_number({a.at(0), a.at(1), a.at(2)});
             },
             py::arg("point"), "Signed number of times the surface winds around the point (1 inside).");
    m.def("triangle_mesh", &make_mesh, py::arg("vertices"), py::arg("triangles"), py::kw_only(),
          py::arg("name") = std::string("triangle mesh"),
          "A closed mesh from vertices (N, 3) [m] and triangles (M, 3) of vertex indices. "
          "Coincident vertices are merged; the mesh must be closed (every edge shared by two "
          "triangles) and consistently oriented, with no zero-area triangle, else ValueError "
          "naming `name`. A mesh facing inward is turned round (reoriented = True).");
}

}  // namespace regosph::python
