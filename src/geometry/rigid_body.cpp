#include "geometry/rigid_body.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "core/eigen.hpp"

namespace regosph::geometry {

namespace {

Eigen::Matrix3d to_eigen(const Mat3& m) {
    Eigen::Matrix3d e;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) e(i, j) = m[3 * i + j];
    return e;
}

Mat3 from_eigen(const Eigen::Matrix3d& e) {
    Mat3 m;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) m[3 * i + j] = e(i, j);
    return m;
}

bool finite(const Vec3& v) { return std::isfinite(v[0]) && std::isfinite(v[1]) && std::isfinite(v[2]); }

// The knots (kinematics.hpp) and, in 2D, a force in the plane and a torque about z only.
void validate_load(const VectorSchedule& s, int dim, bool in_plane, const std::string& what) {
    validate_schedule(s, what);
    if (dim == 3) return;
    for (std::size_t k = 0; k < s.knots.size(); ++k) {
        const Vec3& v = s.knots[k].value;
        if (in_plane && v[2] != 0.0)
            throw std::invalid_argument(what + ": a 2D run has no z component (knot " +
                                        std::to_string(k) + ")");
        if (!in_plane && (v[0] != 0.0 || v[1] != 0.0))
            throw std::invalid_argument(what + ": in 2D only the z component of a torque exists "
                                        "(knot " + std::to_string(k) + ")");
    }
}

}  // namespace

MassProperties mass_properties(const std::vector<Vec3>& x, const std::vector<double>& m,
                               double spacing, int dim) {
    MassProperties p;
    for (std::size_t i = 0; i < x.size(); ++i) {
        p.mass += m[i];
        for (int d = 0; d < 3; ++d) p.centre[d] += m[i] * x[i][d];
    }
    for (int d = 0; d < 3; ++d) p.centre[d] /= p.mass;
    // Each particle stands for a square (cubic) cell of side s: its own inertia about its
    // centre is m s^2 / 6 about every axis through it.
    const double cell = spacing * spacing / 6.0;
    Eigen::Matrix3d I = Eigen::Matrix3d::Zero();
    for (std::size_t i = 0; i < x.size(); ++i) {
        const Eigen::Vector3d r(x[i][0] - p.centre[0], x[i][1] - p.centre[1],
                                dim == 3 ? x[i][2] - p.centre[2] : 0.0);
        I += m[i] * ((r.squaredNorm() + cell) * Eigen::Matrix3d::Identity() - r * r.transpose());
    }
    if (dim == 2) {  // only the rotation about z exists
        const double izz = I(2, 2);
        I.setZero();
        I(2, 2) = izz;
    }
    p.inertia = from_eigen(I);
    return p;
}

Mat3 rotation_matrix(const Quaternion& q) {
    const double w = q[0], x = q[1], y = q[2], z = q[3];
    return {1 - 2 * (y * y + z * z), 2 * (x * y - w * z),     2 * (x * z + w * y),
            2 * (x * y + w * z),     1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
            2 * (x * z - w * y),     2 * (y * z + w * x),     1 - 2 * (x * x + y * y)};
}

Vec3 rotate(const Mat3& R, const Vec3& v) {
    return {R[0] * v[0] + R[1] * v[1] + R[2] * v[2], R[3] * v[0] + R[4] * v[1] + R[5] * v[2],
            R[6] * v[0] + R[7] * v[1] + R[8] * v[2]};
}

Vec3 rotate_back(const Mat3& R, const Vec3& v) {
    return {R[0] * v[0] + R[3] * v[1] + R[6] * v[2], R[1] * v[0] + R[4] * v[1] + R[7] * v[2],
            R[2] * v[0] + R[5] * v[1] + R[8] * v[2]};
}

Vec3 cross(const Vec3& a, const Vec3& b) {
    return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}

