#!/usr/bin/env python3
"""How the H100 refills its SMs, from a dispatch campaign's records (no GPU).

    python3 tests/hw/dispatch_refill.py measure RECORDS...   the evidence per configuration
    python3 tests/hw/dispatch_refill.py check PARAMS RECORDS...   verdicts of the timed model
    python3 tests/hw/dispatch_refill.py fit PARAMS RECORDS...     fit on half, check on the other
    python3 tests/hw/dispatch_refill.py boundary PARAMS RECORDS...  refills per SM, measured and modelled
    python3 tests/hw/dispatch_refill.py slots RECORDS...   register-limited refills, slot by slot or drained
    python3 tests/hw/dispatch_refill.py regend FILES...    the per-warp experiment tests/hw/exp/regend.cu

RECORDS are record files (occcalc validate --records) or a campaign tarball
(tests/data/cuda/dispatch/*.tar.xz).  PARAMS is JSON with the timed model's
values in ns (docs/phases.md "Dispatch timing"): gap, launch, per_warp, core,
gpu, burst, drained, gpu_per_warp, and for refills in reports pause, window,
window_threads, report, spread, core_threads (refill_pause_ns,
refill_window_ns, refill_window_threads_ns, gpu_report_per_work_group_ns,
refill_gap_spread_ns, core_interval_threads_ns), and when the 32 block slots
limit pause_first, core_slots, burst_slots (refill_pause_first_ns,
core_interval_slots_ns, gpu_burst_slots_work_groups: round five); "fit"
searches the keys listed in "fit" (default gap, core, gpu, burst).  Five switches are
experiments of round four (docs/phases.md), not rules of the library, and are
off unless given: report_fixed (ns a report taken in, on top of report per
slot), frozen (1: a report holds the slots freed before it went out and within
report_window ns of it; slots freed while it waits for the dispatcher go to the
next group; not when warps alone limit), report_window, and fifo (1: among
the sends due, the core whose group opened first goes first, not the earliest
due) and gpu_slots (ns: the GPU interval when the 32 block slots limit);
round five's report_slots (ns a slot reported when the 32 block slots limit,
instead of report) was tried and dropped too.  smsp (1: a block's warps go
to the SM's four sub-partitions of 16 warp slots from a pointer that turns W
a block, and it starts once they have room; 2: and no sooner than the block
sent before it on the SM; 3: and the SM takes its next send once it started)
with smsp_cap (ns: held longer than this after its gap, it starts on the
opposite sub-partitions) is round five's rule for d062: smsp 3 with smsp_cap
is the library's sub_partition_hold_ns (1 and 2 were tried).
"check" and "fit" leave out the unequal-duration launches (_sp kernels) unless
PARAMS has unequal: 1 (round five: with drained: 0 as well, what the
register-limited _sp launches give refilled slot by slot).  The model here mirrors
libocc/src/timeline/dispatch_timed.c and dispatch_reports.c (spread order,
whole blocks) and the checks mirror occ_timeline_compare_over_time
(average occupancy within 1 point, distance within 2 points); it exists to
search parameter values quickly.  The library is the reference: the replay
test (tests/timeline/test_dispatch.c) runs the real code on every record.

"measure" prints, per configuration (W = warps per block, S = blocks per SM):
  launch      mean interval between the first S starts on one SM (ns)
  gap rank    median, over SMs, of the refill's start minus the end it replaces,
              by rank of the refill on its SM in the second wave
  after last  median of the SM's first refill minus its LAST end of the first
              wave (register-limited SMs refill only once empty)
  in batch    mean interval between refills of one SM closer than 150 ns
  gpu rate    the second wave's refills over the GPU: count / (last - first)

"slots" prints, per register-limited configuration (round five, docs/phases.md):
  running     how many of the SM's older blocks still run when it starts a
              block (0: the SM had drained), over all refills
  after end   median start minus the SM's most recent end (ns)
  k-th slot   median of the SM's k-th refill minus its k-th end (the slot it
              takes if slots are refilled in the order they free)
  wave 1      median, over SMs, of the first refill minus the SM's first and
              last end of the first wave, and of its last (S-th) refill
              minus its first
"regend" reads the per-warp files of tests/hw/exp/regend.cu (or its tarball,
tests/data/cuda/dispatch/2026-11-25/exp/regend-raw.tar.xz) and prints the
same for each launch twice: with warp 0's end time (what the campaign's probe
records) and with the block's last warp after its epilogue (and after warp
0's record in tests/hw/exp/regend2.cu, run 2026-11-25 12:11 UTC: exp/regend2-raw.tar.xz).

"boundary" prints, per configuration and wave boundary (1: the first wave's
slots refilled, 2: the second's), for the measurement and the model: how many
blocks an SM takes after the boundary (median, min, max) and the start of its
k-th block after the boundary minus its first end before it (10th, 50th and
90th percentiles over SMs, ns), and the start time of given block ids (ids
are handed out in dispatch order) and the last end.
"""
import collections
import heapq
import json
import os
import re
import sys
import tarfile

