// Probe kernels for `occcalc validate --backend cuda` (libocc/src/validate/backends/cuda/backend_cuda.c).
//
// Compiled to PTX at build time (kernels/meson.build); the driver JIT-compiles
// the PTX for the GPU it runs on, so the register count a kernel really uses
// is only known at run time: the backend reads it back with cuFuncGetAttribute
// (CU_FUNC_ATTRIBUTE_NUM_REGS) and predicts with that.
//
// Every thread spins on %globaltimer for spin_ns nanoseconds, so all blocks
// last the same known time.  The _sp variants (unequal durations) spin
// spin_ns plus an extra time per block that the host writes into the block's
// record before the launch (uniform in [0, spread], drawn from the seed and
// the block id).  They spin differently, on purpose: a busy-spinning warp
// keeps its scheduler busy every cycle, and once 24 to 32 warps spin on an
// H100 SM, the younger warps there get very few issue slots until the older
// ones finish.  The plain kernels hide it (their start time is their second
// instruction, and all blocks of a wave end together).  The _sp kernels of
// 2026-11-24 did not: they read the extra spin before the start time, which
// then came 15 to 33 us late, and a younger block with a short spin could not
// end before an older one with a long spin (tests/hw/exp/stall2.cu,
// docs/validation/cuda-h100-2026-11-25.md).  So the _sp kernels read the start
// time first, then the extra spin, sleep (__nanosleep) between timer reads,
// which leaves the scheduler to the other warps, and take the end time after
// a barrier.  The plain kernels stay exactly as they were.
//
// The first thread of each block writes one record:
// SM id at start and end (%smid), %globaltimer at start and end.  The host
// poisons the record buffer first and checks that every record was written.
//
// Variants:
//   occ_probe_rN      about N registers per thread, no barrier
//   occ_probe_rN_bar  the same with a block-wide barrier (__syncthreads) before
//                     the start time and after the spin
//   occ_probe_rmin    as few registers as the compiler needs (no --regs)
// Register pressure: N values stay live across the spin loop (each is changed
// by an asm volatile before and after it, so the compiler can neither drop nor
// rematerialise it) and __maxnreg__(N) caps the allocation, so ptxas uses
// exactly N and spills the rest to local memory (harmless: local memory does
// not limit residency).  ptxas for sm_90 gives 24 or more this way.  Shared memory is dynamic only
// (the launch's sharedMemBytes), so SHARED_SIZE_BYTES is 0.

struct occ_probe_rec {
    unsigned int smid_start;
    unsigned int smid_end;
    unsigned long long t_start; // %globaltimer, ns
    unsigned long long t_end;
    unsigned int block;         // blockIdx.x, checked by the host
    unsigned int check;         // xor of the pressure values (keeps them live)
};

static __device__ __forceinline__ unsigned long long global_timer(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

static __device__ __forceinline__ unsigned int sm_id(void)
{
    unsigned int s;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
    return s;
}

// %globaltimer with a "memory" clobber: the compiler moves no load or store
// across it (the _sp kernels' extra spin stays below the start time, the
// records' stores below the end time).
[[maybe_unused]] static __device__ __forceinline__ unsigned long long global_timer_fenced(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)::"memory");
    return t;
}

// %globaltimer read after x is known: the read is predicated on x, a real
// dependence that ptxas keeps when it schedules the spill reloads (an empty
// asm naming x emits no PTX and orders nothing).  Both branches read the timer.
static __device__ __forceinline__ unsigned long long global_timer_after(unsigned int x)
{
    unsigned long long t;
    asm volatile("{\n\t.reg .pred p;\n\t"
                 "setp.ne.u32 p, %1, 0;\n\t"
                 "@p mov.u64 %0, %%globaltimer;\n\t"
                 "@!p mov.u64 %0, %%globaltimer;\n\t}"
                 : "=l"(t)
                 : "r"(x)
                 : "memory");
    return t;
}

// The end of a probe block: fold the pressure values, then read the end time,
// then write the record.  The end time is taken as late as possible, just
// before the stores: the fold reloads the spilled values, which would
// otherwise come after it (global_timer_after() makes the read depend on the
// fold's result, so ptxas cannot schedule a reload below it).  No __threadfence():
// every reader copies the records after the kernel has completed
// (cuCtxSynchronize, then cuMemcpyDtoH in backend_cuda.c), so the order of the
// stores does not matter, and the fence kept thread 0 0.4 to 1.2 us on average
// (up to 2.3 us) past the end time in the register-limited shapes on the H100
// (tests/hw/exp/regend2.cu, 2026-11-25): the block ended that much after its
// recorded end.  Without it the record costs 0.04 to 0.13 us.
template <int P>
static __device__ __forceinline__ void occ_probe_end(occ_probe_rec *rec, unsigned int smid_start,
                                                     unsigned long long t0, const unsigned int *v)
{
    unsigned int acc = 0;
#pragma unroll
    for (int i = 0; i < P; i++)
        acc ^= v[i];
    unsigned int smid_end = sm_id();
    unsigned long long t1 = global_timer_after(acc);
    if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) {
        occ_probe_rec *r = rec + blockIdx.x;
        r->smid_start = smid_start;
        r->smid_end = smid_end;
        r->t_start = t0;
        r->t_end = t1;
        r->check = acc;
        r->block = blockIdx.x;
    }
}

