#include "geometry/shape_contact.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>
#include <stdexcept>

namespace regosph::geometry {

namespace {

// e(zeta) of the nondimensional power-law rebound (see damping_ratio_power_law), by RK4.
double power_law_restitution(double zeta, double p) {
    auto accel = [zeta, p](double x, double v) {
        const double xp = std::max(x, 0.0);
        return -std::pow(xp, p) - 2.0 * zeta * std::sqrt(p * std::pow(xp, p - 1.0)) * v;
    };
    double x = 0.0, v = 1.0;
    // Overdamped contacts approach x = 0 without crossing it: after 40 time units (the
    // undamped rebound takes about 3) the body is held, e = 0.
    const double h = 4e-3;
    for (int n = 0; n < 10000; ++n) {
        const double k1x = v, k1v = accel(x, v);
        const double k2x = v + 0.5 * h * k1v, k2v = accel(x + 0.5 * h * k1x, v + 0.5 * h * k1v);
        const double k3x = v + 0.5 * h * k2v, k3v = accel(x + 0.5 * h * k2x, v + 0.5 * h * k2v);
        const double k4x = v + h * k3v, k4v = accel(x + h * k3x, v + h * k3v);
        const double x_new = x + h / 6.0 * (k1x + 2 * k2x + 2 * k3x + k4x);
        const double v_new = v + h / 6.0 * (k1v + 2 * k2v + 2 * k3v + k4v);
        if (x_new < 0.0) {
            const double s = x / (x - x_new);  // the crossing, linear within the step
            return std::max(-(v + s * (v_new - v)), 0.0);
        }
        x = x_new;
        v = v_new;
    }
    return 0.0;
}

constexpr int kExponents = 9;      // p = 1, 1.25, ..., 3
constexpr int kZetas = 161;        // zeta = 0, 0.0125, ..., 2
constexpr double kZetaMax = 2.0;

struct RestitutionTable {
    std::array<std::array<double, kZetas>, kExponents> e{};
    RestitutionTable() {
        for (int ip = 0; ip < kExponents; ++ip)
            for (int iz = 0; iz < kZetas; ++iz)
                e[ip][iz] = iz == 0 ? 1.0 : power_law_restitution(kZetaMax * iz / (kZetas - 1), 1.0 + 0.25 * ip);
    }
    // zeta of the row ip for restitution e: the first bracket of the decreasing e(zeta).
    double zeta(int ip, double target) const {
        const auto& row = e[ip];
        for (int iz = 1; iz < kZetas; ++iz) {
            if (row[iz] <= target) {
                const double s = (row[iz - 1] - target) / (row[iz - 1] - row[iz]);
                return kZetaMax * (iz - 1 + s) / (kZetas - 1);
            }
        }
        return kZetaMax;
    }
};

struct Hit {
    vec::V point{};        // world [m]
    vec::V normal{};       // unit, the direction of the force on A
    double depth_m = 0.0;
    double k_N_m = 0.0;
    std::uint64_t key = 0;
};

vec::V point_velocity(const ShapeBody& b, const vec::V& omega, const vec::V& p) {
    const vec::V w = vec::cross(omega, vec::sub(p, b.x_m));
    return {b.v_m_s[0] + w[0], b.v_m_s[1] + w[1], b.v_m_s[2] + w[2]};
}

// (r x n) . I_world^-1 (r x n) [1/kg] of body b for a force along n at p.
double rotational_compliance(const ShapeBody& b, const vec::V& p, const vec::V& n) {
    const Mat3 R = rotation_matrix(b.q);
    const vec::V u = rotate_back(R, vec::cross(vec::sub(p, b.x_m), n));
    return vec::dot(u, rotate(b.inverse_inertia, u));
}

double inverse_mass(const ShapeBody& b, const vec::V& p, const vec::V& n) {
    return b.fixed ? 0.0 : 1.0 / b.mass_kg + rotational_compliance(b, p, n);
}

// Nodes of `from` inside `into`; sign = +1 when `from` is A (the normal of `into` pushes A),
// -1 when `from` is B.
void collect(const ShapeBody& from, const ShapeBody& into, std::uint64_t id, int direction, double sign,
             double k_per_area, std::vector<Hit>& hits) {
    const Mat3 R_from = rotation_matrix(from.q), R_into = rotation_matrix(into.q);
    const double reach2 = into.shape.bounding_radius_m * into.shape.bounding_radius_m;
    const SurfaceNodes& nodes = from.shape.nodes;
    for (std::uint32_t i = 0; i < nodes.x_m.size(); ++i) {
        const vec::V r = rotate(R_from, nodes.x_m[i]);
        const vec::V p{from.x_m[0] + r[0], from.x_m[1] + r[1], from.x_m[2] + r[2]};
        const vec::V local = rotate_back(R_into, vec::sub(p, into.x_m));
        if (vec::dot(local, local) > reach2) continue;
        vec::V n_local{};
        const double phi = level_set(into.shape, local, n_local);
        if (!(phi < 0.0)) continue;
        const vec::V n = rotate(R_into, n_local);
        Hit h;
        h.point = p;
        h.normal = {sign * n[0], sign * n[1], sign * n[2]};
        h.depth_m = -phi;
        h.k_N_m = k_per_area * nodes.area_m2[i];
        h.key = contact_key(id, direction, i);
        hits.push_back(h);
    }
}

ContactSummary summarise(const std::vector<Hit>& hits) {
    ContactSummary s;
    s.nodes = static_cast<int>(hits.size());
    vec::V n{};
    for (const Hit& h : hits) {
        const double f = h.k_N_m * h.depth_m;
        s.normal_force_N += f;
        s.depth_m = std::max(s.depth_m, h.depth_m);
        for (int k = 0; k < 3; ++k) {
            s.point_m[k] += f * h.point[k];
            n[k] += f * h.normal[k];
        }
    }
    // Opposite normals that cancel (a thin body pierced through) leave the first node's.
    const double nn = vec::norm(n);
    for (int k = 0; k < 3; ++k) {
        s.point_m[k] /= s.normal_force_N;
        s.normal[k] = nn > 0.0 ? n[k] / nn : hits.front().normal[k];
    }
    return s;
}

// The node forces of one contact (A against B, or against a wall when b is null).
ContactSummary apply(const std::vector<Hit>& hits, const ShapeBody& a, const ShapeBody* b, const ShapeContactLaw& law,
                     ContactHistory& history, double dt_s, vec::V& force_a, vec::V& torque_a, vec::V& force_b,
                     vec::V& torque_b) {
    ContactSummary s = summarise(hits);
    double stiffness = 0.0;
    for (const Hit& h : hits) stiffness += h.k_N_m;
    const double exponent = stiffness * s.depth_m / s.normal_force_N;
    const double w_a = inverse_mass(a, s.point_m, s.normal);
    const double w_b = b ? inverse_mass(*b, s.point_m, s.normal) : 0.0;
    const double dashpot =
        2.0 * damping_ratio_power_law(law.restitution, exponent) * std::sqrt(stiffness / (w_a + w_b));
    const vec::V omega_a = angular_velocity(a);
    const vec::V omega_b = b ? angular_velocity(*b) : vec::V{};
    const double ratio_t = law.tangential_ratio;
    for (const Hit& h : hits) {
        vec::V v = point_velocity(a, omega_a, h.point);
        if (b) v = vec::sub(v, point_velocity(*b, omega_b, h.point));
        const double vn = vec::dot(v, h.normal);
        const double c_i = dashpot * h.k_N_m / stiffness;
        const double f_n = h.k_N_m * h.depth_m - c_i * vn;
        const vec::V v_t{v[0] - vn * h.normal[0], v[1] - vn * h.normal[1], v[2] - vn * h.normal[2]};
        NodeSpring& spring = history[h.key];
        spring.touched = true;
        const vec::V f_t = cundall_strack(spring, h.normal, v_t, std::max(f_n, 0.0), ratio_t * h.k_N_m,
                                          c_i * std::sqrt(ratio_t), law.mu_static, law.mu_dynamic, dt_s);
        const vec::V f{f_n * h.normal[0] + f_t[0], f_n * h.normal[1] + f_t[1], f_n * h.normal[2] + f_t[2]};
        const vec::V t_a = vec::cross(vec::sub(h.point, a.x_m), f);
        for (int k = 0; k < 3; ++k) {
            force_a[k] += f[k];
            torque_a[k] += t_a[k];
        }
        if (b) {
            const vec::V t_b = vec::cross(vec::sub(h.point, b->x_m), f);
            for (int k = 0; k < 3; ++k) {
                force_b[k] -= f[k];
                torque_b[k] -= t_b[k];
            }
        }
    }
    return s;
}

}  // namespace

double damping_ratio_power_law(double e, double p) {
    if (!(e >= 0.0 && e <= 1.0)) throw std::invalid_argument("restitution must be in [0, 1]");
    if (e == 0.0 && p <= 1.0) return 1.0;  // critical damping: the linear contact sticks
    static const RestitutionTable table;
    const double u = (std::clamp(p, 1.0, 3.0) - 1.0) / 0.25;
    const int i0 = std::min(static_cast<int>(u), kExponents - 2);
    const double s = u - i0;
    return (1.0 - s) * table.zeta(i0, e) + s * table.zeta(i0 + 1, e);
}

std::uint64_t contact_key(std::uint64_t contact, int direction, std::uint32_t node) {
    return (contact << 33) | (static_cast<std::uint64_t>(direction) << 32) | node;
}

vec::V cundall_strack(TangentialSpring& h, const vec::V& n, const vec::V& v_t, double f_n, double k_t, double c_t,
                      double mu_static, double mu_dynamic, double dt_s) {
    const double xi_n = vec::dot(h.spring_m, n);
    vec::V f{};
    for (int k = 0; k < 3; ++k) {
        h.spring_m[k] += -xi_n * n[k] + v_t[k] * dt_s;
        f[k] = -k_t * h.spring_m[k] - c_t * v_t[k];
    }
    const double f_norm = vec::norm(f);
    h.sliding = f_norm > (h.sliding ? mu_dynamic : mu_static) * f_n;
    if (h.sliding) {
        const double scale = mu_dynamic * f_n / f_norm;
        for (int k = 0; k < 3; ++k) {
            f[k] *= scale;
            h.spring_m[k] = -(f[k] + c_t * v_t[k]) / k_t;
        }
    }
    return f;
}

ContactSummary body_contact(const ShapeBody& a, const ShapeBody& b, std::uint64_t contact_id,
                            const ShapeContactLaw& law, ContactHistory& history, double dt_s,
                            vec::V& force_a, vec::V& torque_a, vec::V& force_b, vec::V& torque_b) {
    const double reach = a.shape.bounding_radius_m + b.shape.bounding_radius_m;
    const vec::V d = vec::sub(b.x_m, a.x_m);
    if (vec::dot(d, d) > reach * reach) return {};
    std::vector<Hit> hits;
    const double half = 0.5 * law.stiffness_per_area_N_m3;  // both directions, each with half
    collect(a, b, contact_id, 0, 1.0, half, hits);
    collect(b, a, contact_id, 1, -1.0, half, hits);
    if (hits.empty()) return {};
    return apply(hits, a, &b, law, history, dt_s, force_a, torque_a, force_b, torque_b);
}

ContactSummary wall_contact(const ShapeBody& a, const PlaneWall& w, std::uint64_t contact_id,
                            const ShapeContactLaw& law, ContactHistory& history, double dt_s,
                            vec::V& force_a, vec::V& torque_a) {
    if (vec::dot(vec::sub(a.x_m, w.point_m), w.normal) > a.shape.bounding_radius_m) return {};
    const Mat3 R = rotation_matrix(a.q);
    std::vector<Hit> hits;
    const SurfaceNodes& nodes = a.shape.nodes;
    for (std::uint32_t i = 0; i < nodes.x_m.size(); ++i) {
        const vec::V r = rotate(R, nodes.x_m[i]);
        const vec::V p{a.x_m[0] + r[0], a.x_m[1] + r[1], a.x_m[2] + r[2]};
        const double phi = vec::dot(vec::sub(p, w.point_m), w.normal);
        if (!(phi < 0.0)) continue;
        hits.push_back({p, w.normal, -phi, law.stiffness_per_area_N_m3 * nodes.area_m2[i],
                        contact_key(contact_id, 0, i)});
    }
    if (hits.empty()) return {};
    vec::V unused_f{}, unused_t{};
    return apply(hits, a, nullptr, law, history, dt_s, force_a, torque_a, unused_f, unused_t);
}

}  // namespace regosph::geometry
