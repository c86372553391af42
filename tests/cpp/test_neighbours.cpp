// Verlet neighbour lists (neighbours.hpp): a pair interacts when |x_a - x_b| < h_ab =
// (h_a + h_b) / 2 (SPEC.md section 1); the list holds every b within h_ab + skin, rows of
// boundary particles hold only dynamic particles, rows are sorted, and the list stays valid
// until a particle has moved more than skin / 2. The pair lists selected from it hold the
// entries within h_ab + margin of the selection's positions, whatever list they come from.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <set>
#include <vector>

#include "sph/neighbours.hpp"
#include "core/particles.hpp"

using namespace regosph;

namespace {

// n random particles in the unit square/cube with support radii in [h_lo, h_hi]; every
// fifth is a boundary particle.
ParticleSet random_particles(int dim, std::size_t n, double h_lo, double h_hi, unsigned seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    ParticleSet p;
    p.dim = dim;
    for (std::size_t i = 0; i < n; ++i) {
        const std::array<double, 3> x{u(rng), u(rng), dim == 3 ? u(rng) : 0.0};
        const double h = h_lo + (h_hi - h_lo) * u(rng);
        p.push_back(x, {0, 0, 0}, 1000.0, 1.0, h, 0, 0,
                    i % 5 == 0 ? ParticleKind::boundary : ParticleKind::dynamic,
                    static_cast<std::int64_t>(i));
    }
    return p;
}

double distance(const ParticleSet& p, std::size_t a, std::size_t b) {
    double r2 = 0.0;
    for (int d = 0; d < p.dim; ++d) r2 += (p.x[d][a] - p.x[d][b]) * (p.x[d][a] - p.x[d][b]);
    return std::sqrt(r2);
}

void check_against_brute_force(const ParticleSet& p, const NeighbourList& nl, double skin) {
    // Violations are counted (not asserted pair by pair, which would be slow) and the first
    // one of each kind is reported.
    const std::size_t n = p.size();
    std::size_t interacting = 0, boundary_rows_nonempty = 0, boundary_in_dynamic_rows = 0;
    std::size_t unsorted = 0, self = 0, wall_wall = 0, missing = 0, too_far = 0;
    for (std::size_t a = 0; a < n; ++a) {
        const auto row = nl.row(a);
        const std::set<std::uint32_t> in_row(row.begin(), row.end());
        // Sorted, strictly increasing (no duplicates), no self pair.
        if (!std::is_sorted(row.begin(), row.end()) || in_row.size() != row.size()) ++unsorted;
        if (in_row.count(static_cast<std::uint32_t>(a)) != 0) ++self;
        const bool a_boundary = p.kind[a] == ParticleKind::boundary;
        if (a_boundary && !row.empty()) ++boundary_rows_nonempty;
        for (std::size_t b = 0; b < n; ++b) {
            if (b == a) continue;
            const double r = distance(p, a, b);
            const double h_ab = 0.5 * (p.h[a] + p.h[b]);
            const bool b_boundary = p.kind[b] == ParticleKind::boundary;
            const bool listed = in_row.count(static_cast<std::uint32_t>(b)) > 0;
            if (a_boundary && b_boundary) {
                if (listed) ++wall_wall;  // a wall never interacts with a wall
                continue;
            }
            if (r < h_ab) ++interacting;
            if (r < h_ab + skin) {
                if (!listed) {
                    if (missing == 0) MESSAGE("missing pair ", a, " ", b, " r = ", r, " h_ab = ", h_ab);
                    ++missing;  // every pair inside the interaction radius plus skin is listed
                }
                if (!a_boundary && b_boundary && listed) ++boundary_in_dynamic_rows;
            } else if (r > (h_ab + skin) * (1.0 + 1e-12) && listed) {
                ++too_far;  // nothing far beyond it
            }
        }
    }
    CHECK(unsorted == 0);
    CHECK(self == 0);
    CHECK(wall_wall == 0);
    CHECK(missing == 0);
    CHECK(too_far == 0);
    // The random setup must actually contain pairs of every kind.
    CHECK(interacting > 10 * n);
    CHECK(boundary_rows_nonempty > 0);
    CHECK(boundary_in_dynamic_rows > 0);
}

}  // namespace

