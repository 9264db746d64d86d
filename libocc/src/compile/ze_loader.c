/* The Level Zero loader, opened on first use (see ze_loader.h). */
#include "compile/ze_loader.h"
#include "common/internal.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>

occ__ze_api occ__ze;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static occ_diag load_diag; /* the first attempt's answer, kept for later calls */

static void load(void)
{
    const char *path = getenv("OCC_ZE_LOADER");
    if (!path || !*path)
        path = OCC_ZE_LOADER_NAME;
    /* Never closed: the Intel driver it loads does not survive being unloaded. */
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *e = dlerror();
        occ__diag(&load_diag, OCC_ERR_DEVICE, NULL, 0, 0, NULL,
                  "Level Zero: the loader cannot be opened (%s): no usable Level Zero GPU "
                  "driver. Install the Level Zero loader (libze1) and a driver (intel-opencl-icd / "
                  "intel-level-zero-gpu)",
                  e ? e : path);
        return;
    }
    occ__ze_api api;
#define OCC_ZE_RESOLVE(name)                                                                       \
    api.name = (ze_pfn##name##_t)dlsym(lib, "ze" #name);                                           \
    if (!api.name) {                                                                               \
        occ__diag(&load_diag, OCC_ERR_DEVICE, NULL, 0, 0, NULL,                                    \
                  "Level Zero: the loader %s has no function ze" #name                             \
                  ": not a Level Zero loader, or one older than this build's headers",             \
                  path);                                                                           \
        return;                                                                                    \
    }
    OCC_ZE_FUNCTIONS(OCC_ZE_RESOLVE)
#undef OCC_ZE_RESOLVE
    occ__ze = api;
    load_diag.status = OCC_OK;
}

occ_status occ__ze_load(occ_diag *diag)
{
    pthread_once(&load_once, load);
    if (load_diag.status != OCC_OK && diag)
        *diag = load_diag;
    return load_diag.status;
}