CORES, WARPS_PER_SM = 132, 64  # H100 SXM: 132 SMs of 64 warp slots


def read_records(name, lines):
    """One record file: (header dict, [(block, sm, start, end)] in ns)."""
    hdr, recs, inrec = {}, [], False
    for line in lines:
        if inrec:
            if line.startswith('end'):
                break
            p = line.split()
            recs.append((int(p[0]), int(p[2]), int(p[6]), int(p[7])))
        elif line.startswith('records '):
            inrec = True
        else:
            k, _, v = line.rstrip('\n').partition(' ')
            hdr.setdefault(k, v)
    return hdr, recs


def load(paths):
    """Every configuration of the given files or tarballs, sorted by name."""
    out = []
    for p in paths:
        if p.endswith('.tar.xz'):
            with tarfile.open(p) as t:
                for m in t.getmembers():
                    if m.name.endswith('.rec'):
                        text = t.extractfile(m).read().decode().splitlines()
                        out.append(Config(os.path.basename(m.name)[:-4], *read_records(m.name, text)))
        else:
            with open(p) as f:
                out.append(Config(os.path.basename(p)[:-4], *read_records(p, f)))
    return sorted(out, key=lambda c: c.name)


class Config:
    def __init__(self, name, hdr, recs):
        self.name = name
        m = re.search(r'wg=(\d+),(\d+),(\d+)', hdr['actual'])
        self.warps = (int(m.group(1)) * int(m.group(2)) * int(m.group(3)) + 31) // 32
        self.slots = int(hdr['driver_resident'])
        # registers bind: the register file (65536) allows no more blocks than
        # run, and the warp slots and the 32 block slots would allow more
        regs = int(re.search(r'regs=(\d+)', hdr['actual']).group(1))
        self.drain = 65536 // (regs * 32 * self.warps) <= self.slots < min(32, WARPS_PER_SM // self.warps)
        recs.sort()
        t0 = min(r[2] for r in recs)
        self.n = len(recs)
        self.meas = [(s - t0, e - t0) for _, _, s, e in recs]
        self.sm = [sm for _, sm, _, _ in recs]
        self.dur = [e - s for _, _, s, e in recs]  # in block id order = dispatch order
        self.spread = '-sp' in name


# ---- the evidence ------------------------------------------------------------

