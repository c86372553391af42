// Heun's method (SPEC.md section 5) over the integrated fields of the field table
// (core/fields.hpp), as array sweeps: the stage update of AdaptiveHeun (sph/integrator.cpp)
// is a loop over chunks of particles calling sweep_fields on the list of list_stage_arrays_of.
// Any caller that steps a particle set's fields (a material-point driver, a test) takes the
// same code.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "core/fields.hpp"
#include "core/particles.hpp"

namespace regosph {

// One component array of an integrated field as a stage update sweeps it.
struct StageArray {
    std::vector<double>* value;        // the particles' array
    const std::vector<double>* start;  // its value at the step start
    const std::vector<double>* rate1;  // its rate in the first stage, k1
    const std::vector<double>* rate2;  // ... in the second (the predictor: k1)
    Integration integration;
    bool closes_field;  // the last component of its field: its error is complete
    bool scalar;        // its field has one component
};

// Each integrated field's arrays of p in table order (for_each_integrated_field), into `out`,
// with the step start (saved(array): the copy of one of p's arrays at the step start) and its
// rates in the stages' k1 and k2 (the predictor's k2 is k1), where its table entry says
// (Field::rate). Without a plastic material (any_plastic false) the fields whose rate is then
// zero are left out (Integration::plastic_only).
template <class Saved>
void list_stage_arrays_of(ParticleSet& p, Saved&& saved, const StateRates& k1,
                          const StateRates& k2, bool any_plastic, bool final,
                          std::vector<StageArray>& out) {
    out.clear();
    const auto start = [&](const std::vector<double>& array) {
        const std::vector<double>* copy = saved(array);
        if (!copy) throw std::logic_error("stage update: an integrated field is not step state");
        return copy;
    };
    for_each_integrated_field(p, [&](const FieldInfo& f, auto& a, auto rate) {
        using A = std::remove_cvref_t<decltype(a)>;
        const Integration& in = f.integration;
        if (in.plastic_only && !any_plastic) return;  // its rates are all zero
        if (in.error == StepError::relative && kComponents<A> != 1)
            throw std::logic_error(std::string("field '") + f.name +
                                   "': a relative step error needs a scalar");
        const std::vector<int> components = active_components(kComponents<A>, p.dim);
        for (std::size_t i = 0; i < components.size(); ++i) {
            const auto c = static_cast<std::size_t>(components[i]);
            std::vector<double>& y = component(a, c);
            const std::vector<double>* r1 = &component(rate(k1), c);
            const std::vector<double>* r2 = &component(rate(k2), c);
            if (r1->empty()) {
                if (!in.velocity_if_no_rate)
                    throw std::logic_error(std::string("field '") + f.name + "': no rate");
                // dx/dt = v: at the step start, and at the predicted state (p.v before its
                // own sweep overwrites it; the velocity comes after the position in the table).
                r1 = start(p.v[c]);
                r2 = final ? &p.v[c] : r1;
            }
            out.push_back({&y, start(y), r1, r2, in, i + 1 == components.size(),
                           kComponents<A> == 1});
        }
    });
}

// The sweeps over the particles [first, last) of one array (always inlined: they are the stage
// update's vector code, tests/check_vectorised.py). Particles that are not dynamic keep their
// value (written back). The forms are HeunForm's.
[[gnu::always_inline]] inline void predict_summed(double* y, const double* y0, const double* r1,
                                                  const ParticleKind* kind, double dt,
                                                  std::size_t first, std::size_t last) {
#pragma omp simd
    for (std::size_t a = first; a < last; ++a) {
        const double yn = y0[a] + dt * r1[a];
        const double ya = y[a];
        y[a] = kind[a] == ParticleKind::dynamic ? yn : ya;
    }
}

// The corrector of summed_rates, adding (dt/2 (r2 - r1))^2 to sq[a - first] (the field's
// step error, StepError) if kWithError.
template <bool kWithError>
[[gnu::always_inline]] inline void correct_summed(double* y, const double* y0, const double* r1,
                                                  const double* r2, const ParticleKind* kind,
                                                  double dt, double* sq, std::size_t first,
                                                  std::size_t last) {
#pragma omp simd
    for (std::size_t a = first; a < last; ++a) {
        const double k1 = r1[a], k2 = r2[a];
        const double yn = y0[a] + 0.5 * dt * (k1 + k2);
        if constexpr (kWithError) {
            const double e = 0.5 * dt * (k2 - k1);
            sq[a - first] += e * e;
        }
        const double ya = y[a];
        y[a] = kind[a] == ParticleKind::dynamic ? yn : ya;
    }
}

// weighted_rates: y = y0 + w1 r1 + w2 r2 (dt and 0, or dt/2 and dt/2).
[[gnu::always_inline]] inline void weighted_sweep(double* y, const double* y0, const double* r1,
                                                  const double* r2, const ParticleKind* kind,
                                                  double w1, double w2, std::size_t first,
                                                  std::size_t last) {
#pragma omp simd
    for (std::size_t a = first; a < last; ++a) {
        const double yn = y0[a] + w1 * r1[a] + w2 * r2[a], ya = y[a];
        y[a] = kind[a] == ParticleKind::dynamic ? yn : ya;
    }
}

// A field's step error (StepError) into error[i] (the largest so far, i = a - first), and
// into not_finite[i] a count of the non-finite ones; `e` holds dt/2 |k2 - k1| on entry, and
// y is the field's new value (a scalar for `relative`).
[[gnu::always_inline]] inline void add_step_error(StepError measure, const double* e,
                                                  const double* y, const double* h, double dt,
                                                  double* error, double* not_finite,
                                                  std::size_t first, std::size_t last) {
    constexpr double kLargest = std::numeric_limits<double>::max();
    const auto add = [&](std::size_t i, double v) {
        error[i] = std::max(error[i], v);
        not_finite[i] += std::abs(v) <= kLargest ? 0.0 : 1.0;  // fails for inf and NaN
    };
    if (measure == StepError::length) {
#pragma omp simd
        for (std::size_t a = first; a < last; ++a) add(a - first, e[a - first] / h[a]);
    } else if (measure == StepError::velocity) {
#pragma omp simd
        for (std::size_t a = first; a < last; ++a) add(a - first, e[a - first] * dt / h[a]);
    } else {
#pragma omp simd
        for (std::size_t a = first; a < last; ++a) add(a - first, e[a - first] / y[a]);
    }
}

// One stage's update of the particles [first, last) in every integrated array (the list of
// list_stage_arrays_of): predictor (final == false) or corrector, in each field's HeunForm;
// the corrector adds each field's step error into error / not_finite (add_step_error) if
// step_error (SSP-RK3's second stage, a corrector over half the step, has none). `sq`:
// last - first zeros of scratch, left zero.
[[gnu::always_inline]] inline void sweep_fields(const std::vector<StageArray>& arrays,
                                                const ParticleKind* kind, const double* h,
                                                double dt, bool final, bool step_error,
                                                std::size_t first, std::size_t last,
                                                double* error, double* not_finite, double* sq) {
    // Weights of k1 and k2 of weighted_rates: dt and 0 (predictor), dt/2 and dt/2 (corrector).
    const double w1 = final ? 0.5 * dt : dt;
    const double w2 = final ? 0.5 * dt : 0.0;
    const std::size_t m = last - first;
    for (const StageArray& s : arrays) {
        double* y = s.value->data();
        const double* y0 = s.start->data();
        const double *r1 = s.rate1->data(), *r2 = s.rate2->data();
        if (s.integration.form == HeunForm::weighted_rates)
            weighted_sweep(y, y0, r1, r2, kind, w1, w2, first, last);
        else if (!final)
            predict_summed(y, y0, r1, kind, dt, first, last);
        else if (step_error)
            correct_summed<true>(y, y0, r1, r2, kind, dt, sq, first, last);
        else
            correct_summed<false>(y, y0, r1, r2, kind, dt, sq, first, last);
        if (!final || !step_error || !s.closes_field) continue;
        if (s.integration.error != StepError::none) {
            if (s.scalar) {
#pragma omp simd
                for (std::size_t a = first; a < last; ++a)
                    sq[a - first] = 0.5 * dt * std::abs(r2[a] - r1[a]);
            } else {
#pragma omp simd
                for (std::size_t i = 0; i < m; ++i) sq[i] = std::sqrt(sq[i]);
            }
            add_step_error(s.integration.error, sq, y, h, dt, error, not_finite, first, last);
        }
        std::fill(sq, sq + m, 0.0);
    }
}

// Counts into not_finite[a - first] the particles of [first, last) whose value in y is not
// finite.
[[gnu::always_inline]] inline void count_not_finite(const double* y, double* not_finite,
                                                    std::size_t first, std::size_t last) {
    constexpr double kLargest = std::numeric_limits<double>::max();
#pragma omp simd
    for (std::size_t a = first; a < last; ++a)
        not_finite[a - first] += std::abs(y[a]) <= kLargest ? 0.0 : 1.0;
}

}  // namespace regosph
