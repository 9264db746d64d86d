#include "advise_cli.h"

#include <stdlib.h>
#include <string.h>

#include "args.h"

bool parse_percent(const char *s, double *fraction)
{
    double v;
    if (!parse_positive_double(s, &v) || v > 100.0)
        return false;
    *fraction = v / 100.0;
    return true;
}

static const char *const limit_names[OCC_RES_COUNT] = {"thread contexts", "local memory", "registers",
                                                       "work-group slots", "barriers"};

void format_limited_by(char *buf, size_t size, uint32_t mask)
{
    format_limited_by_on(buf, size, mask, NULL);
}

void format_limited_by_on(char *buf, size_t size, uint32_t mask, const occ_device_desc *d)
{
    /* the vendor's words where it has them ("wave slots", "LDS", "VGPRs") */
    const occ_vendor_words *w = d ? occ_vendor_words_of(d->vendor) : NULL;
    char contexts[40];
    const char *names[OCC_RES_COUNT];
    memcpy(names, limit_names, sizeof names);
    if (w && w->context_word && w->register_word && w->local_memory_word) {
        snprintf(contexts, sizeof contexts, "%ss", w->context_word);
        names[OCC_RES_THREADS] = contexts;
        names[OCC_RES_SLM] = w->local_memory_word;
        names[OCC_RES_REGISTERS] = w->register_word;
    }
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < OCC_RES_COUNT && used + 1 < size; i++)
        if (mask & (1u << i)) {
            int n = snprintf(buf + used, size - used, "%s%s", used ? ", " : "", names[i]);
            used += n > 0 ? (size_t)n : 0;
        }
    if (!used)
        snprintf(buf, size, "-");
}

void doc_limited_by(doc *j, const char *key, uint32_t mask)
{
    doc_key(j, key);
    doc_begin_array(j);
    for (int i = 0; i < OCC_RES_COUNT; i++)
        if (mask & (1u << i))
            doc_str(j, occ_resource_name((occ_resource)i));
    doc_end_array(j);
}