def med(v):
    v = sorted(v)
    return v[len(v) // 2] if v else float('nan')


def measure(c):
    S = c.slots
    by_sm = collections.defaultdict(list)
    for (s, e), sm in zip(c.meas, c.sm):
        by_sm[sm].append((s, e))
    launch, after_last, batch = [], [], []
    rank = collections.defaultdict(list)
    wave2 = []
    for v in by_sm.values():
        st = sorted(s for s, _ in v)
        en = sorted(e for _, e in v)
        launch += [st[j] - st[j - 1] for j in range(1, min(S, len(st)))]
        if len(st) <= S:
            continue
        after_last.append(st[S] - en[S - 1])
        w = st[S:2 * S]
        wave2 += w
        for j, s in enumerate(w):
            rank[j].append(s - en[j])
        batch += [w[j] - w[j - 1] for j in range(1, len(w)) if w[j] - w[j - 1] <= 150]
    mean = lambda v: sum(v) / len(v) if v else float('nan')
    rate = len(wave2) / (max(wave2) - min(wave2)) if len(wave2) > 1 else float('nan')
    print('%-44s W=%2d S=%2d%s launch %5.1f  after last %5s  in batch %5.1f  gpu rate %.2f/ns' %
          (c.name, c.warps, S, ' regs' if c.drain else '     ', mean(launch), med(after_last),
           mean(batch), rate))
    if rank:
        print('    gap rank', [med(rank[j]) for j in range(S) if rank[j]])


# ---- the timed model (mirror of dispatch_timed.c) and the checks --------------

def simulate(c, P, durs, cores=None):
    """[(start, end)] per block; P in ns (see the module's doc).  With
    reports, `cores` (a list of N) receives each block's core."""
    if P.get('pause', 0) > 0:
        return simulate_reports(c, P, durs, cores)
    N, S, w = c.n, c.slots, c.warps
    drain = c.drain and P.get('drained', 0) > 0
    gap = P['drained'] if drain else P['gap']
    per_wg = P['per_warp'] * w
    launch_iv, iv = max(P['launch'], per_wg), max(P['core'], per_wg)
    g = max(P['gpu'], P.get('gpu_per_warp', 0.0) * w)
    burst = P['burst'] * P['gpu']
    out, reserved, running, held = [None] * N, [0] * CORES, [0] * CORES, [0] * CORES
    nxt = [0.0] * CORES
    free = [(0, k) for k in range(CORES)]  # (reserved, core): spread order, ties to the lowest
    ret, T, i, tat = [], 0.0, 0, 0.0

    def retire(k):
        running[k] -= 1
        if drain:
            held[k] += 1
            if running[k]:
                return
            reserved[k] -= held[k]
            held[k] = 0
        else:
            reserved[k] -= 1
        heapq.heappush(free, (reserved[k], k))

    while True:
        while i < N:
            while free[0][0] != reserved[free[0][1]]:
                heapq.heappop(free)  # stale
            if free[0][0] >= S:
                break
            _, k = heapq.heappop(free)
            if T > 0:
                start = max(T + gap, nxt[k], tat - burst)
                tat = max(tat, start) + g
                nxt[k] = start + iv
            else:
                start = nxt[k]
                nxt[k] = start + launch_iv
            out[i] = (start, start + durs[i])
            reserved[k] += 1
            running[k] += 1
            heapq.heappush(free, (reserved[k], k))
            heapq.heappush(ret, (start + durs[i], k))
            i += 1
        if not ret:
            return out
        T, k = heapq.heappop(ret)
        retire(k)
        while ret and ret[0][0] == T:
            retire(heapq.heappop(ret)[1])


def simulate_reports(c, P, durs, cores=None):
    """Refills in reports (mirror of dispatch_reports.c): a core reports its
    freed slots in groups, one at a time; the dispatcher takes reports in one
    after another (P['report'] per slot), a group takes the slots freed within
    its window, its blocks are sent paced per SM and by the GPU's token bucket
    and start P['gap'] after their send (spread over the pairs of cores by
    P['spread']); the next group is asked for no sooner than P['pause'] after
    the group's last send."""
    N, S, W = c.n, c.slots, c.warps
    drain = c.drain and P.get('drained', 0) > 0
    per_wg = P['per_warp'] * W
    launch_iv, iv = max(P['launch'], per_wg), max(P['core'], per_wg)
    g = max(P['gpu'], P.get('gpu_per_warp', 0.0) * W)
    burst = P['burst'] * P['gpu']
    gap, pause = P['gap'], P['pause']
    pairs = (CORES + 1) // 2
    gap_of = [gap + P.get('spread', 0.0) * ((k // 2) / (pairs - 1) - 0.5) for k in range(CORES)]
    threads_limit = S * W >= WARPS_PER_SM and S < 32  # warps bind, the 32 block slots do not
    window = P.get('window_threads' if threads_limit else 'window', 0.0)
    if threads_limit and P.get('core_threads', 0) > 0:
        iv = max(P['core_threads'], per_wg)
    # the 32 block slots limit (the mirror of occ_residency.limited_by's
    # work-group slots): the keys of the first refill (round five)
    slots_limit = not threads_limit and S == 32
    if slots_limit and P.get('gpu_slots', 0) > 0:
        g = max(P['gpu_slots'], P.get('gpu_per_warp', 0.0) * W)
    if slots_limit and P.get('core_slots', 0) > 0:
        iv = max(P['core_slots'], per_wg)
    if slots_limit and P.get('burst_slots', 0) > 0:
        burst = P['burst_slots'] * P['gpu']
    pause_first = P.get('pause_first', 0) if slots_limit else 0
    report_of = P.get('report_slots', P.get('report', 0.0)) if slots_limit else P.get('report', 0.0)
    IDLE, OPEN, CLOSED, PAUSED, REPORTED, REPORTING = range(6)
    RETIRE, PAUSE_OVER, WINDOW_CLOSES, GROUP_OPENS, REPORT_SENT = range(5)
    # frozen: a report holds the slots freed before it went out and within
    # report_window of it; slots freed while it waits go to the next group
    frozen = P.get('frozen', 0) and not threads_limit
    held_in_report = [0] * CORES
    opened = [0.0] * CORES
    inf = float('inf')
    out = [None] * N
    core = cores if cores is not None else [0] * N
    running, held, waiting, pending = [0] * CORES, [0] * CORES, [0] * CORES, [0] * CORES
    state, queued, last_send = [IDLE] * CORES, [False] * CORES, [-inf] * CORES
    ev, sends = [], []
    i, tat, reports_free = 0, -inf, [-inf]
    # experiment (round five, `smsp`): a block's W warps go to the SM's four
    # sub-partitions (16 warp slots each) from a pointer that turns W a block,
    # in send order; a block starts only once each of its sub-partitions has
    # a free warp slot (the ends of the blocks there are known when it is sent)
    smsp = P.get('smsp', 0) if not drain else 0
    sub_ends = [[[] for _ in range(4)] for _ in range(CORES)]
    sub_ptr = [0] * CORES
    last_start = [-inf] * CORES

    def place(k, ready, dur):
        if not smsp:
            return ready
        subs = [(sub_ptr[k] + w) % 4 for w in range(W)]
        sub_ptr[k] = (sub_ptr[k] + W) % 4
        t = max(ready, last_start[k]) if smsp >= 2 else ready
        room = WARPS_PER_SM // 4
        for sp in set(subs):  # the latest time each of its sub-partitions has room
            ends = sorted(e for e in sub_ends[k][sp] if e > t)
            extra = len(ends) + subs.count(sp) - room
            if extra > 0:
                t = max(t, ends[extra - 1])
        hold = P.get('smsp_cap', 0)
        if hold and t > ready + hold:  # held too long: the other sub-partitions
            t = ready + hold
            subs = [(x + 2) % 4 for x in subs]
        for sp in range(4):
            sub_ends[k][sp] = [e for e in sub_ends[k][sp] if e > t]
        for sp in subs:
            sub_ends[k][sp].append(t + dur)
        last_start[k] = t
        return t

    for rnd in range(S):
        for k in range(CORES):
            if i < N:
                place(k, rnd * launch_iv, durs[i])
                out[i] = (rnd * launch_iv, rnd * launch_iv + durs[i])
                core[i] = k
                running[k] += 1
                heapq.heappush(ev, (out[i][1], RETIRE, k))
                i += 1

    def queue_send(k, t):
        if pending[k] and not queued[k]:
            queued[k] = True
            heapq.heappush(sends, (max(t, last_send[k] + iv), k))

    def report(k, t):
        if frozen:
            state[k] = REPORTING
            heapq.heappush(ev, (t + P.get('report_window', 0.0), REPORT_SENT, k))
            return
        t_in = max(t, reports_free[0])
        reports_free[0] = t_in + P.get('report_fixed', 0.0) + report_of * waiting[k]
        state[k] = REPORTED
        heapq.heappush(ev, (t_in, GROUP_OPENS, k))

    groups_done = [0] * CORES

    def group_done(k, t):
        state[k] = PAUSED
        p = pause_first if pause_first > 0 and not groups_done[k] else pause
        groups_done[k] += 1
        heapq.heappush(ev, (max(last_send[k] + p, t), PAUSE_OVER, k))

    while True:
        te = ev[0][0] if ev else inf
        if sends:
            t = max(sends[0][0], tat - burst)
            if t <= te:
                if P.get('fifo'):
                    x = min((x for x in sends if x[0] <= t), key=lambda x: (opened[x[1]], x[1]))
                    sends.remove(x)
                    heapq.heapify(sends)
                    k = x[1]
                else:
                    k = heapq.heappop(sends)[1]
                queued[k] = False
                if i < N:
                    tat = max(tat, t) + g
                    st = place(k, t + gap_of[k], durs[i])
                    out[i] = (st, st + durs[i])
                    core[i] = k
                    running[k] += 1
                    heapq.heappush(ev, (out[i][1], RETIRE, k))
                    i += 1
                pending[k] -= 1
                last_send[k] = t
                if smsp == 3 and last_start[k] > t + gap_of[k]:
                    # the SM takes its next block once this one has started
                    last_send[k] = last_start[k] - gap_of[k]
                if pending[k]:
                    queue_send(k, t)
                elif state[k] == CLOSED:
                    group_done(k, t)
                continue
        if not ev:
            return out
        T, kind, k = heapq.heappop(ev)
        if kind == RETIRE:
            running[k] -= 1
            if drain:
                held[k] += 1
                if running[k] == 0:
                    waiting[k] += held[k]
                    held[k] = 0
                    if state[k] == IDLE:
                        state[k] = PAUSED
                        heapq.heappush(ev, (T + P['drained'] - gap, PAUSE_OVER, k))
            elif state[k] == OPEN:
                pending[k] += 1
                queue_send(k, T)
            else:
                waiting[k] += 1
                if state[k] == IDLE:
                    report(k, T)
        elif kind == PAUSE_OVER:
            if state[k] == PAUSED:
                if waiting[k]:
                    report(k, T)
                else:
                    state[k] = IDLE
        elif kind == REPORT_SENT:
            t_in = max(T, reports_free[0])
            reports_free[0] = t_in + P.get('report_fixed', 0.0) + report_of * waiting[k]
            held_in_report[k] = waiting[k]
            waiting[k] = 0
            state[k] = REPORTED
            heapq.heappush(ev, (t_in, GROUP_OPENS, k))
        elif kind == GROUP_OPENS:
            state[k] = OPEN
            opened[k] = T
            if frozen:
                pending[k] += held_in_report[k]
                held_in_report[k] = 0
            else:
                pending[k] += waiting[k]
                waiting[k] = 0
            heapq.heappush(ev, (T + window, WINDOW_CLOSES, k))
            queue_send(k, T)
        elif state[k] == OPEN:  # WINDOW_CLOSES
            state[k] = CLOSED
            if not pending[k]:
                group_done(k, T)


def boundary(c, P):
    """The refills around the first two wave boundaries, measured and modelled."""
    S = c.slots
    cores = [0] * c.n
    pred = simulate(c, P, c.dur, cores)

    def q(v, f):
        v = sorted(v)
        return int(v[int(f * (len(v) - 1))]) if v else -1
    print('%s (W=%d S=%d, %d blocks)' % (c.name, c.warps, S, c.n))
    for label, iv, sms in (('meas', c.meas, c.sm), ('model', pred, cores)):
        by_sm = collections.defaultdict(list)
        for (s, e), k in zip(iv, sms):
            by_sm[k].append((s, e))
        for w in (1, 2):
            rel, count = collections.defaultdict(list), []
            for v in by_sm.values():
                v.sort()
                first_end = min(e for _, e in v[(w - 1) * S:w * S]) if len(v) > (w - 1) * S else 0
                after = v[w * S:(w + 1) * S]
                count.append(len(after))
                for j, (s, _) in enumerate(after):
                    rel[j].append(s - first_end)
            if not rel:
                continue
            print('  %-5s boundary %d: blocks per SM median %d (%d to %d)' %
                  (label, w, q(count, .5), min(count), max(count)))
            for f in (.1, .5, .9):
                print('    p%02d' % (f * 100), [q(rel[j], f) for j in range(S) if rel[j]])
        marks = [m for m in (S * CORES, S * CORES + 4 * CORES, 2 * S * CORES, c.n - 1) if m < c.n]
        print('  %-5s start of id %s; last end %d' % (label, ', '.join('%d: %d' % (m, iv[m][0]) for m in marks),
                                                     max(e for _, e in iv)))


def compare(c, pred):
    """(average difference, distance) in points, as occ_timeline_compare_over_time."""
    total = CORES * WARPS_PER_SM

    def steps(iv):
        s0 = min(s for s, _ in iv)
        end = max(e for _, e in iv)
        ev = collections.Counter()
        for s, e in iv:
            ev[s - s0] += c.warps
            ev[e - s0] -= c.warps
        return ev, sum(e - s for s, e in iv) * c.warps / (total * (end - s0))

    ep, ap = steps(pred)
    em, am = steps(c.meas)
    p = m = area = last = 0
    for t in sorted(set(ep) | set(em)):
        area += abs(p - m) * (t - last)
        last = t
        p += ep.get(t, 0)
        m += em.get(t, 0)
    return abs(ap - am) * 100, area / total / last * 100


def check(configs, P, show=True):
    ok = 0
    for c in configs:
        a, d = compare(c, simulate(c, P, c.dur))
        good = a <= 1.0 and d <= 2.0
        ok += good
        if show:
            print('%-44s %s  average %.2f  distance %.2f' % (c.name, 'pass' if good else 'FAIL', a, d))
    return ok


def family(c):
    return re.sub(r'-rep\d+$', '', c.name.split('-', 1)[1])


def halves(configs):
    """Half of the configurations to fit, the other half to check; the repeats
    of one configuration stay on one side."""
    n = collections.Counter(family(c) for c in configs)
    fams = sorted(n, key=lambda f: (n[f] > 1, f))
    first = set(fams[0::2])
    return [c for c in configs if family(c) in first], [c for c in configs if family(c) not in first]


def fit(configs, P, keys=('gap', 'core', 'gpu', 'burst')):
    """Coordinate search on the fitting half: passes first, then how far the
    others are beyond the tolerances."""
    def score(Q):
        s = 0.0
        for c in configs:
            a, d = compare(c, simulate(c, Q, c.dur))
            s += (a <= 1.0 and d <= 2.0) - 0.1 * (max(0, a - 1) + max(0, d - 2) / 2)
        return s
    step = {k: max(abs(P[k]) * 0.2, 1.0 if k == 'burst' else 0.01) for k in keys}
    best = score(P)
    for _ in range(3):
        for k in keys:
            for sign in (1, -1):
                while True:
                    Q = dict(P, **{k: max(0.0, P[k] + sign * step[k])})
                    s = score(Q)
                    if s <= best + 1e-9:
                        break
                    best, P = s, Q
        step = {k: v / 2 for k, v in step.items()}
    return P


# ---- register-limited refills (round five) ------------------------------------

def q50(v):
    return int(med(v)) if v else -1


def slot_refills(blocks, S):
    """blocks: [(sm, start, end)].  Per refill (a start after the SM's first S):
    how many older blocks still run, start minus the SM's most recent end, and
    start minus the SM's k-th end for its k-th refill; per SM its first wave."""
    by_sm = collections.defaultdict(list)
    for sm, s, e in blocks:
        by_sm[sm].append((s, e))
    running, after, kth, wave1 = collections.Counter(), [], [], []
    for v in by_sm.values():
        v.sort()
        ends = sorted(e for _, e in v)
        for k in range(S, len(v)):
            s = v[k][0]
            running[sum(1 for _, e in v[:k] if e > s)] += 1
            done = [e for _, e in v[:k] if e <= s]
            if done:
                after.append(s - max(done))
            kth.append(s - ends[k - S])
        if len(v) >= 2 * S:
            first = sorted(e for _, e in v[:S])
            refill = [s for s, _ in v[S:2 * S]]
            wave1.append((refill[0] - first[0], refill[0] - first[-1], refill[-1] - refill[0]))
    return running, after, kth, wave1


def print_slots(label, blocks, S):
    running, after, kth, wave1 = slot_refills(blocks, S)
    print('  %-22s running %s  after end %d  k-th slot %d  wave 1: first end %d, last end %d, S-th %d' % (
        label, dict(sorted(running.items())), q50(after), q50(kth), q50([w[0] for w in wave1]),
        q50([w[1] for w in wave1]), q50([w[2] for w in wave1])))


def regend_launches(paths):
    """The experiment's launches: name -> {block: [(sm, warp, t0, t1, t2)]},
    t2 the warp's last time (after its epilogue, and its record if it has one)."""
    texts = []
    for p in paths:
        if p.endswith('.tar.xz'):
            with tarfile.open(p) as t:
                texts += [(os.path.basename(m.name), t.extractfile(m).read().decode())
                          for m in t.getmembers() if m.name.endswith('.txt')]
        else:
            with open(p) as f:
                texts.append((os.path.basename(p), f.read()))
    out = {}
    for name, text in sorted(texts):
        warps = collections.defaultdict(list)
        for line in text.splitlines():
            b, sm, w, t0, t1, t2, *t3 = map(int, line.split())
            # regend2.cu adds warp 0's time after the record (t3, 0 for the others)
            warps[b].append((sm, w, t0, t1, max([t2] + t3)))
        out[name[:-4]] = warps
    return out


def regend(paths):
    """Refills against warp 0's end and against the block's last warp after
    its epilogue (4 blocks an SM in every launch of the experiment)."""
    for name, warps in regend_launches(paths).items():
        w0 = {b: min(ws, key=lambda x: x[1]) for b, ws in warps.items()}
        print(name)
        print_slots('warp 0 end', [(w0[b][0], w0[b][2], w0[b][3]) for b in warps], 4)
        print_slots('last warp, epilogue', [(w0[b][0], w0[b][2], max(x[4] for x in ws))
                                            for b, ws in warps.items()], 4)


def main(argv):
    if len(argv) < 3 or argv[1] not in ('measure', 'check', 'fit', 'boundary', 'slots', 'regend'):
        print(__doc__)
        return 2
    if argv[1] == 'measure':
        for c in load(argv[2:]):
            measure(c)
        return 0
    if argv[1] == 'slots':
        for c in load(argv[2:]):
            if c.drain and c.n > 2 * CORES * c.slots:
                print(c.name)
                print_slots('recorded end', [(sm, s, e) for (s, e), sm in zip(c.meas, c.sm)], c.slots)
        return 0
    if argv[1] == 'regend':
        regend(argv[2:])
        return 0
    P = json.loads(argv[2])
    keys = tuple(P.pop('fit', ('gap', 'core', 'gpu', 'burst')))
    if argv[1] == 'boundary':
        for c in load(argv[3:]):
            boundary(c, P)
        return 0
    unequal = P.pop('unequal', 0)
    configs = [c for c in load(argv[3:]) if unequal or not c.spread]
    if argv[1] == 'check':
        print('%d of %d pass' % (check(configs, P), len(configs)))
        return 0
    a, b = halves(configs)
    P = fit(a, P, keys)
    print('fitted on %d configurations: %s' % (len(a), json.dumps(P)))
    print('fitting half: %d of %d pass' % (check(a, P, False), len(a)))
    print('checking half: %d of %d pass' % (check(b, P, False), len(b)))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
