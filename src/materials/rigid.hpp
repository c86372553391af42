// Material of bodies whose particles are boundary particles (fixed walls, prescribed-motion
// tools, rigid bodies): its density gives the particles their volume m / rho. Their density
// and stress are extrapolated from the regolith around them (src/sph/boundary.hpp), so the
// model has no stress rate of its own.
//
// Optionally it carries the properties of contact between boundary bodies (src/sph/contact.hpp):
// a rigid body meets walls, tools and other rigid bodies through them. Without a Young's
// modulus the material has no contact stiffness of its own (it is taken as infinitely stiff
// against a partner that has one); two bodies of which neither has one do not touch.
#pragma once

#include <string>
#include <vector>

#include "materials/constitutive_model.hpp"

namespace regosph {

struct Rigid {
    double density = 0.0;  // [kg/m^3]
    // Contact properties (used when youngs_modulus > 0):
    double youngs_modulus = 0.0;  // E [Pa]; 0 = none
    double poisson_ratio = 0.25;  // nu [-]
    double restitution = 1.0;     // normal coefficient of restitution e of one contact [-]
    double friction = 0.0;        // Coulomb coefficient mu between bodies [-]
    // Sliding speed at which the regularised Coulomb force reaches tanh(1) = 76 % of mu F_n
    // [m/s] (contact.hpp): slower relative motion is resisted like a viscous film.
    double slip_velocity = 1e-3;

    static constexpr const char* kName = "Rigid";
    static constexpr bool kBoundaryOnly = true;
    static constexpr bool kPlastic = false;
    bool has_contact() const { return youngs_modulus > 0.0; }
    void validate(const std::string& material) const {
        checks::positive(material, "density", density, "kg/m^3");
        checks::non_negative(material, "youngs_modulus", youngs_modulus, "Pa");
        if (!has_contact()) return;
        checks::in_range(material, "poisson_ratio", poisson_ratio, 0.0, 0.5);
        if (!(restitution > 0.0 && restitution <= 1.0))
            checks::fail(material, "restitution", restitution, "must lie in (0, 1]");
        checks::non_negative(material, "friction", friction, "-");
        checks::positive(material, "slip_velocity", slip_velocity, "m/s");
    }
    void prepare(int /*dim*/) {}
    double wave_speed(const MaterialState& /*state*/) const { return 0.0; }
    StressRate stress_rate(const MaterialState&, const SymTensor&, const Spin&) const { return {}; }
    bool correct(MaterialState& /*state*/, double /*dt*/) const { return false; }
    double strain_energy(double /*rho*/, const SymTensor& /*sigma*/) const { return 0.0; }
    PairOptions pair_options() const { return {}; }
    std::vector<ModelParameter> parameters() const {
        if (!has_contact()) return {{"density_kg_m3", density}};
        return {{"density_kg_m3", density},         {"youngs_modulus_Pa", youngs_modulus},
                {"poisson_ratio", poisson_ratio},   {"restitution", restitution},
                {"contact_friction", friction},     {"slip_velocity_m_s", slip_velocity}};
    }
};

static_assert(ConstitutiveModel<Rigid>);

}  // namespace regosph
