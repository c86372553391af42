#include "sph/rigid_dynamics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/eigen.hpp"
#include "sph/time_scheme.hpp"
#include <nlohmann/json.hpp>


namespace regosph {

using geometry::Mat3;
using geometry::Quaternion;
using geometry::RigidBody;
using geometry::RigidState;
using geometry::Vec3;

namespace {

double norm(const Vec3& v) { return std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); }

// Angular acceleration [rad/s^2] of the free motion, I_w^-1 (dL/dt - omega x L) (2D: about z),
// for the wall particles' acceleration (boundary extrapolation) only.
Vec3 angular_acceleration(const RigidBody& b, const RigidState& s, const Vec3& omega,
                          const Vec3& dL, int dim) {
    if (dim == 2) return {0.0, 0.0, dL[2] / b.inertia[8]};
    const Mat3 Iw = geometry::world_inertia(b, s.orientation);
    Eigen::Matrix3d I;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) I(i, j) = Iw[3 * i + j];
    const Vec3 gyro = geometry::cross(omega, s.angular_momentum);
    const Eigen::Vector3d rhs(dL[0] - gyro[0], dL[1] - gyro[1], dL[2] - gyro[2]);
    const Eigen::Vector3d a = I.llt().solve(rhs);
    return {a(0), a(1), a(2)};
}

}  // namespace

RigidRates rigid_rates(const RigidBody& b, const RigidState& s, const BodyLoad& regolith,
                       const std::array<double, 3>& gravity, double t, int dim) {
    const Mat3 R = geometry::rotation_matrix(s.orientation);
    Vec3 applied = b.force.value(t);
    if (b.force_in_body_frame) applied = geometry::rotate(R, applied);
    Vec3 applied_torque = b.torque.value(t);
    if (b.torque_in_body_frame) applied_torque = geometry::rotate(R, applied_torque);
    RigidRates r;
    for (int d = 0; d < 3; ++d) {
        const bool free = (dim == 3 || d < 2) && !b.prescribed[d];
        r.centre[d] = s.velocity[d];
        r.velocity[d] =
            free ? gravity[d] + (regolith.force[d] + regolith.contact_force[d] + applied[d]) / b.mass
                 : 0.0;
        const bool rotates = dim == 3 || d == 2;
        r.angular_momentum[d] =
            rotates ? regolith.torque[d] + regolith.contact_torque[d] + applied_torque[d] : 0.0;
    }
    r.angular_velocity = geometry::angular_velocity(b, s, t, dim);
    return r;
}

RigidBodyReport report_rigid_body(const RigidBody& b, const BodyLoad& regolith, double t,
                                  int dim) {
    RigidBodyReport r;
    r.state = b.state;
    r.angular_velocity = geometry::angular_velocity(b, b.state, t, dim);
    const Quaternion& q = b.state.orientation;
    r.angle = 2.0 * std::atan2(q[3], q[0]);
    r.regolith = regolith;
    const Mat3 R = geometry::rotation_matrix(q);
    r.applied_force = b.force.value(t);
    if (b.force_in_body_frame) r.applied_force = geometry::rotate(R, r.applied_force);
    r.applied_torque = b.torque.value(t);
    if (b.torque_in_body_frame) r.applied_torque = geometry::rotate(R, r.applied_torque);
    return r;
}

namespace {
using Json = nlohmann::json;
Json to_json(const Vec3& v) { return Json::array({v[0], v[1], v[2]}); }
void from_json(const Json& j, Vec3& v) {
    for (int d = 0; d < 3; ++d) v[d] = j.at(d).get<double>();
}
}  // namespace

std::optional<Json> RigidMotion::state() const {
    const RigidState& s = body.state;
    return Json{{"centre_m", to_json(s.centre)},
                {"orientation_wxyz", Json::array({s.orientation[0], s.orientation[1],
                                                  s.orientation[2], s.orientation[3]})},
                {"velocity_m_s", to_json(s.velocity)},
                {"angular_momentum_kg_m2_s", to_json(s.angular_momentum)},
                {"acceleration_m_s2", to_json(s.acceleration)},
                {"torque_rate_N_m", to_json(s.torque)}};
}

void RigidMotion::read_state(const Json& j) {
    RigidState& s = body.state;
    from_json(j.at("centre_m"), s.centre);
    for (int k = 0; k < 4; ++k) s.orientation[k] = j.at("orientation_wxyz").at(k).get<double>();
    from_json(j.at("velocity_m_s"), s.velocity);
    from_json(j.at("angular_momentum_kg_m2_s"), s.angular_momentum);
    from_json(j.at("acceleration_m_s2"), s.acceleration);
    from_json(j.at("torque_rate_N_m"), s.torque);
}

RigidMotion RigidMotion::make(const MotionInput& in, const std::string& where) {
    if (in.kinematics) geometry::validated(*in.kinematics, in.dim, where);  // its checks only
    const std::vector<Vec3> x(in.positions.begin(), in.positions.end());
    const std::vector<double> masses(in.positions.size(), in.particle_mass);
    RigidMotion m;
    m.body = geometry::make_rigid_body(x, masses, in.spacing, in.dim,
                                       in.rigid.value_or(geometry::RigidSpec{}), in.velocity,
                                       in.kinematics, where);
    return m;
}