// The orientation q turned by the rotation vector phi [rad] (world frame): exp((0, phi) / 2) * q,
// normalised.
Quaternion rotated(const Quaternion& q, const Vec3& phi) {
    const double angle = std::sqrt(phi[0] * phi[0] + phi[1] * phi[1] + phi[2] * phi[2]);
    const double half = 0.5 * angle;
    const double s = angle > 0.0 ? std::sin(half) / angle : 0.5;  // sin(|phi|/2) / |phi|
    const Quaternion r{std::cos(half), s * phi[0], s * phi[1], s * phi[2]};
    Quaternion out{r[0] * q[0] - r[1] * q[1] - r[2] * q[2] - r[3] * q[3],
                   r[0] * q[1] + r[1] * q[0] + r[2] * q[3] - r[3] * q[2],
                   r[0] * q[2] - r[1] * q[3] + r[2] * q[0] + r[3] * q[1],
                   r[0] * q[3] + r[1] * q[2] - r[2] * q[1] + r[3] * q[0]};
    // |out|^2 as a chain of fused multiply-adds in component order, written out: left to the
    // compiler, its rounding followed how the caller was vectorised, so that moving this code
    // changed the rigid bodies' results in the last bit.
    double n2 = out[0] * out[0];
    for (int k = 1; k < 4; ++k) n2 = std::fma(out[k], out[k], n2);
    const double inv = 1.0 / std::sqrt(n2);
    for (double& v : out) v *= inv;
    return out;
}

Mat3 world_inertia(const RigidBody& b, const Quaternion& q) {
    const Eigen::Matrix3d R = to_eigen(rotation_matrix(q));
    return from_eigen(R * to_eigen(b.inertia) * R.transpose());
}

double smallest_moment(const RigidBody& b, int dim) {
    if (dim == 2) return b.inertia[8];
    return Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d>(to_eigen(b.inertia)).eigenvalues().minCoeff();
}

Vec3 angular_velocity(const RigidBody& b, const RigidState& s, double t, int dim) {
    // Prescribed components from the motion (0 when locked); the free ones f solve the rows
    // of L = I_w omega that no constraint torque acts on: I_ff omega_f = L_f - I_fp omega_p.
    Vec3 omega{0.0, 0.0, 0.0};
    const Vec3& axis = b.motion.axis;
    const double rate = b.motion.rate(t);  // [rad/s], constant or scheduled
    std::array<int, 3> free{};
    int n_free = 0;
    for (int k = 0; k < 3; ++k) {
        const bool exists = dim == 3 || k == 2;
        const bool prescribed = !exists || b.prescribed[kRx + k];
        if (prescribed)
            omega[k] = exists ? rate * axis[k] : 0.0;
        else
            free[n_free++] = k;
    }
    if (n_free == 0) return omega;
    const Mat3 Iw = world_inertia(b, s.orientation);
    Eigen::MatrixXd A(n_free, n_free);
    Eigen::VectorXd rhs(n_free);
    for (int i = 0; i < n_free; ++i) {
        const int r = free[i];
        rhs(i) = s.angular_momentum[r];
        for (int c = 0; c < 3; ++c) rhs(i) -= Iw[3 * r + c] * omega[c];  // prescribed part
        for (int j = 0; j < n_free; ++j) A(i, j) = Iw[3 * r + free[j]];
    }
    const Eigen::VectorXd w = A.llt().solve(rhs);
    for (int i = 0; i < n_free; ++i) omega[free[i]] = w(i);
    return omega;
}

void validate(const RigidBody& b, int dim, const std::string& where) {
    if (!(std::isfinite(b.mass) && b.mass > 0.0)) {
        std::ostringstream os;
        os << where << "mass = " << b.mass << (dim == 2 ? " kg/m" : " kg") << " must be positive";
        throw std::invalid_argument(os.str());
    }
    const Eigen::Matrix3d I = to_eigen(b.inertia);
    if (!I.allFinite())
        throw std::invalid_argument(where + "inertia: entries must be finite numbers");
    if (dim == 2) {
        if (!(I(2, 2) > 0.0)) {
            std::ostringstream os;
            os << where << "inertia: I_zz = " << I(2, 2) << " kg m^2/m must be positive";
            throw std::invalid_argument(os.str());
        }
    } else {
        const double scale = I.cwiseAbs().maxCoeff();
        if (!((I - I.transpose()).cwiseAbs().maxCoeff() <= 1e-12 * scale))
            throw std::invalid_argument(where + "inertia: the tensor must be symmetric");
        const Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> eig(I);
        if (!(eig.eigenvalues().minCoeff() > 0.0)) {
            std::ostringstream os;
            os << where << "inertia: the tensor must be positive definite (smallest eigenvalue "
               << eig.eigenvalues().minCoeff() << " kg m^2)";
            throw std::invalid_argument(os.str());
        }
    }
    validate_load(b.force, dim, true, where + "force");
    validate_load(b.torque, dim, false, where + "torque");
    const RigidState& s = b.state;
    if (!finite(s.velocity) || !finite(s.angular_momentum) || !finite(s.centre))
        throw std::invalid_argument(where + "velocity and angular velocity must be finite");
    if (dim == 2 && s.velocity[2] != 0.0)
        throw std::invalid_argument(where + "velocity: a 2D run has no z velocity");
    if (dim == 2 && (s.angular_momentum[0] != 0.0 || s.angular_momentum[1] != 0.0))
        throw std::invalid_argument(where + "angular_velocity: in 2D only the z component exists");
}

