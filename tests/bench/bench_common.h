/* Helpers shared by the reference benchmarks (bench_ze_reference,
 * bench_cuda_reference): a monotonic clock, a "how long per call" loop, and
 * the machine line every benchmark prints. */
#ifndef OCC_BENCH_COMMON_H
#define OCC_BENCH_COMMON_H

#include <stddef.h>
#include <stdint.h>

/* Monotonic (wall) time in nanoseconds. */
double bench_now_ns(void);
/* CPU time of the calling thread in nanoseconds (user + system): what
 * BENCH_PER_CALL measures, so that other processes on a shared machine do not
 * count (their effect on caches still does). */
double bench_cpu_ns(void);

/* Keep the calling thread (and the processes it starts) on the CPU it runs
 * on now: a thread that migrates between CPUs of a large host starts on cold
 * caches and a slower clock, and its figures move by 2x from run to run. */
void bench_pin_cpu(void);

/* "host x86_64, Intel(R) Xeon(R) ... (2 CPUs), 2025-11-21 17:02 UTC" */
void bench_machine(char *buf, size_t size);

/* Machine-readable result line read by tests/bench/run.py:
 *   BENCH <tab> key <tab> value <tab> unit [<tab> reference <tab> value]
 * ref_name NULL: no reference.  Values are printed in the C locale. */
void bench_result(const char *key, double value, const char *unit, const char *ref_name,
                  double ref_value);

/* Time `body` (a statement) per call, in thread CPU time: doubles the
 * iteration count until one run takes at least min_ms, then keeps the best of
 * `reps` runs of that size.  Sets `out_ns` to nanoseconds per iteration. */
#define BENCH_PER_CALL(out_ns, min_ms, reps, body)                                                 \
    do {                                                                                           \
        uint64_t n_ = 16;                                                                          \
        double t_ = 0;                                                                             \
        for (;;) {                                                                                 \
            double s_ = bench_cpu_ns();                                                            \
            for (uint64_t i_ = 0; i_ < n_; i_++) {                                                 \
                uint64_t bench_i = i_;                                                             \
                (void)bench_i;                                                                     \
                body;                                                                              \
            }                                                                                      \
            t_ = bench_cpu_ns() - s_;                                                              \
            if (t_ >= (min_ms) * 1e6 || n_ >= ((uint64_t)1 << 40))                                 \
                break;                                                                             \
            n_ *= 2;                                                                               \
        }                                                                                          \
        double best_ = t_;                                                                         \
        for (int r_ = 1; r_ < (reps); r_++) {                                                      \
            double s_ = bench_cpu_ns();                                                            \
            for (uint64_t i_ = 0; i_ < n_; i_++) {                                                 \
                uint64_t bench_i = i_;                                                             \
                (void)bench_i;                                                                     \
                body;                                                                              \
            }                                                                                      \
            double u_ = bench_cpu_ns() - s_;                                                       \
            if (u_ < best_)                                                                        \
                best_ = u_;                                                                        \
        }                                                                                          \
        (out_ns) = best_ / (double)n_;                                                             \
    } while (0)

/* Several workloads timed in alternation: `rounds` rounds, in each of which
 * every turn runs its pass for about turn_ms (the number of passes is sized
 * once, before the rounds); each turn's `ns` is set to its best round, in
 * nanoseconds of thread CPU time per answer (a pass gives `per_pass`
 * answers).  A ratio of two turns then compares them under the same state of
 * the machine: a shared host's speed moves by 2x between figures taken a
 * second apart, so two best-of-5 figures taken one after the other do not.
 * Returns the sum of what the passes added to their accumulator. */
typedef struct bench_turn {
    void (*pass)(const void *ctx, uint64_t *acc);
    const void *ctx;
    double per_pass;
    double ns; /* out */
} bench_turn;

uint64_t bench_alternate(bench_turn *turns, size_t n, int rounds, double turn_ms);

#endif
