#include "sph/kinematic_motion.hpp"

#include <cmath>
#include <stdexcept>

namespace regosph {

KinematicMotion KinematicMotion::make(const MotionInput& in, const std::string& where) {
    refuse_velocity(in, where);
    refuse_rigid_spec(in, kName, where);
    if (!in.kinematics)
        throw std::invalid_argument(where + "kinematics: a kinematic body needs its motion");
    KinematicMotion m;
    m.kinematics = geometry::validated(*in.kinematics, in.dim, where);
    m.reference_positions.reserve(in.positions.size());
    for (geometry::Point x : in.positions) {
        if (in.dim == 2) x[2] = 0.0;
        m.reference_positions.push_back(x);
    }
    return m;
}

KinematicMotion::Frame KinematicMotion::frame(double t, int) const {
    return {kinematics.at(t), &reference_positions};
}

bool KinematicMotion::Frame::place(std::size_t j, geometry::Vec3& x, geometry::Vec3& v,
                                   geometry::Vec3& a) const {
    state.place((*reference_positions)[j], x, v);
    a = state.acceleration(x);
    return true;
}

double KinematicMotion::regolith_power(const BodyLoad& load, double t, int) const {
    return geometry::power_into_regolith(kinematics, load.force, load.torque, t);
}

void KinematicMotion::describe(io::Json& body) const {
    const geometry::Kinematics& k = kinematics;
    io::Json translation = io::Json::array();
    for (const auto& seg : k.translation)
        translation.push_back({{"until_s", seg.until}, {"velocity_m_s", seg.velocity}});
    body["kinematics"] = {{"pivot_m", k.pivot},
                          {"axis", k.axis},
                          {"angular_velocity_rad_s", k.angular_velocity},
                          {"rpm", k.angular_velocity * 30.0 / M_PI},
                          {"translation", translation}};
    // Motor-like schedules, when given: knots (time, value), linear between them.
    for (const auto& knot : k.rate_schedule.knots)
        body["kinematics"]["rate_schedule"].push_back(
            {{"time_s", knot.time}, {"angular_velocity_rad_s", knot.value[0]},
             {"rpm", knot.value[0] * 30.0 / M_PI}});
    for (const auto& knot : k.velocity_ramp.knots)
        body["kinematics"]["velocity_ramp"].push_back(
            {{"time_s", knot.time}, {"velocity_m_s", knot.value}});
}

}  // namespace regosph
