// Prescribed-motion (kinematic) bodies: tools that follow a motor's motion (brush, tray)
// whatever the regolith does (body_motion.hpp). Their particles are boundary particles: they
// take part in the regolith's equations like wall particles (density and stress
// extrapolated, Adami et al. 2012) and have no time-step limit of their own (SPEC.md
// section 6). The pair loop collects their loads (body_loads.hpp), torques about the pivot:
// what the motor must deliver.
#pragma once

#include <vector>

#include "geometry/kinematics.hpp"
#include "sph/body_motion.hpp"

namespace regosph {

struct KinematicMotion : StillBody {
    static constexpr const char* kName = "kinematic";
    static constexpr bool kBoundary = true;

    geometry::Kinematics kinematics;
    // Every particle's position at t = 0 (indexed by id - first_id), from which its position
    // at any time follows exactly.
    std::vector<geometry::Vec3> reference_positions;

    static KinematicMotion make(const MotionInput& in, const std::string& where);

    bool collects_loads() const { return true; }
    geometry::Vec3 load_reference(double t) const { return kinematics.pivot_at(t); }

    // The motion at one time, evaluated once for all the body's particles.
    struct Frame {
        geometry::KinematicState state;
        const std::vector<geometry::Vec3>* reference_positions;
        bool place(std::size_t j, geometry::Vec3& x, geometry::Vec3& v, geometry::Vec3& a) const;
    };
    Frame frame(double t, int dim) const;

    // geometry::power_into_regolith of the load about the pivot.
    double regolith_power(const BodyLoad& load, double t, int dim) const;
    void describe(io::Json& body) const;
};

}  // namespace regosph
