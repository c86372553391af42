#include "sph/contact.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>
#include <string>
#include <tuple>

#include "geometry/rigid_body.hpp"
#include "parallel/threads.hpp"


namespace regosph {

namespace {

const Rigid* contact_material(const Material& m) {
    const Rigid* r = std::get_if<Rigid>(&m.model);
    return r && r->has_contact() ? r : nullptr;
}

// dt <= kPeriodFraction sqrt(m / k): Heun's scheme gains (omega dt)^4 / 4 of an undamped
// contact's energy per step, 0.1 % over a contact at 0.1.
constexpr double kPeriodFraction = 0.1;

// The point contact torques are taken about: a rigid body's centre, for other bodies the
// origin.
geometry::Vec3 reference_point(const Body& b) {
    const geometry::RigidBody* r = rigid_body(b);
    return r ? r->state.centre : geometry::Vec3{0.0, 0.0, 0.0};
}

// Weight of a surface particle at distance r < R in the normal and the gap, (1 - r^2/R^2)^2:
// smooth and compactly supported, so the normal turns smoothly along a surface.
double surface_weight(double r, double R) {
    const double q = 1.0 - (r * r) / (R * R);
    return q * q;
}

// The surface of one partner body seen from x_a, from its particles [first, last) (Partner
// records): `near` when one lies within R; then, when a normal exists, n (unit, towards a) from
// the weighted directions to the particles within R, and the weighted gap along n to the outer
// layer (within half a spacing s_b of the nearest along n) with that layer's weighted velocity.
// On a flat layer the gap does not depend on where along the layer a is, which keeps the
// surface free of the lattice's bumps.
struct SurfaceSeen {
    bool near = false;
    double normal[3] = {0.0, 0.0, 0.0};
    double weight = 0.0;                 // sum of the outer layer's weights (0: no surface)
    double gap = 0.0;                    // weighted gap sum [m] (gap / weight: the mean gap)
    double v[3] = {0.0, 0.0, 0.0};       // weighted velocity sum [m/s]
};

template <class PartnerIt>
SurfaceSeen surface_seen(const ParticleSet& p, int dim, const double (&xa)[3], PartnerIt first,
                         PartnerIt last, double R, double sb) {
    SurfaceSeen s;
    for (auto q = first; q != last; ++q) {
        const std::size_t j = q->index;
        double dx[3] = {0.0, 0.0, 0.0}, r2 = 0.0;
        for (int d = 0; d < dim; ++d) {
            dx[d] = xa[d] - p.x[d][j];
            r2 += dx[d] * dx[d];
        }
        const double r = std::sqrt(r2);
        if (!(r < R) || r == 0.0) continue;
        s.near = true;
        const double w = surface_weight(r, R) / r;
        for (int d = 0; d < dim; ++d) s.normal[d] += w * dx[d];
    }
    double* n = s.normal;
    const double length = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    if (!s.near || !(length > 0.0)) return s;
    for (int d = 0; d < 3; ++d) n[d] /= length;
    double nearest = std::numeric_limits<double>::infinity();
    for (auto q = first; q != last; ++q) {
        double proj = 0.0;
        for (int d = 0; d < dim; ++d) proj += (xa[d] - p.x[d][q->index]) * n[d];
        nearest = std::min(nearest, proj);
    }
    for (auto q = first; q != last; ++q) {
        const std::size_t j = q->index;
        double proj = 0.0, r2 = 0.0;
        for (int d = 0; d < dim; ++d) {
            const double dx = xa[d] - p.x[d][j];
            proj += dx * n[d];
            r2 += dx * dx;
        }
        const double r = std::sqrt(r2);
        if (!(r < R) || !(proj < nearest + 0.5 * sb)) continue;
        const double w = surface_weight(r, R);
        s.weight += w;
        s.gap += w * proj;
        for (int d = 0; d < dim; ++d) s.v[d] += w * p.v[d][j];
    }
    return s;
}

}  // namespace

ContactLaw contact_law(const Body& a, const Material& ma, const Body& b, const Material& mb) {
    ContactLaw law;
    const Rigid* ra = contact_material(ma);
    const Rigid* rb = contact_material(mb);
    if (!is_boundary(a) || !is_boundary(b)) return law;
    if (!rigid_body(a) && !rigid_body(b)) return law;
    if (!ra && !rb) return law;
    law.active = true;
    // 1/E* = sum of the compliances of the sides that have one (the other is rigid).
    double compliance = 0.0;
    double e = 1.0;
    law.friction = std::numeric_limits<double>::infinity();
    law.slip_velocity = std::numeric_limits<double>::infinity();
    for (const Rigid* r : {ra, rb}) {
        if (!r) continue;
        compliance += (1.0 - r->poisson_ratio * r->poisson_ratio) / r->youngs_modulus;
        e = std::min(e, r->restitution);
        law.friction = std::min(law.friction, r->friction);
        law.slip_velocity = std::min(law.slip_velocity, r->slip_velocity);
    }
    law.modulus = 1.0 / compliance;
    const double log_e = std::log(e);
    law.beta = log_e / std::sqrt(log_e * log_e + std::numbers::pi * std::numbers::pi);
    double inverse_mass = 0.0;
    for (const Body* body : {&a, &b})
        if (const geometry::RigidBody* r = rigid_body(*body)) inverse_mass += 1.0 / r->mass;
    law.reduced_mass = 1.0 / inverse_mass;
    return law;
}

ContactForce contact_force(const ContactLaw& law, int dim, const double n[3], double delta,
                           const double dv[3], double radius) {
    ContactForce out;
    if (!(delta > 0.0)) return out;
    double vn = 0.0;
    for (int d = 0; d < dim; ++d) vn += dv[d] * n[d];
    double elastic, k, gamma;
    if (dim == 3) {
        k = 2.0 * law.modulus * std::sqrt(radius * delta);
        elastic = k * delta * (2.0 / 3.0);  // 4/3 E* sqrt(R*) delta^3/2
        gamma = std::sqrt(5.0 / 6.0);
    } else {
        k = 0.25 * std::numbers::pi * law.modulus;
        elastic = k * delta;
        gamma = 1.0;
    }
    const double c = -2.0 * gamma * law.beta * std::sqrt(k * law.reduced_mass);
    const double normal = std::max(0.0, elastic - c * vn);
    double vt[3] = {0.0, 0.0, 0.0};
    double vt2 = 0.0;
    for (int d = 0; d < dim; ++d) {
        vt[d] = dv[d] - vn * n[d];
        vt2 += vt[d] * vt[d];
    }
    const double speed_t = std::sqrt(vt2);
    // mu F_n tanh(|v_t| / v_slip) / |v_t|, its limit mu F_n / v_slip at |v_t| = 0.
    const double drag = law.friction * normal / law.slip_velocity;
    const double per_speed = speed_t > 0.0 ? law.friction * normal *
                                                 std::tanh(speed_t / law.slip_velocity) / speed_t
                                           : drag;
    for (int d = 0; d < dim; ++d) out.force[d] = normal * n[d] - per_speed * vt[d];
    out.stiffness = k;
    out.damping = std::max(c, 0.0) + drag;
    return out;
}

void BodyContact::bind(const std::vector<Body>& bodies, const std::vector<Material>& materials,
                       int dim) {
    dim_ = dim;
    n_bodies_ = bodies.size();
    laws_.assign(n_bodies_ * n_bodies_, ContactLaw{});
    touches_.assign(n_bodies_, 0);
    moved_mass_.assign(n_bodies_, 0.0);
    arm_per_moment_.assign(n_bodies_, 0.0);
    // Per rigid body: the mass a contact moves, translating or turning (I_min / extent^2), and
    // the largest speed per angular momentum of a particle, extent / I_min; constant in the
    // body frame, so computed once.
    for (std::size_t k = 0; k < n_bodies_; ++k) {
        const geometry::RigidBody* r = rigid_body(bodies[k]);
        if (!r) continue;
        const double i_min = geometry::smallest_moment(*r, dim);
        moved_mass_[k] = r->extent > 0.0 ? std::min(r->mass, i_min / (r->extent * r->extent)) : r->mass;
        arm_per_moment_[k] = r->extent / i_min;
    }
    active_ = false;
    reach_ = 0.0;
    for (std::size_t a = 0; a < n_bodies_; ++a)
        for (std::size_t b = 0; b < n_bodies_; ++b) {
            const Body &A = bodies[a], &B = bodies[b];
            if (a == b || !rigid_body(A)) continue;
            // A's particles meet B's surface: A rigid, and against another rigid body the finer
            // of the two (the lower index at equal spacing), so each pair is counted once.
            if (rigid_body(B) &&
                (B.spacing < A.spacing || (B.spacing == A.spacing && b < a)))
                continue;
            ContactLaw law = contact_law(A, materials[static_cast<std::size_t>(A.material)], B,
                                         materials[static_cast<std::size_t>(B.material)]);
            if (!law.active) continue;
            laws_[a * n_bodies_ + b] = law;
            touches_[a] = touches_[b] = 1;
            active_ = true;
            reach_ = std::max(reach_, search_radius(A.spacing, B.spacing));
            // Halos reach the largest smoothing length: every partner must be in them.
            const double halo = std::max(A.smoothing_length, B.smoothing_length);
            if (search_radius(A.spacing, B.spacing) > halo)
                throw std::invalid_argument(
                    "bodies '" + A.name + "' and '" + B.name + "': contact looks " +
                    std::to_string(search_radius(A.spacing, B.spacing)) +
                    " m around a particle, beyond their smoothing length; give a smoothing_length"
                    " of at least (s_a + 3 s_b) / 2");
        }
}

namespace {

// Particles that may touch, hashed on a grid of cells of side `reach` and sorted by
// (cell, id): a particle's candidates are the 3^dim cells around it, visited in a fixed order.
struct ContactGrid {
    struct Entry {
        std::int64_t cell;
        std::int64_t id;
        std::size_t index;
    };
    std::vector<Entry> entries;
    double lo[3] = {0.0, 0.0, 0.0};
    std::int64_t count[3] = {1, 1, 1};
    double reach = 1.0;

