# Summary of alternating launch-loop rounds (tests/hw/trace_overhead.sh,
# tests/hw/trace_gpu.sh).  Input lines:
#   round R VARIANT launches N mean_ns X median_ns Y min_ns Z
# Per variant: the median over rounds of its median ns per launch, and of the
# cost it adds over the round's "plain" run ("plain-vary" for *-vary), with
# every round's added cost, sorted.  awk -v rounds=N -v variants="a b ..."
{ med[$3] = med[$3] " " $9; round[$3, $2] = $9 }
END {
    printf "%-22s %10s %10s  (over %d rounds; ns per launch)\n", "variant", "median", "added", rounds
    n = split(variants, vs, " ")
    for (i = 1; i <= n * 2; i++) {
        v = i <= n ? vs[i] : vs[i - n] "-vary"
        if (!(v in med))
            continue
        base = v ~ /-vary$/ ? "plain-vary" : "plain"
        split(med[v], a, " ")
        k = 0
        split("", d)
        for (r = 1; r <= rounds; r++)
            if ((v, r) in round && (base, r) in round)
                d[++k] = round[v, r] - round[base, r]
        printf "%-22s %10.1f %10.1f  added per round, sorted:", v, mid(a), mid(d)
        for (j = 1; j <= k; j++)
            printf " %.0f", d[j]
        printf "\n"
    }
}
function mid(x,    n, i, j, t) {
    n = 0
    for (i in x)
        n++
    for (i = 1; i <= n; i++)
        for (j = i + 1; j <= n; j++)
            if (x[j] < x[i]) { t = x[i]; x[i] = x[j]; x[j] = t }
    return n % 2 ? x[(n + 1) / 2] : (x[n / 2] + x[n / 2 + 1]) / 2
}
