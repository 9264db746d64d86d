/* NVIDIA: the rules of each compute capability that the driver does not
 * report, and the vendor's words (arch.h).  Source: CUDA C Programming Guide,
 * "Compute Capabilities" (the technical-specifications table and its shared
 * memory rows); docs/model.md describes how the model uses them. */
#include "arch/arch.h"

#include <string.h>

static const char *family(int major, int minor)
{
    switch (major) {
    case 7: return minor >= 5 ? "Turing" : "Volta";
    case 8: return minor == 9 ? "Ada Lovelace" : "Ampere";
    case 9: return "Hopper";
    case 10:
    case 11:
    case 12: return "Blackwell";
    default: return "NVIDIA";
    }
}

/* Legal shared-memory carveouts in KB (the shared-memory capacity rows). */
static size_t carveouts_kb(int major, int minor, uint64_t *kb)
{
    static const uint64_t cc70[] = {0, 8, 16, 32, 64, 96};
    static const uint64_t cc75[] = {32, 64};
    static const uint64_t cc80[] = {0, 8, 16, 32, 64, 100, 132, 164};
    static const uint64_t cc86[] = {0, 8, 16, 32, 64, 100};
    static const uint64_t cc90[] = {0, 8, 16, 32, 64, 100, 132, 164, 196, 228};
    const uint64_t *t;
    size_t n;
    if (major == 7 && minor < 5)
        t = cc70, n = 6;
    else if (major == 7)
        t = cc75, n = 2;
    else if (major == 8 && minor == 0)
        t = cc80, n = 8;
    else if (major == 8 || major >= 11)
        t = cc86, n = 6;
    else
        t = cc90, n = 10; /* 9.0, 10.x */
    memcpy(kb, t, n * sizeof *t);
    return n;
}

void occ__nvidia_arch(int major, int minor, occ_nvidia_arch *out)
{
    memset(out, 0, sizeof *out);
    out->family = family(major, minor);
    out->partitions = 4;            /* SMSPs per SM since compute capability 7.0 */
    out->max_regs_per_thread = 255; /* every cc >= 3.5 */
    out->reg_alloc_unit = 256;
    out->reg_warp_granularity = 4;
    out->slm_granule = major == 7 ? 256 : 128;
    out->barriers_twice_slots = major >= 9;
    out->n_carveouts = carveouts_kb(major, minor, out->carveouts_kb);
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

const occ__vendor_rules occ__nvidia_rules = {
    .vendor = OCC_VENDOR_NVIDIA,
    .target_base = nvidia_target_base,
    .simd_is_sub_group = false,
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
};