void RigidMotion::rates(int stage, const BodyLoad& load, const std::array<double, 3>& gravity,
                        double t, int dim) {
    if (stage == 3) {  // SSP-RK3: k2 becomes the combined rate (time_scheme.hpp)
        const RigidRates k3 = rigid_rates(body, body.state, load, gravity, t, dim);
        for (auto member : {&RigidRates::centre, &RigidRates::velocity,
                            &RigidRates::angular_velocity, &RigidRates::angular_momentum})
            for (int d = 0; d < 3; ++d)
                (k2.*member)[d] = ssp_rk3_rate((k1.*member)[d], (k2.*member)[d], (k3.*member)[d]);
        return;
    }
    (stage == 1 ? k1 : k2) = rigid_rates(body, body.state, load, gravity, t, dim);
    if (stage == 1)  // the wall acceleration of this step, kept across rejected attempts
        for (RigidState* s : {&body.state, &start}) {
            s->acceleration = k1.velocity;
            s->torque = k1.angular_momentum;
        }
}

void RigidMotion::update(double dt, bool final, double t, int dim) {
    const double w1 = final ? 0.5 * dt : dt;
    const double w2 = final ? 0.5 * dt : 0.0;
    RigidBody& b = body;
    const RigidState& y0 = start;
    const RigidRates& a = k1;
    const RigidRates& c = final ? k2 : k1;  // weight 0 when !final
    RigidState& s = b.state;
    s.acceleration = y0.acceleration;
    s.torque = y0.torque;
    for (int d = 0; d < 3; ++d) {
        s.centre[d] = y0.centre[d] + w1 * a.centre[d] + w2 * c.centre[d];
        s.velocity[d] = y0.velocity[d] + w1 * a.velocity[d] + w2 * c.velocity[d];
        s.angular_momentum[d] =
            y0.angular_momentum[d] + w1 * a.angular_momentum[d] + w2 * c.angular_momentum[d];
    }
    // q = exp((0, phi) / 2) * q0, phi = w1 omega_1 + w2 omega_2: the rotation by the angle
    // |phi| about phi / |phi|.
    Vec3 phi;
    for (int d = 0; d < 3; ++d) phi[d] = w1 * a.angular_velocity[d] + w2 * c.angular_velocity[d];
    s.orientation = geometry::rotated(y0.orientation, phi);
    // Prescribed (or locked) translations: exactly on their path.
    const Vec3 disp = b.motion.displacement(t);
    const Vec3 vel = b.motion.translation_velocity(t);
    for (int d = 0; d < 3; ++d)
        if (b.prescribed[d] || (dim == 2 && d == 2)) {
            s.centre[d] = b.initial_centre[d] + disp[d];
            s.velocity[d] = vel[d];
        }
    // Prescribed rotations: L takes the constraint's share, L_p = (I_w omega)_p.
    const Vec3 omega = geometry::angular_velocity(b, s, t, dim);
    const Mat3 Iw = geometry::world_inertia(b, s.orientation);
    for (int d = 0; d < 3; ++d) {
        const bool exists = dim == 3 || d == 2;
        if (exists && !b.prescribed[geometry::kRx + d]) continue;
        s.angular_momentum[d] =
            exists ? Iw[3 * d] * omega[0] + Iw[3 * d + 1] * omega[1] + Iw[3 * d + 2] * omega[2]
                   : 0.0;
    }
}

double RigidMotion::error(double dt, double h, int dim) const {
    const RigidRates &a = k1, &c = k2;
    Vec3 dc, dv, dl;
    for (int d = 0; d < 3; ++d) {
        dc[d] = 0.5 * dt * (c.centre[d] - a.centre[d]);
        dv[d] = 0.5 * dt * (c.velocity[d] - a.velocity[d]);
        dl[d] = 0.5 * dt * (c.angular_momentum[d] - a.angular_momentum[d]);
    }
    Vec3 dphi;
    for (int d = 0; d < 3; ++d) dphi[d] = 0.5 * dt * (c.angular_velocity[d] - a.angular_velocity[d]);
    const double rotation = norm(dphi) + norm(dl) / geometry::smallest_moment(body, dim) * dt;
    const double e = std::max({norm(dc) / h, norm(dv) * dt / h, rotation * body.extent / h});
    return std::isfinite(e) ? e : std::numeric_limits<double>::infinity();
}

double RigidMotion::step_limit(double courant, double h, double t, int dim) const {
    const Vec3 w = geometry::angular_velocity(body, body.state, t, dim);
    const double speed = norm(body.state.velocity) + norm(w) * body.extent;
    return speed > 0.0 ? courant * h / speed : std::numeric_limits<double>::infinity();
}

double RigidMotion::regolith_power(const BodyLoad& load, double t, int dim) const {
    const Vec3 omega = geometry::angular_velocity(body, body.state, t, dim);
    double p = 0.0;
    for (int d = 0; d < 3; ++d)
        p -= load.force[d] * body.state.velocity[d] + load.torque[d] * omega[d];
    return p;
}

RigidMotion::Frame RigidMotion::frame(double t, int dim) const {
    Frame f;
    f.body = &body;
    f.R = geometry::rotation_matrix(body.state.orientation);
    f.omega = geometry::angular_velocity(body, body.state, t, dim);
    f.alpha = angular_acceleration(body, body.state, f.omega, body.state.torque, dim);
    f.acc = body.state.acceleration;
    return f;
}

bool RigidMotion::Frame::place(std::size_t j, Vec3& x, Vec3& v, Vec3& a) const {
    const Vec3 r = geometry::rotate(R, body->offsets[j]);
    const Vec3 wxr = geometry::cross(omega, r);
    const Vec3 axr = geometry::cross(alpha, r);
    const Vec3 wxwxr = geometry::cross(omega, wxr);
    for (int d = 0; d < 3; ++d) {
        x[d] = body->state.centre[d] + r[d];
        v[d] = body->state.velocity[d] + wxr[d];
        a[d] = acc[d] + axr[d] + wxwxr[d];
    }
    return true;
}

}  // namespace regosph
