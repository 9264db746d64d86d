/* Numbers in files read and written the same way under any locale: a host
 * program (Python under setlocale(LC_ALL, "de_DE.UTF-8"), say) may have
 * made ',' the decimal point, and strtod/printf follow it.  The calling
 * thread switches to the "C" locale for the parse or the write and back;
 * other threads are not touched (uselocale is per thread, POSIX 2008). */
#include "common/internal.h"

#include <locale.h>
#include <stdlib.h>

/* The "C" locale object, made once and kept (a race makes two; one stays). */
static locale_t c_locale(void)
{
    static locale_t made;
    locale_t l = __atomic_load_n(&made, __ATOMIC_ACQUIRE);
    if (l)
        return l;
    l = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    if (!l)
        return (locale_t)0;
    locale_t expected = (locale_t)0;
    if (!__atomic_compare_exchange_n(&made, &expected, l, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        freelocale(l);
        l = expected;
    }
    return l;
}

occ_c_numbers occ__c_numbers_begin(void)
{
    locale_t l = c_locale();
    occ_c_numbers saved = {l ? uselocale(l) : (locale_t)0};
    return saved;
}

void occ__c_numbers_end(occ_c_numbers saved)
{
    if (saved.previous)
        uselocale(saved.previous);
}

double occ__strtod_c(const char *s, char **end)
{
    occ_c_numbers saved = occ__c_numbers_begin();
    double v = strtod(s, end);
    occ__c_numbers_end(saved);
    return v;
}
