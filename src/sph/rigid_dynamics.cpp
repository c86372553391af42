#include "sph/rigid_dynamics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <Eigen/Dense>
#include <nlohmann/json.hpp>

#include "parallel/threads.hpp"

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

// The orientation q turned by the rotation vector phi [rad] (world frame): exp((0, phi) / 2) * q,
// normalised.
Quaternion rotated(const Quaternion& q, const Vec3& phi) {
    const double angle = norm(phi);
    const double half = 0.5 * angle;
    const double s = angle > 0.0 ? std::sin(half) / angle : 0.5;  // sin(|phi|/2) / |phi|
    const Quaternion r{std::cos(half), s * phi[0], s * phi[1], s * phi[2]};
    Quaternion out{r[0] * q[0] - r[1] * q[1] - r[2] * q[2] - r[3] * q[3],
                   r[0] * q[1] + r[1] * q[0] + r[2] * q[3] - r[3] * q[2],
                   r[0] * q[2] - r[1] * q[3] + r[2] * q[0] + r[3] * q[1],
                   r[0] * q[3] + r[1] * q[2] - r[2] * q[1] + r[3] * q[0]};
    double n2 = 0.0;
    for (const double v : out) n2 += v * v;
    const double inv = 1.0 / std::sqrt(n2);
    for (double& v : out) v *= inv;
    return out;
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

std::string rigid_states_json(const std::vector<Body>& bodies) {
    Json out = Json::object();
    for (const Body& b : bodies) {
        if (b.motion != Motion::rigid) continue;
        const RigidState& s = b.rigid.state;
        out[b.name] = {{"centre_m", to_json(s.centre)},
                       {"orientation_wxyz", Json::array({s.orientation[0], s.orientation[1],
                                                         s.orientation[2], s.orientation[3]})},
                       {"velocity_m_s", to_json(s.velocity)},
                       {"angular_momentum_kg_m2_s", to_json(s.angular_momentum)},
                       {"acceleration_m_s2", to_json(s.acceleration)},
                       {"torque_rate_N_m", to_json(s.torque)}};
    }
    return out.empty() ? std::string() : out.dump();
}

void read_rigid_states_json(const std::string& text, std::vector<Body>& bodies) {
    Json all;
    try {
        all = text.empty() ? Json::object() : Json::parse(text);
    } catch (const std::exception& e) {
        throw std::runtime_error(std::string("rigid body states: not JSON: ") + e.what());
    }
    for (Body& b : bodies) {
        if (b.motion != Motion::rigid) continue;
        if (!all.contains(b.name))
            throw std::runtime_error("rigid body states: no state of rigid body '" + b.name + "'");
        try {
            const Json& j = all.at(b.name);
            RigidState& s = b.rigid.state;
            from_json(j.at("centre_m"), s.centre);
            for (int k = 0; k < 4; ++k) s.orientation[k] = j.at("orientation_wxyz").at(k).get<double>();
            from_json(j.at("velocity_m_s"), s.velocity);
            from_json(j.at("angular_momentum_kg_m2_s"), s.angular_momentum);
            from_json(j.at("acceleration_m_s2"), s.acceleration);
            from_json(j.at("torque_rate_N_m"), s.torque);
        } catch (const Json::exception& e) {
            throw std::runtime_error("rigid body states: body '" + b.name + "': " + e.what());
        }
    }
}

void RigidBodies::bind(std::vector<Body>* bodies, int dim) {
    bodies_ = bodies;
    dim_ = dim;
    index_.clear();
    if (!bodies) return;
    for (std::size_t k = 0; k < bodies->size(); ++k)
        if ((*bodies)[k].motion == Motion::rigid) index_.push_back(k);
    start_.resize(index_.size());
    k1_.assign(index_.size(), RigidRates{});
    k2_.assign(index_.size(), RigidRates{});
}

void RigidBodies::request_loads(LoadRequest& request) const {
    if (empty()) return;
    request.collect.resize(bodies_->size(), 0);
    request.reference.resize(bodies_->size(), {0.0, 0.0, 0.0});
    for (const std::size_t k : index_) {
        request.collect[k] = 1;
        request.reference[k] = (*bodies_)[k].rigid.state.centre;
    }
}

void RigidBodies::save_start() {
    for (std::size_t j = 0; j < index_.size(); ++j) start_[j] = (*bodies_)[index_[j]].rigid.state;
}

void RigidBodies::restore_start() {
    for (std::size_t j = 0; j < index_.size(); ++j) (*bodies_)[index_[j]].rigid.state = start_[j];
}

void RigidBodies::compute_rates(int stage, const std::vector<BodyLoad>& loads,
                                const std::array<double, 3>& gravity, double t) {
    for (std::size_t j = 0; j < index_.size(); ++j) {
        const Body& body = (*bodies_)[index_[j]];
        const BodyLoad load = index_[j] < loads.size() ? loads[index_[j]] : BodyLoad{};
        (stage == 1 ? k1_ : k2_)[j] = rigid_rates(body.rigid, body.rigid.state, load, gravity, t, dim_);
        if (stage == 1)  // the wall acceleration of this step, kept across rejected attempts
            for (RigidState* s : {&(*bodies_)[index_[j]].rigid.state, &start_[j]}) {
                s->acceleration = k1_[j].velocity;
                s->torque = k1_[j].angular_momentum;
            }
    }
}

void RigidBodies::update(double dt, bool final, double t) {
    const double w1 = final ? 0.5 * dt : dt;
    const double w2 = final ? 0.5 * dt : 0.0;
    for (std::size_t j = 0; j < index_.size(); ++j) {
        RigidBody& b = (*bodies_)[index_[j]].rigid;
        const RigidState& y0 = start_[j];
        const RigidRates& a = k1_[j];
        const RigidRates& c = final ? k2_[j] : k1_[j];  // weight 0 when !final
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
        s.orientation = rotated(y0.orientation, phi);
        // Prescribed (or locked) translations: exactly on their path.
        const Vec3 disp = b.motion.displacement(t);
        const Vec3 vel = b.motion.translation_velocity(t);
        for (int d = 0; d < 3; ++d)
            if (b.prescribed[d] || (dim_ == 2 && d == 2)) {
                s.centre[d] = b.initial_centre[d] + disp[d];
                s.velocity[d] = vel[d];
            }
        // Prescribed rotations: L takes the constraint's share, L_p = (I_w omega)_p.
        const Vec3 omega = geometry::angular_velocity(b, s, t, dim_);
        const Mat3 Iw = geometry::world_inertia(b, s.orientation);
        for (int d = 0; d < 3; ++d) {
            const bool exists = dim_ == 3 || d == 2;
            if (exists && !b.prescribed[geometry::kRx + d]) continue;
            s.angular_momentum[d] =
                exists ? Iw[3 * d] * omega[0] + Iw[3 * d + 1] * omega[1] + Iw[3 * d + 2] * omega[2]
                       : 0.0;
        }
    }
}

double RigidBodies::error(double dt) const {
    double worst = 0.0;
    for (std::size_t j = 0; j < index_.size(); ++j) {
        const Body& body = (*bodies_)[index_[j]];
        const RigidBody& b = body.rigid;
        const RigidRates &a = k1_[j], &c = k2_[j];
        Vec3 dc, dv, dl;
        for (int d = 0; d < 3; ++d) {
            dc[d] = 0.5 * dt * (c.centre[d] - a.centre[d]);
            dv[d] = 0.5 * dt * (c.velocity[d] - a.velocity[d]);
            dl[d] = 0.5 * dt * (c.angular_momentum[d] - a.angular_momentum[d]);
        }
        Vec3 dphi;
        for (int d = 0; d < 3; ++d) dphi[d] = 0.5 * dt * (c.angular_velocity[d] - a.angular_velocity[d]);
        const double h = body.smoothing_length;
        const double rotation = norm(dphi) + norm(dl) / geometry::smallest_moment(b, dim_) * dt;
        double e = std::max({norm(dc) / h, norm(dv) * dt / h, rotation * b.extent / h});
        if (!std::isfinite(e)) e = std::numeric_limits<double>::infinity();
        worst = std::max(worst, e);
    }
    return worst;
}

double RigidBodies::step_limit(double courant, double t) const {
    double limit = std::numeric_limits<double>::infinity();
    for (const std::size_t k : index_) {
        const Body& body = (*bodies_)[k];
        const Vec3 w = geometry::angular_velocity(body.rigid, body.rigid.state, t, dim_);
        const double speed = norm(body.rigid.state.velocity) + norm(w) * body.rigid.extent;
        if (speed > 0.0) limit = std::min(limit, courant * body.smoothing_length / speed);
    }
    return limit;
}

void RigidBodies::place(ParticleSet& p, double t,
                        std::array<std::vector<double>, 3>& acceleration) const {
    if (empty()) return;
    const std::size_t n = p.size();  // `acceleration` holds n entries (integrator.cpp)
    // Per rigid body: rotation, angular velocity and the accelerations of the centre.
    struct Frame {
        Mat3 R;
        Vec3 omega, alpha, acc;
    };
    std::vector<Frame> frames(bodies_->size());
    for (std::size_t j = 0; j < index_.size(); ++j) {
        const RigidBody& b = (*bodies_)[index_[j]].rigid;
        Frame& f = frames[index_[j]];
        f.R = geometry::rotation_matrix(b.state.orientation);
        f.omega = geometry::angular_velocity(b, b.state, t, dim_);
        f.alpha = angular_acceleration(b, b.state, f.omega, b.state.torque, dim_);
        f.acc = b.state.acceleration;
    }
#pragma omp parallel for schedule(static) \
    num_threads(parallel::threads_for(n, parallel::kMinCheapItems))
    for (std::size_t i = 0; i < n; ++i) {
        const Body& body = (*bodies_)[static_cast<std::size_t>(p.body[i])];
        if (body.motion != Motion::rigid) continue;
        const RigidBody& b = body.rigid;
        const Frame& f = frames[static_cast<std::size_t>(p.body[i])];
        const Vec3 r = geometry::rotate(f.R, b.offsets[static_cast<std::size_t>(p.id[i] - body.first_id)]);
        const Vec3 wxr = geometry::cross(f.omega, r);
        const Vec3 axr = geometry::cross(f.alpha, r);
        const Vec3 wxwxr = geometry::cross(f.omega, wxr);
        for (int d = 0; d < p.dim; ++d) {
            p.x[d][i] = b.state.centre[d] + r[d];
            p.v[d][i] = b.state.velocity[d] + wxr[d];
            acceleration[d][i] = f.acc[d] + axr[d] + wxwxr[d];
        }
    }
}

}  // namespace regosph
