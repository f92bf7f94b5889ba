#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# test_papi_stat_job.sh: utils/papi_stat in a parallel job (doc/cluster.md,
# doc/papi_stat.1), its launchers simulated by their environment
# variables: every "rank" is a papi_stat process of its own, no MPI or
# Slurm needed.
#
#  - Each launcher's variables are recognized, with the precedence the man
#    page gives (a row table: Open MPI, MPICH/Hydra, PMIx alone and under
#    srun, srun, a batch script without srun, mpirun inside an
#    allocation); the label names rank, size, host (hostname) and CPUs
#    (this shell's Cpus_allowed_list); bad values are exit 2.
#  - Jobs of 2 and 3 ranks started together into one --job-dir: rank r
#    runs a program (built here; SKIP without a C compiler) that touches
#    (r+1)*1500 pages and writes its own page faults (getrusage), so
#    each rank's row lies within that rank's own span: at least its
#    faults over the touching, at most its total; exactly one rank prints
#    the merged report; the merged sums equal the per-rank rows exactly;
#    min, max, their ranks, mean and max/mean are those of the rows.
#  - One rank under taskset -c 0: its CPUs are "0".
#  - A rank killed before it wrote (its command kills papi_stat): no rank
#    prints, --merge names "missing: rank 2 of 4" and exits 1.
#  - -r 3 per rank: "3 runs each" and a spread per event.
#  - CSV columns; -o FILE for --merge and for the printing rank.
#  - Bad input: exit 2 and a message naming it (a directory that is not
#    there, a partial file, a foreign file, different event lists, a rank
#    twice, sizes that disagree, a file renamed to another rank, a value
#    that is not a number, a broken rank line, options --merge does not
#    take); an empty directory is exit 1; no leak under valgrind (SKIP
#    without it).
#  - A rank's file is its report of -x , after four comment lines.
#
# Report protocol: ctests/lib/report.h (PASS:/FAIL:/SKIP: lines, "# " info).
set -u

# shellcheck source=../report.sh
. "$(dirname "$0")/../report.sh"
# shellcheck source=job_report.sh
. "$(dirname "$0")/job_report.sh"
check() { # name condition-status reason
	if [ "$2" -eq 0 ]; then pass "$1"; else fail "$1" "$3"; fi
}

top=$(cd "$(dirname "$0")/../.." && pwd)
ps=${top_builddir:-$top}/utils/papi_stat
if [ ! -x "$ps" ]; then
	fail setup "$ps was not built"
	exit 1
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/lope-papi-stat-job.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1

# Every launcher variable papi_stat reads, unset for each run.
launcher_vars=(OMPI_COMM_WORLD_RANK OMPI_COMM_WORLD_SIZE PMI_RANK PMI_SIZE
	PMIX_RANK PMIX_NAMESPACE OMPI_MCA_ess_base_jobid PMI_JOBID
	SLURM_PROCID SLURM_NTASKS SLURM_STEP_NUM_TASKS SLURM_STEP_ID
	SLURM_JOB_ID)
clean=(env)
for v in "${launcher_vars[@]}"; do clean+=(-u "$v"); done

host=$(hostname)
mycpus=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)
events=perf::TASK-CLOCK,perf::PAGE-FAULTS,perf::CONTEXT-SWITCHES
info "papi_stat: $ps; host $host; CPUs $mycpus"

# ---------------------------------------------------------------------
# Which launcher: name|variables|the label's start, "" for none|its source

while IFS='|' read -r name vars want from; do
	# shellcheck disable=SC2086 # the row's variables, split at blanks
	"${clean[@]}" $vars "$ps" -x, -e perf::TASK-CLOCK -- true 2>lab.out
	rc=$?
	label=$(sed -n 's/^# rank/rank/p' lab.out)
	if [ -z "$want" ]; then
		[ "$rc" = 0 ] && [ -z "$label" ]
	else
		[ "$rc" = 0 ] &&
			[ "$label" = "$want, host $host, CPUs $mycpus ($from)" ]
	fi
	check "launcher_$name" $? "rc $rc, label '${label}', want '${want:+$want, host $host, CPUs $mycpus ($from)}'"
