/* SPIR-V modules and OpenCL C sources: compiled by the installed Intel driver
 * for the product of the target profile, then read from the native binary.
 *
 *   OpenCL C  -> SPIR-V   ocloc -spv_only (the front end of the Intel driver
 *                         package, intel-opencl-icd), -cl-std=CL2.0 unless the
 *                         build options name a standard; only -D, -I and
 *                         -cl-std options reach it
 *   SPIR-V    -> native   the driver compile service (compile/driver_compile.h):
 *                         the driver in hardware-less mode for the product, so
 *                         no GPU is needed, in a child process with a timeout;
 *                         zeModuleCreate with the other build options, then
 *                         zeModuleGetNativeBinary
 *   native    -> kernels  the zebin or patch-token reader
 *
 * ocloc runs through compile/tool.h (a timeout, its files removed on
 * SIGINT/SIGTERM).  A module the compiler rejects is bad input
 * (OCC_ERR_PARSE, with its log);
 * a driver that crashes or hangs is OCC_ERR_DEVICE, never the caller's end. */
#include "kernels/intel.h"
#include "compile/driver_compile.h"
#include "compile/tool.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>



/* The Intel driver's product for an occ profile: by the profile's name,
 * else by its architecture.  NULL when the driver generation installed here
 * (compute-runtime 22.43) has none. */
static const char *product_for(const occ_device *dev)
{
    const occ_device_desc *d = occ_device_describe(dev);
    if (!d || d->vendor != OCC_VENDOR_INTEL)
        return NULL;
    static const struct {
        const char *profile, *product;
    } by_name[] = {
        {"tgl", "tgllp"}, {"dg1", "dg1"}, {"rkl", "rkl"}, {"gen9", "skl"}, {"skl", "skl"},
        {"gen11", "icllp"}, {"icl", "icllp"},
    };
    for (size_t i = 0; i < sizeof by_name / sizeof by_name[0]; i++)
        if (strcmp(d->name, by_name[i].profile) == 0)
            return by_name[i].product;
    if (strcmp(d->architecture, "Gen9") == 0)
        return "skl";
    if (strcmp(d->architecture, "Gen11") == 0)
        return "icllp";
    if (strcmp(d->architecture, "Xe-LP") == 0)
        return "tgllp";
    return NULL;
}

/* Split the build options: -D/-I/-cl-std (with their values) go to the
 * OpenCL C front end, everything else to the driver's compiler. */
static occ_status split_options(const char *opts, char *fe, size_t fe_size, char *be,
                                size_t be_size, bool *has_std, occ_diag *diag, const char *origin)
{
    fe[0] = be[0] = '\0';
    *has_std = false;
    if (!opts)
        return OCC_OK;
    if (strlen(opts) >= be_size || strlen(opts) >= fe_size)
        return occ__diag(diag, OCC_ERR_VALUE, origin, 0, 0, NULL,
                         "build options longer than %zu characters", be_size - 1);
    const char *p = opts;
    bool to_fe = false;
    while (*p) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p)
            break;
        const char *start = p;
        while (*p && *p != ' ' && *p != '\t')
            p++;
        size_t len = (size_t)(p - start);
        /* "-D X" / "-I dir": the value follows as the next word */
        bool value_of_previous = to_fe;
        to_fe = false;
        bool fe_word = value_of_previous || (len >= 2 && (start[1] == 'D' || start[1] == 'I') &&
                                             start[0] == '-') ||
                       (len > 8 && strncmp(start, "-cl-std=", 8) == 0);
        if (!value_of_previous && len == 2 && start[0] == '-' && (start[1] == 'D' || start[1] == 'I'))
            to_fe = true;
        if (len > 8 && strncmp(start, "-cl-std=", 8) == 0)
            *has_std = true;
        char *dst = fe_word ? fe : be;
        size_t used = strlen(dst);
        snprintf(dst + used, (fe_word ? fe_size : be_size) - used, "%s%.*s", used ? " " : "",
                 (int)len, start);
    }
    return OCC_OK;
}

static bool read_all(const char *path, uint8_t **data, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    uint8_t *buf = NULL;
    size_t len = 0, cap = 0;
    bool ok = true;
    for (;;) {
        if (len == cap) {
            cap = cap ? 2 * cap : 65536;
            uint8_t *nb = realloc(buf, cap);
            if (!nb) {
                ok = false;
                break;
            }
            buf = nb;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0)
            break;
    }
    ok = ok && !ferror(f);
    fclose(f);
    if (!ok) {
        free(buf);
        return false;
    }
    *data = buf;
    *size = len;
    return true;
}

