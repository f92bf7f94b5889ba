#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""hpcdb_lines.py DATABASE FILE FIRST LAST: what an hpcprof database holds.

For each thread of the database (hpcprof's output directory), and each
metric: its total, and its part on the lines FIRST to LAST of the source
file whose path ends in FILE, one line each:

    thread T METRIC total VALUE lines VALUE

A metric's value is hpcrun's: samples times the period.  It reads the
database with HPCToolkit's own reader (hpctesttool.formats, in the
source tree's lib/python, which PYTHONPATH must name; it needs
ruamel.yaml, Debian's python3-ruamel.yaml).  The total is the metric's
"execution" scope at the thread's roots (all its samples); the lines'
part its "lex_aware" scope at the source-line contexts there (the
samples of the instructions on those lines).
"""
import sys
from pathlib import Path

from hpctesttool.formats import from_path


def scope_ids(meta, scope):
    """Metric id of each metric's propagation scope @scope: {id: name}."""
    ids = {}
    for m in meta.metrics.metrics:
        for si in m.scope_insts:
            if si.scope.scope_name == scope:
                ids[si.prop_metric_id] = m.name
    return ids


def main(argv):
    if len(argv) != 5:
        sys.stderr.write(__doc__.splitlines()[0] + "\n")
        return 2
    db = from_path(Path(argv[1]))
    if db is None:
        sys.stderr.write(f"{argv[1]}: not an hpcprof database\n")
        return 1
    suffix, first, last = argv[2], int(argv[3]), int(argv[4])
    meta = db.meta
    ctxs = meta.context_map
    execution = scope_ids(meta, "execution")
    lex = scope_ids(meta, "lex_aware")
    roots = {e.ctx_id for e in meta.context.entry_points}
    for prof in db.profile.profile_infos.profiles:
        if prof.id_tuple is None:
            continue  # the summary of all threads
        thread = [i.logical_id for i in prof.id_tuple.ids
                  if meta.id_names.names[i.kind] == "THREAD"]
        total = dict.fromkeys(execution.values(), 0.0)
        lines = dict.fromkeys(execution.values(), 0.0)
        for ctx, vals in prof.values.items():
            c = ctxs.get(ctx)
            if ctx in roots:
                for mid, v in vals.items():
                    if mid in execution:
                        total[execution[mid]] += v
            elif (c is not None and c.lexical_type is not None
                  and c.lexical_type.name == "line"
                  and c.file is not None
                  and c.file.path.endswith(suffix)
                  and first <= c.line <= last):
                for mid, v in vals.items():
                    if mid in lex:
                        lines[lex[mid]] += v
        for name in sorted(total):
            print(f"thread {thread[0] if thread else '?'} {name} "
                  f"total {total[name]:.0f} lines {lines[name]:.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
