/* NVIDIA profiles: cases computed by hand from CUDA's occupancy rule as
 * written in cuda_occupancy.h (docs/sources.md, NVIDIA facts), each with its
 * arithmetic.
 *
 *   warps per block w = ceil(B / 32)
 *   warps:      floor(max_warps / w)
 *   registers:  rw = round_up(R x 32, 256); floor(4 x floor((65536 / 4) / rw) / w);
 *               the block cannot launch if rw x round_up(w, 4) > 65536
 *   shared mem: per block round_up(S + reserved, granule); SM memory = the
 *               carveout preference rounded up to a legal size, at least one block
 *   slots:      max blocks per SM
 *
 * Profiles: h100-sxm (64 warps, 32 blocks, 228 KB, 1 KB reserved, 128 B),
 * a100 (64, 32, 164 KB, 1 KB, 128 B), v100 (64, 32, 96 KB, no reserve, 256 B),
 * rtx-4090 (48, 24, 100 KB, 1 KB, 128 B), t4 (32, 16, 64 KB, no reserve, 256 B),
 * a10 and rtx-3090 (48, 16, 100 KB, 1 KB, 128 B), l4 and l40s (as rtx-4090),
 * b200 (as h100-sxm), rtx-5090 (48, 32, 100 KB, 1 KB, 128 B). */
#include <string.h>

#include "test_common.h"

#define N OCC_NO_LIMIT
#define KB 1024u
#define T (1u << OCC_RES_THREADS)
#define S (1u << OCC_RES_SLM)
#define R (1u << OCC_RES_REGISTERS)
#define B (1u << OCC_RES_WG_SLOTS)

typedef struct nv_case {
    const char *device;
    uint32_t threads, regs;
    uint64_t smem;
    int32_t carveout; /* -1 default */
    bool barrier;
    /* expected */
    occ_reason reason; /* OCC_REASON_NONE: launchable */
    uint32_t resident;
    uint32_t lim_threads, lim_slm, lim_regs, lim_slots, lim_barriers;
    uint32_t limited_by;
    uint64_t slm_alloc, slm_core;
} nv_case;

