#include "sph/wall_terms.hpp"

#include <algorithm>
#include <cmath>

namespace regosph::rhs {

void apply_coulomb_limit(const ParticleSet& p, const LoadRequest& request,
                         std::vector<CoulombContact>& contacts, Derivatives& out) {
    const std::size_t n_bodies = request.wall_friction.size();
    if (std::none_of(request.wall_friction.begin(), request.wall_friction.end(),
                     [](double mu) { return mu > 0.0; }))
        return;
    std::vector<LoadShare> sums;
    for (const CoulombContact& c : contacts) {
        LoadShare s{p.id[c.a], c.body, {}, {}};
        s.force[0] = p.mass[c.a] * c.fn;
        s.force[1] = p.mass[c.a] * std::sqrt(c.ft[0] * c.ft[0] + c.ft[1] * c.ft[1] + c.ft[2] * c.ft[2]);
        sums.push_back(s);
    }
    const std::vector<BodyLoad> totals = sum_load_shares(sums, n_bodies);  // collective
    std::vector<double> scale(n_bodies, 1.0);
    for (std::size_t b = 0; b < n_bodies; ++b) {
        const double allowed = request.wall_friction[b] * std::max(totals[b].force[0], 0.0);
        const double tangential = totals[b].force[1];
        if (tangential > allowed) scale[b] = allowed / tangential;
    }
    std::vector<LoadShare> reactions;
    for (const CoulombContact& c : contacts) {
        const auto b = static_cast<std::size_t>(c.body);
        const double change = scale[b] - 1.0;
        if (change == 0.0) continue;
        double slip = 0.0;  // the correction's power relative to the wall (energy budget)
        for (int d = 0; d < p.dim; ++d) {
            out.dv[d][c.a] += change * c.ft[d];
            slip += change * c.ft[d] * (p.v[d][c.a] - c.v_wall[d]);
        }
        out.power[kWallPower][c.a] -= p.mass[c.a] * slip;
        if (!(b < request.collect.size() && request.collect[b])) continue;
        LoadShare r{p.id[c.a], c.body, {}, {}};
        double x[3] = {0.0, 0.0, 0.0};
        for (int d = 0; d < p.dim; ++d) {
            r.force[d] = -p.mass[c.a] * change * c.ft[d];
            x[d] = p.x[d][c.a] - request.reference[b][d];
        }
        r.torque[0] = x[1] * r.force[2] - x[2] * r.force[1];
        r.torque[1] = x[2] * r.force[0] - x[0] * r.force[2];
        r.torque[2] = x[0] * r.force[1] - x[1] * r.force[0];
        reactions.push_back(r);
    }
    const std::vector<BodyLoad> extra = sum_load_shares(reactions, n_bodies);  // collective
    add_scaled(out.loads, extra, 1.0);
}

}  // namespace regosph::rhs
