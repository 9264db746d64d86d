/* The AMD corpus: kernels of graded register pressure, SGPR pressure, LDS
 * use, work-group size bounds, scratch and (where the target has MFMA) AGPRs.  make_corpus.py
 * compiles this file for every target and records LLVM's resource remarks. */

/* Built on clang's AMDGPU builtins only: with -nogpulib the OpenCL library
 * (get_global_id, barrier) is absent, and a call to it would make LLVM assume
 * the worst of an unknown callee. */
#define LOCAL_ID() ((size_t)__builtin_amdgcn_workitem_id_x())
#define GLOBAL_ID() ((size_t)__builtin_amdgcn_workgroup_id_x() * 256 + LOCAL_ID())

/* N values live at once: VGPR pressure grows with N.  The rounds read each
 * value's neighbour, so all N stay live until the final sum. */
#define PRESSURE(NAME, N, ATTRS)                                                   \
    ATTRS kernel void NAME(global float *out, global const float *in, float s)     \
    {                                                                              \
        size_t g = GLOBAL_ID();                                               \
        float v[N];                                                                \
        _Pragma("unroll") for (int i = 0; i < N; i++) v[i] = in[g + (size_t)i * 4096]; \
        _Pragma("unroll") for (int r = 0; r < 3; r++)                              \
            _Pragma("unroll") for (int i = 0; i < N; i++)                          \
                v[i] = __builtin_fmaf(v[i], v[(i + 1) % N], s);                               \
        float acc = 0.0f;                                                          \
        _Pragma("unroll") for (int i = 0; i < N; i++) acc += v[i] * (float)(i + 1); \
        out[g] = acc;                                                              \
    }

#define WG256 __attribute__((amdgpu_flat_work_group_size(1, 256)))
PRESSURE(regs_8, 8, WG256)
PRESSURE(regs_32, 32, WG256)
PRESSURE(regs_64, 64, WG256)
PRESSURE(regs_128, 128, WG256)
PRESSURE(regs_200, 200, WG256)
/* More values than 1024 work-items leave registers for: spills to scratch. */
PRESSURE(regs_spill_wg1024, 128, __attribute__((amdgpu_flat_work_group_size(1024, 1024))))
/* At most 24 VGPRs by request: spills on every target. */
PRESSURE(regs_spill_num24, 64, WG256 __attribute__((amdgpu_num_vgpr(24))))

/* Static LDS of BYTES bytes per work-group. */
#define LDS(NAME, BYTES)                                                           \
    WG256 kernel void NAME(global float *out, global const float *in)              \
    {                                                                              \
        local float t[(BYTES) / 4];                                                \
        size_t l = LOCAL_ID(), g = GLOBAL_ID();                          \
        for (size_t i = l; i < (BYTES) / 4; i += 64)                \
            t[i] = in[g + i];                                                      \
        __builtin_amdgcn_s_barrier();                                              \
        out[g] = t[(l * 7) % ((BYTES) / 4)];                                       \
    }
LDS(lds_1k, 1024)
LDS(lds_8k, 8192)
LDS(lds_24k, 24576)
LDS(lds_64k, 65536)

/* Work-group size bounds. */
#define COPY(NAME, ATTRS)                                                          \
    ATTRS kernel void NAME(global float *out, global const float *in)              \
    {                                                                              \
        size_t g = GLOBAL_ID();                                               \
        out[g] = in[g] * 2.0f;                                                     \
    }
COPY(wg_flat_64, __attribute__((amdgpu_flat_work_group_size(1, 64))))
COPY(wg_flat_1024, __attribute__((amdgpu_flat_work_group_size(1, 1024))))
COPY(wg_flat_128_512, __attribute__((amdgpu_flat_work_group_size(128, 512))))
COPY(wg_reqd_16x8, __attribute__((reqd_work_group_size(16, 8, 1))))
COPY(wg_default, )

/* N uniform values live across a loop: SGPR pressure grows with N (GFX9's
 * SIMD holds fewer waves above 80 and 88 SGPRs; RDNA's are not limited). */
#define SCALARS(NAME, N)                                                                           \
    WG256 kernel void NAME(global float *out, global const float *in, constant float *c, int iters) \
    {                                                                                              \
        size_t g = GLOBAL_ID();                                                                    \
        float s[N];                                                                                \
        _Pragma("unroll") for (int i = 0; i < N; i++) s[i] = c[i];                                 \
        float acc = in[g];                                                                         \
        for (int r = 0; r < iters; r++)                                                            \
            _Pragma("unroll") for (int i = 0; i < N; i++) acc = __builtin_fmaf(acc, s[i], s[(i + 1) % N]); \
        out[g] = acc;                                                                              \
    }
SCALARS(sgprs_64, 64)
SCALARS(sgprs_72, 72)
SCALARS(sgprs_80, 80)
SCALARS(sgprs_88, 88)

/* A private array indexed at run time: scratch memory. */
WG256 kernel void scratch_dynamic_index(global float *out, global const float *in,
                                        global const int *idx)
{
    size_t g = GLOBAL_ID();
    float p[48];
    for (int i = 0; i < 48; i++)
        p[i] = in[g + (size_t)i * 1024];
    out[g] = p[idx[g] % 48] + p[idx[g + 1] % 48];
}

#if HAS_MFMA
/* Matrix cores: a 32x32 MFMA accumulates in 32 AGPRs per work-item. */
typedef float f32x32 __attribute__((ext_vector_type(32)));
typedef float f32x16 __attribute__((ext_vector_type(16)));
WG256 kernel void mfma_32x32(global f32x32 *out, global const float *a, global const float *b)
{
    size_t i = GLOBAL_ID();
    f32x32 acc = out[i];
    for (int k = 0; k < 16; k++)
        acc = __builtin_amdgcn_mfma_f32_32x32x1f32(a[i + k], b[i + k], acc, 0, 0, 0);
    out[i] = acc;
}
/* Two accumulators and more live values around them. */
WG256 kernel void mfma_2x32x32(global f32x32 *out, global const float *a, global const float *b)
{
    size_t i = GLOBAL_ID();
    f32x32 acc0 = out[2 * i], acc1 = out[2 * i + 1];
    for (int k = 0; k < 16; k++) {
        acc0 = __builtin_amdgcn_mfma_f32_32x32x1f32(a[i + k], b[i + k], acc0, 0, 0, 0);
        acc1 = __builtin_amdgcn_mfma_f32_32x32x1f32(b[i + k], a[i + k], acc1, 0, 0, 0);
    }
    out[2 * i] = acc0 + acc1;
    out[2 * i + 1] = acc0 - acc1;
}
#endif
