#include "geometry/shape_system.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace regosph::geometry {

namespace {

std::uint64_t pair_id(const ShapeSystem& s, std::size_t i, std::size_t j) { return i * s.bodies.size() + j; }

std::uint64_t wall_id(const ShapeSystem& s, std::size_t i, std::size_t w) {
    return s.bodies.size() * s.bodies.size() + i * s.walls.size() + w;
}

void validate(const ShapeSystem& s) {
    const ShapeContactLaw& c = s.law;
    if (!(c.stiffness_per_area_N_m3 > 0.0)) throw std::invalid_argument("contact stiffness_per_area_N_m3 must be > 0");
    if (!(c.restitution >= 0.0 && c.restitution <= 1.0)) throw std::invalid_argument("contact restitution must be in [0, 1]");
    if (!(c.tangential_ratio > 0.0)) throw std::invalid_argument("contact tangential_ratio must be > 0");
    if (!(c.mu_static >= 0.0 && c.mu_dynamic >= 0.0 && c.mu_dynamic <= c.mu_static))
        throw std::invalid_argument("contact friction: need 0 <= mu_dynamic <= mu_static");
    if (!(s.random_acceleration_m_s2 >= 0.0)) throw std::invalid_argument("random_acceleration_m_s2 must be >= 0");
    for (const PlaneWall& w : s.walls)
        if (std::abs(vec::norm(w.normal) - 1.0) > 1e-12) throw std::invalid_argument("wall normal must be a unit vector");
    for (std::size_t i = 0; i < s.bodies.size(); ++i)
        if (!(s.bodies[i].mass_kg > 0.0)) throw std::invalid_argument("body " + std::to_string(i) + ": mass_kg must be > 0");
}

// Contact loads of all pairs and walls; springs not met again are dropped.
void contact_loads(ShapeSystem& s, double dt_s) {
    for (auto& [key, spring] : s.history) spring.touched = false;
    s.contacts.clear();
    const std::size_t n = s.bodies.size();
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = i + 1; j < n; ++j) {
            if (s.bodies[i].fixed && s.bodies[j].fixed) continue;
            ContactSummary c = body_contact(s.bodies[i], s.bodies[j], pair_id(s, i, j), s.law, s.history, dt_s,
                                            s.force_N[i], s.torque_N_m[i], s.force_N[j], s.torque_N_m[j]);
            if (c.nodes == 0) continue;
            c.body_a = static_cast<int>(i);
            c.body_b = static_cast<int>(j);
            s.contacts.push_back(c);
        }
        for (std::size_t w = 0; w < s.walls.size(); ++w) {
            if (s.bodies[i].fixed) continue;
            ContactSummary c = wall_contact(s.bodies[i], s.walls[w], wall_id(s, i, w), s.law, s.history, dt_s,
                                            s.force_N[i], s.torque_N_m[i]);
            if (c.nodes == 0) continue;
            c.body_a = static_cast<int>(i);
            c.body_b = -1 - static_cast<int>(w);
            s.contacts.push_back(c);
        }
    }
    std::erase_if(s.history, [](const auto& item) { return !item.second.touched; });
}

void loads(ShapeSystem& s, double dt_s) {
    const std::size_t n = s.bodies.size();
    s.force_N.assign(n, vec::V{});
    s.torque_N_m.assign(n, vec::V{});
    std::normal_distribution<double> noise(0.0, 1.0);
    for (std::size_t i = 0; i < n; ++i) {
        for (int k = 0; k < 3; ++k) {
            double a = s.gravity_m_s2[k];
            if (s.random_acceleration_m_s2 > 0.0) a += s.random_acceleration_m_s2 * noise(s.rng);
            s.force_N[i][k] = s.bodies[i].mass_kg * a;
        }
    }
    contact_loads(s, dt_s);
}

void kick(ShapeSystem& s, double dt_s) {
    for (std::size_t i = 0; i < s.bodies.size(); ++i) {
        ShapeBody& b = s.bodies[i];
        if (b.fixed) continue;
        for (int k = 0; k < 3; ++k) {
            b.v_m_s[k] += dt_s * s.force_N[i][k] / b.mass_kg;
            b.angular_momentum[k] += dt_s * s.torque_N_m[i][k];
        }
    }
}

void drift(ShapeSystem& s, double dt_s) {
    for (ShapeBody& b : s.bodies) {
        if (b.fixed) continue;
        for (int k = 0; k < 3; ++k) b.x_m[k] += dt_s * b.v_m_s[k];
        const vec::V w0 = angular_velocity(b);
        ShapeBody mid = b;
        mid.q = rotated(b.q, {0.5 * dt_s * w0[0], 0.5 * dt_s * w0[1], 0.5 * dt_s * w0[2]});
        const vec::V w = angular_velocity(mid);
        b.q = rotated(b.q, {dt_s * w[0], dt_s * w[1], dt_s * w[2]});
    }
}