done <<'EOF'
open_mpi|OMPI_COMM_WORLD_RANK=1 OMPI_COMM_WORLD_SIZE=4|rank 1 of 4|OMPI_COMM_WORLD_RANK, OMPI_COMM_WORLD_SIZE
mpich_hydra|PMI_RANK=2 PMI_SIZE=3|rank 2 of 3|PMI_RANK, PMI_SIZE
pmix_alone|PMIX_RANK=5|rank 5 (job size unknown)|PMIX_RANK
pmix_under_srun|PMIX_RANK=1 SLURM_STEP_ID=0 SLURM_PROCID=1 SLURM_STEP_NUM_TASKS=2|rank 1 of 2|PMIX_RANK, SLURM_STEP_NUM_TASKS
pmix_other_slurm_rank|PMIX_RANK=1 SLURM_STEP_ID=0 SLURM_PROCID=0 SLURM_STEP_NUM_TASKS=2|rank 1 (job size unknown)|PMIX_RANK
srun_step|SLURM_JOB_ID=9 SLURM_STEP_ID=3 SLURM_PROCID=1 SLURM_STEP_NUM_TASKS=2 SLURM_NTASKS=2|rank 1 of 2|SLURM_PROCID, SLURM_STEP_NUM_TASKS
srun_ntasks_only|SLURM_STEP_ID=0 SLURM_PROCID=2 SLURM_NTASKS=3|rank 2 of 3|SLURM_PROCID, SLURM_NTASKS
sbatch_script_no_step|SLURM_JOB_ID=9 SLURM_PROCID=0 SLURM_NTASKS=4||
sbatch_batch_step|SLURM_JOB_ID=9 SLURM_STEP_ID=4294967291 SLURM_PROCID=0 SLURM_NTASKS=4||
mpirun_in_allocation|OMPI_COMM_WORLD_RANK=3 OMPI_COMM_WORLD_SIZE=4 SLURM_STEP_ID=0 SLURM_PROCID=0 SLURM_STEP_NUM_TASKS=1|rank 3 of 4|OMPI_COMM_WORLD_RANK, OMPI_COMM_WORLD_SIZE
mpich_before_pmix|PMI_RANK=0 PMI_SIZE=2 PMIX_RANK=0|rank 0 of 2|PMI_RANK, PMI_SIZE
no_launcher|||
EOF

# Bad launcher values: exit 2, the variable named, the command not run.
while IFS='|' read -r name vars want; do
	rm -f ran
	# shellcheck disable=SC2086 # the row's variables, split at blanks
	"${clean[@]}" $vars "$ps" -e perf::TASK-CLOCK -- touch ran 2>bad.err
	rc=$?
	[ "$rc" = 2 ] && grep -qF -- "$want" bad.err && [ ! -e ran ]
	check "launcher_bad_$name" $? "rc $rc: $(head -c 200 bad.err)"
done <<'EOF'
rank_not_a_number|OMPI_COMM_WORLD_RANK=x OMPI_COMM_WORLD_SIZE=2|OMPI_COMM_WORLD_RANK=x is not a number
rank_beyond_size|PMI_RANK=3 PMI_SIZE=3|PMI_RANK=3 is not a rank of a job of 3
size_zero|SLURM_STEP_ID=0 SLURM_PROCID=0 SLURM_STEP_NUM_TASKS=0|SLURM_STEP_NUM_TASKS=0 is not a number from 1
EOF

# ---------------------------------------------------------------------
# A job: ranks started together into one directory.

cc=${CC:-cc}
touch_prog=
build_touch_prog "$cc" "$tmp" && touch_prog=$tmp/touch

# run_job NAME N VARS-STYLE: N ranks at once into job-NAME, rank r
# touching (r+1)*1500 pages; rank 0 under taskset -c 0 where it works.
run_job() {
	local name=$1 n=$2 style=$3 r vars pids=() pre
	for ((r = 0; r < n; r++)); do
		case $style in
		ompi) vars="OMPI_COMM_WORLD_RANK=$r OMPI_COMM_WORLD_SIZE=$n" ;;
		*) vars="SLURM_JOB_ID=5 SLURM_STEP_ID=0 SLURM_PROCID=$r SLURM_STEP_NUM_TASKS=$n" ;;
		esac
		pre=()
		[ "$r" = 0 ] && [ "$have_taskset" = 1 ] && pre=(taskset -c 0)
		# shellcheck disable=SC2086 # the variables, split at blanks
		"${pre[@]}" "${clean[@]}" $vars "$ps" --job-dir "job-$name" \
			-e "$events" -- "$touch_prog" $((1500 * (r + 1))) \
			"own-$name.$r" 2>"rank-$name.$r.err" &
		pids+=($!)
	done
	for r in "${pids[@]}"; do wait "$r" || info "$name: a rank exited $?"; done
}

have_taskset=0
taskset -c 0 true 2>/dev/null && have_taskset=1

if [ -z "$touch_prog" ]; then
	for n in 2 3; do
		for c in one_rank_prints summary_of_rows own_span taskset_cpus; do
			skip "job${n}_$c" "needs a C compiler ($cc): $(head -c 200 cc.err 2>/dev/null)"
		done
	done
