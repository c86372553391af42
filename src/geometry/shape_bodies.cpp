#include "geometry/shape_bodies.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numbers>
#include <stdexcept>

#include "core/eigen.hpp"

namespace regosph::geometry {

namespace {

using RowMajor3 = Eigen::Matrix<double, 3, 3, Eigen::RowMajor>;

Eigen::Vector3d to_eigen(const Point& p) { return {p[0], p[1], p[2]}; }

void set_inertia(ShapeBody& b, const Mat3& inertia) {
    b.inertia_kg_m2 = inertia;
    Eigen::Map<RowMajor3>(b.inverse_inertia.data()) = Eigen::Map<const RowMajor3>(inertia.data()).inverse();
}

int icosphere_level(int nodes) {
    if (nodes < 12) throw std::invalid_argument("nodes must be >= 12 (the icosahedron's vertices)");
    int level = 0;
    while (10 * (1 << (2 * level)) + 2 < nodes && level < 8) ++level;
    return level;
}

std::vector<Triangle> to_triangles(const std::vector<std::array<std::int64_t, 3>>& t) {
    std::vector<Triangle> out;
    out.reserve(t.size());
    for (const auto& f : t)
        out.push_back({static_cast<std::uint32_t>(f[0]), static_cast<std::uint32_t>(f[1]),
                       static_cast<std::uint32_t>(f[2])});
    return out;
}

// The icosphere scaled by the semi-axes: nodes and bounding radius of a sphere or ellipsoid.
void ellipsoid_surface(BodyShape& s, int nodes) {
    SurfaceMesh m = icosphere(icosphere_level(nodes));
    for (Point& p : m.vertices)
        for (int k = 0; k < 3; ++k) p[k] *= s.semi_axes_m[k];
    s.nodes = vertex_nodes(m.vertices, to_triangles(m.triangles));
    s.bounding_radius_m = *std::max_element(s.semi_axes_m.begin(), s.semi_axes_m.end());
}

}  // namespace

MassProperties polyhedron_mass_properties(const ClosedMesh& mesh, double density_kg_m3) {
    double volume = 0.0;
    Eigen::Vector3d first = Eigen::Vector3d::Zero();
    Eigen::Matrix3d second = Eigen::Matrix3d::Zero();
    for (const Triangle& t : mesh.triangles) {
        const Eigen::Vector3d a = to_eigen(mesh.vertices[t[0]]), b = to_eigen(mesh.vertices[t[1]]),
                              c = to_eigen(mesh.vertices[t[2]]);
        const double det = a.dot(b.cross(c));
        const Eigen::Vector3d s = a + b + c;
        volume += det / 6.0;
        first += det / 24.0 * s;
        second += det / 120.0 * (s * s.transpose() + a * a.transpose() + b * b.transpose() + c * c.transpose());
    }
    if (!(volume > 0.0)) throw std::invalid_argument(mesh.name + ": enclosed volume must be positive");
    const Eigen::Vector3d centre = first / volume;
    const Eigen::Matrix3d central = second - volume * centre * centre.transpose();
    MassProperties p;
    p.mass = density_kg_m3 * volume;
    p.centre = {centre(0), centre(1), centre(2)};
    Eigen::Map<RowMajor3>(p.inertia.data()) = density_kg_m3 * (central.trace() * Eigen::Matrix3d::Identity() - central);
    return p;
}

SurfaceMesh icosphere(int level) {
    const double g = (1.0 + std::sqrt(5.0)) / 2.0;
    SurfaceMesh m;
    m.vertices = {{-1, g, 0}, {1, g, 0}, {-1, -g, 0}, {1, -g, 0}, {0, -1, g}, {0, 1, g},
                  {0, -1, -g}, {0, 1, -g}, {g, 0, -1}, {g, 0, 1}, {-g, 0, -1}, {-g, 0, 1}};
    m.triangles = {{0, 11, 5}, {0, 5, 1}, {0, 1, 7}, {0, 7, 10}, {0, 10, 11}, {1, 5, 9}, {5, 11, 4},
                   {11, 10, 2}, {10, 7, 6}, {7, 1, 8}, {3, 9, 4}, {3, 4, 2}, {3, 2, 6}, {3, 6, 8},
                   {3, 8, 9}, {4, 9, 5}, {2, 4, 11}, {6, 2, 10}, {8, 6, 7}, {9, 8, 1}};
    auto unit = [](Point p) {
        const double n = std::sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
        return Point{p[0] / n, p[1] / n, p[2] / n};
    };
    for (Point& p : m.vertices) p = unit(p);
    for (int l = 0; l < level; ++l) {
        std::map<std::pair<std::int64_t, std::int64_t>, std::int64_t> midpoint;
        auto middle = [&](std::int64_t i, std::int64_t j) {
            const auto key = std::minmax(i, j);
            auto it = midpoint.find(key);
            if (it != midpoint.end()) return it->second;
            const Point& a = m.vertices[i];
            const Point& b = m.vertices[j];
            m.vertices.push_back(unit({a[0] + b[0], a[1] + b[1], a[2] + b[2]}));
            const std::int64_t k = static_cast<std::int64_t>(m.vertices.size()) - 1;
            midpoint.emplace(key, k);
            return k;
        };
        std::vector<std::array<std::int64_t, 3>> next;
        for (const auto& t : m.triangles) {
            const std::int64_t ab = middle(t[0], t[1]), bc = middle(t[1], t[2]), ca = middle(t[2], t[0]);
            next.insert(next.end(), {{t[0], ab, ca}, {t[1], bc, ab}, {t[2], ca, bc}, {ab, bc, ca}});
        }
        m.triangles = std::move(next);
    }
    return m;
}

SurfaceNodes vertex_nodes(const std::vector<Point>& vertices, const std::vector<Triangle>& triangles) {
    SurfaceNodes n;
    n.area_m2.assign(vertices.size(), 0.0);
    for (const Triangle& t : triangles) {
        const vec::V ab = vec::sub(vertices[t[1]], vertices[t[0]]);
        const vec::V ac = vec::sub(vertices[t[2]], vertices[t[0]]);
        const double third = vec::norm(vec::cross(ab, ac)) / 6.0;
        for (std::uint32_t v : t) n.area_m2[v] += third;
    }
    n.x_m = vertices;
    return n;
}

GridLevelSet::GridLevelSet(const Shape& shape, const BoundingBox& box, double spacing_m) : h_(spacing_m) {
    if (!(spacing_m > 0.0)) throw std::invalid_argument("grid_spacing_m must be > 0");
    // Two cells of margin: a node approaching from outside meets a finite level set first.
    for (int k = 0; k < 3; ++k) {
        origin_[k] = box.lo[k] - 2.0 * h_;
        n_[k] = static_cast<int>(std::ceil((box.hi[k] - box.lo[k]) / h_)) + 5;
    }
    phi_.resize(static_cast<std::size_t>(n_[0]) * n_[1] * n_[2]);
#pragma omp parallel for schedule(dynamic)
    for (int k = 0; k < n_[2]; ++k)
        for (int j = 0; j < n_[1]; ++j)
            for (int i = 0; i < n_[0]; ++i) {
                const Point p{origin_[0] + i * h_, origin_[1] + j * h_, origin_[2] + k * h_};
                phi_[(static_cast<std::size_t>(k) * n_[1] + j) * n_[0] + i] =
                    static_cast<float>(shape.signed_distance(p));
            }
}

double GridLevelSet::value(const vec::V& p, vec::V& grad) const {
    std::array<int, 3> c{};
    std::array<double, 3> f{};
    for (int k = 0; k < 3; ++k) {
        const double u = (p[k] - origin_[k]) / h_;
        c[k] = static_cast<int>(std::floor(u));
        if (c[k] < 0 || c[k] >= n_[k] - 1) return std::numeric_limits<double>::infinity();
        f[k] = u - c[k];
    }
    auto at = [this, &c](int di, int dj, int dk) {
        return static_cast<double>(phi_[(static_cast<std::size_t>(c[2] + dk) * n_[1] + c[1] + dj) * n_[0] + c[0] + di]);
    };
    double v = 0.0;
    grad = {0.0, 0.0, 0.0};
    for (int dk = 0; dk < 2; ++dk)
        for (int dj = 0; dj < 2; ++dj)
            for (int di = 0; di < 2; ++di) {
                const double wx = di ? f[0] : 1.0 - f[0], wy = dj ? f[1] : 1.0 - f[1], wz = dk ? f[2] : 1.0 - f[2];
                const double s = at(di, dj, dk);
                v += wx * wy * wz * s;
                grad[0] += (di ? 1.0 : -1.0) * wy * wz * s / h_;
                grad[1] += (dj ? 1.0 : -1.0) * wx * wz * s / h_;
                grad[2] += (dk ? 1.0 : -1.0) * wx * wy * s / h_;
            }
    return v;
}

double level_set(const BodyShape& s, const vec::V& p, vec::V& normal) {
    if (s.kind == ShapeKind::sphere) {
        const double r = vec::norm(p);
        normal = r > 0.0 ? vec::V{p[0] / r, p[1] / r, p[2] / r} : vec::V{0.0, 0.0, 1.0};
        return r - s.semi_axes_m[0];
    }
    vec::V g{};
    double phi;
    if (s.kind == ShapeKind::ellipsoid) {
        // r = |p / a|; phi = (r - 1) / |grad r|, grad r = (p / a^2) / r.
        const vec::V& a = s.semi_axes_m;
        const vec::V q{p[0] / a[0], p[1] / a[1], p[2] / a[2]};
        const double r = vec::norm(q);
        if (!(r > 0.0)) {
            normal = {0.0, 0.0, 1.0};
            return -*std::min_element(a.begin(), a.end());
        }
        g = {q[0] / a[0] / r, q[1] / a[1] / r, q[2] / a[2] / r};
        phi = (r - 1.0) / vec::norm(g);
    } else {
        phi = s.grid->value(p, g);
    }
    const double gn = vec::norm(g);
    normal = gn > 0.0 ? vec::V{g[0] / gn, g[1] / gn, g[2] / gn} : vec::V{0.0, 0.0, 1.0};
    return phi;
}

vec::V angular_velocity(const ShapeBody& b) {
    const Mat3 R = rotation_matrix(b.q);
    return rotate(R, rotate(b.inverse_inertia, rotate_back(R, b.angular_momentum)));
}

void set_angular_velocity(ShapeBody& b, const vec::V& omega_rad_s) {
    const Mat3 R = rotation_matrix(b.q);
    b.angular_momentum = rotate(R, rotate(b.inertia_kg_m2, rotate_back(R, omega_rad_s)));
}

double translational_energy_J(const ShapeBody& b) { return 0.5 * b.mass_kg * vec::dot(b.v_m_s, b.v_m_s); }

double rotational_energy_J(const ShapeBody& b) { return 0.5 * vec::dot(b.angular_momentum, angular_velocity(b)); }

ShapeBody make_sphere_body(double radius_m, double density_kg_m3, int nodes) {
    if (!(radius_m > 0.0)) throw std::invalid_argument("sphere radius_m must be > 0");
    if (!(density_kg_m3 > 0.0)) throw std::invalid_argument("sphere density_kg_m3 must be > 0");
    ShapeBody b;
    b.shape.kind = ShapeKind::sphere;
    b.shape.semi_axes_m = {radius_m, radius_m, radius_m};
    ellipsoid_surface(b.shape, nodes);
    b.mass_kg = 4.0 / 3.0 * std::numbers::pi * radius_m * radius_m * radius_m * density_kg_m3;
    const double i = 0.4 * b.mass_kg * radius_m * radius_m;
    set_inertia(b, {i, 0, 0, 0, i, 0, 0, 0, i});
    return b;
}

ShapeBody make_ellipsoid_body(const vec::V& semi_axes_m, double density_kg_m3, int nodes) {
    for (double a : semi_axes_m)
        if (!(a > 0.0)) throw std::invalid_argument("ellipsoid semi_axes_m must all be > 0");
    if (!(density_kg_m3 > 0.0)) throw std::invalid_argument("ellipsoid density_kg_m3 must be > 0");
    ShapeBody b;
    b.shape.kind = ShapeKind::ellipsoid;
    b.shape.semi_axes_m = semi_axes_m;
    ellipsoid_surface(b.shape, nodes);
    const double a2 = semi_axes_m[0] * semi_axes_m[0], b2 = semi_axes_m[1] * semi_axes_m[1],
                 c2 = semi_axes_m[2] * semi_axes_m[2];
    b.mass_kg = 4.0 / 3.0 * std::numbers::pi * semi_axes_m[0] * semi_axes_m[1] * semi_axes_m[2] * density_kg_m3;
    const double m5 = b.mass_kg / 5.0;
    set_inertia(b, {m5 * (b2 + c2), 0, 0, 0, m5 * (a2 + c2), 0, 0, 0, m5 * (a2 + b2)});
    return b;
}

ShapeBody make_mesh_body(const std::string& name, const std::vector<Point>& vertices,
                         const std::vector<std::array<std::int64_t, 3>>& triangles, double mass_kg,
                         double grid_spacing_m) {
    if (!(mass_kg > 0.0)) throw std::invalid_argument(name + ": mass_kg must be > 0");
    if (!(grid_spacing_m > 0.0)) throw std::invalid_argument(name + ": grid_spacing_m must be > 0");
    ClosedMesh mesh = close_mesh(name, vertices, triangles);
    const MassProperties unit = polyhedron_mass_properties(mesh, 1.0);
    const MassProperties p = polyhedron_mass_properties(mesh, mass_kg / unit.mass);
    for (Point& v : mesh.vertices)
        for (int k = 0; k < 3; ++k) v[k] -= p.centre[k];
    ShapeBody b;
    b.shape.kind = ShapeKind::mesh;
    b.shape.nodes = vertex_nodes(mesh.vertices, mesh.triangles);
    for (const Point& v : mesh.vertices) b.shape.bounding_radius_m = std::max(b.shape.bounding_radius_m, vec::norm(v));
    const TriangleMesh solid(std::move(mesh));
    b.shape.grid = std::make_shared<GridLevelSet>(solid, solid.bounds(), grid_spacing_m);
    b.mass_kg = p.mass;
    set_inertia(b, p.inertia);
    return b;
}

}  // namespace regosph::geometry