// Opens a record when two bodies (or a body and a wall) start touching, follows its peak and
// closes it when they part.
void log_collisions(ShapeSystem& s, const std::vector<BodyKinematics>& before, double t_before) {
    std::vector<bool> touching(s.collisions.size(), false);
    for (const ContactSummary& c : s.contacts) {
        std::size_t k = 0;
        while (k < s.collisions.size() &&
               !(!s.collisions[k].finished && s.collisions[k].body_a == c.body_a && s.collisions[k].body_b == c.body_b))
            ++k;
        if (k == s.collisions.size()) {
            CollisionRecord r;
            r.body_a = c.body_a;
            r.body_b = c.body_b;
            r.t_start_s = t_before;
            r.before_a = before[c.body_a];
            if (c.body_b >= 0) r.before_b = before[c.body_b];  // a wall stays at rest
            s.collisions.push_back(r);
            touching.push_back(true);
        }
        touching[k] = true;
        CollisionRecord& r = s.collisions[k];
        if (c.normal_force_N > r.peak_force_N) {
            r.peak_force_N = c.normal_force_N;
            r.point_m = c.point_m;
            r.normal = c.normal;
            r.arm_a_m = vec::sub(c.point_m, s.bodies[c.body_a].x_m);
            if (c.body_b >= 0) r.arm_b_m = vec::sub(c.point_m, s.bodies[c.body_b].x_m);
            r.peak_nodes = c.nodes;
            r.peak_depth_m = c.depth_m;
        }
    }
    for (std::size_t k = 0; k < s.collisions.size(); ++k) {
        CollisionRecord& r = s.collisions[k];
        if (r.finished || touching[k]) continue;
        r.finished = true;
        r.t_end_s = s.time_s;
        r.after_a = kinematics(s.bodies[r.body_a]);
        if (r.body_b >= 0) r.after_b = kinematics(s.bodies[r.body_b]);
    }
}

}  // namespace

BodyKinematics kinematics(const ShapeBody& b) {
    return {b.v_m_s, angular_velocity(b), translational_energy_J(b), rotational_energy_J(b)};
}

void start(ShapeSystem& s) {
    validate(s);
    loads(s, 0.0);
}

void step(ShapeSystem& s, double dt_s) {
    if (!(dt_s > 0.0)) throw std::invalid_argument("dt_s must be > 0");
    std::vector<BodyKinematics> before;
    for (const ShapeBody& b : s.bodies) before.push_back(kinematics(b));
    const double t_before = s.time_s;
    kick(s, 0.5 * dt_s);
    drift(s, dt_s);
    loads(s, dt_s);
    kick(s, 0.5 * dt_s);
    s.time_s += dt_s;
    log_collisions(s, before, t_before);
}

double kinetic_energy_J(const ShapeSystem& s) {
    double e = 0.0;
    for (const ShapeBody& b : s.bodies) e += translational_energy_J(b) + rotational_energy_J(b);
    return e;
}

CollisionOutcome collision_outcome(const CollisionRecord& c) {
    if (!c.finished) throw std::invalid_argument("collision_outcome: the contact has not ended");
    auto relative = [&c](const BodyKinematics& a, const BodyKinematics& b) {
        const vec::V wa = vec::cross(a.omega_rad_s, c.arm_a_m), wb = vec::cross(b.omega_rad_s, c.arm_b_m);
        vec::V v{};
        for (int k = 0; k < 3; ++k) v[k] = a.v_m_s[k] + wa[k] - b.v_m_s[k] - wb[k];
        return vec::dot(v, c.normal);
    };
    CollisionOutcome o;
    const double e_before = c.before_a.translational_J + c.before_a.rotational_J + c.before_b.translational_J +
                            c.before_b.rotational_J;
    const double e_after =
        c.after_a.translational_J + c.after_a.rotational_J + c.after_b.translational_J + c.after_b.rotational_J;
    o.energy_ratio = e_after / e_before;
    o.v_normal_before_m_s = relative(c.before_a, c.before_b);
    o.v_normal_after_m_s = relative(c.after_a, c.after_b);
    o.normal_velocity_ratio = -o.v_normal_after_m_s / o.v_normal_before_m_s;
    o.duration_s = c.t_end_s - c.t_start_s;
    return o;
}

}  // namespace regosph::geometry
