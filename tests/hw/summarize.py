#!/usr/bin/env python3
"""Rebuild the campaign's summary table from the raw records, without a GPU.

usage: summarize.py OCCCALC RECORDS.tar.xz [SUMMARY.tsv]

Every record file in the tarball is replayed with `occcalc validate --replay
--json`; one markdown table row per run goes to stdout, then the totals.  The
optional summary.tsv (written by cuda_campaign on the device) adds the
configurations the driver refused (they have no records)."""
import json
import os
import subprocess
import sys
import tarfile
import tempfile


def main():
    occ, tarball = sys.argv[1], sys.argv[2]
    tsv = sys.argv[3] if len(sys.argv) > 3 else None
    rows, passed, failed = [], 0, []
    with tempfile.TemporaryDirectory() as tmp:
        with tarfile.open(tarball) as t:
            members = sorted((m for m in t.getmembers() if m.name.endswith('.rec')),
                             key=lambda m: m.name)
            for m in members:
                t.extract(m, tmp)
                path = os.path.join(tmp, m.name)
                p = subprocess.run([occ, 'validate', '--replay', path, '--json'],
                                   capture_output=True, text=True)
                d = json.loads(p.stdout)
                c, a, core = d['comparison'], d['actual'], d['core']
                name = os.path.basename(m.name)[:-4]
                lim = '+'.join(core['limited_by'])
                wg = 'x'.join(str(x) for x in a['wg'] if x > 1) or '1'
                carve = 'default' if a['carveout_pct'] < 0 else '%d %%' % a['carveout_pct']
                ok = d['pass']
                passed += ok
                if not ok:
                    failed.append(name)
                rows.append('| %s | %s | %d | %d | %s | %s | %d | %s | %s | %d | %d | %d / %d | %.2f | %.1f %% | %s |' % (
                    name, wg, a['regs_per_thread'], a['slm_bytes'], carve, 'yes' if a['barrier'] else '',
                    d['launch']['work_groups'], lim, core['resident_work_groups'],
                    d['driver_resident'] if d['driver_resident'] is not None else -1,
                    c['predicted_peak_per_core'], c['predicted_phases'], c['measured_phases'],
                    c['max_occupancy_diff_pp'], 100 * c['max_duration_diff_rel'],
                    'pass' if ok else '**' + c['summary'] + '**'))
    refused = []
    if tsv:
        for line in open(tsv):
            f = line.rstrip('\n').split('\t')
            if len(f) > 13 and f[13].startswith('refused'):
                refused.append('| %s | %s | %s |' % (f[0], f[1], f[13]))
    print('| run | WG | regs | shared B | carveout | barrier | groups | model limit | model | driver | '
          'max WGs/SM pred | phases pred / meas | max occ. diff (pp) | max dur. diff | result |')
    print('|' + ' --- |' * 15)
    print('\n'.join(rows))
    if refused:
        print('\nRefused by the driver (the model also says "cannot launch"):\n')
        print('| run | why | outcome |')
        print('| --- | --- | --- |')
        print('\n'.join(refused))
    print('\n%d runs replayed: %d pass, %d fail (%s)' % (len(rows), passed, len(failed), ', '.join(failed)))


if __name__ == '__main__':
    main()