else
	for n in 2 3; do
		style=ompi
		[ "$n" = 3 ] && style=slurm
		run_job "$n" "$n" "$style"
		printers=$(grep -l 'merged: ' rank-"$n".*.err | wc -l)
		[ "$printers" = 1 ]
		check "job${n}_one_rank_prints" $? "$printers ranks printed the merged report"
		"$ps" --merge "job-$n" -x ';' >"merged-$n.csv" 2>"merged-$n.err"
		rc=$?
		[ "$rc" = 0 ]
		check "job${n}_merge_exit_0" $? "rc $rc: $(head -c 300 "merged-$n.err")"
		check_merged "job$n" "merged-$n.csv" "$n" "$events"
		bad=
		for ((r = 0; r < n; r++)); do
			read -r own total <"own-$n.$r"
			v=$(rank_val "merged-$n.csv" perf::PAGE-FAULTS "$r")
			info "job$n rank $r: page faults $v; its own ${own:-?} over the touching, ${total:-?} in all"
			awk -v v="$v" -v lo="$own" -v hi="$total" 'BEGIN {
				exit !(v != "" && v >= lo && v <= hi) }' ||
				bad+="rank $r: $v not in ${own:-?}..${total:-?}; "
			[ "$(rank_val "merged-$n.csv" host "$r")" = "$host" ] ||
				bad+="rank $r: host $(rank_val "merged-$n.csv" host "$r"); "
		done
		[ -z "$bad" ]
		check "job${n}_own_span" $? "$bad"
		[ "$(sum_val "merged-$n.csv" perf::PAGE-FAULTS min_rank)" = 0 ] &&
			[ "$(sum_val "merged-$n.csv" perf::PAGE-FAULTS max_rank)" = $((n - 1)) ]
		check "job${n}_page_fault_min_max_ranks" $? \
			"min of rank $(sum_val "merged-$n.csv" perf::PAGE-FAULTS min_rank), max of rank $(sum_val "merged-$n.csv" perf::PAGE-FAULTS max_rank); rank r touched (r+1)*1500 pages"
		if [ "$have_taskset" = 1 ]; then
			c0=$(rank_val "merged-$n.csv" cpus 0)
			c1=$(rank_val "merged-$n.csv" cpus 1)
			[ "$c0" = 0 ] && [ "$c1" = "$mycpus" ]
			check "job${n}_taskset_cpus" $? "rank 0 (taskset -c 0): '$c0', rank 1: '$c1', want '0' and '$mycpus'"
		else
			skip "job${n}_taskset_cpus" "taskset -c 0 does not run here"
		fi
	done
	info "merged report of job3:"
	while IFS= read -r l; do info "$l"; done < <("$ps" --merge job-3)
fi

# ---------------------------------------------------------------------
# A rank that died: rank 2 of 4 kills its papi_stat before it writes.

for r in 0 1 2 3; do
	cmd=(true)
	# shellcheck disable=SC2016 # $PPID of the sh: its papi_stat
	[ "$r" = 2 ] && cmd=(sh -c 'kill -KILL $PPID')
	# in the background: the shell says nothing of the one killed
	"${clean[@]}" PMI_RANK=$r PMI_SIZE=4 "$ps" --job-dir job-dead \
		-e "$events" -- "${cmd[@]}" 2>"dead.$r.err" &
	wait $!
done
printed=$(cat dead.*.err)
"$ps" --merge job-dead >dead.out 2>dead.err
rc=$?
[ "$rc" = 1 ] && grep -q '# missing: rank 2 of 4$' dead.out &&
	grep -q 'merged: 3 of 4 ranks' dead.out && grep -q 'wrote no file' dead.err &&
	! grep -q 'merged: ' <<<"$printed"
check missing_rank_named_exit_1 $? "rc $rc; report: $(head -c 400 dead.out); stderr: $(head -c 200 dead.err)"

# ---------------------------------------------------------------------
# -r 3 per rank; CSV columns; -o.

for r in 0 1; do
	"${clean[@]}" OMPI_COMM_WORLD_RANK=$r OMPI_COMM_WORLD_SIZE=2 "$ps" -r 3 \
		--job-dir job-r3 -o r3.printed -e "$events" -- true 2>"r3.$r.err"
done
"$ps" --merge job-r3 >r3.out
grep -q "merged: 2 of 2 ranks (3 runs each):" r3.out &&
	grep -q "each rank's value is its mean over its runs" r3.out &&
	[ "$(grep -cE '^ perf::[A-Z-]+ .* +[0-9.]+%$' r3.out)" = 3 ]
check repeat_3_per_rank $? "$(head -c 600 r3.out)"
cmp -s r3.out r3.printed && [ ! -s r3.0.err ] && [ ! -s r3.1.err ]
check job_dir_output_file $? "the printing rank's -o file differs from --merge: $(head -c 300 r3.printed)"

