// Rigid bodies that need no SPH particles and have a true shape (issue 48): a sphere, an
// ellipsoid or a closed triangle mesh, each with
//  - its mass properties (mass, centre, inertia) from the shape and a density, or given;
//  - surface nodes (points with the surface area each stands for) in the body frame, and
//  - a level set (signed distance in the body frame, negative inside, with its gradient),
// which is what level-set DEM (Kawamoto et al. 2016, J. Mech. Phys. Solids 91, 1) needs:
// nodes of one body are tested against the level set of the other (shape_contact.hpp).
//
// Frames: the body frame has its origin at the centre of mass; a mesh is moved there when the
// body is made. Orientation, velocities and the integrator are in shape_system.hpp.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "geometry/rigid_body.hpp"
#include "geometry/triangle_mesh.hpp"
#include "geometry/vector_ops.hpp"

namespace regosph::geometry {

// Mass properties of a uniform solid bounded by a closed, outward-oriented mesh of density
// rho [kg/m^3], exact for the polyhedron: signed tetrahedra from the origin, each with
// int x x^T dV = det/120 (S S^T + a a^T + b b^T + c c^T), S = a + b + c (a, b, c its corners).
MassProperties polyhedron_mass_properties(const ClosedMesh& mesh, double density_kg_m3);

// A unit-sphere triangulation: the icosahedron with each face split into 4^level triangles and
// its vertices pushed onto the sphere (10 * 4^level + 2 vertices), outward oriented.
struct SurfaceMesh {
    std::vector<Point> vertices;
    std::vector<std::array<std::int64_t, 3>> triangles;
};
SurfaceMesh icosphere(int level);

// Surface nodes: every vertex with a third of the area of its triangles [m^2].
struct SurfaceNodes {
    std::vector<vec::V> x_m;      // body frame
    std::vector<double> area_m2;
};
SurfaceNodes vertex_nodes(const std::vector<Point>& vertices, const std::vector<Triangle>& triangles);

// Signed distance [m] sampled on a regular grid and interpolated trilinearly (Kawamoto et al.
// 2016 store the level set of each grain this way): cheap to query, and its gradient is that
// of the interpolant. Outside the grid the value is +infinity (no contact there).
class GridLevelSet {
public:
    GridLevelSet(const Shape& shape, const BoundingBox& box, double spacing_m);
    // phi [m] at p (body frame); grad receives d phi / d p (not normalised).
    double value(const vec::V& p, vec::V& grad) const;
    double spacing_m() const { return h_; }

private:
    vec::V origin_{};
    std::array<int, 3> n_{};
    double h_ = 0.0;
    std::vector<float> phi_;
};

enum class ShapeKind { sphere, ellipsoid, mesh };

// A body's shape in its own frame (origin at the centre of mass, axes as given: the ellipsoid's
// semi-axes along x, y, z).
struct BodyShape {
    ShapeKind kind = ShapeKind::sphere;
    vec::V semi_axes_m{};   // sphere: radius in [0]; ellipsoid: a, b, c
    std::shared_ptr<const GridLevelSet> grid;  // mesh only
    SurfaceNodes nodes;
    double bounding_radius_m = 0.0;  // every surface point lies within it
};

// phi [m] (negative inside) and the unit outward normal at p (body frame). The sphere's is
// exact; the ellipsoid's is F / |grad F| with F = |p / a|^2 - 1 scaled to a distance, exact on
// the surface and to first order in the depth (contacts probe only overlaps << the semi-axes);
// the mesh's is the grid's.
double level_set(const BodyShape& s, const vec::V& p, vec::V& normal);

struct ShapeBody {
    BodyShape shape;
    double mass_kg = 0.0;
    Mat3 inertia_kg_m2{};      // body frame, about the centre
    Mat3 inverse_inertia{};    // its inverse [1/(kg m^2)]
    vec::V x_m{};              // centre of mass, world frame
    Quaternion q{1.0, 0.0, 0.0, 0.0};  // body to world (w, x, y, z)
    vec::V v_m_s{};
    vec::V angular_momentum{}; // world frame, about the centre [kg m^2/s]
    bool fixed = false;        // an immovable body (infinite mass)
};

// omega = R I^-1 R^T L [rad/s] (world frame).
vec::V angular_velocity(const ShapeBody& b);
// Sets L from an angular velocity [rad/s] (world frame) at the current orientation.
void set_angular_velocity(ShapeBody& b, const vec::V& omega_rad_s);
// Translational and rotational kinetic energy [J].
double translational_energy_J(const ShapeBody& b);
double rotational_energy_J(const ShapeBody& b);

// Bodies from shapes. `nodes` asks for about that many surface nodes (spheres, ellipsoids: the
// icosphere level that reaches it). A mesh body's density follows from `mass_kg` and its
// volume; its frame is the mesh frame translated to the centroid (not rotated: give the mesh
// in its principal axes when the inertia should be diagonal). Bad input: std::invalid_argument
// naming the field.
ShapeBody make_sphere_body(double radius_m, double density_kg_m3, int nodes);
ShapeBody make_ellipsoid_body(const vec::V& semi_axes_m, double density_kg_m3, int nodes);
ShapeBody make_mesh_body(const std::string& name, const std::vector<Point>& vertices,
                         const std::vector<std::array<std::int64_t, 3>>& triangles, double mass_kg,
                         double grid_spacing_m);

}  // namespace regosph::geometry