template <int P, bool BARRIER>
static __device__ __forceinline__ void probe(occ_probe_rec *rec, unsigned long long spin_ns,
                                             unsigned int seed)
{
    unsigned int smid_start = sm_id();
    if (BARRIER)
        __syncthreads();
    unsigned long long t0 = global_timer();
    unsigned int v[P];
#pragma unroll
    for (int i = 0; i < P; i++)
        v[i] = seed + (unsigned int)i * (threadIdx.x + 1u);
    // Every value passes through an asm volatile before and after the spin, so
    // all P are live across it; the spin itself touches none of them, so a
    // spilled value costs one store and one load, not memory traffic per
    // iteration (which slowed the dispatch of later blocks by ~10 us).
#pragma unroll
    for (int i = 0; i < P; i++)
        asm volatile("add.u32 %0, %0, 1;" : "+r"(v[i]));
    unsigned long long t;
    do {
        t = global_timer();
    } while (t - t0 < spin_ns);
#pragma unroll
    for (int i = 0; i < P; i++)
        asm volatile("add.u32 %0, %0, 1;" : "+r"(v[i]));
    if (BARRIER)
        __syncthreads();
    occ_probe_end<P>(rec, smid_start, t0, v);
}

// The longest sleep between two timer reads of an _sp kernel, in ns.  On the
// H100 (tests/hw/exp/stall3.cu): 32 ns still lets 64 warps starve younger
// ones (set-up up to 19 us late), 100 ns nearly not (up to 1 us), 200 ns not
// (0.61 us at most, the time to read the extra spin), and a block then ends
// at most 0.7 us past its goal (0.1 us in the median).
#define OCC_PROBE_SLEEP_NS 200u

// The unequal-duration probe: as probe(), but the start time comes first, the
// block's extra spin (what the host wrote into its record's t_end) is read
// after it, and the spin sleeps between timer reads.
template <int P, bool BARRIER>
static __device__ __forceinline__ void probe_spread(occ_probe_rec *rec, unsigned long long spin_ns,
                                                    unsigned int seed)
{
    unsigned int smid_start = sm_id();
    if (BARRIER)
        __syncthreads();
    unsigned long long t0 = global_timer_fenced();
    unsigned long long goal = spin_ns + rec[blockIdx.x].t_end;
    unsigned int v[P];
#pragma unroll
    for (int i = 0; i < P; i++)
        v[i] = seed + (unsigned int)i * (threadIdx.x + 1u);
#pragma unroll
    for (int i = 0; i < P; i++)
        asm volatile("add.u32 %0, %0, 1;" : "+r"(v[i]));
    for (;;) {
        unsigned long long spent = global_timer() - t0;
        if (spent >= goal)
            break;
        unsigned long long left = goal - spent;
        __nanosleep(left < OCC_PROBE_SLEEP_NS ? (unsigned int)left : OCC_PROBE_SLEEP_NS);
    }
#pragma unroll
    for (int i = 0; i < P; i++)
        asm volatile("add.u32 %0, %0, 1;" : "+r"(v[i]));
    // Always a barrier here: sleeping warps wake up to 0.7 us apart, and the
    // block's end is its last warp's (a barrier does not limit residency on
    // NVIDIA GPUs, so the _sp and plain kernels reside alike).
    __syncthreads();
    occ_probe_end<P>(rec, smid_start, t0, v);
}

// The _sp variants: the same three parameters; block b's extra spin (ns) is
// what the host wrote into its record's t_end before the launch.
#define PROBE_SPREAD(NAME, P, BAR, MAXNREG)                                                        \
    extern "C" __global__ void MAXNREG NAME(occ_probe_rec *rec, unsigned long long spin_ns,        \
                                            unsigned int seed)                                     \
    {                                                                                              \
        probe_spread<P, BAR>(rec, spin_ns, seed);                                                  \
    }