TEST_CASE("neighbour list = brute force, variable h, 2D and 3D") {
    for (const int dim : {2, 3}) {
        for (const double skin : {0.0, 0.02}) {
            CAPTURE(dim);
            CAPTURE(skin);
            const std::size_t n = dim == 2 ? 1500 : 1200;
            const ParticleSet p = dim == 2 ? random_particles(2, n, 0.03, 0.09, 11)
                                           : random_particles(3, n, 0.10, 0.25, 12);
            NeighbourList nl;
            nl.build(p, skin);
            CHECK(nl.skin() == skin);
            CHECK(nl.build_count() == 1);
            check_against_brute_force(p, nl, skin);
        }
    }
}

TEST_CASE("neighbour list: a rebuild after a move of (skin - margin) / 2, a new selection after margin / 2") {
    for (const double margin_fraction : {0.0, 0.3}) {
        CAPTURE(margin_fraction);
        ParticleSet p = random_particles(2, 400, 0.05, 0.1, 5);
        const double skin = 0.01, margin = margin_fraction * skin;
        const double half_reach = 0.5 * (skin - margin);  // what the Verlet list allows
        NeighbourList nl;
        CHECK(nl.motion(p).rebuild);  // never built
        nl.build(p, skin, margin);
        p.x_selected = p.x;
        CHECK_FALSE(nl.motion(p).rebuild);
        CHECK_FALSE(nl.motion(p).reselect);
        // Everybody moves by 0.99 half_reach (diagonally): the Verlet list is still valid.
        const double step = 0.99 * half_reach / std::sqrt(2.0);
        for (std::size_t a = 0; a < p.size(); ++a) {
            p.x[0][a] += step;
            p.x[1][a] -= step;
        }
        CHECK_FALSE(nl.motion(p).rebuild);
        // ... and the pair lists too, unless the move exceeds half the margin.
        CHECK(nl.motion(p).reselect == (0.99 * half_reach > 0.5 * margin));
        p.x_selected = p.x;
        CHECK_FALSE(nl.motion(p).reselect);
        // One particle moves by 1.01 half_reach in total: rebuild. A move of 0.49 margin since
        // the selection keeps the pair lists; 0.51 margin does not.
        p.x[0][123] += 0.02 * half_reach / std::sqrt(2.0);
        p.x[1][123] -= 0.02 * half_reach / std::sqrt(2.0);
        CHECK(nl.motion(p).rebuild);
        p.x_selected = p.x;
        if (margin > 0.0) {
            p.x[0][9] += 0.49 * margin;
            CHECK_FALSE(nl.motion(p).reselect);
            p.x[0][9] += 0.02 * margin;
            CHECK(nl.motion(p).reselect);
        }
        // After the rebuild, the new reference positions count.
        nl.build(p, skin, margin);
        CHECK(nl.build_count() == 2);
        CHECK_FALSE(nl.motion(p).rebuild);
        // A look-ahead time counts a particle's velocity: |dx| + 1.25 |v| dt.
        p.v[0][17] = 1.0;
        CHECK_FALSE(nl.motion(p, 0.99 * half_reach / 1.25).rebuild);
        CHECK(nl.motion(p, 1.01 * half_reach / 1.25).rebuild);
        // A non-finite position asks for both.
        p.x[1][7] = std::numeric_limits<double>::quiet_NaN();
        CHECK(nl.motion(p).rebuild);
        CHECK(nl.motion(p).reselect);
        p.x[1][7] = 0.5;
        // A particle set of another size forces a rebuild.
        ParticleSet q = random_particles(2, 401, 0.05, 0.1, 5);
        CHECK(nl.motion(q).rebuild);
    }
    NeighbourList nl;
    const ParticleSet p = random_particles(2, 50, 0.05, 0.1, 5);
    CHECK_THROWS_AS(nl.build(p, 0.01, 0.0051), std::invalid_argument);  // margin > skin / 2
}

