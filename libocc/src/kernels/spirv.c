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
 * A module the compiler rejects is bad input (OCC_ERR_PARSE, with its log);
 * a driver that crashes or hangs is OCC_ERR_DEVICE, never the caller's end. */
#include "kernels/intel.h"
#include "compile/driver_compile.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define COMPILE_TIMEOUT_S 120.0

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

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
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

/* Remove a flat temporary directory and its files. */
static void remove_tmp(const char *dir, const char *const *files)
{
    char path[600];
    for (size_t i = 0; files[i]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        unlink(path);
    }
    rmdir(dir);
}

/* OpenCL C -> SPIR-V with ocloc; its output (the compiler's messages) goes
 * to a log file that becomes the diagnostic when it fails. */
static occ_status opencl_to_spirv(const char *origin, const uint8_t *src, size_t n,
                                  const char *product, const char *fe_opts, bool has_std,
                                  uint8_t **spv, size_t *spv_size, occ_diag *diag)
{
    const char *tmp = getenv("TMPDIR");
    char dir[300];
    snprintf(dir, sizeof dir, "%s/occ-ocl-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir))
        return occ__diag(diag, OCC_ERR_IO, origin, 0, 0, NULL,
                         "cannot make a temporary directory for compiling: %s", strerror(errno));
    static const char *const files[] = {"k.cl", "k.spv", "log.txt", NULL};
    char src_path[400], log_path[400], spv_path[400];
    snprintf(src_path, sizeof src_path, "%s/k.cl", dir);
    snprintf(log_path, sizeof log_path, "%s/log.txt", dir);
    snprintf(spv_path, sizeof spv_path, "%s/k.spv", dir);
    FILE *f = fopen(src_path, "wb");
    bool wrote = f && fwrite(src, 1, n, f) == n;
    if (f && fclose(f) != 0)
        wrote = false;
    if (!wrote) {
        remove_tmp(dir, files);
        return occ__diag(diag, OCC_ERR_IO, origin, 0, 0, NULL,
                         "cannot write the source to a temporary file");
    }
    char options[1100];
    snprintf(options, sizeof options, "%s%s%s", has_std ? "" : "-cl-std=CL2.0",
             !has_std && fe_opts[0] ? " " : "", fe_opts);
    const char *ocloc = getenv("OCC_OCLOC");
    if (!ocloc || !*ocloc)
        ocloc = "ocloc";
    char *argv[] = {(char *)ocloc, "compile", "-file", src_path, "-device", (char *)product,
                    "-spv_only", "-output_no_suffix", "-output", "k", "-out_dir", dir,
                    "-options", options, NULL};
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, log_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    pid_t pid;
    int e = posix_spawnp(&pid, ocloc, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (e != 0) {
        remove_tmp(dir, files);
        return occ__diag(diag, OCC_ERR_UNSUPPORTED, origin, 0, 0, NULL,
                         "cannot run %s to compile OpenCL C (%s): it comes with the Intel driver "
                         "(Debian: intel-opencl-icd); or compile to SPIR-V yourself",
                         ocloc, strerror(e));
    }
    int status = 0;
    double deadline = now_s() + COMPILE_TIMEOUT_S;
    bool timed_out = false;
    for (;;) {
        pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid || (w < 0 && errno != EINTR))
            break;
        if (now_s() > deadline) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            timed_out = true;
            break;
        }
        struct timespec ts = {0, 5000000};
        nanosleep(&ts, NULL);
    }
    occ_status st = OCC_OK;
    bool ok = !timed_out && WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
              read_all(spv_path, spv, spv_size) && *spv_size >= 20;
    if (!ok) {
        if (*spv) {
            free(*spv);
            *spv = NULL;
        }
        uint8_t *log = NULL;
        size_t log_size = 0;
        char text[300] = "";
        if (read_all(log_path, &log, &log_size)) {
            size_t j = 0;
            for (size_t i = 0; i < log_size && j + 1 < sizeof text; i++) /* one line */
                text[j++] = log[i] == '\n' || log[i] == '\r' ? ' ' : (char)log[i];
            text[j] = '\0';
            free(log);
        }
        if (timed_out)
            st = occ__diag(diag, OCC_ERR_DEVICE, origin, 0, 0, NULL,
                           "ocloc did not compile the OpenCL C within %.0f s; it was killed",
                           COMPILE_TIMEOUT_S);
        else if (WIFSIGNALED(status))
            st = occ__diag(diag, OCC_ERR_DEVICE, origin, 0, 0, NULL,
                           "ocloc died with signal %d compiling the OpenCL C", WTERMSIG(status));
        else if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
            st = occ__diag(diag, OCC_ERR_UNSUPPORTED, origin, 0, 0, NULL,
                           "%s not found: OpenCL C is compiled with the Intel driver's ocloc "
                           "(Debian: intel-opencl-icd)", ocloc);
        else
            st = occ__diag(diag, OCC_ERR_DEVICE, origin, 0, 0, NULL,
                           "the OpenCL C compiler (ocloc, for %s) rejected the source: %s",
                           product, text[0] ? text : "no message");
    }
    remove_tmp(dir, files);
    return st;
}

/* SPIR-V -> native binary -> kernels. */
static occ_status compile_spirv(occ_kernel_set *s, const uint8_t *il, size_t n,
                                const char *product, const char *be_opts, occ_diag *diag)
{
    occ__driver_compile_request req = {
        .product = product, .il = il, .il_size = n, .flags = be_opts,
        .timeout_s = COMPILE_TIMEOUT_S,
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