/* OpenCL C -> SPIR-V with ocloc; its output (the compiler's messages) goes
 * to a log file that becomes the diagnostic when it fails. */
static occ_status opencl_to_spirv(const char *origin, const uint8_t *src, size_t n,
                                  const char *product, const char *fe_opts, bool has_std,
                                  uint8_t **spv, size_t *spv_size, occ_diag *diag)
{
    static const char *const names[] = {"k.cl", "k.spv", "log.txt", NULL};
    occ__tool_dir t;
    occ_status st = occ__tool_dir_make(&t, "ocl", names, diag);
    if (st != OCC_OK) {
        if (diag)
            snprintf(diag->file, sizeof diag->file, "%s", origin);
        return st;
    }
    FILE *f = fopen(t.files[0], "wb");
    bool wrote = f && fwrite(src, 1, n, f) == n;
    if (f && fclose(f) != 0)
        wrote = false;
    if (!wrote) {
        occ__tool_dir_remove(&t);
        return occ__diag(diag, OCC_ERR_IO, origin, 0, 0, NULL,
                         "cannot write the source to a temporary file");
    }
    char options[1100];
    snprintf(options, sizeof options, "%s%s%s", has_std ? "" : "-cl-std=CL2.0",
             !has_std && fe_opts[0] ? " " : "", fe_opts);
    const char *ocloc = getenv("OCC_OCLOC");
    if (!ocloc || !*ocloc)
        ocloc = "ocloc";
    char *argv[] = {(char *)ocloc, "compile", "-file", t.files[0], "-device", (char *)product,
                    "-spv_only", "-output_no_suffix", "-output", "k", "-out_dir", t.dir,
                    "-options", options, NULL};
    double timeout = occ__tool_timeout_s();
    int rc = occ__tool_run(&t, argv, t.files[2], timeout);
    bool ok = rc == 0 && read_all(t.files[1], spv, spv_size) && *spv_size >= 20;
    if (!ok) {
        free(*spv);
        *spv = NULL;
        uint8_t *log = NULL;
        size_t log_size = 0;
        char text[300] = "";
        if (read_all(t.files[2], &log, &log_size)) {
            size_t j = 0;
            for (size_t i = 0; i < log_size && j + 1 < sizeof text; i++) /* one line */
                text[j++] = log[i] == '\n' || log[i] == '\r' ? ' ' : (char)log[i];
            text[j] = '\0';
            free(log);
        }
        if (rc == OCC__TOOL_NOT_STARTED || rc == 127)
            st = occ__diag(diag, OCC_ERR_UNSUPPORTED, origin, 0, 0, NULL,
                           "cannot run %s to compile OpenCL C: it comes with the Intel driver "
                           "(Debian: intel-opencl-icd); or compile to SPIR-V yourself",
                           ocloc);
        else if (rc == OCC__TOOL_TIMED_OUT)
            st = occ__diag(diag, OCC_ERR_DEVICE, origin, 0, 0, NULL,
                           "ocloc did not compile the OpenCL C within %.0f s "
                           "(OCC_COMPILE_TIMEOUT); it was killed",
                           timeout);
        else if (rc > 255)
            st = occ__diag(diag, OCC_ERR_DEVICE, origin, 0, 0, NULL,
                           "ocloc died with signal %d compiling the OpenCL C", rc - 256);
        else /* the compiler's verdict on the source: bad input */
            st = occ__diag(diag, OCC_ERR_PARSE, origin, 0, 0, NULL,
                           "the OpenCL C compiler (ocloc, for %s) rejected the source: %s",
                           product, text[0] ? text : "no message");
    }
    occ__tool_dir_remove(&t);
    return st;
}

