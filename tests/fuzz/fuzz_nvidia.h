/* The body shared by the fuzz targets of the NVIDIA kernel readers
 * (fuzz_cubin.c, fuzz_fatbin.c): each forces its format's magic onto the
 * input, so every input reaches its reader, then reads it with
 * occ_kernels_read_memory for no device, the H100 or the A100 (by input
 * size), and checks what must hold for every input:
 *  - a rejection has a known status, the same status in diag, a message;
 *  - an accepted set has kernels with names, an sm_XX target, vendor NVIDIA,
 *    SIMD 32, and the model answers each kernel without breaking its own
 *    invariants (resident <= every limit).
 * PTX is never compiled (ptxas points nowhere): the fuzzers must not spawn. */
#ifndef OCC_FUZZ_NVIDIA_H
#define OCC_FUZZ_NVIDIA_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_fail.h"
#include "occ/kernels.h"

#define REQUIRE(cond, ...)                                                                         \
    do {                                                                                           \
        if (!(cond))                                                                               \
            fuzz_fail("fuzz_nvidia: property broken: " __VA_ARGS__);                               \
    } while (0)

static void check_kernel(const occ_device *dev, const occ_kernel_info *ki)
{
    REQUIRE(ki->name && ki->name[0] && ki->mangled && ki->mangled[0], "kernel without a name");
    REQUIRE(strncmp(ki->target, "sm_", 3) == 0, "target '%.31s'", ki->target);
    REQUIRE(ki->vendor == OCC_VENDOR_NVIDIA && ki->simd == 32, "vendor %d simd %u",
            (int)ki->vendor, ki->simd);
    REQUIRE(ki->format == OCC_KFMT_CUBIN, "format %d", (int)ki->format);
    if (!dev)
        return;
    static const uint32_t blocks[] = {32, 128, 1024};
    for (size_t b = 0; b < 3; b++) {
        occ_kernel k;
        occ_kernel_init(&k);
        occ_kernel_apply_info(&k, ki, 1000);
        k.wg[0] = blocks[b];
        k.wg[1] = k.wg[2] = 1;
        occ_residency r;
        if (occ_residency_compute(dev, &k, &r) != OCC_OK || !r.launchable)
            continue;
        for (int i = 0; i < OCC_RES_COUNT; i++)
            REQUIRE(r.resident_wgs <= r.limits[i], "resident %u over limit %d", r.resident_wgs, i);
    }
}

static int fuzz_nvidia(const uint8_t *data, size_t size, const uint8_t *magic, size_t magic_len,
                       size_t magic_at)
{
    static occ_device *h100, *a100;
    if (!h100 && occ_device_builtin("h100-sxm", &h100, NULL) != OCC_OK)
        abort();
    if (!a100 && occ_device_builtin("a100", &a100, NULL) != OCC_OK)
        abort();
    /* An exact-size copy (ASan sees reads past the end) with the magic. */
    uint8_t *buf = malloc(size ? size : 1);
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    if (size >= magic_at + magic_len)
        memcpy(buf + magic_at, magic, magic_len);
    occ_kernel_read_options o;
    occ_kernel_read_options_init(&o);
    o.ptxas = "/nonexistent/ptxas";
    o.device = size % 3 == 0 ? NULL : size % 3 == 1 ? h100 : a100;
    occ_kernel_set *s = NULL;
    occ_diag diag;
    memset(&diag, 0, sizeof diag);
    occ_status st = occ_kernels_read_memory(buf, size, "<fuzz>", &o, &s, &diag);
    if (st != OCC_OK) {
        REQUIRE(s == NULL, "failed read returned a set");
        REQUIRE(st > OCC_OK && st < OCC_STATUS_COUNT, "status %d", (int)st);
        REQUIRE(diag.status == st, "diag.status %d != %d", (int)diag.status, (int)st);
        REQUIRE(diag.message[0] && memchr(diag.message, 0, sizeof diag.message),
                "rejected (%s) without a message", occ_status_name(st));
    } else {
        REQUIRE(s && occ_kernel_set_count(s) > 0, "OK without kernels");
        for (size_t i = 0; i < occ_kernel_set_count(s); i++) {
            const occ_kernel_info *ki = occ_kernel_set_get(s, i);
            check_kernel(o.device, ki);
            REQUIRE(occ_kernel_set_find(s, ki->name) != NULL, "find(%s) fails", ki->name);
        }
        REQUIRE(memchr(occ_kernel_set_note(s), 0, 512), "note not terminated");
        occ_kernel_set_free(s);
    }
    free(buf);
    return 0;
}

#endif
