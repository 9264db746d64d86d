// Experiment of round five (issue 16, 2026-11-25, helper dispatch5a): when
// does a register-limited block really end?
//
// The campaign's plain probe (kernels/probe_cuda.cu, probe()) has no barrier
// and records warp 0's end; its register-limited launches (128 x 128 and
// 256 x 64 registers) are refilled only once the SM is empty, while the
// sleeping _sp probe (a barrier before the end time) is refilled slot by
// slot with unequal durations.  The records cannot tell whether the plain
// probe's other warps, or its epilogue (the spilled values reloaded after the
// end time), end later than warp 0's recorded end.  Here every warp records
// its own start, its end time (where the probe takes it) and a time after
// the epilogue, for the same shapes:
//   busy    probe() as in the campaign (no barrier), spin + extra busy
//   sleep   probe_spread() as in the campaign (sleep 200 ns, barrier)
// with equal (extra 0) and unequal (extra uniform in [0, spread]) durations.
//   plain   the campaign's probe() itself (no extra), equal durations
// Standalone: nvcc -O3 -arch=sm_90 -o regend regend.cu; run by regend.sh.
// Output per launch: a text file, one line a warp:
//   block smid warp_in_block t0 t1 t2   (ns from the launch's earliest t0)
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>

struct wrec {
    unsigned smid, block;
    unsigned long long t0, t1, t2;
};

static __device__ __forceinline__ unsigned long long gt(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)::"memory");
    return t;
}
static __device__ __forceinline__ unsigned smid(void)
{
    unsigned s;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
    return s;
}

// SLEEP = false: the plain probe's busy spin, no barrier (extra read after
// the start, so unequal durations do not delay the start);
// SLEEP = true: the _sp probe's sleeping spin and barrier.
template <int P, bool SLEEP>
__device__ __forceinline__ void body(wrec *rec, const unsigned long long *extra,
                                     unsigned long long spin_ns, unsigned seed)
{
    unsigned s0 = smid();
    unsigned long long t0 = gt();
    unsigned long long goal = spin_ns + extra[blockIdx.x];
    unsigned v[P];
#pragma unroll
    for (int i = 0; i < P; i++)
        v[i] = seed + (unsigned)i * (threadIdx.x + 1u);
#pragma unroll
    for (int i = 0; i < P; i++)
        asm volatile("add.u32 %0, %0, 1;" : "+r"(v[i]));
    if (SLEEP) {
        for (;;) {
            unsigned long long spent = gt() - t0;
            if (spent >= goal)
                break;
            unsigned long long left = goal - spent;
            __nanosleep(left < 200 ? (unsigned)left : 200u);
        }
    } else {
        unsigned long long t;
        do {
            t = gt();
        } while (t - t0 < goal);
    }
#pragma unroll
    for (int i = 0; i < P; i++)
        asm volatile("add.u32 %0, %0, 1;" : "+r"(v[i]));
    if (SLEEP)
        __syncthreads();
    unsigned long long t1 = gt();
    unsigned acc = 0;
#pragma unroll
    for (int i = 0; i < P; i++)
        acc ^= v[i];
    asm volatile("" ::"r"(acc));
    unsigned long long t2 = gt();
    if ((threadIdx.x & 31) == 0) {
        wrec *r = rec + (size_t)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
        r->smid = s0;
        r->block = blockIdx.x ^ (acc & 0x80000000u);
        r->t0 = t0;
        r->t1 = t1;
        r->t2 = t2;
    }
}

extern "C" __global__ void __maxnreg__(128) busy128(wrec *r, const unsigned long long *x, unsigned long long s, unsigned seed)
{
    body<128, false>(r, x, s, seed);
}
extern "C" __global__ void __maxnreg__(128) sleep128(wrec *r, const unsigned long long *x, unsigned long long s, unsigned seed)
{
    body<128, true>(r, x, s, seed);
}
extern "C" __global__ void __maxnreg__(64) busy64(wrec *r, const unsigned long long *x, unsigned long long s, unsigned seed)
{
    body<64, false>(r, x, s, seed);
}
extern "C" __global__ void __maxnreg__(64) sleep64(wrec *r, const unsigned long long *x, unsigned long long s, unsigned seed)
{
    body<64, true>(r, x, s, seed);
}

// The campaign's plain probe exactly (probe<P, false>: no extra, timer
// without a memory clobber), with the per-warp record.
static __device__ __forceinline__ unsigned long long gt_plain(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}
template <int P>
__device__ __forceinline__ void plain(wrec *rec, unsigned long long spin_ns, unsigned seed)
{
    unsigned s0 = smid();
    unsigned long long t0 = gt_plain();
    unsigned v[P];
#pragma unroll
    for (int i = 0; i < P; i++)
        v[i] = seed + (unsigned)i * (threadIdx.x + 1u);
#pragma unroll
    for (int i = 0; i < P; i++)
        asm volatile("add.u32 %0, %0, 1;" : "+r"(v[i]));
    unsigned long long t;
    do {
        t = gt_plain();
    } while (t - t0 < spin_ns);
#pragma unroll
    for (int i = 0; i < P; i++)
        asm volatile("add.u32 %0, %0, 1;" : "+r"(v[i]));
    unsigned long long t1 = gt_plain();
    unsigned acc = 0;
#pragma unroll
    for (int i = 0; i < P; i++)
        acc ^= v[i];
    asm volatile("" ::"r"(acc));
    unsigned long long t2 = gt_plain();
    if ((threadIdx.x & 31) == 0) {
        wrec *r = rec + (size_t)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
        r->smid = s0;
        r->block = blockIdx.x ^ (acc & 0x80000000u);
        r->t0 = t0;
        r->t1 = t1;
        r->t2 = t2;
    }
}
extern "C" __global__ void __maxnreg__(128) plain128(wrec *r, const unsigned long long *, unsigned long long s, unsigned seed)
{
    plain<128>(r, s, seed);
}
extern "C" __global__ void __maxnreg__(64) plain64(wrec *r, const unsigned long long *, unsigned long long s, unsigned seed)
{
    plain<64>(r, s, seed);
}

