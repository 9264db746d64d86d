// Experiment 2 (issue 16, 2026-11-25), after stall2.cu found the cause (busy-
// spinning warps starve the younger warps of their SM of issue slots):
//  1. the sleep between timer reads of the fixed _sp probe: how long, and
//     how far past its goal does a block end;
//  2. do the PLAIN (busy-spinning) kernels' refills look different from a
//     sleeping spin's, with equal durations: is part of the measured refill
//     gap (0.7 us on 2026-11-24) the probe's own starvation?
// Standalone: nvcc -O3 -arch=sm_90 -o stall3 stall3.cu; run by stall3.sh.
// Per-warp records as in stall2.cu (u16 smid, u16 warpid, u32 t_first,
// t_setup, t_end in ns from the launch's earliest start, u32 extra).
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>

struct wrec {
    unsigned smid, warpid;
    unsigned long long t_first, t_setup, t_end;
    unsigned block, check;
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
static __device__ __forceinline__ unsigned warpid(void)
{
    unsigned s;
    asm volatile("mov.u32 %0, %%warpid;" : "=r"(s));
    return s;
}

// Q = 0: busy spin (the plain probe); Q > 0: sleep min(left, Q) ns between
// timer reads (the fixed _sp probe).  The extra spin is read after the start.
template <unsigned Q>
__global__ void kern(wrec *rec, const unsigned long long *extra, unsigned long long spin_ns)
{
    unsigned s0 = smid();
    unsigned long long t0 = gt();
    unsigned long long goal = spin_ns + extra[blockIdx.x];
    unsigned long long t_setup = 0, t;
    if constexpr (Q == 0) {
        do {
            t = gt();
            if (!t_setup)
                t_setup = t;
        } while (t - t0 < goal);
    } else {
        for (;;) {
            unsigned long long spent = gt() - t0;
            if (!t_setup)
                t_setup = t0 + spent;
            if (spent >= goal)
                break;
            unsigned long long left = goal - spent;
            __nanosleep(left < Q ? (unsigned)left : Q);
        }
    }
    unsigned long long t_end = gt();
    if ((threadIdx.x & 31) == 0) {
        wrec *r = rec + (size_t)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
        r->smid = s0;
        r->warpid = warpid();
        r->t_first = t0;
        r->t_setup = t_setup; // first timer read of the loop: the extra has arrived
        r->t_end = t_end;
        r->block = blockIdx.x;
        r->check = (unsigned)(goal - spin_ns);
    }
}

typedef void (*kfn)(wrec *, const unsigned long long *, unsigned long long);
static const kfn kerns[] = {kern<0>, kern<32>, kern<100>, kern<200>};
static const char *qnames[] = {"busy", "sleep32", "sleep100", "sleep200"};

struct cfg {
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
    // equal durations, 4 waves or so (32: 32/SM, 64: 32/SM, 256: 8/SM, 1024: 2/SM),
    // then unequal ones
    const cfg cfgs[] = {
        {32, 16896, 5, 0},   {32, 16896, 10, 0},   {32, 16896, 20, 0},  {64, 16896, 5, 0},
        {64, 16896, 10, 0},  {256, 4224, 5, 0},    {256, 4224, 10, 0},  {256, 4224, 20, 0},
        {1024, 1056, 5, 0},  {1024, 1056, 20, 0},  {128, 8448, 10, 0},  {512, 2112, 10, 0},
        {64, 8448, 10, 10},  {256, 3168, 20, 20},  {128, 8448, 20, 20}, {32, 16896, 5, 5},
        {256, 1056, 100, 0}, {128, 2112, 100, 0},
    };
    size_t ncfg = sizeof cfgs / sizeof cfgs[0];
    size_t maxw = 0, maxg = 0;
    for (size_t c = 0; c < ncfg; c++) {
        maxw = std::max(maxw, (size_t)cfgs[c].groups * (cfgs[c].wg / 32));
        maxg = std::max(maxg, (size_t)cfgs[c].groups);
    }
    wrec *d_rec;
    unsigned long long *d_extra;
    CK(cudaMalloc(&d_rec, maxw * sizeof(wrec)));
    CK(cudaMalloc(&d_extra, maxg * sizeof(unsigned long long)));
    std::vector<wrec> h(maxw);
    std::vector<unsigned long long> hx(maxg);
    kern<0><<<132, 32>>>(d_rec, d_extra, 1000000ull); // warm-up
    CK(cudaDeviceSynchronize());
    printf("%-8s %-24s %6s %8s %8s %8s %8s %8s %8s\n", "spin", "config", "blocks", "setup_max", "over50",
           "over99", "overmax", "wend_max", "wall_us");
    for (size_t c = 0; c < ncfg; c++) {
        const cfg &C = cfgs[c];
        unsigned seed = 11 + (unsigned)c;
        unsigned long long spread = (unsigned long long)(C.spread_us * 1000 + 0.5);
        for (unsigned b = 0; b < C.groups; b++)
            hx[b] = spread ? host_extra(seed, b, spread) : 0;
        CK(cudaMemcpy(d_extra, hx.data(), C.groups * sizeof hx[0], cudaMemcpyHostToDevice));
        unsigned long long spin = (unsigned long long)(C.us * 1000 + 0.5);
        size_t nw = (size_t)C.groups * (C.wg / 32), wpb = C.wg / 32;
        for (int q = 0; q < 4; q++) {
            CK(cudaMemset(d_rec, 0xff, nw * sizeof(wrec)));
            CK(cudaDeviceSynchronize());
            cudaEvent_t e0, e1;
            CK(cudaEventCreate(&e0));
            CK(cudaEventCreate(&e1));
            CK(cudaEventRecord(e0));
            kerns[q]<<<C.groups, C.wg>>>(d_rec, d_extra, spin);
            CK(cudaEventRecord(e1));
            CK(cudaGetLastError());
            CK(cudaDeviceSynchronize());
            float ms = 0;
            CK(cudaEventElapsedTime(&ms, e0, e1));
            CK(cudaMemcpy(h.data(), d_rec, nw * sizeof(wrec), cudaMemcpyDeviceToHost));
            unsigned long long tmin = ~0ull;
            for (size_t i = 0; i < nw; i++)
                tmin = std::min(tmin, h[i].t_first);
            char name[256];
            snprintf(name, sizeof name, "%s/%s-wg%u-g%u-%gus-sp%g.bin", dir, qnames[q], C.wg, C.groups,
                     C.us, C.spread_us);
            FILE *f = fopen(name, "wb");
            std::vector<double> over;
            double setup_max = 0, wend_max = 0;
            for (size_t i = 0; i < nw; i++) {
                const wrec &r = h[i];
                uint16_t a[2] = {(uint16_t)r.smid, (uint16_t)r.warpid};
                uint32_t b[4] = {(uint32_t)(r.t_first - tmin), (uint32_t)(r.t_setup - tmin),
                                 (uint32_t)(r.t_end - tmin), r.check};
                if (f) {
                    fwrite(a, sizeof a, 1, f);
                    fwrite(b, sizeof b, 1, f);
                }
                over.push_back((double)(r.t_end - r.t_first) - (double)(spin + r.check));
                setup_max = std::max(setup_max, (double)(r.t_setup - r.t_first));
                if (i % wpb == 0) {
                    unsigned long long lo = r.t_end, hi = r.t_end;
                    for (size_t k = 1; k < wpb; k++) {
                        lo = std::min(lo, h[i + k].t_end);
                        hi = std::max(hi, h[i + k].t_end);
                    }
                    wend_max = std::max(wend_max, (double)(hi - lo));
                }
            }
            if (f)
                fclose(f);
            std::sort(over.begin(), over.end());
            char cn[64];
            snprintf(cn, sizeof cn, "wg%u-g%u-%gus-sp%g", C.wg, C.groups, C.us, C.spread_us);
            printf("%-8s %-24s %6u %8.2f %8.2f %8.2f %8.2f %8.2f %8.1f\n", qnames[q], cn, C.groups,
                   setup_max / 1e3, over[over.size() / 2] / 1e3, over[over.size() * 99 / 100] / 1e3,
                   over.back() / 1e3, wend_max / 1e3, ms * 1e3);
            fflush(stdout);
        }
    }
    return 0;
}
