# SPDX-License-Identifier: BSD-3-Clause
# shellcheck shell=bash
# Sourced by the tests of papi_stat's job mode (test_papi_stat_job.sh,
# ctests/cluster/test_slurm.sh), after ctests/report.sh: reading the CSV
# of a merged report (papi_stat --merge DIR -x ';') and checking its
# summary against its per-rank rows.

# The value of column $2 (by header name) for rank $3 in the per-rank
# rows of the CSV report $1 (separator ';').
rank_val() {
	awk -F';' -v c="$2" -v r="$3" '
		$1 == "rank" { for (i = 1; i <= NF; i++) col[$i] = i; rows = 1; next }
		rows && $1 == r { print $(col[c]) }' "$1"
}
# Field $3 (by header name) of event $2's summary row in $1.
sum_val() {
	awk -F';' -v e="$2" -v c="$3" '
		$1 == "event" { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$1 == "rank" { exit }
		col["sum"] && $1 == e { print $(col[c]) }' "$1"
}

# check_merged NAME CSV N EVENTS: the case NAME_summary_of_rows: the
# summary of every event of EVENTS (comma-separated) and of the elapsed
# time is that of the N per-rank rows: the sum exactly, min, max and their
# (lowest) ranks, the mean and max/mean to 0.001.
check_merged() {
	local name=$1 csv=$2 n=$3 events=$4 e bad=
	for e in ${events//,/ } time-elapsed; do
		bad+=$(awk -F';' -v e="$e" -v n="$n" '
			$1 == "event" { for (i = 1; i <= NF; i++) sc[$i] = i; next }
			$1 == "rank" { for (i = 1; i <= NF; i++) rc[$i] = i; rows = 1; next }
			/^#/ { next }
			!rows && $1 == e { for (k in sc) s[k] = $(sc[k]) }
			rows { v = $(rc[e]); cnt++; sum += v
				if (cnt == 1 || v < mn) { mn = v; mnr = $1 }
				if (cnt == 1 || v > mx) { mx = v; mxr = $1 } }
			END {
				d = (e == "time-elapsed") ? 1e-8 : 0
				mean = sum / cnt; imb = mean > 0 ? mx / mean : 1
				if (cnt != n) print e ": " cnt " rows, not " n "; "
				if (s["sum"] - sum > d || sum - s["sum"] > d)
					print e ": sum " s["sum"] " but rows add to " sum "; "
				if (s["min"] != mn || s["min_rank"] != mnr)
					print e ": min " s["min"] " of rank " s["min_rank"] ", rows " mn " of " mnr "; "
				if (s["max"] != mx || s["max_rank"] != mxr)
					print e ": max " s["max"] " of rank " s["max_rank"] ", rows " mx " of " mxr "; "
				if (s["mean"] - mean > 0.001 || mean - s["mean"] > 0.001)
					print e ": mean " s["mean"] ", rows " mean "; "
				if (s["imbalance"] - imb > 0.001 || imb - s["imbalance"] > 0.001)
					print e ": imbalance " s["imbalance"] ", rows " imb "; "
			}' "$csv")
	done
	if [ -z "$bad" ]; then
		pass "${name}_summary_of_rows"
	else
		fail "${name}_summary_of_rows" "$bad"
	fi
}

# build_touch_prog CC DIR: DIR/touch, built with CC from DIR/touch.c
# (compiler errors in DIR/cc.err): `touch PAGES OUT` touches PAGES new
# pages and writes to OUT "OWN TOTAL", its page faults (getrusage) over
# the touching and over its whole life: the least and the most that
# papi_stat's perf::PAGE-FAULTS of it can be.  Status: the compiler's.
build_touch_prog() {
	cat >"$2/touch.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

static long faults(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_minflt + ru.ru_majflt;
}

/* touch PAGES OUT: touch PAGES new pages; OUT gets "OWN TOTAL", its
 * faults over the touching and over its whole life. */
int main(int argc, char **argv)
{
	long n, i, page = sysconf(_SC_PAGESIZE), f0, f1;
	volatile char *p;
	FILE *out;

	if (argc != 3)
		return 2;
	n = atol(argv[1]);
	f0 = faults();
	p = malloc((size_t)(n * page));
	if (!p)
		return 1;
	for (i = 0; i < n; i++)
		p[i * page] = 1;
	f1 = faults();
	out = fopen(argv[2], "w");
	if (!out)
		return 1;
	fprintf(out, "%ld %ld\n", f1 - f0, faults());
	return fclose(out) != 0;
}
EOF
	"$1" -O2 -o "$2/touch" "$2/touch.c" 2>"$2/cc.err"
}