#define PROBE_VARIANT(N)                                                                           \
    extern "C" __global__ void __maxnreg__(N)                                                      \
        occ_probe_r##N(occ_probe_rec *rec, unsigned long long spin_ns, unsigned int seed)          \
    {                                                                                              \
        probe<N, false>(rec, spin_ns, seed);                                             \
    }                                                                                              \
    extern "C" __global__ void __maxnreg__(N)                                                      \
        occ_probe_r##N##_bar(occ_probe_rec *rec, unsigned long long spin_ns, unsigned int seed)    \
    {                                                                                              \
        probe<N, true>(rec, spin_ns, seed);                                              \
    }                                                                                              \
    PROBE_SPREAD(occ_probe_r##N##_sp, N, false, __maxnreg__(N))                                    \
    PROBE_SPREAD(occ_probe_r##N##_bar_sp, N, true, __maxnreg__(N))

#ifndef OCC_PROBE_CLUSTERS
// Keep this list in step with probe_variants[] in libocc/src/validate/backends/cuda/backend_cuda.c.
PROBE_VARIANT(24)
PROBE_VARIANT(32)
PROBE_VARIANT(33)
PROBE_VARIANT(40)
PROBE_VARIANT(48)
PROBE_VARIANT(56)
PROBE_VARIANT(64)
PROBE_VARIANT(72)
PROBE_VARIANT(80)
PROBE_VARIANT(96)
PROBE_VARIANT(98)
PROBE_VARIANT(112)
PROBE_VARIANT(128)
PROBE_VARIANT(144)
PROBE_VARIANT(168)
PROBE_VARIANT(200)
PROBE_VARIANT(232)
PROBE_VARIANT(255)

extern "C" __global__ void occ_probe_rmin(occ_probe_rec *rec, unsigned long long spin_ns,
                                          unsigned int seed)
{
    probe<1, false>(rec, spin_ns, seed);
}
extern "C" __global__ void occ_probe_rmin_bar(occ_probe_rec *rec, unsigned long long spin_ns,
                                              unsigned int seed)
{
    probe<1, true>(rec, spin_ns, seed);
}

PROBE_SPREAD(occ_probe_rmin_sp, 1, false, )
PROBE_SPREAD(occ_probe_rmin_bar_sp, 1, true, )

// The update step of %globaltimer (32 ns on the lent H100, 1 us on some older
// systems): one thread reads it for span_ns and keeps the smallest change.
// out[0] smallest step, out[1] number of changes, out[2] span seen, out[3] %nsmid.
extern "C" __global__ void occ_timer_tick(unsigned long long *out, unsigned long long span_ns)
{
    unsigned long long t0 = global_timer(), last = t0, t, min_step = ~0ull, changes = 0;
    do {
        t = global_timer();
        if (t != last) {
            if (t - last < min_step)
                min_step = t - last;
            changes++;
            last = t;
        }
    } while (t - t0 < span_ns);
    unsigned int nsmid;
    asm volatile("mov.u32 %0, %%nsmid;" : "=r"(nsmid));
    out[0] = min_step;
    out[1] = changes;
    out[2] = last - t0;
    out[3] = nsmid;
}
#endif // !OCC_PROBE_CLUSTERS

// The cluster probe (`occcalc validate --cluster`, docs/clusters.md): built
// alone into probe_cuda_clusters.ptx (-DOCC_PROBE_CLUSTERS, compute_90: the
// cluster registers need PTX for sm_90).  Launched with cuLaunchKernelEx in
// clusters of X x Y x Z blocks over a grid of (X * clusters, Y, Z), so every
// cluster lies along x.  It spins as the plain probe does and records, besides
// the SM and the times, the block's linear id, its cluster's linear id
// (%clusterid over %nclusterid), its rank in the cluster (%cluster_ctarank)
// and the cluster's size (%cluster_nctarank), which the host checks against
// the launch's shape.
#if defined(OCC_PROBE_CLUSTERS)
struct occ_probe_cluster_rec {
    unsigned int smid_start;
    unsigned int smid_end;
    unsigned long long t_start; // %globaltimer, ns
    unsigned long long t_end;
    unsigned int block;         // linear block id: x + X * (y + Y * z)
    unsigned int cluster;       // linear cluster id
    unsigned int rank;          // %cluster_ctarank
    unsigned int ranks;         // %cluster_nctarank
};

static __device__ __forceinline__ unsigned int special(int which)
{
    unsigned int v = 0;
    switch (which) {
    case 0: asm volatile("mov.u32 %0, %%clusterid.x;" : "=r"(v)); break;
    case 1: asm volatile("mov.u32 %0, %%clusterid.y;" : "=r"(v)); break;
    case 2: asm volatile("mov.u32 %0, %%clusterid.z;" : "=r"(v)); break;
    case 3: asm volatile("mov.u32 %0, %%nclusterid.x;" : "=r"(v)); break;
    case 4: asm volatile("mov.u32 %0, %%nclusterid.y;" : "=r"(v)); break;
    case 5: asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(v)); break;
    default: asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(v)); break;
    }
    return v;
}

extern "C" __global__ void occ_probe_cluster(occ_probe_cluster_rec *rec, unsigned long long spin_ns,
                                             unsigned int seed)
{
    unsigned int smid_start = sm_id();
    unsigned long long t0 = global_timer();
    unsigned long long t;
    do {
        t = global_timer();
    } while (t - t0 < spin_ns);
    unsigned int smid_end = sm_id();
    unsigned long long t1 = global_timer_after(seed | 1u);
    if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) {
        unsigned int block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
        occ_probe_cluster_rec *r = rec + block;
        r->smid_start = smid_start;
        r->smid_end = smid_end;
        r->t_start = t0;
        r->t_end = t1;
        r->block = block;
        r->cluster = special(0) + special(3) * (special(1) + special(4) * special(2));
        r->rank = special(5);
        r->ranks = special(6);
    }
}
#endif
