/* The Intel driver's compiler as a service (driver_compile.h).
 *
 * The child: sets the hardware-less environment, works in the temporary
 * directory, opens the driver, builds the module and writes back a header
 * (status, diagnostic, size) and the native binary through a pipe.  The
 * parent reads with a deadline, kills a late child, reaps it and removes
 * the directory with whatever the driver left there. */
#define _GNU_SOURCE /* nftw's FTW_DEPTH, FTW_PHYS */
#include "compile/driver_compile.h"
#include "compile/fdio.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef OCC_HAVE_ZE
#include "compile/ze_module.h"
#endif

typedef struct reply_header {
    occ_status status;
    occ_diag diag;
    uint64_t size;
} reply_header;

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)ftw;
    if (flag == FTW_DP)
        rmdir(path);
    else
        unlink(path);
    return 0;
}

#ifdef OCC_HAVE_ZE
/* In the child: the first GPU the driver reports (in hardware-less mode,
 * the product asked for), a context, the module, its native binary. */
static occ_status compile_here(const occ__driver_compile_request *req, uint8_t **native,
                               size_t *size, occ_diag *diag)
{
    occ_status s = occ__ze_load(diag);
    if (s != OCC_OK)
        return OCC_ERR_UNSUPPORTED;
    /* No ze* call after a failed zeInit: the loader may crash. */
    ze_result_t r = zeInit(ZE_INIT_FLAG_GPU_ONLY);
    if (r != ZE_RESULT_SUCCESS)
        return occ__diag(diag, OCC_ERR_UNSUPPORTED, NULL, 0, 0, NULL,
                         "zeInit failed (%s) for %s: the Intel driver (intel-opencl-icd with "
                         "its Level Zero part) is not usable here",
                         occ__ze_result_name(r), req->product);
    uint32_t n = 1;
    ze_driver_handle_t driver = NULL;
    ze_device_handle_t device = NULL;
    if (zeDriverGet(&n, &driver) != ZE_RESULT_SUCCESS || !n || !driver)
        return occ__diag(diag, OCC_ERR_UNSUPPORTED, NULL, 0, 0, NULL,
                         "the Level Zero loader reports no driver");
    n = 1;
    if (zeDeviceGet(driver, &n, &device) != ZE_RESULT_SUCCESS || !n || !device)
        return occ__diag(diag, OCC_ERR_UNSUPPORTED, NULL, 0, 0, NULL,
                         "the Intel driver offers no device for %s", req->product);
    ze_context_desc_t cd = {.stype = ZE_STRUCTURE_TYPE_CONTEXT_DESC};
    ze_context_handle_t ctx = NULL;
    if ((r = zeContextCreate(driver, &cd, &ctx)) != ZE_RESULT_SUCCESS)
        return occ__diag(diag, OCC_ERR_DEVICE, NULL, 0, 0, NULL, "zeContextCreate failed: %s",
                         occ__ze_result_name(r));
    ze_module_handle_t module = NULL;
    s = occ__ze_module_build(ctx, device, req->il, req->il_size, false,
                             req->flags ? req->flags : "", &module, diag);
    if (s == OCC_OK) {
        s = occ__ze_module_native(module, native, size, diag);
        zeModuleDestroy(module);
    }
    zeContextDestroy(ctx);
    return s;
}
#endif

static occ_status run_child(const occ__driver_compile_request *req, const char *dir,
                            uint8_t **native, size_t *native_size, occ_diag *diag)
{
#ifndef OCC_HAVE_ZE
    (void)req, (void)dir, (void)native, (void)native_size;
    return occ__diag(diag, OCC_ERR_UNSUPPORTED, NULL, 0, 0, NULL,
                     "this libocc was built without the Level Zero headers: it cannot run the "
                     "Intel driver's compiler");
#else
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0)
        return occ__diag(diag, OCC_ERR_IO, NULL, 0, 0, NULL, "cannot make a pipe: %s",
                         strerror(errno));
    fflush(NULL); /* the child must not repeat the caller's buffered output */
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return occ__diag(diag, OCC_ERR_IO, NULL, 0, 0, NULL, "cannot fork: %s", strerror(errno));
    }
    if (pid == 0) {
        close(fds[0]);
        signal(SIGPIPE, SIG_IGN);
        setenv("NEOReadDebugKeys", "1", 1);
        setenv("SetCommandStreamReceiver", "1", 1);
        setenv("ProductFamilyOverride", req->product, 1);
        reply_header h;
        memset(&h, 0, sizeof h);
        uint8_t *bin = NULL;
        size_t n = 0;
        h.status = chdir(dir) == 0 ? compile_here(req, &bin, &n, &h.diag)
                                   : occ__diag(&h.diag, OCC_ERR_IO, NULL, 0, 0, NULL,
                                               "cannot work in %s", dir);
        h.size = h.status == OCC_OK ? n : 0;
        if (occ__write_all(fds[1], &h, sizeof h) && h.size)
            occ__write_all(fds[1], bin, n);
        _exit(0);
    }
    close(fds[1]);
    double deadline = occ__now_s() + (req->timeout_s > 0 ? req->timeout_s : 120);
    reply_header h;
    int r = occ__read_deadline(fds[0], &h, sizeof h, deadline);
    uint8_t *bin = NULL;
    if (!r && h.status == OCC_OK) {
        if (h.size == 0 || h.size > ((uint64_t)1 << 31) || !(bin = malloc((size_t)h.size)))
            r = 2;
        else
            r = occ__read_deadline(fds[0], bin, (size_t)h.size, deadline);
    }
    close(fds[0]);
    if (r == 1)
        kill(pid, SIGKILL);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (r) {
        free(bin);
        if (r == 1)
            return occ__diag(diag, OCC_ERR_DEVICE, NULL, 0, 0, NULL,
                             "the Intel driver did not compile the module for %s within %.0f s; "
                             "it was killed",
                             req->product, req->timeout_s > 0 ? req->timeout_s : 120);
        if (WIFSIGNALED(status))
            return occ__diag(diag, OCC_ERR_DEVICE, NULL, 0, 0, NULL,
                             "the Intel driver died with signal %d compiling the module for %s",
                             WTERMSIG(status), req->product);
        return occ__diag(diag, OCC_ERR_DEVICE, NULL, 0, 0, NULL,
                         "the Intel driver's process ended without an answer compiling for %s",
                         req->product);
    }
    if (h.status != OCC_OK) {
        if (diag) {
            *diag = h.diag;
            diag->status = h.status;
        }
        return h.status;
    }
    *native = bin;
    *native_size = (size_t)h.size;
    return OCC_OK;
#endif
}

occ_status occ__driver_compile(const occ__driver_compile_request *req, uint8_t **native,
                               size_t *native_size, occ_diag *diag)
{
    *native = NULL;
    *native_size = 0;
    if (!req || !req->product || (!req->il && req->il_size))
        return occ__diag(diag, OCC_ERR_INVALID_ARGUMENT, NULL, 0, 0, NULL,
                         "occ__driver_compile: missing argument");
    const char *tmp = getenv("TMPDIR");
    char dir[512];
    snprintf(dir, sizeof dir, "%s/occ-compile-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir))
        return occ__diag(diag, OCC_ERR_IO, NULL, 0, 0, NULL,
                         "cannot make a working directory for the driver: %s", strerror(errno));
    occ_status s = run_child(req, dir, native, native_size, diag);
    nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    return s;
}
