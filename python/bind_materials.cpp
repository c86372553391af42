// Bindings: Material and its constructors. The unit conversions (degrees -> radians) and the
// modulus combinations are in src/materials/parameters.hpp.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "bindings.hpp"
#include "convert.hpp"
#include "core/units.hpp"
#include "materials/parameters.hpp"

namespace regosph::python {

namespace {
// "material '<name>': <field>", the prefix of the models' own errors (checks::fail).
std::string material_field(const std::string& name, const char* field) {
    return "material '" + name + "': " + field;
}

// Densities [kg/m^3] of `count` particles: one number or a 1D array (ValueError otherwise).
DoubleArray to_densities(const Material& m, const DoubleArray& rho) {
    if (rho.ndim() > 1)
        throw py::value_error(material_field(m.name, "rho") + ": expected a number or a 1D array "
                              "of densities [kg/m^3], got shape " + shape_text(rho));
    return rho;
}

// The stress rows (n, 6) [Pa] of `count` points of field "stress" given as (6,) for one point
// or (n, 6) (ValueError naming the material otherwise).
void check_stress_rows(const Material& m, const DoubleArray& stress, py::ssize_t count, bool one) {
    if (!(one ? stress.ndim() == 1 && stress.shape(0) == kSymComponents
              : stress.ndim() == 2 && stress.shape(0) == count && stress.shape(1) == kSymComponents))
        throw py::value_error(material_field(m.name, "stress") + ": expected shape (" +
                              (one ? std::string() : std::to_string(count) + ", ") + "6) (xx yy zz xy "
                              "xz yz [Pa], one row per density), got " + shape_text(stress));
}

// The model's wave speed (wave_speeds, material.hpp) at each density [m/s], at each stress
// (None: zero stress) and with the history at its initial values; a number for a number.
py::object wave_speeds_of(const Material& m, const DoubleArray& rho_in, const py::object& stress_in) {
    const DoubleArray rho = to_densities(m, rho_in);
    const auto n = static_cast<std::size_t>(rho.size());
    py::array_t<double> speed(rho.size());
    const std::vector<double> zero(n, 0.0);
    std::vector<std::vector<double>> columns(kSymComponents, zero);
    if (!stress_in.is_none()) {
        const auto stress = py::cast<DoubleArray>(stress_in);
        check_stress_rows(m, stress, rho.size(), rho.ndim() == 0);
        for (std::size_t i = 0; i < n; ++i)
            for (int c = 0; c < kSymComponents; ++c)
                columns[static_cast<std::size_t>(c)][i] = stress.data()[i * kSymComponents + c];
    }
    const std::vector<HistoryVariable> variables = history_variables(m);
    std::vector<std::vector<double>> history(variables.size());
    PointRun<const double> run;
    run.rho = rho.data();
    for (int c = 0; c < kSymComponents; ++c) run.stress[c] = columns[static_cast<std::size_t>(c)].data();
    for (std::size_t k = 0; k < variables.size(); ++k) {
        history[k].assign(n, variables[k].initial);
        run.history[k] = history[k].data();
    }
    run.history_count = variables.size();
    run.count = n;
    wave_speeds(m, run, speed.mutable_data());
    if (rho.ndim() == 0) return py::float_(speed.at(0));
    return std::move(speed);
}

// strain_energy(m, rho, sigma) of material.hpp for each particle [J/kg]: rho (n,), stress
// (n, 6) in the order xx yy zz xy xz yz (Pa, tension positive); one tensor (6,) gives a number.
py::object strain_energies_of(const Material& m, const DoubleArray& rho_in, const DoubleArray& stress) {
    const DoubleArray rho = to_densities(m, rho_in);
    const py::ssize_t n = rho.size();
    const bool one = rho.ndim() == 0 && stress.ndim() == 1;
    check_stress_rows(m, stress, n, one);
    py::array_t<double> energy(n);
    const double* s = stress.data();
    for (py::ssize_t i = 0; i < n; ++i) {
        SymTensor sigma;
        for (int c = 0; c < kSymComponents; ++c) sigma[c] = s[i * kSymComponents + c];
        energy.mutable_data()[i] = strain_energy(m, rho.data()[i], sigma);
    }
    if (one) return py::float_(energy.at(0));
    return std::move(energy);
}

// A symmetric tensor (6,) xx yy zz xy xz yz of field `field` [unit] (ValueError otherwise).
SymTensor to_sym_tensor(const Material& m, const DoubleArray& a, const char* field, const char* unit) {
    if (a.ndim() != 1 || a.shape(0) != kSymComponents)
        throw py::value_error(material_field(m.name, field) + ": expected shape (6,) (xx yy zz xy "
                              "xz yz [" + unit + "]), got " + shape_text(a));
    SymTensor t;
    for (int c = 0; c < kSymComponents; ++c) {
        t[c] = a.data()[c];
        if (!std::isfinite(t[c]))
            throw py::value_error(material_field(m.name, field) + ": component " +
                                  kSymComponentNames[static_cast<std::size_t>(c)] + " is not finite");
    }
    return t;
}

// One step dt [s] of the model at a material point, the two phases the solver runs per stage
// (src/sph/integrator.cpp stage_update): Heun's predictor y1 = y0 + dt k(y0) and corrector
// y = y0 + dt/2 (k(y0) + k(y1)) of the stress rate (zero spin: no Jaumann terms), the history
// rates and the continuity equation rho_dot = -rho tr(eps_dot), each stage followed by the
// model's correct(). Yielded as the solver's `yielding`: plastic loading in the second rate
// evaluation or a plastic correction at the end. Returns (rho, stress (6,), yielded, history).
py::tuple point_step_of(const Material& material, double rho, const DoubleArray& stress_in,
                        const DoubleArray& strain_rate_in, double dt, int dim,
                        const py::object& history_in) {
    if (dim != 2 && dim != 3)
        throw py::value_error(material_field(material.name, "dim") + " = " + std::to_string(dim) +
                              " must be 2 or 3");
    if (boundary_only(material))
        throw py::value_error(material_field(material.name, "model") + ": a " +
                              model_name(material) + " material has no constitutive law to drive");
    if (!(std::isfinite(rho) && rho > 0.0))
        throw py::value_error(material_field(material.name, "rho") + " = " + std::to_string(rho) +
                              " kg/m^3 must be positive");
    if (!(std::isfinite(dt) && dt > 0.0))
        throw py::value_error(material_field(material.name, "dt") + " = " + std::to_string(dt) +
                              " s must be positive");
    const SymTensor sigma0 = to_sym_tensor(material, stress_in, "stress", "Pa");
    const SymTensor eps_dot = to_sym_tensor(material, strain_rate_in, "strain_rate", "1/s");
    // 2D runs are plane strain in xy: no zz strain rate and no out-of-plane shear.
    if (dim == 2 && (eps_dot[ZZ] != 0.0 || eps_dot[XZ] != 0.0 || eps_dot[YZ] != 0.0 ||
                     sigma0[XZ] != 0.0 || sigma0[YZ] != 0.0))
        throw py::value_error(material_field(material.name, "strain_rate") + ": in 2D (plane "
                              "strain) the zz, xz and yz strain rates and the xz, yz stresses "
                              "must be zero");
    const Material m = prepared(material, dim);  // as the solver's material table (equations.cpp)
    const std::vector<HistoryVariable> variables = history_variables(m);
    std::array<double, kMaxHistoryVariables> h0{}, h{};
    for (std::size_t k = 0; k < variables.size(); ++k) h0[k] = variables[k].initial;
    if (!history_in.is_none()) {
        const auto given = DoubleArray::ensure(history_in);
        if (!given || given.ndim() != 1 || static_cast<std::size_t>(given.shape(0)) != variables.size())
            throw py::value_error(material_field(material.name, "history") + ": expected " +
                                  std::to_string(variables.size()) + " values (history_names)");
        for (std::size_t k = 0; k < variables.size(); ++k) h0[k] = given.data()[k];
    }
    const int components = stress_components(dim);
    const double tr = trace(eps_dot);
    const MaterialState s0{rho, sigma0, h0.data()};
    const StressRate k1 = stress_rate(m, s0, eps_dot, Spin{});
    h = h0;
    MaterialState s1{rho * (1.0 - dt * tr), sigma0, h.data()};
    for (int c = 0; c < components; ++c) s1.sigma[c] += dt * k1.rate[c];
    for (std::size_t k = 0; k < variables.size(); ++k) h[k] += dt * k1.history_rate[k];
    correct_stress(m, s1, dt);
    std::array<double, kMaxHistoryVariables> h1 = h;
    const MaterialState predicted{s1.rho, s1.sigma, h1.data()};
    const StressRate k2 = stress_rate(m, predicted, eps_dot, Spin{});
    h = h0;
    MaterialState s{rho - 0.5 * dt * tr * (rho + s1.rho), sigma0, h.data()};
    for (int c = 0; c < components; ++c) s.sigma[c] += 0.5 * dt * (k1.rate[c] + k2.rate[c]);
    for (std::size_t k = 0; k < variables.size(); ++k)
        h[k] += 0.5 * dt * (k1.history_rate[k] + k2.history_rate[k]);
    const bool corrected = correct_stress(m, s, dt);
    py::array_t<double> stress(kSymComponents), history(static_cast<py::ssize_t>(variables.size()));
    for (int c = 0; c < kSymComponents; ++c) stress.mutable_data()[c] = s.sigma[c];
    for (std::size_t k = 0; k < variables.size(); ++k) history.mutable_data()[k] = h[k];
    return py::make_tuple(s.rho, stress, k2.yielding || corrected, history);
}

// The Material class: its numerics and what Python code needs of its model, computed by the
// model's own functions (material.hpp).
void bind_material_class(py::module_& m) {
    py::class_<Material>(m, "Material")
        .def_readonly("name", &Material::name)
        .def_readonly("viscosity_sound_speed", &Material::viscosity_sound_speed)
        .def_readonly("kernel_correction", &Material::kernel_correction)
        .def_property_readonly("density", [](const Material& x) { return reference_density(x); })
        .def_property_readonly("wave_speed", [](const Material& x) { return elastic_wave_speed(x); },
                               "Elastic (P-wave) speed at the reference density and zero stress "
                               "(Houlsby elasticity: at its reference pressure) [m/s]; 0 for Rigid.")
        .def_property_readonly("model", [](const Material& x) { return std::string(model_name(x)); },
                               "The constitutive model: 'DruckerPrager', 'ElasticSolid', "
                               "'Rigid', 'MuIRheology', 'PorousDruckerPrager', 'MohrCoulomb' or "
                               "'PorousMohrCoulomb' (run.json 'model').")
        .def_property_readonly("plastic", [](const Material& x) { return plastic(x); },
                               "True when the model can yield.")
        .def_property_readonly("boundary_only", [](const Material& x) { return boundary_only(x); },
                               "True when only fixed, kinematic or rigid bodies may use it.")
        .def("wave_speed_at", &wave_speeds_of, py::arg("rho"), py::arg("stress") = py::none(),
             "The model's wave speed [m/s] at density rho [kg/m^3] (a number or a 1D array) and "
             "stress [Pa] (tension positive, xx yy zz xy xz yz: (6,) for a number, (n, 6) for an "
             "array; None: zero stress), the speed the Courant limit uses.")
        .def_property_readonly("elasticity", [](const Material& x) { return elasticity(x); },
                               "The soil model's Elasticity (linear or Houlsby); None for a "
                               "model without the choice.")
        .def("strain_energy", &strain_energies_of, py::arg("rho"), py::arg("stress"),
             "The model's stored elastic energy per unit mass [J/kg] at density rho [kg/m^3] and "
             "stress [Pa] (tension positive, xx yy zz xy xz yz): rho a number and stress (6,), "
             "or rho (n,) and stress (n, 6). Times the mass, the energy the diagnostics sum.")
        .def_property_readonly(
            "history_variables",
            [](const Material& x) {
                py::list out;
                for (const auto& v : history_variables(x))
                    out.append(py::make_tuple(v.name, v.units, v.initial));
                return out;
            },
            "The model's history variables as (name, units, initial value), in the order "
            "point_step takes them.")
        .def("point_step", &point_step_of, py::arg("rho"), py::arg("stress"),
             py::arg("strain_rate"), py::arg("dt"), py::arg("dim") = 3,
             py::arg("history") = py::none(),
             "One step dt [s] of the constitutive law at a material point, as the solver's Heun "
             "step runs it (stress rate with zero spin, then correct(), at both stages; rho by "
             "continuity): rho [kg/m^3], stress and strain_rate (6,) xx yy zz xy xz yz [Pa, "
             "1/s], tension positive, history (in the order of history_variables; None: their initial values). Returns "
             "(rho, stress, yielded, history). regosph.material_point drives paths with it.");
}

// rs.Elasticity and its factory rs.Houlsby (materials/elasticity.hpp).
void bind_elasticity(py::module_& m) {
    py::class_<Elasticity>(m, "Elasticity",
                           "The elasticity of a soil model (DruckerPrager, MuIRheology): linear, "
                           "or Houlsby's pressure-dependent hyperelastic law (rs.Houlsby).")
        .def_property_readonly("law", [](const Elasticity& e) { return std::string(elasticity_name(e)); },
                               "'linear' or 'Houlsby' (run.json 'elasticity').")
        .def_readonly("reference_pressure", &Elasticity::reference_pressure, "p_r [Pa]")
        .def_readonly("exponent", &Elasticity::exponent, "n [-]")
        .def_readonly("floor_pressure", &Elasticity::floor_pressure, "p_min [Pa]")
        .def("__repr__", [](const Elasticity& e) {
            if (e.linear()) return std::string("Elasticity(linear)");
            return "Houlsby(reference_pressure=" + py::repr(py::float_(e.reference_pressure)).cast<std::string>() +
                   ", exponent=" + py::repr(py::float_(e.exponent)).cast<std::string>() +
                   ", floor_pressure=" + py::repr(py::float_(e.floor_pressure)).cast<std::string>() + ")";
        });
    m.def(
        "Houlsby",
        [](double reference_pressure, double exponent, double floor_pressure) {
            const Elasticity e = houlsby_elasticity(reference_pressure, exponent, floor_pressure);
            if (const std::string why = elasticity_error(e); !why.empty())
                throw py::value_error("Houlsby: " + why);
            return e;
        },
        py::kw_only(), py::arg("reference_pressure"), py::arg("exponent") = 0.5,
        py::arg("floor_pressure"),
        "Pressure-dependent hyperelasticity (Houlsby, Amorosi & Rojas 2005) for the elasticity= "
        "of rs.DruckerPrager and rs.MuIRheology: the moduli are the material's bulk_modulus and "
        "shear_modulus at mean pressure reference_pressure p_r [Pa] and scale as (p / p_r)^exponent "
        "(default 0.5, granular packings at low confinement: Makse et al. 2004); below "
        "floor_pressure p_min [Pa] they stop falling. Stored energy is returned exactly on any "
        "closed strain path; the wave speed and time step follow the stress "
        "(docs/guide/physics.md, 'Pressure-dependent stiffness').");
}

// The keywords of the material constructors (def_material): each names its Python keyword,
// the input member it sets (a member of the soil's input or, for a porous soil, of
// PorousInput itself), the type pybind11 converts it from and its default (none: required).
template <std::size_t N>
struct Keyword {
    char text[N];
    constexpr Keyword(const char (&s)[N]) { std::copy_n(s, N, text); }
};

// The member `member` of input `in`: in's own, or its soil's for a porous input.
template <class Input, class Owner, class T>
T& input_field(Input& in, T Owner::*member) {
    if constexpr (std::is_same_v<Input, Owner>)
        return in.*member;
    else
        return in.soil.*member;
}

template <Keyword key, auto member>
struct Required {
    using type = double;
    static py::arg keyword() { return py::arg(key.text); }
    template <class Input>
    static void set(Input& in, double value, const std::string&) { input_field(in, member) = value; }
};

template <Keyword key, auto member, double fallback>
struct Defaulted {
    using type = double;
    static py::arg_v keyword() { return py::arg(key.text) = fallback; }
    template <class Input>
    static void set(Input& in, double value, const std::string&) { input_field(in, member) = value; }
};

template <Keyword key, auto member>
struct NoneByDefault {
    using type = std::optional<double>;
    static py::arg_v keyword() { return py::arg(key.text) = py::none(); }
    template <class Input>
    static void set(Input& in, const std::optional<double>& value, const std::string&) {
        input_field(in, member) = value;
    }
};

// kernel_correction: True/False (to_flag), default False.
template <auto member>
struct KernelCorrection {
    using type = const py::object&;
    static py::arg_v keyword() { return py::arg("kernel_correction") = false; }
    template <class Input>
    static void set(Input& in, const py::object& value, const std::string& name) {
        input_field(in, member) = to_flag(value, material_field(name, "kernel_correction"));
    }
};

// elasticity: an rs.Houlsby(...) or None (linear), default None.
template <auto member>
struct ElasticityKeyword {
    using type = const std::optional<Elasticity>&;
    static py::arg_v keyword() { return py::arg("elasticity") = py::none(); }
    template <class Input>
    static void set(Input& in, const std::optional<Elasticity>& value, const std::string&) {
        input_field(in, member) = value.value_or(Elasticity{});
    }
};

template <class... K>
struct Keywords {};
template <class... A, class... B>
Keywords<A..., B...> operator+(Keywords<A...>, Keywords<B...>) {
    return {};
}

// A material constructor: (name, keywords...) -> make_material(name, Input from the keywords).
template <class Input, class... K>
struct Constructor {
    Material operator()(const std::string& name, typename K::type... values) const {
        Input in{};
        (K::set(in, values, name), ...);
        return make_material(name, in);
    }
};

// rs.<python_name>(name, *, keywords...) with docstring `doc`.
template <class Input, class... K>
void def_material(py::module_& m, const char* python_name, Keywords<K...>, const char* doc) {
    m.def(python_name, Constructor<Input, K...>{}, py::arg("name"), py::kw_only(), K::keyword()...,
          doc);
}

// The keyword groups of the soil constructors, for the soil input S.
template <class S>
using Density = Keywords<Required<"density", &S::density>>;
template <class S>
using Strength = Keywords<Required<"bulk_modulus", &S::bulk_modulus>,
                          Required<"friction_angle", &S::friction_angle_deg>,
                          Required<"cohesion", &S::cohesion>>;
template <class S>
using ShearModulus = Keywords<NoneByDefault<"shear_modulus", &S::shear_modulus>,
                              NoneByDefault<"poisson_ratio", &S::poisson_ratio>>;
template <class S>
using Flow = decltype(ShearModulus<S>{} +
                      Keywords<Defaulted<"dilatancy_angle", &S::dilatancy_angle_deg, 0.0>>{});
template <class S>
using ArtificialStress =
    Keywords<Defaulted<"artificial_stress", &S::artificial_stress, 0.0>,
             Defaulted<"artificial_stress_exponent", &S::artificial_stress_exponent, 4.0>>;
template <class S>
using TensileStrength =
    decltype(Keywords<NoneByDefault<"tensile_strength", &S::tensile_strength>,
                      Defaulted<"tensile_softening_strain", &S::tensile_softening_strain, 0.0>>{} +
             ArtificialStress<S>{});
template <class S>
using Numerics = Keywords<Defaulted<"viscosity_sound_speed", &S::viscosity_sound_speed, 0.0>,
                          KernelCorrection<&S::kernel_correction>>;
template <class S>
using SoilElasticity = Keywords<ElasticityKeyword<&S::elasticity>>;
template <class S>
using Porosity = Keywords<Required<"grain_density", &PorousInput<S>::grain_density>,
                          Required<"porosity", &PorousInput<S>::porosity>>;
template <class S>
using CrushCurve =
    Keywords<Required<"elastic_strain", &PorousInput<S>::elastic_strain>,
             Required<"kappa", &PorousInput<S>::kappa>,
             Required<"transition_distension", &PorousInput<S>::transition_distension>>;

// rs.DruckerPrager, rs.MohrCoulomb and rs.MuIRheology (materials/drucker_prager.hpp,
// mohr_coulomb.hpp, mu_i_rheology.hpp).
void bind_soils(py::module_& m) {
    using DP = DruckerPragerInput;
    using MC = MohrCoulombInput;
    using MI = MuIRheologyInput;
    using Grains = Keywords<Required<"static_friction", &MI::static_friction>,
                            Required<"limit_friction", &MI::limit_friction>,
                            Required<"reference_inertial_number", &MI::reference_inertial_number>,
                            Required<"grain_diameter", &MI::grain_diameter>,
                            Required<"grain_density", &MI::grain_density>>;
    def_material<DP>(
        m, "DruckerPrager",
        Density<DP>{} + Strength<DP>{} + Flow<DP>{} + ArtificialStress<DP>{} + Numerics<DP>{} +
            SoilElasticity<DP>{},
        "Drucker-Prager elastic-plastic regolith (Bui 2008). SI units, angles in degrees. "
        "artificial_stress: Monaghan (2000) epsilon with exponent artificial_stress_exponent "
        "against the tensile instability of cohesive soil (0 = off). "
        "kernel_correction: the first-order consistent kernel gradient (Bonet & Lok 1999) in "
        "its particles' pair terms (True/False, default False; docs/guide/physics.md). "
        "elasticity: None (linear, K and mu constant) or rs.Houlsby(...) (moduli following "
        "the pressure).");
    def_material<MC>(
        m, "MohrCoulomb",
        Density<MC>{} + Strength<MC>{} + Flow<MC>{} + TensileStrength<MC>{} + Numerics<MC>{} +
            SoilElasticity<MC>{},
        "Mohr-Coulomb elastic-plastic regolith, true on every stress path (triaxial compression "
        "and extension, plane strain; docs/guide/physics.md 'Strength surfaces'): Hooke stress "
        "returned to (s1 - s3) + (s1 + s3) sin(phi) <= 2 c cos(phi) by the closest-point "
        "projection in principal stresses with the flow rule of dilatancy_angle. "
        "tensile_strength [Pa]: a Rankine cut-off s1 <= sigma_t (None: none, the apex "
        "c cot(phi) bounds the tension), softening linearly to zero over the tensile plastic "
        "strain tensile_softening_strain (0: lost at the first crack). artificial_stress: "
        "Monaghan (2000) epsilon with exponent artificial_stress_exponent against the tensile "
        "instability of cohesive soil (0 = off). elasticity: None (linear) or rs.Houlsby(...). "
        "SI units, angles in degrees.");
    def_material<MI>(
        m, "MuIRheology",
        Density<MI>{} + Keywords<Required<"bulk_modulus", &MI::bulk_modulus>>{} + Grains{} +
            ShearModulus<MI>{} + Keywords<Defaulted<"cohesion", &MI::cohesion, 0.0>>{} +
            Numerics<MI>{} + SoilElasticity<MI>{},
        "mu(I) regolith (Jop, Forterre & Pouliquen 2006) in the form of Chrono's continuum "
        "granular model (Hu et al. 2021): Hooke stress, returned radially onto sqrt(J2) <= "
        "mu p + cohesion, mu following mu(I) = mu_s + (mu_2 - mu_s) / (I_0 / I + 1), "
        "I = gamma_dot d / sqrt(p / rho_s), over the inertial time d / sqrt(p / rho_s) (its "
        "history variable friction_coefficient; docs/guide/physics.md 'mu(I) rheology'). Friction "
        "coefficients static_friction (mu_s) and limit_friction (mu_2), grain_diameter d [m], "
        "grain_density rho_s [kg/m^3]; SI units. elasticity: None (linear) or rs.Houlsby(...).");
}

// rs.PorousDruckerPrager and rs.PorousMohrCoulomb (materials/porosity_coupling.hpp): the soil
// constructors' arguments at the initial porosity, with the porosity and the crush curve.
void bind_porous_soils(py::module_& m) {
    using DP = DruckerPragerInput;
    using MC = MohrCoulombInput;
    def_material<PorousInput<DP>>(
        m, "PorousDruckerPrager",
        Porosity<DP>{} + Strength<DP>{} + CrushCurve<DP>{} + Flow<DP>{} + Numerics<DP>{},
        "Porous Drucker-Prager regolith: the Drucker-Prager soil (Bui 2008) with the "
        "epsilon-alpha porosity (Wuennemann, Collins & Melosh 2006; Collins et al. 2011; "
        "docs/guide/physics.md 'Porosity and compaction'). grain_density rho_s [kg/m^3] and "
        "porosity phi0 in [0, 1) give the bulk density rho_s (1 - phi0); bulk_modulus, "
        "shear_modulus or poisson_ratio, cohesion [Pa] and the angles [deg] are the bulk's at "
        "phi0, and at distension alpha the moduli and the cohesion are alpha0 / alpha times "
        "them. Crush curve: elastic_strain eps_e <= 0, kappa in (0, 1], transition_distension "
        "alpha_x in [1, 1 / (1 - phi0)]. History variables: distension, volumetric_strain.");
    def_material<PorousInput<MC>>(
        m, "PorousMohrCoulomb",
        Porosity<MC>{} + Strength<MC>{} + CrushCurve<MC>{} + Flow<MC>{} + TensileStrength<MC>{} +
            Numerics<MC>{} + SoilElasticity<MC>{},
        "Porous Mohr-Coulomb regolith: rs.MohrCoulomb's soil (its arguments, at the initial "
        "porosity) with the epsilon-alpha porosity of rs.PorousDruckerPrager (grain_density, "
        "porosity and the crush curve elastic_strain, kappa, transition_distension; "
        "docs/guide/physics.md 'Porosity and compaction'): at distension alpha the moduli, "
        "the cohesion and the tensile strength are alpha0 / alpha times the given ones. "
        "History variables: distension, volumetric_strain (then tensile_plastic_strain with a "
        "cut-off).");
}

// rs.ElasticSolid (materials/elastic_solid.hpp).
void bind_elastic_solid(py::module_& m) {
    using In = ElasticSolidInput;
    using Moduli = Keywords<NoneByDefault<"bulk_modulus", &In::bulk_modulus>,
                            NoneByDefault<"shear_modulus", &In::shear_modulus>,
                            NoneByDefault<"youngs_modulus", &In::youngs_modulus>,
                            NoneByDefault<"poisson_ratio", &In::poisson_ratio>,
                            Defaulted<"murnaghan_n", &In::murnaghan_n, 1.0>>;
    using Smoothing =
        Keywords<Defaulted<"viscosity_sound_speed", &In::viscosity_sound_speed, 0.0>,
                 Defaulted<"artificial_stress", &In::artificial_stress, 0.0>,
                 Defaulted<"artificial_stress_exponent", &In::artificial_stress_exponent, 4.0>,
                 Defaulted<"xsph", &In::xsph, 0.0>, KernelCorrection<&In::kernel_correction>>;
    def_material<In>(
        m, "ElasticSolid", Density<In>{} + Moduli{} + Smoothing{},
        "Elastic solid (SPEC.md section 4): Murnaghan EoS p = (K0/n)((rho/rho0)^n - 1) with "
        "K0 = bulk_modulus, Hooke deviatoric stress with the Jaumann rate. Give exactly two of "
        "bulk_modulus, shear_modulus, youngs_modulus [Pa], poisson_ratio. artificial_stress: "
        "Monaghan (2000) epsilon with exponent artificial_stress_exponent (0 = off); xsph: XSPH "
        "epsilon (0 = off); kernel_correction: the first-order consistent kernel gradient "
        "(Bonet & Lok 1999) in its particles' pair terms (True/False, default False). SI units.");
}

// rs.Rigid (the boundary bodies' material) and rs.drucker_prager_constants.
void bind_rigid(py::module_& m) {
    m.def(
        "Rigid",
        [](const std::string& name, double density, std::optional<double> youngs_modulus,
           double poisson_ratio, std::optional<double> restitution, std::optional<double> friction,
           double slip_velocity) {
            return make_material(name, RigidInput{density, youngs_modulus, poisson_ratio,
                                                  restitution, friction, slip_velocity});
        },
        py::arg("name"), py::kw_only(), py::arg("density"), py::arg("youngs_modulus") = py::none(),
        py::arg("poisson_ratio") = 0.25, py::arg("restitution") = py::none(),
        py::arg("friction") = py::none(), py::arg("slip_velocity") = 1e-3,
        "Material of boundary bodies (walls, tools, rigid bodies); density in kg/m^3. With "
        "youngs_modulus [Pa], restitution (0, 1] and friction >= 0 (all three together; "
        "poisson_ratio default 0.25, slip_velocity [m/s] of the regularised Coulomb force, "
        "default 1e-3) its bodies touch other boundary bodies when one of the two is rigid "
        "(docs/guide/tools.md, 'Contact between bodies').");
    m.def(
        "drucker_prager_constants",
        [](double friction_angle, double cohesion, int dim) {
            const auto k = drucker_prager_constants(degrees_to_radians(friction_angle), cohesion, dim);
            return py::make_tuple(k.alpha_phi, k.k_c);
        },
        py::arg("friction_angle"), py::arg("cohesion"), py::arg("dim") = 2,
        "(alpha_phi, k_c) of the Drucker-Prager yield function; friction_angle in degrees.");
}

}  // namespace

void bind_materials(py::module_& m) {
    bind_elasticity(m);  // first: the signatures below name its class
    bind_material_class(m);
    bind_soils(m);
    bind_porous_soils(m);
    bind_elastic_solid(m);
    bind_rigid(m);
}

}  // namespace regosph::python