    std::int64_t cell_of(const ParticleSet& p, std::size_t i, int dim, std::int64_t c[3]) const {
        for (int d = 0; d < 3; ++d)
            c[d] = d < dim ? static_cast<std::int64_t>(std::floor((p.x[d][i] - lo[d]) / reach)) : 0;
        return c[0] + count[0] * (c[1] + count[1] * c[2]);
    }
};

}  // namespace

double BodyContact::add_loads(const ParticleSet& p, const std::vector<Body>& bodies,
                              std::vector<BodyLoad>& loads) const {
    loads.resize(n_bodies_);
    if (!active_) return std::numeric_limits<double>::infinity();
    const int dim = dim_;
    const std::size_t n = p.size();
    // Candidates: boundary particles of bodies that touch, within `reach` of a rigid body's
    // particle (the rigid bodies are small next to walls, which need not all be hashed).
    double box_lo[3], box_hi[3];
    for (int d = 0; d < 3; ++d) {
        box_lo[d] = std::numeric_limits<double>::infinity();
        box_hi[d] = -box_lo[d];
    }
    for (std::size_t i = 0; i < n; ++i) {
        const Body& body = bodies[static_cast<std::size_t>(p.body[i])];
        if (!rigid_body(body) || !touches_[static_cast<std::size_t>(p.body[i])]) continue;
        for (int d = 0; d < dim; ++d) {
            box_lo[d] = std::min(box_lo[d], p.x[d][i]);
            box_hi[d] = std::max(box_hi[d], p.x[d][i]);
        }
    }
    std::vector<LoadShare> shares;
    if (box_lo[0] <= box_hi[0]) shares = contact_shares(p, bodies, box_lo, box_hi);
    const std::vector<BodyLoad> summed = sum_load_shares(shares, 2 * n_bodies_);  // collective
    double limit = std::numeric_limits<double>::infinity();
    std::vector<std::uint8_t> close(n_bodies_, 0);
    for (std::size_t k = 0; k < n_bodies_; ++k) {
        loads[k].contact_force = summed[k].force;
        loads[k].contact_torque = summed[k].torque;
        if (!rigid_body(bodies[k])) continue;
        const double stiffness = summed[n_bodies_ + k].force[0];  // sum of k [N/m]
        const double damping = summed[n_bodies_ + k].force[1];    // sum of c [N s/m]
        close[k] = summed[n_bodies_ + k].torque[0] > 0.0;
        const double m = moved_mass_[k];
        if (stiffness > 0.0) limit = std::min(limit, kPeriodFraction * std::sqrt(m / stiffness));
        if (damping > 0.0) limit = std::min(limit, m / damping);
    }
    return std::min(limit, onset_limit(bodies, close));
}

double BodyContact::onset_limit(const std::vector<Body>& bodies,
                                const std::vector<std::uint8_t>& close) const {
    // The speed at which contacts may close: each rigid body's own plus the fastest other's.
    std::vector<double> speed(n_bodies_, 0.0);
    double fastest = 0.0;
    for (std::size_t k = 0; k < n_bodies_; ++k) {
        const geometry::RigidBody* r = rigid_body(bodies[k]);
        if (!r || !touches_[k]) continue;
        const geometry::RigidState& s = r->state;
        double v2 = 0.0, w2 = 0.0;
        for (int d = 0; d < 3; ++d) {
            v2 += s.velocity[d] * s.velocity[d];
            w2 += s.angular_momentum[d] * s.angular_momentum[d];
        }
        // |omega| <= |L| / I_min
        speed[k] = std::sqrt(v2) + std::sqrt(w2) * arm_per_moment_[k];
        fastest = std::max(fastest, speed[k]);
    }
    double limit = std::numeric_limits<double>::infinity();
    for (std::size_t a = 0; a < n_bodies_; ++a) {
        if (!rigid_body(bodies[a]) || !close[a]) continue;
        const double m = moved_mass_[a];
        const double v = speed[a] + fastest;
        for (std::size_t j = 0; j < n_bodies_; ++j) {
            const ContactLaw& law = laws_[a * n_bodies_ + j];
            if (!law.active) continue;
            const double mass = std::min(m, law.reduced_mass);
            double k = 0.25 * std::numbers::pi * law.modulus;  // 2D
            if (dim_ == 3) {
                // Hertz's largest overlap at closing speed v (Johnson 1985 eq. 11.24),
                // delta = (15 m v^2 / (16 E* sqrt(R*)))^(2/5), and the stiffness there.
                const double radius = 0.5 * bodies[a].spacing;  // a sphere on a surface
                const double delta = std::pow(15.0 * mass * v * v / (16.0 * law.modulus * std::sqrt(radius)), 0.4);
                k = 2.0 * law.modulus * std::sqrt(radius * delta);
            }
            if (k > 0.0) limit = std::min(limit, kPeriodFraction * std::sqrt(mass / k));
        }
    }
    return limit;
}

std::vector<LoadShare> BodyContact::contact_shares(const ParticleSet& p,
                                                   const std::vector<Body>& bodies,
                                                   const double box_lo[3],
                                                   const double box_hi[3]) const {
    const int dim = dim_;
    // Cells of the largest search radius: the pairs that touch and those about to.
    ContactGrid grid;
    grid.reach = reach_;
    for (int d = 0; d < dim; ++d) {
        grid.lo[d] = box_lo[d] - 2.0 * grid.reach;
        grid.count[d] = static_cast<std::int64_t>((box_hi[d] - box_lo[d]) / grid.reach) + 5;
    }
    std::vector<std::size_t> rows;  // owned particles of rigid bodies that touch
    std::int64_t c[3];
    for (std::size_t i = 0; i < p.size(); ++i) {
        const auto k = static_cast<std::size_t>(p.body[i]);
        if (p.kind[i] == ParticleKind::dynamic || !touches_[k]) continue;
        bool near = true;
        for (int d = 0; d < dim; ++d)
            near = near && p.x[d][i] >= box_lo[d] - grid.reach && p.x[d][i] <= box_hi[d] + grid.reach;
        if (!near) continue;
        grid.entries.push_back({grid.cell_of(p, i, dim, c), p.id[i], i});
        if (i < p.owned() && rigid_body(bodies[k])) rows.push_back(i);
    }
    std::sort(grid.entries.begin(), grid.entries.end(), [](const auto& x, const auto& y) {
        return std::tie(x.cell, x.id) < std::tie(y.cell, y.id);
    });

    std::vector<std::vector<LoadShare>> per_row(rows.size());
#pragma omp parallel num_threads(parallel::threads_for(rows.size(), parallel::kMinPairItems))
    {
        std::vector<Partner> partners;
#pragma omp for schedule(dynamic, 16)
        for (std::size_t r = 0; r < rows.size(); ++r) {
            const std::size_t i = rows[r];
            const auto A = static_cast<std::size_t>(p.body[i]);
            partners.clear();
            std::int64_t ci[3];
            grid.cell_of(p, i, dim, ci);
            const int span_z = dim == 3 ? 1 : 0;
            for (int oz = -span_z; oz <= span_z; ++oz)
                for (int oy = -1; oy <= 1; ++oy)
                    for (int ox = -1; ox <= 1; ++ox) {
                        const std::int64_t cell =
                            (ci[0] + ox) + grid.count[0] * ((ci[1] + oy) + grid.count[1] * (ci[2] + oz));
                        auto it = std::lower_bound(
                            grid.entries.begin(), grid.entries.end(), cell,
                            [](const auto& e, std::int64_t key) { return e.cell < key; });
                        for (; it != grid.entries.end() && it->cell == cell; ++it) {
                            const auto B = static_cast<std::size_t>(p.body[it->index]);
                            if (laws_[A * n_bodies_ + B].active)
                                partners.push_back({static_cast<std::int32_t>(B), it->id, it->index});
                        }
                    }
            // Partner bodies in index order, each one's particles in id order: the same sums
            // on any decomposition.
            std::sort(partners.begin(), partners.end(), [](const Partner& x, const Partner& y) {
                return std::tie(x.body, x.id) < std::tie(y.body, y.id);
            });
            per_row[r] = row_shares(p, bodies, i, partners);
        }
    }
    std::vector<LoadShare> shares;
    for (auto& row : per_row) shares.insert(shares.end(), row.begin(), row.end());
    return shares;
}

std::vector<LoadShare> BodyContact::row_shares(const ParticleSet& p,
                                               const std::vector<Body>& bodies, std::size_t i,
                                               const std::vector<Partner>& partners) const {
    const int dim = dim_;
    const auto A = static_cast<std::size_t>(p.body[i]);
    const double sa = bodies[A].spacing;
    double xa[3] = {0.0, 0.0, 0.0}, va[3] = {0.0, 0.0, 0.0};
    for (int d = 0; d < dim; ++d) {
        xa[d] = p.x[d][i];
        va[d] = p.v[d][i];
    }
    const geometry::Vec3 ref_a = reference_point(bodies[A]);
    std::vector<LoadShare> out;
    LoadShare own, own_rates;
    own.id = own_rates.id = p.id[i];
    own.body = static_cast<std::int32_t>(A);
    own_rates.body = static_cast<std::int32_t>(n_bodies_ + A);
    for (std::size_t g0 = 0; g0 < partners.size();) {
        std::size_t g1 = g0;
        while (g1 < partners.size() && partners[g1].body == partners[g0].body) ++g1;
        const auto B = static_cast<std::size_t>(partners[g0].body);
        const double reach = 0.5 * (sa + bodies[B].spacing);  // contact distance to B's particles
        const double R = search_radius(sa, bodies[B].spacing);
        const SurfaceSeen seen = surface_seen(p, dim, xa, partners.begin() + g0,
                                              partners.begin() + g1, R, bodies[B].spacing);
        own_rates.torque[0] = seen.near || own_rates.torque[0] > 0.0 ? 1.0 : 0.0;
        g0 = g1;
        if (!(seen.weight > 0.0)) continue;
        const double* normal = seen.normal;
        const double weight = seen.weight, gap = seen.gap;
        const double* vb = seen.v;
        const double delta = reach - gap / weight;  // overlap [m]
        if (!(delta > 0.0)) continue;
        double dv[3] = {0.0, 0.0, 0.0};
        for (int d = 0; d < dim; ++d) dv[d] = va[d] - vb[d] / weight;
        // Hertz between a's sphere and the (locally flat) surface: R* = s_a / 2.
        const ContactForce f = contact_force(laws_[A * n_bodies_ + B], dim, normal, delta, dv, 0.5 * sa);
        if (!(f.stiffness > 0.0)) continue;
        // The contact point: the middle of the overlap, on the line through x_a along n.
        geometry::Vec3 arm_a, arm_b;
        const geometry::Vec3 ref_b = reference_point(bodies[B]);
        for (int d = 0; d < 3; ++d) {
            const double point = xa[d] - normal[d] * (0.5 * sa - 0.5 * delta);
            arm_a[d] = point - ref_a[d];
            arm_b[d] = point - ref_b[d];
        }
        LoadShare reaction, reaction_rates;
        reaction.id = reaction_rates.id = p.id[i];
        reaction.body = static_cast<std::int32_t>(B);
        reaction_rates.body = static_cast<std::int32_t>(n_bodies_ + B);
        const geometry::Vec3 force = {f.force[0], f.force[1], f.force[2]};
        const geometry::Vec3 torque_a = geometry::cross(arm_a, force);
        const geometry::Vec3 torque_b = geometry::cross(arm_b, force);
        for (int d = 0; d < 3; ++d) {
            own.force[d] += force[d];
            own.torque[d] += torque_a[d];
            reaction.force[d] = -force[d];
            reaction.torque[d] = -torque_b[d];
        }
        own_rates.force[0] += f.stiffness;
        own_rates.force[1] += f.damping;
        reaction_rates.force[0] = f.stiffness;
        reaction_rates.force[1] = f.damping;
        reaction_rates.torque[0] = 1.0;
        out.push_back(reaction);
        out.push_back(reaction_rates);
    }
    out.push_back(own);
    out.push_back(own_rates);
    return out;
}

}  // namespace regosph