// The pair list of dynamic particle a as NeighbourList::select_pairs defines it, by brute
// force: {b != a : |y_a - y_b| < h_ab + margin, not wall-wall}, those that interact
// (0 < r < (1 - 1e-9) h_ab) first and then the others, each in id order, padded with a to
// whole blocks of 8; `inner` gets the count of the first part.
static std::vector<std::uint32_t> expected_pairs(const ParticleSet& p,
                                          const std::array<std::vector<double>, 3>& y,
                                          std::size_t a, double margin,
                                          std::size_t* inner = nullptr) {
    std::vector<std::uint32_t> in_support, in_margin;
    for (std::size_t b = 0; b < p.size(); ++b) {
        if (b == a) continue;
        double r2 = 0.0;
        for (int d = 0; d < p.dim; ++d) r2 += (y[d][a] - y[d][b]) * (y[d][a] - y[d][b]);
        const double h_ab = 0.5 * (p.h[a] + p.h[b]), reach = h_ab + margin;
        const double support = (1.0 - 1e-9) * h_ab;
        if (r2 < support * support && r2 != 0.0)
            in_support.push_back(static_cast<std::uint32_t>(b));
        else if (r2 < reach * reach)
            in_margin.push_back(static_cast<std::uint32_t>(b));
    }
    const auto by_id = [&p](std::uint32_t i, std::uint32_t j) { return p.id[i] < p.id[j]; };
    std::sort(in_support.begin(), in_support.end(), by_id);
    std::sort(in_margin.begin(), in_margin.end(), by_id);
    if (inner) *inner = in_support.size();
    std::vector<std::uint32_t> out = in_support;
    out.insert(out.end(), in_margin.begin(), in_margin.end());
    while (out.size() % 8 != 0) out.push_back(static_cast<std::uint32_t>(a));
    return out;
}

TEST_CASE("pair lists: the Verlet entries within h_ab + margin of the selection, whatever the Verlet list") {
    // Random particles with shuffled ids, some boundary ones and halo copies. The pair lists
    // are selected at positions y; then everybody moves by up to 0.49 margin. (1) Every pair
    // that interacts now is in the lists. (2) A Verlet list built at the new positions, as a
    // restart or a rebuild builds it, gives exactly the same lists from the same y.
    for (const int dim : {2, 3}) {
        CAPTURE(dim);
        const std::size_t total = dim == 2 ? 2000 : 1500, halo = 200;
        ParticleSet p = dim == 2 ? random_particles(2, total, 0.03, 0.06, 31)
                                 : random_particles(3, total, 0.10, 0.18, 32);
        std::vector<std::int64_t> ids(total);
        std::iota(ids.begin(), ids.end(), std::int64_t{0});
        std::shuffle(ids.begin(), ids.end(), std::mt19937_64(33));
        p.id = ids;
        p.n_halo = halo;
        const double skin = 0.02, margin = 0.4 * skin;
        NeighbourList before;
        before.build(p, skin, margin);
        p.x_selected = p.x;
        before.select_pairs(p, p.x_selected);
        REQUIRE(before.has_pairs(p));
        const std::size_t n = p.owned();
        std::size_t wrong = 0, dynamic = 0, margin_entries = 0;
        for (std::size_t a = 0; a < n; ++a) {
            const auto got = before.partners(a);
            if (p.kind[a] != ParticleKind::dynamic) {
                wrong += !got.empty();
                continue;
            }
            ++dynamic;
            std::size_t inner = 0;
            const std::vector<std::uint32_t> want =
                expected_pairs(p, p.x_selected, a, margin, &inner);
            const std::size_t margin_blocks = (inner + 7) / 8 * 8;
            if (!std::equal(got.begin(), got.end(), want.begin(), want.end()) ||
                before.margin_blocks(a) != margin_blocks) {
                if (wrong == 0)
                    MESSAGE("particle ", a, ": ", got.size(), " entries, expected ", want.size(),
                            "; margin blocks from ", before.margin_blocks(a), ", expected ",
                            margin_blocks);
                ++wrong;
            }
            for (const std::uint32_t b : got)
                margin_entries += b != a && distance(p, a, b) >= 0.5 * (p.h[a] + p.h[b]);
        }
        CHECK(wrong == 0);
        CHECK(dynamic > n / 2);
        CHECK(margin_entries > dynamic);  // the margin holds entries beyond the support

        // Everybody moves by 0.49 margin in a random direction.
        std::mt19937_64 rng(34);
        std::normal_distribution<double> g(0.0, 1.0);
        for (std::size_t a = 0; a < p.size(); ++a) {
            double d[3] = {g(rng), g(rng), dim == 3 ? g(rng) : 0.0};
            const double len = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
            for (int k = 0; k < dim; ++k) p.x[k][a] += 0.49 * margin * d[k] / len;
        }
        REQUIRE_FALSE(before.motion(p).rebuild);
        REQUIRE_FALSE(before.motion(p).reselect);
        std::size_t missing = 0, interacting = 0;
        for (std::size_t a = 0; a < n; ++a) {
            if (p.kind[a] != ParticleKind::dynamic) continue;
            const auto got = before.partners(a);
            const std::set<std::uint32_t> listed(got.begin(), got.end());
            for (std::size_t b = 0; b < p.size(); ++b)
                if (b != a && distance(p, a, b) < 0.5 * (p.h[a] + p.h[b])) {
                    ++interacting;
                    missing += listed.count(static_cast<std::uint32_t>(b)) == 0;
                }
        }
        CHECK(missing == 0);
        CHECK(interacting > 10 * dynamic);

        NeighbourList after;
        after.build(p, skin, margin);
        after.select_pairs(p, p.x_selected);
        std::size_t different = 0;
        for (std::size_t a = 0; a < n; ++a) {
            const auto u = before.partners(a), w = after.partners(a);
            different += !std::equal(u.begin(), u.end(), w.begin(), w.end());
        }
        CHECK(different == 0);
        CHECK(after.pair_list_entries() == before.pair_list_entries());
    }
}

