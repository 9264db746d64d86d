/* Fuzz target: the AMD readers (libocc/src/kernels/amdgpu.c, msgpack.c,
 * offload_bundle.c).  Each input is read three ways, so that mutations land
 * where the readers look:
 *   - as the MessagePack metadata of a minimal code object
 *     (amd_code_object.h wraps it in an ELF note);
 *   - behind the offload bundle magic (the entry table and its offsets);
 *   - as it is, when it is a code object, a bundle or a compressed bundle.
 * Properties: no crash, no sanitizer report; a rejection has no set and a
 * message; an accepted set has kernels with names found by name, format
 * amdgpu, vendor AMD and a wave size of 32 or 64 when one is stated; on
 * its target's built-in profile, the model answers it (waves per SIMD at
 * most the SIMD's wave slots, whole work-groups never more).  Seeds: tests/fuzz/corpus/amdgpu (metadata notes and
 * bundles of the clang-19 corpus, tests/kernels/amd/make_corpus.py). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "amd_code_object.h"
#include "fuzz_read.h"

/* Whatever the metadata says, the model answers within the SIMD's slots. */
static void check_model(const occ_kernel_info *ki)
{
    const char *name = occ_builtin_for_target(ki->vendor, ki->target);
    occ_device *dev = NULL;
    if (!name || occ_device_builtin(name, &dev, NULL) != OCC_OK)
        return;
    occ_kernel k;
    occ_kernel_init(&k);
    occ_kernel_apply_info(&k, ki, 0);
    if (ki->max_wg_size && !(ki->known & OCC_KINFO_REQD_WG))
        k.wg[0] = ki->max_wg_size;
    uint32_t waves = 0;
    double resident = 0;
    if (occ_waves_per_simd(dev, &k, &waves, &resident) != OCC_OK)
        fuzz_fail("kernel %s: no waves per SIMD on %s", ki->name, name);
    uint32_t slots = occ_device_describe(dev)->grf_modes[0].threads_per_engine;
    if (waves > slots || resident > waves)
        fuzz_fail("kernel %s on %s: %u waves per SIMD (%u slots), %.2f resident", ki->name, name, waves, slots,
                  resident);
    occ_device_free(dev);
}

static void check(const uint8_t *data, size_t size)
{
    occ_kernel_set *s = fuzz_read_kernels(data, size);
    if (!s)
        return;
    occ_kernel_format f = occ_kernel_set_format(s);
    if (f != OCC_KFMT_AMDGPU && f != OCC_KFMT_OFFLOAD_BUNDLE)
        fuzz_fail("read as %s", occ_kernel_format_name(f));
    for (size_t i = 0; i < occ_kernel_set_count(s); i++) {
        const occ_kernel_info *k = occ_kernel_set_get(s, i);
        const occ_vendor_words *w = occ_vendor_words_of(k->vendor);
        if (k->format != OCC_KFMT_AMDGPU || !w || strcmp(w->name, "AMD") != 0)
            fuzz_fail("kernel %s: format %d vendor %d", k->name, (int)k->format, (int)k->vendor);
        if (k->known & OCC_KINFO_SIMD && k->simd != 32 && k->simd != 64)
            fuzz_fail("kernel %s: wave size %u", k->name, k->simd);
        if (!memchr(k->target, 0, sizeof k->target))
            fuzz_fail("kernel %s: target not terminated", k->name);
        check_model(k);
    }
    occ_kernel_set_free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t n;
    uint8_t *co = amd_code_object(data, size, UINT32_MAX, &n);
    if (co) {
        check(co, n);
        free(co);
    }
    static const char magic[] = "__CLANG_OFFLOAD_BUNDLE__";
    uint8_t *b = malloc(size + 24);
    if (b) {
        memcpy(b, magic, 24);
        if (size)
            memcpy(b + 24, data, size);
        check(b, size + 24);
        free(b);
    }
    if ((size >= 20 && memcmp(data, "\177ELF", 4) == 0 && data[18] == 224 && data[19] == 0) ||
        (size >= 24 && memcmp(data, magic, 24) == 0) || (size >= 4 && memcmp(data, "CCOB", 4) == 0))
        check(data, size);
    return 0;
}