RigidBody make_rigid_body(const std::vector<Vec3>& x, const std::vector<double>& m,
                          double spacing, int dim, const RigidSpec& spec, const Vec3& velocity,
                          const std::optional<Kinematics>& motion, const std::string& where) {
    RigidBody b;
    MassProperties mp = mass_properties(x, m, spacing, dim);
    if (spec.mass) {
        // The given mass spread like the particles': the inertia scales with it.
        const double scale = *spec.mass / mp.mass;
        for (double& c : mp.inertia) c *= scale;
        mp.mass = *spec.mass;
    }
    if (spec.centre) {
        if (!finite(*spec.centre)) throw std::invalid_argument(where + "centre must be finite");
        mp.centre = *spec.centre;
        if (dim == 2) mp.centre[2] = 0.0;
    }
    if (spec.inertia) {
        mp.inertia = *spec.inertia;
        if (dim == 2) {
            const double izz = mp.inertia[8];
            mp.inertia = Mat3{};
            mp.inertia[8] = izz;
        }
    }
    b.mass = mp.mass;
    b.inertia = mp.inertia;
    b.initial_centre = mp.centre;
    for (const Vec3& p : x) {
        Vec3 r{p[0] - mp.centre[0], p[1] - mp.centre[1], dim == 3 ? p[2] - mp.centre[2] : 0.0};
        b.extent = std::max(b.extent, std::sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]));
        b.offsets.push_back(r);
    }
    b.force = spec.force;
    b.torque = spec.torque;
    b.force_in_body_frame = spec.force_in_body_frame;
    b.torque_in_body_frame = spec.torque_in_body_frame;
    for (const std::string& name : spec.fixed_dofs) b.prescribed[parse_dof(name, where)] = true;
    if (dim == 2)
        for (const std::string& name : spec.fixed_dofs)
            if (name == "z" || name == "rx" || name == "ry")
                throw std::invalid_argument(where + "fixed_dofs: '" + name +
                                            "' does not exist in 2D (x, y and rz do)");
    if (motion) {
        if (spec.fixed_dofs.empty())
            throw std::invalid_argument(
                where + "kinematics: a rigid body's kinematics prescribes the degrees of freedom "
                        "listed in fixed_dofs, and none is listed");
        b.motion = *motion;
    }
    if (!finite(velocity) || !finite(spec.angular_velocity))
        throw std::invalid_argument(where + "velocity and angular_velocity must be finite");
    if (dim == 2 && (spec.angular_velocity[0] != 0.0 || spec.angular_velocity[1] != 0.0))
        throw std::invalid_argument(where + "angular_velocity: in 2D only the z component exists");
    b.state.centre = b.initial_centre;
    b.state.velocity = velocity;
    // L = I omega at t = 0 (body frame = world frame), prescribed components imposed.
    const Vec3& w = spec.angular_velocity;
    for (int i = 0; i < 3; ++i)
        b.state.angular_momentum[i] =
            b.inertia[3 * i] * w[0] + b.inertia[3 * i + 1] * w[1] + b.inertia[3 * i + 2] * w[2];
    validate(b, dim, where);
    return b;
}

bool parse_frame(const std::string& name, const std::string& where) {
    if (name == "world") return false;
    if (name == "body") return true;
    throw std::invalid_argument(where + ": '" + name + "' is not 'world' or 'body'");
}

Dof parse_dof(const std::string& name, const std::string& where) {
    for (int k = 0; k < 6; ++k)
        if (name == kDofNames[k]) return static_cast<Dof>(k);
    throw std::invalid_argument(where + "fixed_dofs: unknown degree of freedom '" + name +
                                "' (expected x, y, z, rx, ry or rz)");
}

}  // namespace regosph::geometry
