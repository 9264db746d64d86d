// Experiment prepared in round five (issue 16, 2026-11-25, helper dispatch5a) for
// the next round, run on the lent H100 at 12:11 UTC (data: tests/data/cuda/
// dispatch/2026-11-25/exp/regend2*; docs/phases.md, round six): is the campaign probe's __threadfence() what
// makes its register-limited SMs wait until empty (docs/phases.md, round five)?
// regend.cu (run at 11:59 UTC) found the H100 refilling these SMs slot by
// slot, 0.22 to 0.29 us after a block's last warp, with the probe's spins but
// without its record; this one adds the probe's record exactly (thread 0:
// six stores, __threadfence(), the last store), with and without the fence,
// and a time after it:
//   fence     the campaign's probe() / probe_spread() record, as in kernels/probe_cuda.cu
//   nofence   the same without the __threadfence()
// Every warp also records its own start, end time and a time after its
// epilogue (lane 0, into a separate buffer), and warp 0 a time after the
// record (t3).  Standalone: nvcc -O3 -arch=sm_90 -o regend2 regend2.cu; run
// by regend2.sh.  Output per launch: a text file, one line a warp:
//   block smid warp_in_block t0 t1 t2 t3   (ns from the launch's earliest t0; t3 0 but for warp 0)
// If the fence is the cause, the fence launches reproduce the campaign
// (tests/hw/dispatch_refill.py slots: SMs empty at one refill in four,
// first refill 1.47 us after the SM's first end for 128 x 128) and the
// nofence ones regend.cu's (slot by slot).
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>
#include <algorithm>
#include <cstring>
#include <cuda_runtime.h>

struct wrec {
    unsigned smid, block;
    unsigned long long t0, t1, t2, t3;
};

// the campaign's record (kernels/probe_cuda.cu)
struct occ_probe_rec {
    unsigned int smid_start;
    unsigned int smid_end;
    unsigned long long t_start;
    unsigned long long t_end;
    unsigned int block;
    unsigned int check;
};

static __device__ __forceinline__ unsigned long long gt(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}
static __device__ __forceinline__ unsigned long long gt_fenced(void)
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

// SLEEP = false: probe<P, false> (busy spin, no barrier, no extra);
// SLEEP = true: probe_spread<P, false> (extra after the start, sleep 200 ns, barrier).
template <int P, bool SLEEP, bool FENCE>
__device__ __forceinline__ void body(occ_probe_rec *rec, wrec *wr, unsigned long long spin_ns,
                                     unsigned seed)
{
    unsigned s0 = smid();
    unsigned long long t0 = SLEEP ? gt_fenced() : gt();
    unsigned long long goal = SLEEP ? spin_ns + rec[blockIdx.x].t_end : spin_ns;
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
    unsigned long long t2 = gt_fenced();
    unsigned long long t3 = 0;
    if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) {
        occ_probe_rec *r = rec + blockIdx.x;
        r->smid_start = s0;
        r->smid_end = smid();
        r->t_start = t0;
        r->t_end = t1;
        r->check = acc;
        if (FENCE)
            __threadfence();
        r->block = blockIdx.x;
        t3 = gt_fenced();
    }
    if ((threadIdx.x & 31) == 0) {
        wrec *w = wr + (size_t)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
        w->smid = s0;
        w->block = blockIdx.x;
        w->t0 = t0;
        w->t1 = t1;
        w->t2 = t2;
        w->t3 = t3;
    }
}

#define KERN(NAME, N, SLEEP, FENCE)                                                                \
    extern "C" __global__ void __maxnreg__(N)                                                      \
        NAME(occ_probe_rec *r, wrec *w, unsigned long long s, unsigned seed)                       \
    {                                                                                              \
        body<N, SLEEP, FENCE>(r, w, s, seed);                                                      \
    }
KERN(fence_plain128, 128, false, true)
KERN(fence_plain64, 64, false, true)
KERN(fence_sleep128, 128, true, true)
KERN(nofence_plain128, 128, false, false)
KERN(nofence_plain64, 64, false, false)
KERN(nofence_sleep128, 128, true, false)