/* SPIR-V -> native binary -> kernels. */
static occ_status compile_spirv(occ_kernel_set *s, const uint8_t *il, size_t n,
                                const char *product, const char *be_opts, occ_diag *diag)
{
    occ__driver_compile_request req = {
        .product = product, .il = il, .il_size = n, .flags = be_opts,
        .timeout_s = occ__tool_timeout_s(),
    };
    uint8_t *native = NULL;
    size_t native_size = 0;
    occ_status st = occ__driver_compile(&req, &native, &native_size, diag);
    if (st != OCC_OK) {
        if (diag)
            snprintf(diag->file, sizeof diag->file, "%s", s->origin);
        if (st == OCC_ERR_UNSUPPORTED) {
            char why[384];
            snprintf(why, sizeof why, "%s", diag ? diag->message : "");
            return occ__diag(diag, OCC_ERR_UNSUPPORTED, s->origin, 0, 0, NULL,
                             "cannot compile SPIR-V for %s: %.300s", product, why);
        }
        return st;
    }
    /* The native binary is read like a file the input unpacked to. */
    if (!occ__kset_unpack(s, native_size, "the driver's native binary")) {
        free(native);
        return occ__kset_budget_diag(s, diag);
    }
    occ_kernel_format f = occ__kernel_detect(native, native_size);
    if (f == OCC_KFMT_ZEBIN)
        st = occ__read_zebin(s, native, native_size, NULL, diag);
    else if (f == OCC_KFMT_PATCHTOKENS)
        st = occ__read_patchtokens(s, native, native_size, NULL, diag);
    else
        st = occ__diag(diag, OCC_ERR_DEVICE, s->origin, 0, 0, NULL,
                       "the driver's native binary (%zu bytes) is in no format occ knows",
                       native_size);
    if (st == OCC_OK) {
        for (size_t i = 0; i < s->n; i++)
            snprintf(s->v[i].target, sizeof s->v[i].target, "%s", product);
        occ__kset_note(s, "compiled by the Intel driver for %s%s%s; native binary: %s", product,
                       be_opts[0] ? " with " : "", be_opts,
                       f == OCC_KFMT_ZEBIN ? "zebin" : "patch tokens");
    }
    free(native);
    return st;
}

static occ_status target_product(occ_kernel_set *s, const occ_kernel_read_options *o,
                                 const char **product, occ_diag *diag)
{
    if (!o->device)
        return occ__diag(diag, OCC_ERR_UNSUPPORTED, s->origin, 0, 0, NULL,
                         "%s is compiled for a device: name an Intel profile to compile for "
                         "(tgl, dg1, rkl, gen9, gen11)",
                         s->format == OCC_KFMT_SPIRV ? "SPIR-V" : "OpenCL C");
    *product = product_for(o->device);
    if (!*product)
        return occ__diag(diag, OCC_ERR_UNSUPPORTED, s->origin, 0, 0, NULL,
                         "the installed Intel driver compiles for Gen9, Gen11 and Xe-LP products "
                         "(tgl, dg1, rkl, gen9, gen11); profile '%s' (%s) is none of them",
                         occ_device_describe(o->device)->name,
                         occ_device_describe(o->device)->architecture);
    return OCC_OK;
}

occ_status occ__read_spirv(occ_kernel_set *s, const uint8_t *data, size_t size,
                           const occ_kernel_read_options *o, occ_diag *diag)
{
    const char *product;
    occ_status st = target_product(s, o, &product, diag);
    if (st != OCC_OK)
        return st;
    if (size < 20 || size % 4)
        return occ__diag(diag, OCC_ERR_PARSE, s->origin, 0, 0, NULL,
                         "a SPIR-V module of %zu bytes: truncated (a header is 20 bytes, words 4)",
                         size);
    char fe[512], be[512];
    bool has_std;
    st = split_options(o->build_options, fe, sizeof fe, be, sizeof be, &has_std, diag, s->origin);
    if (st != OCC_OK)
        return st;
    return compile_spirv(s, data, size, product, be, diag);
}

occ_status occ__read_opencl_c(occ_kernel_set *s, const uint8_t *data, size_t size,
                              const occ_kernel_read_options *o, occ_diag *diag)
{
    const char *product;
    occ_status st = target_product(s, o, &product, diag);
    if (st != OCC_OK)
        return st;
    char fe[512], be[512];
    bool has_std;
    st = split_options(o->build_options, fe, sizeof fe, be, sizeof be, &has_std, diag, s->origin);
    if (st != OCC_OK)
        return st;
    uint8_t *spv = NULL;
    size_t spv_size = 0;
    st = opencl_to_spirv(s->origin, data, size, product, fe, has_std, &spv, &spv_size, diag);
    if (st != OCC_OK)
        return st;
    st = compile_spirv(s, spv, spv_size, product, be, diag);
    free(spv);
    return st;
}