TEST_CASE("pair lists: on a lattice with h = 3 dx the shell r = h lies in the margin, after the support") {
    // The rubber rings and the 3D blocks start on lattices whose support radius is a whole
    // number of spacings: the neighbours at r = h_ab exactly (4 in 2D, 30 in 3D), which
    // rounding puts on either side of h_ab, count as beyond the support (pair_selection.hpp)
    // and come after the 24 / 92 within it, so that the pair loop can skip their blocks.
    for (const int dim : {2, 3}) {
        CAPTURE(dim);
        const double dx = 0.0007, h = 3.0 * dx;  // a spacing that is not a power of two
        const int n = 11, nz = dim == 3 ? n : 1;
        ParticleSet p;
        p.dim = dim;
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j)
                for (int k = 0; k < nz; ++k)
                    p.push_back({0.013 + i * dx, -0.002 + j * dx, dim == 3 ? 0.005 + k * dx : 0.0},
                                {0, 0, 0}, 1000.0, 1.0, h, 0, 0, ParticleKind::dynamic,
                                static_cast<std::int64_t>(p.size()));
        NeighbourList nl;
        nl.build(p, 0.15 * h, 0.03 * h);
        nl.select_pairs(p, p.x);
        const std::size_t centre = dim == 3 ? (5 * n + 5) * n + 5 : 5 * n + 5;
        const auto list = nl.partners(centre);
        const std::size_t inside = dim == 3 ? 92 : 24, shell = dim == 3 ? 30 : 4;
        CHECK(nl.margin_blocks(centre) == (inside + 7) / 8 * 8);
        CHECK(list.size() == (inside + shell + 7) / 8 * 8);
        std::size_t wrong = 0;
        for (std::size_t k = 0; k < list.size(); ++k) {
            const double r = distance(p, centre, list[k]) / dx;
            if (k < inside)
                wrong += !(r < 2.9);  // the support's entries first
            else if (k < inside + shell)
                wrong += !(std::abs(r - 3.0) < 1e-9);  // then the shell
            else
                wrong += list[k] != centre;  // then the padding
        }
        CHECK(wrong == 0);
    }
}

TEST_CASE("pair lists: refused for a list built for another particle set") {
    const ParticleSet p = random_particles(2, 100, 0.05, 0.1, 5);
    NeighbourList nl;
    CHECK_FALSE(nl.has_pairs(p));
    CHECK_THROWS_AS(nl.select_pairs(p, p.x), std::logic_error);  // never built
    nl.build(p, 0.01, 0.002);
    CHECK_FALSE(nl.has_pairs(p));  // built, not selected
    nl.select_pairs(p, p.x);
    CHECK(nl.has_pairs(p));
    const ParticleSet q = random_particles(2, 101, 0.05, 0.1, 5);
    CHECK_FALSE(nl.has_pairs(q));
    CHECK_THROWS_AS(nl.select_pairs(q, q.x), std::logic_error);
}

