/* NVIDIA: the rules of each compute capability, one row each, and the
 * vendor's words (arch.h).  Source: CUDA C++ Programming Guide, "Compute
 * Capabilities", table "Technical Specifications per Compute Capability"
 * (blocks, warps and shared memory per SM, per block and reserved) and the
 * shared-memory capacity rows of each architecture's section (carveouts);
 * docs/sources.md names them; docs/model.md describes how the model uses
 * them.  The built-in profiles repeat a row's numbers for one product, and
 * the test `nvidia` holds them equal. */
#include "arch/arch.h"

#include <string.h>

#define CARVEOUTS(...) {__VA_ARGS__}, sizeof((uint16_t[]){__VA_ARGS__}) / sizeof(uint16_t)

typedef struct cc_row {
    uint8_t major, minor;
    const char *family;
    uint16_t warps_per_sm, blocks_per_sm;
    uint16_t smem_per_sm_kb, smem_per_block_kb, smem_reserved_kb; /* per block: opt-in */
    uint16_t slm_granule;
    bool barriers_twice_slots;
    uint16_t carveouts_kb[OCC_MAX_CARVEOUTS];
    size_t n_carveouts;
} cc_row;

static const cc_row rows[] = {
    {7, 0, "Volta", 64, 32, 96, 96, 0, 256, false, CARVEOUTS(0, 8, 16, 32, 64, 96)},
    {7, 2, "Volta", 64, 32, 96, 96, 0, 256, false, CARVEOUTS(0, 8, 16, 32, 64, 96)},
    {7, 5, "Turing", 32, 16, 64, 64, 0, 256, false, CARVEOUTS(32, 64)},
    {8, 0, "Ampere", 64, 32, 164, 163, 1, 128, false, CARVEOUTS(0, 8, 16, 32, 64, 100, 132, 164)},
    {8, 6, "Ampere", 48, 16, 100, 99, 1, 128, false, CARVEOUTS(0, 8, 16, 32, 64, 100)},
    {8, 7, "Ampere", 48, 16, 164, 163, 1, 128, false, CARVEOUTS(0, 8, 16, 32, 64, 100, 132, 164)},
    {8, 9, "Ada Lovelace", 48, 24, 100, 99, 1, 128, false, CARVEOUTS(0, 8, 16, 32, 64, 100)},
    {9, 0, "Hopper", 64, 32, 228, 227, 1, 128, true,
     CARVEOUTS(0, 8, 16, 32, 64, 100, 132, 164, 196, 228)},
    {10, 0, "Blackwell", 64, 32, 228, 227, 1, 128, true,
     CARVEOUTS(0, 8, 16, 32, 64, 100, 132, 164, 196, 228)},
    {10, 3, "Blackwell", 64, 32, 228, 227, 1, 128, true,
     CARVEOUTS(0, 8, 16, 32, 64, 100, 132, 164, 196, 228)},
    {12, 0, "Blackwell", 48, 32, 100, 99, 1, 128, true, CARVEOUTS(0, 8, 16, 32, 64, 100)},
    {12, 1, "Blackwell", 48, 32, 100, 99, 1, 128, true, CARVEOUTS(0, 8, 16, 32, 64, 100)},
};
#define N_ROWS (sizeof rows / sizeof rows[0])

/* The row of (major, minor), else the nearest earlier capability (a newer
 * minor revision keeps its major's rules until the guide says otherwise). */
static const cc_row *row_of(int major, int minor, bool *exact)
{
    const cc_row *best = &rows[0];
    *exact = false;
    for (size_t i = 0; i < N_ROWS; i++) {
        int v = rows[i].major * 10 + rows[i].minor;
        if (rows[i].major == major && rows[i].minor == minor) {
            *exact = true;
            return &rows[i];
        }
        if (v <= major * 10 + minor)
            best = &rows[i];
    }
    return best;
}

void occ__nvidia_arch(int major, int minor, occ_nvidia_arch *out)
{
    memset(out, 0, sizeof *out);
    const cc_row *r = row_of(major, minor, &out->known);
    out->family = r->family;
    out->partitions = 4;            /* SMSPs per SM since compute capability 7.0 */
    out->max_regs_per_thread = 255; /* every cc >= 3.5 */
    out->reg_alloc_unit = 256;
    out->reg_warp_granularity = 4;
    out->regs_per_sm = 65536;
    out->max_regs_per_block = 65536;
    out->max_threads_per_block = 1024;
    out->max_warps_per_sm = r->warps_per_sm;
    out->max_blocks_per_sm = r->blocks_per_sm;
    out->smem_per_sm = (uint64_t)r->smem_per_sm_kb * 1024;
    out->smem_per_block = (uint64_t)r->smem_per_block_kb * 1024;
    out->smem_reserved_per_block = (uint64_t)r->smem_reserved_kb * 1024;
    out->slm_granule = r->slm_granule;
    out->barriers_twice_slots = r->barriers_twice_slots;
    out->n_carveouts = r->n_carveouts;
    for (size_t i = 0; i < r->n_carveouts; i++)
        out->carveouts_kb[i] = r->carveouts_kb[i];
}

size_t occ__nvidia_arch_count(void)
{
    return N_ROWS;
}

void occ__nvidia_arch_cc(size_t i, int *major, int *minor)
{
    *major = i < N_ROWS ? rows[i].major : 0;
    *minor = i < N_ROWS ? rows[i].minor : 0;
}

/* "sm_90a" (architecture-specific features) and "sm_100f" (family) run
 * where "sm_90" and "sm_100" do: the letter after the number is dropped. */
static void nvidia_target_base(const char *target, char *out, size_t size)
{
    int n = snprintf(out, size, "%s", target);
    if (n > 4 && (size_t)n < size && strncmp(out, "sm_", 3) == 0 && out[n - 1] >= 'a' && out[n - 1] <= 'z' &&
        out[n - 2] >= '0' && out[n - 2] <= '9')
        out[n - 1] = '\0';
}

/* A cooperative launch must fit at once: the blocks per SM of the occupancy
 * rule (cuOccupancyMaxActiveBlocksPerMultiprocessor) on every SM. */
static uint64_t nvidia_cooperative_max(const occ_device_desc *d, uint32_t resident, uint32_t per_wg,
                                       uint32_t per_core, bool barrier, uint64_t slm_bytes)
{
    (void)per_wg, (void)per_core, (void)barrier, (void)slm_bytes;
    return (uint64_t)resident * d->cores;
}

const occ__vendor_rules occ__nvidia_rules = {
    .vendor = OCC_VENDOR_NVIDIA,
    .target_base = nvidia_target_base,
    .simd_is_sub_group = false,
    .cooperative_max = nvidia_cooperative_max,
};

const occ_vendor_words occ__nvidia_words = {
    .struct_size = sizeof(occ_vendor_words),
    .vendor = OCC_VENDOR_NVIDIA,
    .word = "nvidia",
    .name = "NVIDIA",
    .register_file = true,
    .register_input = "regs",
    .register_input_text = "a register file (--regs)",
    .dispatch_evidence = "CUDA dispatches whole blocks in blockIdx order spread across SMs "
                         "(docs/validation/cuda-h100-2026-11-21.md; occcalc validate --backend "
                         "cuda measures it)",
    .kernel_local_memory = "shared",
    .kernel_private_memory = "local",
    .spill_note = "",
    .private_memory_warns = true,
    .cuda_choice = "CUDA's choice (cudaOccupancyMaxPotentialBlockSize)",
    .context_word = "thread context",
    .register_word = "registers",
    .local_memory_word = "local memory",
    .waves_per_simd = false,
};
