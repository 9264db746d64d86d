// Experiment 1 (issue 16, 2026-11-25): where do the late starts of the
// unequal-duration probe come from?  Standalone (no libocc): nvcc -O3 -o stall2
// stall2.cu, run by tests/hw/exp/stall2.sh on the lent H100.
//
// Every variant records, per WARP (lane 0): %smid, %warpid, %globaltimer as the
// very first instruction (t_first), %globaltimer after the variant's set-up
// work (t_setup), %globaltimer after the spin (t_end).  If t_first is on time
// and t_setup late, the block was resident and its set-up was slow; if t_first
// is late too, the block itself started late.
//
// Variants (V):
//   0 plain     no set-up; spin from t_first (the plain probe kernel)
//   1 ldg       load the extra spin from a buffer; spin from t_setup
//               (the _sp kernel of 2026-11-24, plus t_first)
//   2 ldg_first the same load; spin spin_ns + extra from t_first
//   3 alu       extra from a hash of (seed, block) scaled by a multiply-high
//               (a kernel parameter, no memory, no division); spin from t_setup
//   4 alu_first the same; spin from t_first
//   5 ldg_sleep as ldg, __nanosleep(100) in the spin loop
//   6 ldg_clock as ldg, spin on clock64 (spin_ns x cycles_per_ns) instead of
//               %globaltimer
//   7 ldg_late  the load issued after t_first, spin_ns from t_first without it,
//               then on to spin_ns + extra (its latency hides in the spin)
// Host: each launch twice, once after 20 ms idle ("cold"), once right behind a
// 2 ms spin kernel that also reads the extra buffer ("warm").  Raw records:
// OUTDIR/VARIANT-CONFIG-cold|warm.bin, per warp u16 smid, u16 warpid, u32
// t_first, t_setup, t_end (ns from the launch's earliest t_first), u32 extra.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cstdint>
#include <vector>
#include <algorithm>
#include <unistd.h>
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
// %globaltimer once v is known: the predicate needs v, and the timer read is
// predicated on it, so it cannot issue before v has arrived.
static __device__ __forceinline__ unsigned long long gt_after(unsigned long long v)
{
    unsigned long long t;
    asm volatile("{ .reg .pred p; setp.ne.u64 p, %1, 0xfffffffffffffffe; mov.u64 %0, 0;\n\t"
                 "@p mov.u64 %0, %%globaltimer; }"
                 : "=l"(t)
                 : "l"(v)
                 : "memory");
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
static __device__ __forceinline__ unsigned long long load_volatile(const unsigned long long *p)
{
    unsigned long long v;
    asm volatile("ld.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}
static __device__ __forceinline__ unsigned long long hash_extra(unsigned seed, unsigned b,
                                                                unsigned long long spread)
{
    unsigned long long z = ((unsigned long long)seed << 32 | b) + 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return __umul64hi(z, spread + 1);
}

template <int V>
__global__ void kern(wrec *rec, const unsigned long long *extra, unsigned long long spin_ns,
                     unsigned seed, unsigned long long spread, float cycles_per_ns)
{
    unsigned long long t_first = gt();
    unsigned s0 = smid();
    unsigned long long t_setup = t_first, x = 0, from = t_first;
    if (V == 1 || V == 2 || V == 5 || V == 6) {
        x = load_volatile(extra + blockIdx.x);
        t_setup = gt_after(x); // after the load's value is known
    } else if (V == 3 || V == 4) {
        x = hash_extra(seed, blockIdx.x, spread);
        t_setup = gt_after(x);
    }
    if (V == 1 || V == 3 || V == 5 || V == 6)
        from = t_setup;
    unsigned long long goal = spin_ns + x, t;
    if (V == 6) {
        long long c0 = clock64();
        long long cyc = (long long)((double)goal * cycles_per_ns);
        while (clock64() - c0 < cyc)
            ;
        t = gt();
    } else if (V == 7) {
        // the load is issued at the start but only needed after spin_ns: its
        // latency hides in the first loop
        unsigned long long e = load_volatile(extra + blockIdx.x);
        do {
            t = gt();
        } while (t - from < spin_ns);
        do {
            t = gt();
        } while (t - from < spin_ns + e);
        x = e;
    } else {
        do {
            if (V == 5)
                __nanosleep(100);
            t = gt();
        } while (t - from < goal);
    }
    unsigned long long t_end = gt();
    if ((threadIdx.x & 31) == 0) {
        wrec *r = rec + (size_t)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
        r->smid = s0;
        r->warpid = warpid();
        r->t_first = t_first;
        r->t_setup = t_setup;
        r->t_end = t_end;
        r->block = blockIdx.x;
        r->check = (unsigned)x;
    }
}

// 2 ms of spinning on one warp, which also reads the extra buffer (warms its
// TLB entry and L2 lines)
__global__ void warm(unsigned long long ns, const unsigned long long *extra, unsigned n,
                     unsigned long long *sink)
{
    unsigned long long t0 = gt(), s = 0;
    for (unsigned i = threadIdx.x; i < n; i += 32)
        s += extra[i];
    while (gt() - t0 < ns)
        ;
    if (s == 0x123456789ull)
        *sink = s;
}

typedef void (*kfn)(wrec *, const unsigned long long *, unsigned long long, unsigned, unsigned long long,
                    float);
static const kfn kerns[] = {kern<0>, kern<1>, kern<2>, kern<3>, kern<4>, kern<5>, kern<6>, kern<7>};
static const char *vnames[] = {"plain", "ldg", "ldg_first", "alu", "alu_first", "ldg_sleep", "ldg_clock",
                               "ldg_late"};

struct cfg {
    unsigned wg, groups;
    double us, spread_us;
    unsigned per_sm; // resident blocks per SM (first wave = 132 x this)
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
    float cyc_per_ns = argc > 2 ? (float)atof(argv[2]) : 1.98f;
    int sms = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const cfg cfgs[] = {
        {256, 1056, 100, 0, 8}, {128, 2112, 100, 0, 16}, {64, 4224, 20, 0, 32}, {512, 1584, 100, 0, 4},
        {32, 4224, 20, 0, 32},  {1024, 264, 100, 0, 2},  {256, 3168, 20, 20, 8}, {64, 8448, 10, 10, 32},
    };
    size_t ncfg = sizeof cfgs / sizeof cfgs[0];
    size_t maxw = 0;
    for (size_t c = 0; c < ncfg; c++)
        maxw = std::max(maxw, (size_t)cfgs[c].groups * (cfgs[c].wg / 32));
    wrec *d_rec;
    unsigned long long *d_extra;
    CK(cudaMalloc(&d_rec, maxw * sizeof(wrec)));
    CK(cudaMalloc(&d_extra, 16384 * sizeof(unsigned long long)));
    std::vector<wrec> h(maxw);
    std::vector<unsigned long long> hx(16384);
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    printf("%-10s %-22s %-4s %7s %8s %8s %8s %8s %6s %9s\n", "variant", "config", "rep", "blocks",
           "wave1_f", "wave1_s", "setupmax", "late/SM", "durdev", "kernel_us");
    for (size_t c = 0; c < ncfg; c++) {
        const cfg &C = cfgs[c];
        unsigned seed = 7 + (unsigned)c;
        unsigned long long spread = (unsigned long long)(C.spread_us * 1000 + 0.5);
        for (unsigned b = 0; b < C.groups; b++)
            hx[b] = spread ? host_extra(seed, b, spread) : 0;
        CK(cudaMemcpy(d_extra, hx.data(), C.groups * sizeof hx[0], cudaMemcpyHostToDevice));
        unsigned long long spin = (unsigned long long)(C.us * 1000 + 0.5);
        size_t nw = (size_t)C.groups * (C.wg / 32);
        for (int v = 0; v < 8; v++)
            for (int rep = 0; rep < 2; rep++) {
                CK(cudaMemset(d_rec, 0xff, nw * sizeof(wrec)));
                CK(cudaDeviceSynchronize());
                if (rep == 0)
                    usleep(20000);
                else
                    warm<<<1, 32>>>(2000000ull, d_extra, C.groups, d_extra + 16383);
                CK(cudaEventRecord(e0));
                kerns[v]<<<C.groups, C.wg>>>(d_rec, d_extra, spin, seed, spread, cyc_per_ns);
                CK(cudaEventRecord(e1));
                CK(cudaGetLastError());
                CK(cudaDeviceSynchronize());
                float ms = 0;
                CK(cudaEventElapsedTime(&ms, e0, e1));
                CK(cudaMemcpy(h.data(), d_rec, nw * sizeof(wrec), cudaMemcpyDeviceToHost));
                char name[256];
                snprintf(name, sizeof name, "%s/%s-wg%u-g%u-%gus-sp%g-%s.bin", dir, vnames[v], C.wg,
                         C.groups, C.us, C.spread_us, rep ? "warm" : "cold");
                // raw, compact: per warp u16 smid, u16 warpid, then u32 t_first,
                // t_setup, t_end (ns from the launch's earliest t_first), u32 extra
                unsigned long long tmin = ~0ull;
                for (size_t i = 0; i < nw; i++)
                    tmin = std::min(tmin, h[i].t_first);
                FILE *f = fopen(name, "wb");
                for (size_t i = 0; f && i < nw; i++) {
                    uint16_t a[2] = {(uint16_t)h[i].smid, (uint16_t)h[i].warpid};
                    uint32_t b[4] = {(uint32_t)(h[i].t_first - tmin), (uint32_t)(h[i].t_setup - tmin),
                                     (uint32_t)(h[i].t_end - tmin), h[i].check};
                    fwrite(a, sizeof a, 1, f);
                    fwrite(b, sizeof b, 1, f);
                }
                if (f)
                    fclose(f);
                // summary: the first wave (blockIdx < sms x per_sm), times from the earliest t_first
                unsigned long long t0 = ~0ull;
                for (size_t i = 0; i < nw; i++)
                    t0 = std::min(t0, h[i].t_first);
                size_t wave = (size_t)sms * C.per_sm * (C.wg / 32);
                double f_max = 0, s_max = 0, setup_max = 0, dur_dev = 0;
                std::vector<int> late(sms + 8, 0);
                for (size_t i = 0; i < nw; i++) {
                    const wrec &r = h[i];
                    double d = (double)(r.t_end - (v == 1 || v == 3 || v == 5 || v == 6 ? r.t_setup
                                                                                          : r.t_first));
                    double want = (double)spin + (double)r.check;
                    if (v != 6)
                        dur_dev = std::max(dur_dev, d - want);
                    setup_max = std::max(setup_max, (double)(r.t_setup - r.t_first));
                    if (i < wave) {
                        f_max = std::max(f_max, (double)(r.t_first - t0));
                        s_max = std::max(s_max, (double)(r.t_setup - t0));
                        if (r.t_setup - t0 > 2000 && r.smid < (unsigned)sms && (i % (C.wg / 32)) == 0)
                            late[r.smid]++;
                    }
                }
                int late_max = *std::max_element(late.begin(), late.end());
                char cn[64];
                snprintf(cn, sizeof cn, "wg%u-g%u-%gus-sp%g", C.wg, C.groups, C.us, C.spread_us);
                printf("%-10s %-22s %-4s %7u %8.2f %8.2f %8.2f %8d %6.2f %9.1f\n", vnames[v], cn,
                       rep ? "warm" : "cold", C.groups, f_max / 1e3, s_max / 1e3, setup_max / 1e3,
                       late_max, dur_dev / 1e3, ms * 1e3);
                fflush(stdout);
            }
    }
    return 0;
}
