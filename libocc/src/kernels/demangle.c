/* C++ names through libstdc++'s demangler (see demangle.h). */
#include "kernels/demangle.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef char *(*cxa_demangle_fn)(const char *, char *, size_t *, int *);

static cxa_demangle_fn demangler;

static void find_demangler(void)
{
    /* Already loaded in a C++ process; else the system's libstdc++. */
    void *lib = dlopen("libstdc++.so.6", RTLD_NOW | RTLD_LOCAL);
    if (lib)
        *(void **)&demangler = dlsym(lib, "__cxa_demangle");
    /* lib stays open: the function is used for the process's lifetime. */
}

char *occ__demangle(const char *mangled)
{
    if (!mangled || strncmp(mangled, "_Z", 2) != 0 || strlen(mangled) > OCC__DEMANGLE_MAX)
        return NULL;
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, find_demangler);
    if (!demangler)
        return NULL;
    int status = -1;
    char *out = demangler(mangled, NULL, NULL, &status);
    if (status != 0) {
        free(out);
        return NULL;
    }
    return out;
}

/* Index of the '(' opening the top-level parameter list at the end of s
 * (after which only ")" and qualifiers follow); -1 when none. */
static long params_open(const char *s, size_t n)
{
    int depth = 0;
    for (size_t i = n; i-- > 0;) {
        char c = s[i];
        if (c == ')' || c == '>' || c == ']')
            depth++;
        else if (c == '(' || c == '<' || c == '[') {
            if (--depth == 0 && c == '(')
                return (long)i;
            if (depth < 0)
                return -1;
        }
    }
    return -1;
}

bool occ__demangled_short(const char *d, const char **full, size_t *full_len, size_t *base_len)
{
    size_t n = strlen(d);
    long open = params_open(d, n);
    if (open <= 0)
        return false;
    /* The name starts after the last space outside <...> and (...): a
     * template function's return type comes before it. */
    size_t start = 0;
    int depth = 0;
    for (size_t i = 0; i < (size_t)open; i++) {
        char c = d[i];
        if (c == '<' || c == '(')
            depth++;
        else if ((c == '>' || c == ')') && depth > 0)
            depth--;
        else if (c == ' ' && depth == 0)
            start = i + 1;
    }
    size_t len = (size_t)open - start;
    if (len == 0)
        return false;
    *full = d + start;
    *full_len = len;
    /* Without the final template arguments: "k<8, double>" -> "k". */
    *base_len = len;
    if (d[start + len - 1] == '>') {
        depth = 0;
        for (size_t i = len; i-- > 0;) {
            char c = d[start + i];
            if (c == '>')
                depth++;
            else if (c == '<' && --depth == 0) {
                *base_len = i;
                break;
            }
        }
    }
    return *base_len > 0;
}
