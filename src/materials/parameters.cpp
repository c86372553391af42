#include "materials/parameters.hpp"

#include <cmath>
#include <stdexcept>
#include <utility>

#include "core/units.hpp"

namespace regosph {

namespace {

// The shear modulus of a model given K and exactly one of G and nu.
double shear_modulus_of(const std::string& name, double bulk_modulus,
                        const std::optional<double>& shear_modulus,
                        const std::optional<double>& poisson_ratio) {
    if (shear_modulus.has_value() == poisson_ratio.has_value())
        throw std::invalid_argument("material '" + name +
                                    "': give exactly one of shear_modulus and poisson_ratio");
    // The (K, nu) -> mu conversion of isotropic elasticity, with its checks on nu.
    return shear_modulus ? *shear_modulus
                         : elastic_moduli(name, bulk_modulus, std::nullopt, std::nullopt,
                                          poisson_ratio)
                               .shear_modulus;
}

// The members the soil models share, from their input: the density, the moduli (K and
// exactly one of G and nu), the cohesion and the elasticity law.
template <class Model, class Input>
void set_soil(Model& model, const std::string& name, const Input& in) {
    model.density = in.density;
    model.bulk_modulus = in.bulk_modulus;
    model.shear_modulus =
        shear_modulus_of(name, in.bulk_modulus, in.shear_modulus, in.poisson_ratio);
    model.cohesion = in.cohesion;
    model.elasticity = in.elasticity;
}

// set_soil and the friction and dilatancy angles (degrees in the input, radians in the model).
template <class Model, class Input>
void set_frictional_soil(Model& model, const std::string& name, const Input& in) {
    set_soil(model, name, in);
    model.friction_angle = degrees_to_radians(in.friction_angle_deg);
    model.dilatancy_angle = degrees_to_radians(in.dilatancy_angle_deg);
}

// The validated material of a soil model with its input's numerics.
template <class Model, class Input>
Material soil_material(const std::string& name, const Model& model, const Input& in) {
    Material m{name, model, in.viscosity_sound_speed, in.kernel_correction};
    validate(m);
    return m;
}

}  // namespace

Material make_material(const std::string& name, const DruckerPragerInput& in) {
    DruckerPrager dp;
    set_frictional_soil(dp, name, in);
    dp.artificial_stress = in.artificial_stress;
    dp.artificial_stress_exponent = in.artificial_stress_exponent;
    return soil_material(name, dp, in);
}

Material make_material(const std::string& name, const ElasticSolidInput& in) {
    const ElasticModuli k = elastic_moduli(name, in.bulk_modulus, in.shear_modulus,
                                           in.youngs_modulus, in.poisson_ratio);
    const ElasticSolid es{in.density,           k.bulk_modulus,
                          k.shear_modulus,      in.murnaghan_n,
                          in.artificial_stress, in.artificial_stress_exponent,
                          in.xsph};
    Material m{name, es, in.viscosity_sound_speed, in.kernel_correction};
    validate(m);
    return m;
}

Material make_material(const std::string& name, const MuIRheologyInput& in) {
    MuIRheology mi;
    set_soil(mi, name, in);
    mi.static_friction = in.static_friction;
    mi.limit_friction = in.limit_friction;
    mi.reference_inertial_number = in.reference_inertial_number;
    mi.grain_diameter = in.grain_diameter;
    mi.grain_density = in.grain_density;
    return soil_material(name, mi, in);
}

Material make_material(const std::string& name, const MohrCoulombInput& in) {
    MohrCoulomb mc;
    set_frictional_soil(mc, name, in);
    if (in.tensile_strength) {
        // A cut-off is a non-negative strength; "none" is the way to have no cut-off.
        if (!(*in.tensile_strength >= 0.0))
            checks::fail(name, "tensile_strength", *in.tensile_strength,
                         "Pa must be non-negative (None: no cut-off)");
        mc.tensile_strength = *in.tensile_strength;
    }
    mc.tensile_softening_strain = in.tensile_softening_strain;
    mc.artificial_stress = in.artificial_stress;
    mc.artificial_stress_exponent = in.artificial_stress_exponent;
    return soil_material(name, mc, in);
}

namespace {

// The porous soil of `in`: the soil's material at the bulk density, then the crush curve.
template <class Soil, class SoilInput>
Material make_porous(const std::string& name, const PorousInput<SoilInput>& in) {
    checks::positive(name, "grain_density", in.grain_density, "kg/m^3");
    if (!(std::isfinite(in.porosity) && in.porosity >= 0.0 && in.porosity < 1.0))
        checks::fail(name, "porosity", in.porosity, "must lie in [0, 1)");
    SoilInput soil = in.soil;
    soil.density = in.grain_density * (1.0 - in.porosity);
    const Material bulk = make_material(name, soil);
    Porous<Soil> model;
    model.soil = std::get<Soil>(bulk.model);
    model.density = soil.density;
    model.crush = make_crush_curve(distension_of_porosity(in.porosity), in.elastic_strain,
                                   in.kappa, in.transition_distension);
    Material m{name, model, bulk.viscosity_sound_speed, bulk.kernel_correction};
    validate(m);
    return m;
}

}  // namespace

Material make_material(const std::string& name, const PorousDruckerPragerInput& in) {
    return make_porous<DruckerPrager>(name, in);
}

Material make_material(const std::string& name, const PorousMohrCoulombInput& in) {
    return make_porous<MohrCoulomb>(name, in);
}

Material make_material(const std::string& name, const Rigid& in) {
    Material m{name, in, 0.0};
    validate(m);
    return m;
}

Material make_material(const std::string& name, const RigidInput& in) {
    Rigid r;
    r.density = in.density;
    const bool any = in.youngs_modulus || in.restitution || in.friction;
    if (any) {
        const std::pair<const char*, const std::optional<double>*> needed[] = {
            {"youngs_modulus", &in.youngs_modulus},
            {"restitution", &in.restitution},
            {"friction", &in.friction}};
        for (const auto& [field, value] : needed)
            if (!value->has_value())
                throw std::invalid_argument("material '" + name + "': contact needs " + field +
                                            " (give youngs_modulus, restitution and friction "
                                            "together, or none of them)");
        // 0 would silently mean "no contact stiffness": contact asks for a real modulus.
        if (!(*in.youngs_modulus > 0.0))
            checks::fail(name, "youngs_modulus", *in.youngs_modulus, "Pa must be positive");
        r.youngs_modulus = *in.youngs_modulus;
        r.restitution = *in.restitution;
        r.friction = *in.friction;
    }
    r.poisson_ratio = in.poisson_ratio;
    r.slip_velocity = in.slip_velocity;
    return make_material(name, r);
}

}  // namespace regosph