typedef void (*kfn)(occ_probe_rec *, wrec *, unsigned long long, unsigned);
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
    // the shapes of d037, d038, d118 and d068, each with and without the fence
    const cfg cfgs[] = {
        {"fence-plain128-eq", fence_plain128, 128, 1584, 10, 0},
        {"nofence-plain128-eq", nofence_plain128, 128, 1584, 10, 0},
        {"fence-plain64-eq", fence_plain64, 256, 1848, 10, 0},
        {"nofence-plain64-eq", nofence_plain64, 256, 1848, 10, 0},
        {"fence-sleep128-eq", fence_sleep128, 128, 2640, 10, 0},
        {"nofence-sleep128-eq", nofence_sleep128, 128, 2640, 10, 0},
        {"fence-sleep128-sp5", fence_sleep128, 128, 2112, 10, 5},
        {"nofence-sleep128-sp5", nofence_sleep128, 128, 2112, 10, 5},
    };
    size_t ncfg = sizeof cfgs / sizeof cfgs[0];
    size_t maxw = 0, maxg = 0;
    for (size_t c = 0; c < ncfg; c++) {
        maxw = std::max(maxw, (size_t)cfgs[c].groups * (cfgs[c].wg / 32));
        maxg = std::max(maxg, (size_t)cfgs[c].groups);
    }
    for (size_t c = 0; c < ncfg; c += 2) {
        cudaFuncAttributes a;
        CK(cudaFuncGetAttributes(&a, (const void *)cfgs[c].k));
        printf("%s: %d registers, %zu local bytes\n", cfgs[c].name, a.numRegs, a.localSizeBytes);
    }
    occ_probe_rec *d_rec;
    wrec *d_w;
    CK(cudaMalloc(&d_rec, maxg * sizeof(occ_probe_rec)));
    CK(cudaMalloc(&d_w, maxw * sizeof(wrec)));
    std::vector<wrec> h(maxw);
    std::vector<occ_probe_rec> hr(maxg);
    CK(cudaMemset(d_rec, 0, maxg * sizeof(occ_probe_rec)));
    fence_plain128<<<132, 128>>>(d_rec, d_w, 1000000ull, 1); // warm-up
    CK(cudaDeviceSynchronize());
    for (size_t c = 0; c < ncfg; c++) {
        const cfg &C = cfgs[c];
        unsigned seed = 69 + (unsigned)(c / 2); // the same spreads with and without the fence
        unsigned long long spread = (unsigned long long)(C.spread_us * 1000 + 0.5);
        // the campaign's buffer: poisoned, the extra spin in t_end
        for (unsigned b = 0; b < C.groups; b++) {
            memset(&hr[b], 0xff, sizeof hr[b]);
            hr[b].t_end = spread ? host_extra(seed, b, spread) : 0;
        }
        CK(cudaMemcpy(d_rec, hr.data(), C.groups * sizeof hr[0], cudaMemcpyHostToDevice));
        size_t wpb = C.wg / 32, nw = (size_t)C.groups * wpb;
        CK(cudaMemset(d_w, 0xff, nw * sizeof(wrec)));
        CK(cudaDeviceSynchronize());
        C.k<<<C.groups, C.wg>>>(d_rec, d_w, (unsigned long long)(C.us * 1000 + 0.5), seed);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(h.data(), d_w, nw * sizeof(wrec), cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(hr.data(), d_rec, C.groups * sizeof hr[0], cudaMemcpyDeviceToHost));
        unsigned long long tmin = ~0ull;
        for (size_t i = 0; i < nw; i++)
            tmin = std::min(tmin, h[i].t0);
        char name[256];
        snprintf(name, sizeof name, "%s/%s-wg%u-g%u.txt", dir, C.name, C.wg, C.groups);
        FILE *f = fopen(name, "w");
        if (!f)
            return 1;
        double rec_sum = 0, rec_max = 0;
        unsigned bad = 0;
        for (size_t i = 0; i < nw; i++) {
            const wrec &r = h[i];
            fprintf(f, "%zu %u %zu %llu %llu %llu %llu\n", i / wpb, r.smid, i % wpb, r.t0 - tmin,
                    r.t1 - tmin, r.t2 - tmin, r.t3 ? r.t3 - tmin : 0ull);
            if (i % wpb == 0) {
                // the record's stores and fence: t3 against the epilogue's end
                double d = (double)r.t3 - (double)r.t2;
                rec_sum += d;
                rec_max = std::max(rec_max, d);
                bad += hr[i / wpb].block != i / wpb || hr[i / wpb].t_end != r.t1;
            }
        }
        fclose(f);
        printf("%-22s wg %4u groups %5u: warp 0's record (t3 - t2): mean %.0f max %.0f ns; %u bad records\n",
               C.name, C.wg, C.groups, rec_sum / C.groups, rec_max, bad);
        fflush(stdout);
    }
    return 0;
}
