#include "materials/porosity.hpp"

#include "materials/constitutive_model.hpp"

namespace regosph {

CrushCurve make_crush_curve(double initial_distension, double elastic_strain, double kappa,
                            double transition_distension) {
    CrushCurve c{initial_distension, elastic_strain, kappa, transition_distension, 0.0, 0.0};
    c.transition_strain = elastic_strain + std::log(transition_distension / initial_distension) / kappa;
    c.compaction_strain =
        c.transition_strain - 2.0 * (transition_distension - 1.0) / (kappa * transition_distension);
    return c;
}

void check_crush_curve(const std::string& material, const CrushCurve& c) {
    const double alpha0 = c.initial_distension;
    if (!(std::isfinite(alpha0) && alpha0 >= 1.0))
        checks::fail(material, "porosity", 1.0 - 1.0 / alpha0, "must lie in [0, 1)");
    if (!(std::isfinite(c.elastic_strain) && c.elastic_strain <= 0.0))
        checks::fail(material, "elastic_strain", c.elastic_strain,
                     "must be <= 0 (volumetric strain, negative in compression)");
    if (!(std::isfinite(c.kappa) && c.kappa > 0.0 && c.kappa <= 1.0))
        checks::fail(material, "kappa", c.kappa, "must lie in (0, 1]");
    if (!(std::isfinite(c.transition_distension) && c.transition_distension >= 1.0 &&
          c.transition_distension <= alpha0))
        checks::fail(material, "transition_distension", c.transition_distension,
                     "must lie in [1, 1 / (1 - porosity)]");
}

}  // namespace regosph