TEST_CASE("neighbour list: a list built with a skin stays exact after moves below skin / 2") {
    // The point of the skin: after every particle moved less than skin / 2, every pair that now
    // interacts (r < h_ab) is still in the list built before the move.
    ParticleSet p = random_particles(3, 800, 0.1, 0.2, 77);
    const double skin = 0.03;
    NeighbourList nl;
    nl.build(p, skin);
    std::mt19937_64 rng(78);
    std::normal_distribution<double> g(0.0, 1.0);
    for (std::size_t a = 0; a < p.size(); ++a) {
        double d[3] = {g(rng), g(rng), g(rng)};
        const double len = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        for (int k = 0; k < 3; ++k) p.x[k][a] += 0.499 * skin * d[k] / len;
    }
    REQUIRE_FALSE(nl.motion(p).rebuild);
    std::size_t missing = 0;
    for (std::size_t a = 0; a < p.size(); ++a) {
        const auto row = nl.row(a);
        for (std::size_t b = 0; b < p.size(); ++b) {
            if (a == b) continue;
            if (p.kind[a] == ParticleKind::boundary && p.kind[b] == ParticleKind::boundary) continue;
            if (distance(p, a, b) < 0.5 * (p.h[a] + p.h[b]) &&
                !std::binary_search(row.begin(), row.end(), static_cast<std::uint32_t>(b)))
                ++missing;
        }
    }
    CHECK(missing == 0);
}

TEST_CASE("neighbour list: the list is symmetric between dynamic particles") {
    const ParticleSet p = random_particles(2, 1000, 0.02, 0.08, 3);
    NeighbourList nl;
    nl.build(p, 0.005);
    std::size_t asym = 0;
    for (std::size_t a = 0; a < p.size(); ++a) {
        if (p.kind[a] != ParticleKind::dynamic) continue;
        for (const std::uint32_t b : nl.row(a)) {
            const auto rb = nl.row(b);
            // b lists a whenever a is dynamic (boundary rows hold dynamic particles only).
            if (!std::binary_search(rb.begin(), rb.end(), static_cast<std::uint32_t>(a))) ++asym;
        }
    }
    CHECK(asym == 0);
}

TEST_CASE("neighbour list: rows in id order across build blocks, with shuffled ids and halo copies") {
    // More owned particles than one build block (8192, neighbours.cpp), ids in no relation to
    // the storage order (as after MPI migrations), and halo copies at the end, which are
    // neighbours but have no rows. Every row must be exactly the brute-force set
    // {b != a : |x_a - x_b| < h_ab + skin, not wall-wall}, in increasing id.
    const std::size_t total = 9400, halo = 500;
    ParticleSet p = random_particles(2, total, 0.012, 0.02, 21);
    std::vector<std::int64_t> ids(total);
    std::iota(ids.begin(), ids.end(), std::int64_t{0});
    std::shuffle(ids.begin(), ids.end(), std::mt19937_64(22));
    p.id = ids;
    p.n_halo = halo;
    const double skin = 0.003;
    NeighbourList nl;
    nl.build(p, skin);
    const std::size_t n = p.owned();
    std::size_t wrong_rows = 0, entries = 0, halo_entries = 0;
    std::vector<std::uint32_t> expected;
    for (std::size_t a = 0; a < n; ++a) {
        expected.clear();
        const bool a_boundary = p.kind[a] == ParticleKind::boundary;
        for (std::size_t b = 0; b < total; ++b) {
            if (b == a || (a_boundary && p.kind[b] == ParticleKind::boundary)) continue;
            const double r_max = 0.5 * (p.h[a] + p.h[b]) + skin;
            double r2 = 0.0;
            for (int d = 0; d < 2; ++d) {
                const double diff = p.x[d][a] - p.x[d][b];
                r2 += diff * diff;
            }
            if (r2 < r_max * r_max) expected.push_back(static_cast<std::uint32_t>(b));
        }
        std::sort(expected.begin(), expected.end(),
                  [&p](std::uint32_t i, std::uint32_t j) { return p.id[i] < p.id[j]; });
        const auto row = nl.row(a);
        if (!std::equal(row.begin(), row.end(), expected.begin(), expected.end())) {
            if (wrong_rows == 0) MESSAGE("row ", a, ": ", row.size(), " entries, expected ", expected.size());
            ++wrong_rows;
        }
        entries += row.size();
        for (const std::uint32_t b : row) halo_entries += b >= n;
    }
    CHECK(wrong_rows == 0);
    CHECK(nl.pair_count() == entries);
    // The setup must exercise what it is for: rows of some length, halo copies among them.
    CHECK(entries > 10 * n);
    CHECK(halo_entries > 100);
}
