// The pair traversal (src/sph/pair_traversal.hpp) is blind to the physics: a pair term the
// solver does not have (a Shepard sum, sum_b V_b W_ab) composed with one it has (continuity)
// gives, through the same walk, blocks and lane sums, the values of a brute-force loop over all
// pairs; skipping the blocks beyond the support changes nothing; and the record layouts of every
// run shape name disjoint fields.
#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <set>
#include <vector>

#include "core/aligned_allocator.hpp"
#include "sph/kernel.hpp"
#include "sph/pair_traversal.hpp"
#include "sph/rhs_terms.hpp"

using namespace regosph;

namespace {

using S = rhs::Shape<2, false, false, false, false, false>;
using R = rhs::Record<S>;

// A term written against the composition's interface only: sum_b V_b W_ab [-].
struct Shepard {
    static constexpr int kRows = 1;
    traversal::Vec8 sum;
    void begin(const rhs::ParticleA<S>&) { sum = kernel::splat<traversal::Vec8>(0.0); }
    template <class P>
    void add(P& pair) {
        const traversal::Vec8 w = kernel::normalisation<2>(1.0) * kernel::shape(pair.kf.q) *
                                  pair.kf.inv_h * pair.kf.inv_h;  // W(r, h)
        sum += pair.field(R::volume) * w;
    }
    void rows(const traversal::Vec8** r) const { r[0] = &sum; }
    double value = 0.0;
    void take(const double* s, rhs::PairSums<2>&) { value = s[0]; }
};

struct Cloud {
    std::vector<double, AlignedAllocator<double>> rec;
    std::size_t n = 0;
};

// n particles at random in a square of side 1 m, h = 0.3 m, random velocities and densities.
Cloud cloud(std::size_t n) {
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    Cloud c;
    c.n = n;
    c.rec.assign(n * R::stride, 0.0);
    for (std::size_t i = 0; i < n; ++i) {
        double* r = c.rec.data() + i * R::stride;
        r[R::x] = u(rng);
        r[R::x + 1] = u(rng);
        r[R::h] = 0.3;
        r[R::v] = u(rng) - 0.5;
        r[R::v + 1] = u(rng) - 0.5;
        r[R::rho] = 1000.0 + 100.0 * u(rng);
        r[R::mass] = 0.5 + u(rng);
        r[R::volume] = r[R::mass] / r[R::rho];
    }
    return c;
}

// Walks a's pair list (every other particle, padded with a to whole blocks) with continuity
// and the Shepard term composed; returns {continuity sum, Shepard sum}.
std::array<double, 2> walk(const Cloud& c, std::size_t a, std::size_t margin_blocks) {
    std::vector<std::uint32_t> list;
    for (std::size_t b = 0; b < c.n; ++b)
        if (b != a) list.push_back(static_cast<std::uint32_t>(b));
    while (list.size() % kBlock != 0) list.push_back(static_cast<std::uint32_t>(a));
    const double* rec = c.rec.data();
    const rhs::ParticleA<S> pa{rec + a * R::stride};
    const double xa[2] = {pa.at(R::x), pa.at(R::x + 1)}, va[2] = {pa.at(R::v), pa.at(R::v + 1)};
    auto terms = rhs::compose(rhs::term<rhs::Continuity<S>>(), rhs::term<Shepard>());
    terms.begin(pa);
    traversal::walk_pairs<2, R, rhs::PairGeometry>(
        rec, list, std::min(margin_blocks, list.size()), xa, pa.at(R::h),
        [&](const double (&blk)[R::stride][kBlock], rhs::PairGeometry& geo) {
            rhs::pair_geometry<2, R>(blk, xa, pa.at(R::h), pa.at(R::rho), 0.01, geo);
        },
        [&](const auto& view, const rhs::PairGeometry& geo) {
            rhs::PairBlock<S, std::remove_cvref_t<decltype(view.field)>> pair(
                view.field, view.partners, pa, xa, va, geo);
            terms.add(pair);
        });
    rhs::PairSums<2> sums;
    terms.take(sums);
    return {sums.div_sum, terms.get<Shepard>().value};
}

}  // namespace

TEST_CASE("a new pair term composes with the solver's through the traversal: brute force") {
    const Cloud c = cloud(200);
    for (std::size_t a : {0u, 17u, 99u, 150u}) {
        double div = 0.0, shepard = 0.0;
        const double* ra = c.rec.data() + a * R::stride;
        for (std::size_t b = 0; b < c.n; ++b) {
            if (b == a) continue;
            const double* rb = c.rec.data() + b * R::stride;
            const double dx = ra[R::x] - rb[R::x], dy = ra[R::x + 1] - rb[R::x + 1];
            const double r = std::hypot(dx, dy);
            if (r >= 0.3) continue;
            const double g = kernel::gradient_factor<2>(r, 0.3);
            div += rb[R::volume] * ((ra[R::v] - rb[R::v]) * g * dx +
                                    (ra[R::v + 1] - rb[R::v + 1]) * g * dy);
            shepard += rb[R::volume] * kernel::value<2>(r, 0.3);
        }
        const std::array<double, 2> walked = walk(c, a, c.n);
        CHECK(walked[0] == doctest::Approx(div).epsilon(1e-12));
        CHECK(walked[1] == doctest::Approx(shepard).epsilon(1e-12));
        CHECK(walked[1] > 0.1);  // the support holds neighbours: the sums are not vacuous
        // Skipping the blocks wholly beyond the support (all of them may be) changes no bit.
        const std::array<double, 2> skipped = walk(c, a, 0);
        CHECK(skipped[0] == walked[0]);
        CHECK(skipped[1] == walked[1]);
    }
}

template <class Shape>
void check_layout() {
    using L = rhs::Record<Shape>;
    constexpr int D = Shape::Dim;
    std::set<int> used;
    const auto take = [&](int at, int width) {
        if (at < 0) return;
        for (int k = 0; k < width; ++k) CHECK(used.insert(at + k).second);  // no overlap
    };
    take(L::x, D);
    take(L::h, 1);
    take(L::v, D);
    take(L::rho, 1);
    take(L::mass, 1);
    take(L::volume, 1);
    take(L::sound_speed, 1);
    take(L::kind, 1);
    take(L::material, 1);
    take(L::wall_mu, 1);
    take(L::stress, L::kStress);
    take(L::art, L::kTensor);
    take(L::balsara, 1);
    CHECK(static_cast<int>(used.size()) == L::size);
    CHECK(*used.rbegin() == L::size - 1);
    CHECK(L::stride % 8 == 0);
    CHECK((L::kind >= 0) == Shape::Walls);
    CHECK((L::material >= 0) == Shape::Xsph);
    CHECK((L::wall_mu >= 0) == Shape::Loads);
    CHECK((L::art >= 0) == Shape::ArtStress);
    CHECK((L::balsara >= 0) == Shape::Prepass);
}

TEST_CASE("the record of every run shape names disjoint fields, optional ones only where used") {
    check_layout<rhs::Shape<2, false, false, false, false, false>>();
    check_layout<rhs::Shape<2, true, true, true, true, true>>();
    check_layout<rhs::Shape<3, true, false, true, false, true>>();
    check_layout<rhs::Shape<3, false, true, false, true, false>>();
    check_layout<rhs::Shape<3, true, true, true, true, true>>();
}