typedef void (*kfn)(wrec *, const unsigned long long *, unsigned long long, unsigned);

struct cfg {
    const char *name;
    kfn k;
    unsigned wg, groups;
    double us, spread_us;
};

static uint64_t host_extra(unsigned seed, unsigned b, unsigned long long spread)
{
    uint64_t z = ((uint64_t)seed << 32 | b) + 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return (uint64_t)(((unsigned __int128)z * (spread + 1)) >> 64);
}

#define CK(x)                                                                                      \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));                               \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : ".";
    // the campaign's shapes: d037 (128 x 128, 10 us), d038 (256 x 64, 10 us),
    // d068 (128 x 128, 10 + 5 us), d112-like (256 x 64, 10 + 5 us), d118 (sleep, equal)
    const cfg cfgs[] = {
        {"plain128-eq", plain128, 128, 1584, 10, 0}, {"plain64-eq", plain64, 256, 1848, 10, 0},
        {"busy128-eq", busy128, 128, 1584, 10, 0},   {"busy64-eq", busy64, 256, 1848, 10, 0},
        {"busy128-sp5", busy128, 128, 2112, 10, 5},  {"busy64-sp5", busy64, 256, 1848, 10, 5},
        {"sleep128-eq", sleep128, 128, 2640, 10, 0}, {"sleep128-sp5", sleep128, 128, 2112, 10, 5},
        {"sleep64-eq", sleep64, 256, 1848, 10, 0},   {"sleep64-sp5", sleep64, 256, 1848, 10, 5},
        {"plain128-eq-rep2", plain128, 128, 1584, 10, 0}, {"plain64-eq-rep2", plain64, 256, 1848, 10, 0},
        {"plain128-100us", plain128, 128, 3696, 100, 0}, {"plain64-100us", plain64, 256, 2904, 100, 0},
    };
    size_t ncfg = sizeof cfgs / sizeof cfgs[0];
    size_t maxw = 0, maxg = 0;
    for (size_t c = 0; c < ncfg; c++) {
        maxw = std::max(maxw, (size_t)cfgs[c].groups * (cfgs[c].wg / 32));
        maxg = std::max(maxg, (size_t)cfgs[c].groups);
    }
    for (size_t c = 0; c < 6; c++) {
        cudaFuncAttributes a;
        CK(cudaFuncGetAttributes(&a, (const void *)cfgs[c].k));
        printf("%s: %d registers, %zu local bytes\n", cfgs[c].name, a.numRegs, a.localSizeBytes);
    }
    wrec *d_rec;
    unsigned long long *d_extra;
    CK(cudaMalloc(&d_rec, maxw * sizeof(wrec)));
    CK(cudaMalloc(&d_extra, maxg * sizeof(unsigned long long)));
    std::vector<wrec> h(maxw);
    std::vector<unsigned long long> hx(maxg);
    CK(cudaMemset(d_extra, 0, maxg * sizeof(unsigned long long)));
    busy128<<<132, 128>>>(d_rec, d_extra, 1000000ull, 1); // warm-up
    CK(cudaDeviceSynchronize());
    for (size_t c = 0; c < ncfg; c++) {
        const cfg &C = cfgs[c];
        unsigned seed = 69 + (unsigned)c;
        unsigned long long spread = (unsigned long long)(C.spread_us * 1000 + 0.5);
        for (unsigned b = 0; b < C.groups; b++)
            hx[b] = spread ? host_extra(seed, b, spread) : 0;
        CK(cudaMemcpy(d_extra, hx.data(), C.groups * sizeof hx[0], cudaMemcpyHostToDevice));
        size_t wpb = C.wg / 32, nw = (size_t)C.groups * wpb;
        CK(cudaMemset(d_rec, 0xff, nw * sizeof(wrec)));
        CK(cudaDeviceSynchronize());
        C.k<<<C.groups, C.wg>>>(d_rec, d_extra, (unsigned long long)(C.us * 1000 + 0.5), seed);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(h.data(), d_rec, nw * sizeof(wrec), cudaMemcpyDeviceToHost));
        unsigned long long tmin = ~0ull;
        for (size_t i = 0; i < nw; i++)
            tmin = std::min(tmin, h[i].t0);
        char name[256];
        snprintf(name, sizeof name, "%s/%s-wg%u-g%u.txt", dir, C.name, C.wg, C.groups);
        FILE *f = fopen(name, "w");
        if (!f)
            return 1;
        double late_max = 0, late_sum = 0;
        for (size_t i = 0; i < nw; i++) {
            const wrec &r = h[i];
            fprintf(f, "%zu %u %zu %llu %llu %llu\n", i / wpb, r.smid, i % wpb, r.t0 - tmin, r.t1 - tmin,
                    r.t2 - tmin);
            if (i % wpb == 0) {
                // the block's last warp (after its epilogue) against warp 0's end
                unsigned long long hi = 0;
                for (size_t k = 0; k < wpb; k++)
                    hi = std::max(hi, h[i + k].t2);
                double late = (double)hi - (double)r.t1;
                late_max = std::max(late_max, late);
                late_sum += late;
            }
        }
        fclose(f);
        printf("%-16s wg %4u groups %5u: last warp's t2 minus warp 0's t1: mean %.0f max %.0f ns\n", C.name,
               C.wg, C.groups, late_sum / C.groups, late_max);
        fflush(stdout);
    }
    return 0;
}