"$ps" --merge job-r3 -x ';' -o r3.csv >r3.stdout
hdr1=$(grep '^event;' r3.csv)
hdr2=$(grep '^rank;' r3.csv)
badrows=$(awk -F';' '/^#/ { next }
	/^event;/ { n = 10; next } /^rank;/ { n = 3 + 4; next }
	NF != n || (n == 10 && $10 !~ /^[0-9.]+%$/) { print }' r3.csv)
[ ! -s r3.stdout ] &&
	[ "$hdr1" = "event;unit;sum;min;min_rank;max;max_rank;mean;imbalance;rank_spread" ] &&
	[ "$hdr2" = "rank;host;cpus;${events//,/;};time-elapsed" ] &&
	[ -z "$badrows" ] && [ "$(grep -vc '^#' r3.csv)" = 8 ]
check csv_columns $? "headers '$hdr1' '$hdr2'; bad rows: $badrows; stdout $(head -c 100 r3.stdout)"

# ---------------------------------------------------------------------
# Bad input.

mk_rank() { # DIR RANK SIZE EVENTS
	"${clean[@]}" PMI_RANK="$2" PMI_SIZE="$3" "$ps" --job-dir "$1" -e "$4" \
		-- true 2>/dev/null
}
# The rank file is the rank's report of -x , after its four own comment
# lines: the same comment lines, units and events as papi_stat -x , prints.
mk_rank d-csv 1 2 "$events"
"${clean[@]}" PMI_RANK=1 PMI_SIZE=2 "$ps" -x , -e "$events" -- true 2>x.csv
f=$(ls d-csv/rank-1.*)
unit_event() { awk -F, '/^#/ { print; next } { print $2 "," $3 }' "$@"; }
[ "$(head -n 4 "$f")" = "$(printf '# papi_stat rank file 2\n# command: true\n# job: \n# runs: 1')" ] &&
	[ "$(tail -n +5 "$f" | unit_event)" = "$(unit_event x.csv)" ]
check rank_file_is_x_csv $? "$(head -c 600 "$f") -- -x , printed: $(head -c 400 x.csv)"

mk_rank d-events 0 2 perf::TASK-CLOCK
mk_rank d-events 1 2 perf::PAGE-FAULTS
mk_rank d-twice 0 2 perf::TASK-CLOCK
mk_rank d-twice 0 2 perf::TASK-CLOCK
mk_rank d-size 0 2 perf::TASK-CLOCK
mk_rank d-size 1 3 perf::TASK-CLOCK
mk_rank d-partial 0 1 perf::TASK-CLOCK
f=$(ls d-partial/rank-0.*)
head -c 120 "$f" >part && mv part "$f"
mk_rank d-renamed 0 2 perf::TASK-CLOCK
cp d-renamed/rank-0.* d-renamed/rank-1.x.1
mkdir d-junk && echo junk >d-junk/rank-0.x.1
mk_rank d-value 0 1 perf::TASK-CLOCK
sed -i 's/^[0-9]*,ns,/x,ns,/' d-value/rank-0.*
mk_rank d-label 0 1 perf::TASK-CLOCK
sed -i 's/, CPUs / /' d-label/rank-0.*
mkdir d-empty
: >a-file
expect_bad_inputs "$ps" merge "$tmp" <<EOF
no_dir|--merge $tmp/no-such-dir|cannot read $tmp/no-such-dir
partial|--merge d-partial|incomplete
foreign_file|--merge d-junk|not a papi_stat rank file
value_not_a_number|--merge d-value|a value or spread is not a number
bad_rank_line|--merge d-label|not a rank line of papi_stat
events_differ|--merge d-events|count different events
rank_twice|--merge d-twice|rank 0 wrote twice
sizes_differ|--merge d-size|says the job has 3 ranks
renamed|--merge d-renamed|holds rank 0: not the rank in its name
with_command|--merge d-size -- true|--merge runs no command
with_events|--merge d-size -e perf::TASK-CLOCK|--merge takes only -o and -x
job_dir_a_file|--job-dir a-file -- true|a-file is not a directory
EOF
"$ps" --merge d-empty >empty.out 2>empty.err
rc=$?
[ "$rc" = 1 ] && grep -q 'no rank has written its file' empty.err
check merge_empty_dir_exit_1 $? "rc $rc: $(head -c 200 empty.err)"

if command -v valgrind >/dev/null 2>&1; then
	bad=
	for d in job-dead job-r3 d-partial d-events d-twice d-junk; do
		valgrind -q --leak-check=full --show-leak-kinds=all \
			--errors-for-leak-kinds=all --error-exitcode=99 \
			"$ps" --merge "$d" -x , >/dev/null 2>vg.err
		[ $? = 99 ] && bad+="$d: $(head -c 300 vg.err); "
	done
	[ -z "$bad" ]
	check merge_no_leak_valgrind $? "$bad"
else
	skip merge_no_leak_valgrind "valgrind not installed"
fi

[ "$nfail" -eq 0 ]