static const nv_case cases[] = {
    /* The case: 98 registers, 32 threads.  rw = round_up(3136, 256) = 3328;
     * 16384 / 3328 = 4 warps per sub-partition; 4 x 4 = 16 warps / 1 = 16 blocks (not
     * the naive 65536 / 3328 = 19).  Warps 64 / 1 = 64; slots 32.  No shared memory
     * requested, but the 1 KB reserve is charged: 233472 / 1024 = 228. */
    {"h100-sxm", 32, 98, 0, -1, false, OCC_REASON_NONE, 16, 64, 228, 16, 32, N, R, 1024, 233472},
    /* The case: 9 KB dynamic + 1 KB reserved = 10240 B (a multiple of 128);
     * default carveout = 228 KB = 233472 B: 233472 / 10240 = 22.8 -> 22 blocks. */
    {"h100-sxm", 32, 0, 9 * KB, -1, false, OCC_REASON_NONE, 22, 64, 22, N, 32, N, S, 10240, 233472},
    /* ... at carveout 0: the preference 0 is raised to what one block needs (10 KB)
     * and rounded up to the next legal size, 16 KB: 16384 / 10240 = 1 block. */
    {"h100-sxm", 32, 0, 9 * KB, 0, false, OCC_REASON_NONE, 1, 64, 1, N, 32, N, S, 10240, 16384},
    /* carveout 50 %: ceil(0.5 x 233472) = 116736 B (114 KB) -> 132 KB = 135168 B;
     * 135168 / 10240 = 13.2 -> 13. */
    {"h100-sxm", 32, 0, 9 * KB, 50, false, OCC_REASON_NONE, 13, 64, 13, N, 32, N, S, 10240, 135168},
    /* Warp-limited: 1024 threads = 32 warps; 64 / 32 = 2 blocks, all 64 warps busy. */
    {"h100-sxm", 1024, 0, 0, -1, false, OCC_REASON_NONE, 2, 2, 228, N, 32, N, T, 1024, 233472},
    /* Block-slot-limited: 32 threads = 1 warp; warps allow 64, slots 32: 32 blocks,
     * 32 of 64 warps. */
    {"h100-sxm", 32, 0, 0, -1, false, OCC_REASON_NONE, 32, 64, 228, N, 32, N, B, 1024, 233472},
    /* Barrier on sm_90: cap 2 x 32 = 64 barrier-using blocks, never binding. */
    {"h100-sxm", 32, 0, 0, -1, true, OCC_REASON_NONE, 32, 64, 228, N, 32, 64, B, 1024, 233472},
    /* Three-way tie: 64 threads = 2 warps, 32 registers: rw = 1024; 16384 / 1024 = 16
     * per sub-partition, 64 warps / 2 = 32 blocks; warps 64 / 2 = 32; slots 32. */
    {"h100-sxm", 64, 32, 0, -1, false, OCC_REASON_NONE, 32, 32, 228, 32, 32, N, T | R | B, 1024,
     233472},
    /* 256 threads = 8 warps, 64 registers: rw = 2048; 16384 / 2048 = 8 per
     * sub-partition = 32 warps / 8 = 4 blocks; warps 64 / 8 = 8. */
    {"h100-sxm", 256, 64, 0, -1, false, OCC_REASON_NONE, 4, 8, 228, 4, 32, N, R, 1024, 233472},
    /* 256 threads, 255 registers: rw = round_up(8160, 256) = 8192; per block 8192 x
     * round_up(8, 4) = 65536 = the maximum, allowed; 16384 / 8192 = 2 per
     * sub-partition = 8 warps / 8 = 1 block. */
    {"h100-sxm", 256, 255, 0, -1, false, OCC_REASON_NONE, 1, 8, 228, 1, 32, N, R, 1024, 233472},
    /* 288 threads = 9 warps, 255 registers: 8192 x round_up(9, 4) = 8192 x 12 = 98304
     * > 65536 registers per block: cannot launch. */
    {"h100-sxm", 288, 255, 0, -1, false, OCC_REASON_REGS_PER_WG, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    /* 1024 threads, 65 registers: rw = round_up(2080, 256) = 2304; x 32 warps =
     * 73728 > 65536: cannot launch.  (64 registers: 2048 x 32 = 65536, fits.) */
    {"h100-sxm", 1024, 65, 0, -1, false, OCC_REASON_REGS_PER_WG, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {"h100-sxm", 1024, 64, 0, -1, false, OCC_REASON_NONE, 1, 2, 228, 1, 32, N, R, 1024, 233472},
    /* 256 registers per thread > 255. */
    {"h100-sxm", 32, 256, 0, -1, false, OCC_REASON_REGS_PER_THREAD, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    /* 1025 threads > 1024. */
    {"h100-sxm", 1025, 0, 0, -1, false, OCC_REASON_WG_TOO_LARGE, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    /* 227 KB + 1 KB reserved = 228 KB: exactly one block; one byte more is over
     * the 227 KB opt-in maximum. */
    {"h100-sxm", 32, 0, 227 * KB, -1, false, OCC_REASON_NONE, 1, 64, 1, N, 32, N, S, 233472, 233472},
    {"h100-sxm", 32, 0, 227 * KB + 1, -1, false, OCC_REASON_SLM_TOO_LARGE, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    /* Same rule on the other sm_90 profiles (H100 PCIe has fewer SMs, same SM). */
    {"h100-pcie", 32, 98, 0, -1, false, OCC_REASON_NONE, 16, 64, 228, 16, 32, N, R, 1024, 233472},
    {"h200", 32, 0, 9 * KB, -1, false, OCC_REASON_NONE, 22, 64, 22, N, 32, N, S, 10240, 233472},

    /* V100 (7.0): 256 B granule, no reserve.  4200 B -> round_up(4200, 256) = 4352;
     * 98304 / 4352 = 22.6 -> 22 blocks (a 128 B granule would give 4224 -> 23). */
    {"v100", 32, 0, 4200, -1, false, OCC_REASON_NONE, 22, 64, 22, N, 32, N, S, 4352, 98304},
    /* 10000 B -> 10240; default 96 KB: 98304 / 10240 = 9.6 -> 9. */
    {"v100", 32, 0, 10000, -1, false, OCC_REASON_NONE, 9, 64, 9, N, 32, N, S, 10240, 98304},
    /* carveout 0: at least 10240 -> 16 KB: 1 block. */
    {"v100", 32, 0, 10000, 0, false, OCC_REASON_NONE, 1, 64, 1, N, 32, N, S, 10240, 16384},
    /* carveout 50 %: 49152 (48 KB, not legal) -> 64 KB: 65536 / 10240 = 6.4 -> 6. */
    {"v100", 32, 0, 10000, 50, false, OCC_REASON_NONE, 6, 64, 6, N, 32, N, S, 10240, 65536},
    /* No reserve: 48 KB twice fills 96 KB exactly: 2 blocks (with 1 KB reserved: 1). */
    {"v100", 32, 0, 48 * KB, -1, false, OCC_REASON_NONE, 2, 64, 2, N, 32, N, S, 49152, 98304},
    /* No shared memory, no reserve: nothing allocated, no shared-memory limit. */
    {"v100", 32, 0, 0, -1, false, OCC_REASON_NONE, 32, 64, N, N, 32, N, B, 0, 98304},
    /* V100 has no barrier cap (barriers: none). */
    {"v100", 32, 0, 0, -1, true, OCC_REASON_NONE, 32, 64, N, N, 32, N, B, 0, 98304},

    /* A100 (8.0) carveouts 0, 8, 16, 32, 64, 100, 132, 164 KB; 48 KB + 1 KB =
     * 50176 B per block.  Default 164 KB = 167936: 3.35 -> 3. */
    {"a100", 32, 0, 48 * KB, -1, false, OCC_REASON_NONE, 3, 64, 3, N, 32, N, S, 50176, 167936},
    /* 50 %: ceil(83968) -> 100 KB = 102400: 2.04 -> 2. */
    {"a100", 32, 0, 48 * KB, 50, false, OCC_REASON_NONE, 2, 64, 2, N, 32, N, S, 50176, 102400},
    /* 25 %: 41984 < 50176 (one block) -> 64 KB: 1. */
    {"a100", 32, 0, 48 * KB, 25, false, OCC_REASON_NONE, 1, 64, 1, N, 32, N, S, 50176, 65536},
    /* 61 %: ceil(0.61 x 167936) = 102441 > 100 KB -> 132 KB = 135168: 2.69 -> 2. */
    {"a100", 32, 0, 48 * KB, 61, false, OCC_REASON_NONE, 2, 64, 2, N, 32, N, S, 50176, 135168},
    /* 81 %: ceil(136028.16) = 136029 > 132 KB -> 164 KB: 3. */
    {"a100", 32, 0, 48 * KB, 81, false, OCC_REASON_NONE, 3, 64, 3, N, 32, N, S, 50176, 167936},
    /* 100 %: 164 KB: 3. */
    {"a100", 32, 0, 48 * KB, 100, false, OCC_REASON_NONE, 3, 64, 3, N, 32, N, S, 50176, 167936},
    /* 128 threads = 4 warps, 128 registers: rw = 4096; 16384 / 4096 = 4 per
     * sub-partition = 16 warps / 4 = 4 blocks; warps 64 / 4 = 16. */
    {"a100", 128, 128, 0, -1, false, OCC_REASON_NONE, 4, 16, 164, 4, 32, N, R, 1024, 167936},
    /* 163 KB opt-in maximum + 1 KB = 164 KB: one block; 163 KB + 1 B: too large. */
    {"a100", 32, 0, 163 * KB, -1, false, OCC_REASON_NONE, 1, 64, 1, N, 32, N, S, 167936, 167936},
    {"a100", 32, 0, 163 * KB + 1, -1, false, OCC_REASON_SLM_TOO_LARGE, 0, 0, 0, 0, 0, 0, 0, 0, 0},

    /* RTX 4090 (8.9): 48 warps, 24 blocks.  32 threads: warps 48, slots 24 -> 24,
     * 24 of 48 warps. */
    {"rtx-4090", 32, 0, 0, -1, false, OCC_REASON_NONE, 24, 48, 100, N, 24, N, B, 1024, 102400},
    /* 768 threads = 24 warps: 48 / 24 = 2, all warps busy. */
    {"rtx-4090", 768, 0, 0, -1, false, OCC_REASON_NONE, 2, 2, 100, N, 24, N, T, 1024, 102400},
    /* 1024 threads = 32 warps: 48 / 32 = 1, 32 of 48 warps. */
    {"rtx-4090", 1024, 0, 0, -1, false, OCC_REASON_NONE, 1, 1, 100, N, 24, N, T, 1024, 102400},
    /* 49 KB + 1 KB = 50 KB: 100 KB / 50 KB = 2 blocks. */
    {"rtx-4090", 32, 0, 49 * KB, -1, false, OCC_REASON_NONE, 2, 48, 2, N, 24, N, S, 51200, 102400},

    /* T4 (7.5): 32 warps, 16 blocks, 64 KB (carveouts 32, 64 KB), 256 B granule, no
     * reserve.  32 threads: warps 32, slots 16 -> 16; nothing shared, nothing
     * allocated. */
    {"t4", 32, 0, 0, -1, false, OCC_REASON_NONE, 16, 32, N, N, 16, N, B, 0, 65536},
    /* 1024 threads = 32 warps: 32 / 32 = 1 block, every warp busy. */
    {"t4", 1024, 0, 0, -1, false, OCC_REASON_NONE, 1, 1, N, N, 16, N, T, 0, 65536},
    /* 10000 B -> round_up(10000, 256) = 10240; 64 KB: 65536 / 10240 = 6.4 -> 6. */
    {"t4", 32, 0, 10000, -1, false, OCC_REASON_NONE, 6, 32, 6, N, 16, N, S, 10240, 65536},
    /* carveout 0: raised to one block's 10240 B, rounded up to the smallest legal
     * size, 32 KB: 32768 / 10240 = 3.2 -> 3. */
    {"t4", 32, 0, 10000, 0, false, OCC_REASON_NONE, 3, 32, 3, N, 16, N, S, 10240, 32768},
    /* 64 KB is the per-block maximum (no reserve): one block; one byte more is too large. */
    {"t4", 32, 0, 64 * KB, -1, false, OCC_REASON_NONE, 1, 32, 1, N, 16, N, S, 65536, 65536},
    {"t4", 32, 0, 64 * KB + 1, -1, false, OCC_REASON_SLM_TOO_LARGE, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    /* 256 threads = 8 warps, 64 registers: rw = 2048; 16384 / 2048 = 8 per
     * sub-partition = 32 warps / 8 = 4 blocks; warps 32 / 8 = 4: a tie. */
    {"t4", 256, 64, 0, -1, false, OCC_REASON_NONE, 4, 4, N, 4, 16, N, T | R, 0, 65536},

    /* A10 (8.6): 48 warps, 16 blocks, 100 KB, 99 KB per block, 1 KB reserved.  32
     * threads: warps 48, slots 16 -> 16; the reserve alone: 102400 / 1024 = 100. */
    {"a10", 32, 0, 0, -1, false, OCC_REASON_NONE, 16, 48, 100, N, 16, N, B, 1024, 102400},
    /* 96 threads = 3 warps: 48 / 3 = 16 = the slots: a tie. */
    {"a10", 96, 0, 0, -1, false, OCC_REASON_NONE, 16, 16, 100, N, 16, N, T | B, 1024, 102400},
    /* 128 threads = 4 warps, 128 registers: rw = 4096; 16384 / 4096 = 4 per
     * sub-partition = 16 warps / 4 = 4 blocks; warps 48 / 4 = 12. */
    {"a10", 128, 128, 0, -1, false, OCC_REASON_NONE, 4, 12, 100, 4, 16, N, R, 1024, 102400},
    /* 99 KB + 1 KB = 100 KB: one block; 99 KB + 1 B is over the opt-in maximum. */
    {"a10", 32, 0, 99 * KB, -1, false, OCC_REASON_NONE, 1, 48, 1, N, 16, N, S, 102400, 102400},
    {"a10", 32, 0, 99 * KB + 1, -1, false, OCC_REASON_SLM_TOO_LARGE, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    /* the same SM on the RTX 3090 */
    {"rtx-3090", 96, 0, 0, -1, false, OCC_REASON_NONE, 16, 16, 100, N, 16, N, T | B, 1024, 102400},

    /* L4 (8.9), as the RTX 4090: 256 threads = 8 warps: 48 / 8 = 6 (slots 24). */
    {"l4", 256, 0, 0, -1, false, OCC_REASON_NONE, 6, 6, 100, N, 24, N, T, 1024, 102400},
    /* L40S: 32 threads, slots 24 of 48 warps. */
    {"l40s", 32, 0, 0, -1, false, OCC_REASON_NONE, 24, 48, 100, N, 24, N, B, 1024, 102400},

    /* B200 (10.0), the H100's SM: 98 registers x 32 threads: 16 blocks (see h100-sxm). */
    {"b200", 32, 98, 0, -1, false, OCC_REASON_NONE, 16, 64, 228, 16, 32, N, R, 1024, 233472},
    /* barrier cap 2 x 32 = 64, never binding */
    {"b200", 32, 0, 0, -1, true, OCC_REASON_NONE, 32, 64, 228, N, 32, 64, B, 1024, 233472},
    {"b200", 32, 0, 227 * KB, -1, false, OCC_REASON_NONE, 1, 64, 1, N, 32, N, S, 233472, 233472},

    /* RTX 5090 (12.0): 48 warps but 32 blocks, 100 KB.  32 threads: slots 32 of 48 warps. */
    {"rtx-5090", 32, 0, 0, -1, false, OCC_REASON_NONE, 32, 48, 100, N, 32, N, B, 1024, 102400},
    /* 64 threads = 2 warps: 48 / 2 = 24 < 32 slots. */
    {"rtx-5090", 64, 0, 0, -1, false, OCC_REASON_NONE, 24, 24, 100, N, 32, N, T, 1024, 102400},
    /* barrier cap 2 x 32 = 64, never binding */
    {"rtx-5090", 32, 0, 0, -1, true, OCC_REASON_NONE, 32, 48, 100, N, 32, 64, B, 1024, 102400},
};

START_TEST(hand_computed)
{
    const nv_case *c = &cases[_i];
    occ_device *dev = tc_builtin(c->device);
    occ_kernel k = tc_kernel(c->threads, 0);
    k.regs_per_thread = c->regs;
    k.slm_bytes = c->smem;
    k.carveout_pct = c->carveout;
    k.barrier = c->barrier;
    occ_residency r = tc_residency(dev, &k);
    char why[256];
    occ_residency_reason(dev, &k, why, sizeof why);
    ck_assert_msg(r.reason == c->reason, "case %d (%s, %u threads): reason %d (%s), expected %d",
                  _i, c->device, c->threads, r.reason, why, c->reason);
    ck_assert_uint_eq(r.sub_group, 32);
    ck_assert_uint_eq(r.contexts_per_wg, (c->threads + 31) / 32);
    if (c->reason != OCC_REASON_NONE) {
        ck_assert(!r.launchable);
        ck_assert(why[0] != '\0');
        occ_device_free(dev);
        return;
    }
    ck_assert(r.launchable);
    ck_assert_uint_eq(r.resident_wgs, c->resident);
    ck_assert_uint_eq(r.limits[OCC_RES_THREADS], c->lim_threads);
    ck_assert_uint_eq(r.limits[OCC_RES_SLM], c->lim_slm);
    ck_assert_uint_eq(r.limits[OCC_RES_REGISTERS], c->lim_regs);
    ck_assert_uint_eq(r.limits[OCC_RES_WG_SLOTS], c->lim_slots);
    ck_assert_uint_eq(r.limits[OCC_RES_BARRIERS], c->lim_barriers);
    ck_assert_uint_eq(r.limited_by, c->limited_by);
    ck_assert_uint_eq(r.slm_per_wg_alloc, c->slm_alloc);
    ck_assert_uint_eq(r.slm_core_config, c->slm_core);
    uint32_t warps = occ_device_describe(dev)->engines_per_core *
                     occ_device_describe(dev)->grf_modes[0].threads_per_engine;
    ck_assert_uint_eq(r.contexts_per_core, warps);
    ck_assert_double_eq_tol(r.occupancy, (double)c->resident * r.contexts_per_wg / warps, 1e-12);
    occ_device_free(dev);
}
END_TEST

/* Register allocation per block as reported: 98 registers x 32 = 3136 -> 3328
 * per warp, one warp. */
START_TEST(registers_per_block_reported)
{
    occ_device *dev = tc_builtin("h100-sxm");
    occ_kernel k = tc_kernel(32, 0);
    k.regs_per_thread = 98;
    occ_residency r = tc_residency(dev, &k);
    ck_assert_uint_eq(r.regs_per_wg_alloc, 3328);
    k = tc_kernel(256, 0); /* 8 warps x 2048 */
    k.regs_per_thread = 64;
    r = tc_residency(dev, &k);
    ck_assert_uint_eq(r.regs_per_wg_alloc, 16384);
    occ_device_free(dev);
}
END_TEST

/* GRF modes mean nothing on NVIDIA, and registers mean nothing on Intel:
 * --regs on tgl does not limit (tgl has no register file). */
START_TEST(registers_ignored_on_intel)
{
    occ_device *dev = tc_builtin("tgl");
    occ_kernel k = tc_kernel(320, 8);
    k.regs_per_thread = 255;
    occ_residency r = tc_residency(dev, &k);
    ck_assert(r.launchable);
    ck_assert_uint_eq(r.resident_wgs, 2);
    ck_assert_uint_eq(r.limits[OCC_RES_REGISTERS], OCC_NO_LIMIT);
    occ_device_free(dev);
}
END_TEST

/* Carveout over 100 % is refused with a reason (the API accepts any int). */
START_TEST(carveout_out_of_range)
{
    occ_device *dev = tc_builtin("h100-sxm");
    occ_kernel k = tc_kernel(32, 0);
    k.carveout_pct = 101;
    occ_residency r = tc_residency(dev, &k);
    ck_assert(!r.launchable);
    ck_assert_int_eq(r.reason, OCC_REASON_CARVEOUT);
    k.carveout_pct = -2;
    r = tc_residency(dev, &k);
    ck_assert_int_eq(r.reason, OCC_REASON_CARVEOUT);
    occ_device_free(dev);
}
END_TEST

/* H100 waves: 320-thread blocks (10 warps) fit 6 per SM (64 / 10); 1000 blocks
 * on 132 SMs run as 792 resident, then 208 (measured:
 * docs/validation/cuda-h100-2026-11-21.md). */
START_TEST(h100_measured_waves)
{
    occ_device *dev = tc_builtin("h100-sxm");
    occ_kernel k = tc_kernel(320, 0);
    occ_residency r = tc_residency(dev, &k);
    ck_assert_uint_eq(r.resident_wgs, 6);
    occ_gpu g;
    ck_assert_int_eq(occ_gpu_compute(dev, &r, 1000, &g), OCC_OK);
    ck_assert_uint_eq(g.wave_capacity, 792);
    ck_assert_uint_eq(g.waves, 2);
    ck_assert_uint_eq(g.last_wave_work_groups, 208);
    ck_assert_double_eq_tol(g.full_wave_occupancy, 60.0 / 64, 1e-12);
    ck_assert_double_eq_tol(g.last_wave_occupancy, 208.0 * 10 / (132 * 64), 1e-12);
    occ_device_free(dev);
}
END_TEST

static Suite *nvidia_suite(void)
{
    Suite *s = suite_create("nvidia");
    TCase *tc = tcase_create("hand-computed");
    tcase_add_loop_test(tc, hand_computed, 0, (int)(sizeof cases / sizeof cases[0]));
    tcase_add_test(tc, registers_per_block_reported);
    tcase_add_test(tc, registers_ignored_on_intel);
    tcase_add_test(tc, carveout_out_of_range);
    tcase_add_test(tc, h100_measured_waves);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tc_run(nvidia_suite()); }
