#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# test_slurm.sh: a one-node Slurm cluster, started and stopped inside this
# test, running jobs on our libpapi (doc/cluster.md, "The one-node Slurm
# cluster in the suite").
#
# Set-up, all in a temporary directory, beside whatever munged or Slurm
# the system runs (none of its sockets, ports or files is touched): a
# MUNGE key made here and munged on its own socket; slurm.conf with its
# own free ports, AuthInfo=socket= that socket, no cgroups
# (proctrack/linuxproc, task/none, jobacct_gather/none), select/cons_tres,
# SlurmUser=root, state, spool, logs, pid files and TmpFS here, job ids
# from the port on (FirstJobId), so that a second such cluster on this
# machine (another run of the suite) shares no job id: the PMIx server's
# socket, Open MPI's session and shared memory are named by it, and two
# job 1s once made srun's ranks end without a report; slurmctld and
# slurmd in the foreground (-D), so that their pids are this shell's
# children.  Every wait is bounded; a wait that times out prints the
# daemons' log tails as "# " lines and FAILs.
#
# Cases:
#  - munge_round_trip, node_idle: the cluster is up;
#  - srun_pmix_*: ctests/mpi/test_mpi_ranks.c as `srun -n 2 --mpi=pmix`
#    (cases described there: every rank on our libpapi, counts within each
#    rank's and thread's own span, MPI_Reduce's sums equal MPI_Gather's
#    rows); SKIP without mpicc or without Slurm's pmix plugin;
#  - srun_stat_*: `srun -n 2 --multi-prog` of papi_stat --job-dir over a
#    program that touches 1500 pages in rank 0 and 3000 in rank 1 and
#    writes its own page faults: one rank prints the merged report; the
#    labels name the rank from SLURM_PROCID and the job id; the merged
#    sums equal the per-rank rows exactly; each rank's page faults lie
#    within its own span (its own faults over the touching .. over its
#    life);
#  - sbatch_*: a batch script written here whose step runs the same under
#    srun and which writes the merged report itself (papi_stat --merge in
#    the script): the job completes within its bound, exit 0, and the
#    report it wrote passes the same checks;
#  - no_daemon_left: after the stop (also on a FAIL, on exit and on
#    SIGINT/SIGTERM: trap), no slurmctld, slurmd, slurmstepd or munged that
#    was not running before the test is left.
#
# SKIPs the whole test, saying why, when not root, when Slurm or munge is
# not installed (scripts/install-deps.sh installs them), or when munged
# cannot start (its log tail shown).
#
# Report protocol: ctests/lib/report.h (PASS:/FAIL:/SKIP: lines, "# " info).
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
# shellcheck source=../report.sh
. "$top/ctests/report.sh"
# shellcheck source=../papi/job_report.sh
. "$top/ctests/papi/job_report.sh"
# shellcheck source=../mpi/mpi_ranks.sh
. "$top/ctests/mpi/mpi_ranks.sh"

if [ "$(id -u)" -ne 0 ]; then
	skip slurm "not root: slurmd runs jobs as their users only as root"
	exit 0
fi
for t in munged munge unmunge slurmctld slurmd srun sbatch sinfo squeue scontrol; do
	if ! command -v "$t" >/dev/null 2>&1; then
		skip slurm "$t not installed (scripts/install-deps.sh installs slurm-wlm and munge)"
		exit 0
	fi
done
use_papi_ours
ps_bin=${top_builddir:-$top}/utils/papi_stat
if [ ! -x "$ps_bin" ]; then
	fail setup "$ps_bin was not built"
	exit 1
fi
t_start=$(date +%s)
info "$(slurmctld -V 2>&1), $(munged --version 2>&1 | sed -n 1p)"

daemons=(slurmctld slurmd slurmstepd munged)
# "PID NAME" of each live process (not a zombie) named one of $daemons,
# one a line.
daemon_pids() {
	local d c st
	for d in /proc/[0-9]*; do
		c=$(cat "$d/comm" 2>/dev/null) || continue
		case " ${daemons[*]} " in
		*" $c "*) ;;
		*) continue ;;
		esac
		st=$(sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' "$d/status" 2>/dev/null)
		[ "$st" = Z ] || echo "${d#/proc/} $c"
	done
}
# new_daemons [NAME]: the lines of daemon_pids (named NAME) that were not
# there before the test.
new_daemons() {
	local p c
	while read -r p c; do
		[ -n "$p" ] || continue
		[ -z "${1:-}" ] || [ "$c" = "$1" ] || continue
		grep -qx "$p $c" <<<"$before" || echo "$p $c"
	done < <(daemon_pids)
}
before=$(daemon_pids)

tmp=$(mktemp -d "${TMPDIR:-/tmp}/lope-slurm.XXXXXX") || exit 1
chmod 700 "$tmp"
declare -A pid_of=()

# log_tail NAME FILE: the last lines of a log as information.
log_tail() {
	local l
	[ -f "$2" ] || return 0
	info "$1 log ($2), last lines:"
	while IFS= read -r l; do info "  $l"; done < <(tail -n 15 "$2")
}

# stop NAME: SIGTERM to the daemon NAME we started, then SIGKILL after 10 s.
stop() {
	local pid=${pid_of[$1]:-} i
	[ -n "$pid" ] || return 0
	kill -TERM "$pid" 2>/dev/null
	for ((i = 0; i < 100; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$pid" 2>/dev/null; then
		info "$1 (pid $pid) still runs 10 s after SIGTERM: SIGKILL"
		kill -KILL "$pid" 2>/dev/null
	fi
	wait "$pid" 2>/dev/null
	unset "pid_of[$1]"
}

# Stop what we started: jobs cancelled, slurmd, any step daemon of ours
# left (a slurmstepd that was not running before), slurmctld, munged;
# then the case no_daemon_left, waiting for the processes to go (5 s).
cleanup_done=0
cleanup() {
	local left p c i
	[ "$cleanup_done" = 0 ] || return 0
	cleanup_done=1
	[ -z "${pid_of[slurmctld]:-}" ] ||
		timeout 10 scancel --user="$(id -un)" >/dev/null 2>&1
	for ((i = 0; i < 50; i++)); do
		[ -z "$(new_daemons slurmstepd)" ] && break
		sleep 0.1
	done
	stop slurmd
	while read -r p c; do
		[ -z "$p" ] || kill -KILL "$p" 2>/dev/null
	done < <(new_daemons slurmstepd)
	stop slurmctld
	stop munged
	for ((i = 0; i < 50; i++)); do
		left=$(new_daemons)
		[ -z "$left" ] && break
		sleep 0.1
	done
	if [ -z "$left" ]; then
		pass no_daemon_left
	else
		fail no_daemon_left "still running 5 s after the stop: $(tr '\n' ' ' <<<"$left")"
	fi
	info "test_slurm.sh: $(($(date +%s) - t_start)) s"
	rm -rf "$tmp"
	[ "$nfail" -eq 0 ] || exit 1
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ---------------------------------------------------------------------
# munged on its own socket and key.

mkdir -p "$tmp/munge" "$tmp/state" "$tmp/spool" "$tmp/log" "$tmp/run" "$tmp/tmpfs"
chmod 700 "$tmp/munge"
sock=$tmp/munge/munge.socket
if ! dd if=/dev/urandom of="$tmp/munge/munge.key" bs=1024 count=1 \
	status=none; then
	skip slurm "cannot write a MUNGE key in $tmp"
	exit 0
fi
chmod 400 "$tmp/munge/munge.key"
munged --foreground --force --socket="$sock" \
	--key-file="$tmp/munge/munge.key" --log-file="$tmp/log/munged.log" \
	--pid-file="$tmp/run/munged.pid" --seed-file="$tmp/munge/seed" \
	>"$tmp/log/munged.out" 2>&1 &
pid_of[munged]=$!
for ((i = 0; i < 50; i++)); do
	[ -S "$sock" ] && break
	kill -0 "${pid_of[munged]}" 2>/dev/null || break
	sleep 0.1
done
if [ ! -S "$sock" ]; then
	skip slurm "munged did not start (no socket $sock within 5 s): $(tail -n 3 "$tmp/log/munged.out" "$tmp/log/munged.log" 2>/dev/null | tr '\n' ' ')"
	exit 0
fi
got=
if cred=$(munge --socket="$sock" -s lope 2>&1) &&
	got=$(unmunge --socket="$sock" <<<"$cred" 2>&1) &&
	[[ $got == *"STATUS:"*"Success"* ]] && [[ $got == *lope* ]]; then
	pass munge_round_trip
else
	fail munge_round_trip "$(head -c 300 <<<"${got:-$cred}")"
	log_tail munged "$tmp/log/munged.log"
	exit 1
fi

# ---------------------------------------------------------------------
# slurm.conf: two free ports, this host as the one node.

# port_free PORT: nothing listens on it on this host.
port_free() {
	! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}
ctld_port=
for ((p = 16817 + RANDOM % 2000, i = 0; i < 200; i++, p += 2)); do
	if port_free "$p" && port_free $((p + 1)); then
		ctld_port=$p
		break
	fi
done
if [ -z "$ctld_port" ]; then
	fail setup "no two free ports found from 16817 on"
	exit 1
fi
host=$(hostname -s)
ncpu=$(nproc)
# Two tasks must fit, one CPU each: on one CPU say two (config_overrides
# keeps the node usable).
[ "$ncpu" -ge 2 ] || ncpu=2
export SLURM_CONF=$tmp/slurm.conf
# FirstJobId: the port (below 19217 here) times 1000, far below Slurm's
# MaxJobId (67043328), 2000 or more apart for two clusters at once.
: >"$tmp/plugstack.conf"
cat >"$SLURM_CONF" <<EOF
ClusterName=lopetest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
FirstJobId=$((ctld_port * 1000))
SlurmdPort=$((ctld_port + 1))
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$sock
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool/slurmd-%n
TmpFS=$tmp/tmpfs
SlurmctldPidFile=$tmp/run/slurmctld.pid
SlurmdPidFile=$tmp/run/slurmd.pid
SlurmctldLogFile=$tmp/log/slurmctld.log
SlurmdLogFile=$tmp/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
PlugStackConfig=$tmp/plugstack.conf
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
MpiDefault=none
SlurmdParameters=config_overrides
ReturnToService=2
MinJobAge=300
NodeName=$host NodeAddr=127.0.0.1 CPUs=$ncpu State=UNKNOWN
PartitionName=lope Nodes=$host Default=YES MaxTime=10 State=UP
EOF
# No cgroups: since Slurm 24 slurmd will not start without a cgroup
# filesystem unless its cgroup plugin is disabled (cgroup.conf, beside
# slurm.conf; the value exists since 23.02), and a chroot or a container
# may have none mounted (Debian 13's 24.11 in a debootstrap chroot).
slurm_major=$(slurmctld -V 2>&1 | sed -n 's/^slurm[-a-z]* \([0-9][0-9]*\)\..*/\1/p')
if [ "${slurm_major:-0}" -ge 24 ]; then
	echo "CgroupPlugin=disabled" >"$tmp/cgroup.conf"
fi
info "slurm.conf: ports $ctld_port and $((ctld_port + 1)), node $host with $ncpu CPUs${slurm_major:+, Slurm $slurm_major}$([ -f "$tmp/cgroup.conf" ] && echo ', cgroup plugin disabled')"

slurmctld -D -f "$SLURM_CONF" >"$tmp/log/slurmctld.out" 2>&1 &
pid_of[slurmctld]=$!
slurmd -D -f "$SLURM_CONF" >"$tmp/log/slurmd.out" 2>&1 &
pid_of[slurmd]=$!

# daemon_logs: every log tail, after a wait that timed out.
daemon_logs() {
	local d
	for d in munged slurmctld slurmd; do
		log_tail "$d" "$tmp/log/$d.log"
		log_tail "$d (stderr)" "$tmp/log/$d.out"
	done
}

state=
for ((i = 0; i < 300; i++)); do
	state=$(sinfo -h -N -n "$host" -o %t 2>/dev/null)
	[ "$state" = idle ] && break
	sleep 0.1
done
if [ "$state" = idle ]; then
	pass node_idle "after $((i / 10)).$((i % 10)) s"
else
	fail node_idle "node $host is '${state:-not known}' after 30 s"
	daemon_logs
	exit 1
fi

# ---------------------------------------------------------------------
# srun -n 2 --mpi=pmix of the MPI program.

if ! command -v mpicc >/dev/null 2>&1; then
	skip srun_pmix "mpicc not installed (scripts/install-deps.sh installs libopenmpi-dev)"
elif ! grep -qw pmix <<<"$(srun --mpi=list 2>&1)"; then
	skip srun_pmix "Slurm has no pmix plugin (srun --mpi=list: $(srun --mpi=list 2>&1 | tr '\n' ' '))"
elif ! mpi_ranks_build "$top" "$tmp/test_mpi_ranks"; then
	fail srun_pmix_mpicc_build "$(head -c 600 "$tmp/test_mpi_ranks.err")"
else
	mkdir "$tmp/mpi"
	timeout 90 srun -n 2 --mpi=pmix "$tmp/test_mpi_ranks" "$tmp/mpi" \
		"$(mpi_ranks_libpapi)" >"$tmp/srun-mpi.out" 2>&1
	rc=$?
	mpi_ranks_report srun_pmix "$tmp/mpi" 2
	if [ "$rc" -eq 0 ]; then
		pass srun_pmix_exit_0
	else
		fail srun_pmix_exit_0 "srun exited $rc: $(tail -c 400 "$tmp/srun-mpi.out")"
		[ "$rc" -ne 124 ] || daemon_logs
	fi
fi

# ---------------------------------------------------------------------
# papi_stat --job-dir under srun and in a batch job.

events=perf::TASK-CLOCK,perf::PAGE-FAULTS,perf::CONTEXT-SWITCHES
if ! build_touch_prog "${CC:-cc}" "$tmp"; then
	skip srun_stat "needs a C compiler (${CC:-cc}): $(head -c 200 "$tmp/cc.err")"
	skip sbatch "needs a C compiler (${CC:-cc}): $(head -c 200 "$tmp/cc.err")"
	exit 0
fi

# multi_prog NAME: the srun --multi-prog file of job NAME: rank r runs
# papi_stat --job-dir over touch of (r+1)*1500 pages, its own faults to
# own-NAME.r, the merged report to merged-NAME.txt.
multi_prog() {
	local r
	for r in 0 1; do
		echo "$r $ps_bin --job-dir $tmp/job-$1 -o $tmp/merged-$1.txt -e $events -- $tmp/touch $((1500 * (r + 1))) $tmp/own-$1.$r"
	done >"$tmp/$1.conf"
}

# check_job NAME CSV: the merged report CSV of job NAME (2 ranks): its
# summary is that of its rows, each rank's page faults lie within that
# rank's own span and its host is this one; the printed report
# (merged-NAME.txt) says 2 of 2 ranks, from SLURM_PROCID.
check_job() {
	local name=$1 csv=$2 r v own total bad=
	check_merged "$name" "$csv" 2 "$events"
	for r in 0 1; do
		own='' total=''
		read -r own total <"$tmp/own-$name.$r"
		v=$(rank_val "$csv" perf::PAGE-FAULTS "$r")
		info "$name rank $r: page faults $v; its own ${own:-?} over the touching, ${total:-?} in all"
		awk -v v="$v" -v lo="$own" -v hi="$total" 'BEGIN {
			exit !(v != "" && lo != "" && v >= lo && v <= hi) }' ||
			bad+="rank $r: $v not in ${own:-?}..${total:-?}; "
		[ "$(rank_val "$csv" host "$r")" = "$(hostname)" ] ||
			bad+="rank $r: host '$(rank_val "$csv" host "$r")'; "
	done
	if [ -z "$bad" ]; then pass "${name}_rank_within_own_span"; else fail "${name}_rank_within_own_span" "$bad"; fi
	if grep -q 'merged: 2 of 2 ranks' "$tmp/merged-$name.txt" 2>/dev/null &&
		grep -q 'rank and size from SLURM_PROCID, SLURM_STEP_NUM_TASKS' "$tmp/merged-$name.txt"; then
		pass "${name}_printed_report"
	else
		fail "${name}_printed_report" "merged-$name.txt: $(head -c 300 "$tmp/merged-$name.txt" 2>/dev/null)"
	fi
}

multi_prog srun_stat
timeout 60 srun -n 2 --multi-prog "$tmp/srun_stat.conf" \
	>"$tmp/srun-stat.out" 2>&1
rc=$?
if [ "$rc" -eq 0 ]; then
	pass srun_stat_exit_0
else
	fail srun_stat_exit_0 "srun exited $rc: $(tail -c 400 "$tmp/srun-stat.out")"
	[ "$rc" -ne 124 ] || daemon_logs
fi
"$ps_bin" --merge "$tmp/job-srun_stat" -x ';' >"$tmp/srun_stat.csv" 2>"$tmp/srun_stat.err"
rc=$?
if [ "$rc" -eq 0 ]; then pass srun_stat_merge_exit_0; else fail srun_stat_merge_exit_0 "rc $rc: $(head -c 300 "$tmp/srun_stat.err")"; fi
check_job srun_stat "$tmp/srun_stat.csv"
while IFS= read -r l; do info "$l"; done <"$tmp/merged-srun_stat.txt"

multi_prog sbatch
cat >"$tmp/job.sh" <<EOF
#!/bin/sh
#SBATCH -n 2
#SBATCH -J lope-papi-stat
#SBATCH -o $tmp/sbatch.out
srun -n 2 --multi-prog $tmp/sbatch.conf || exit \$?
# The job writes its merged report itself, as a site's would.
$ps_bin --merge $tmp/job-sbatch -x ';' -o $tmp/sbatch.csv
EOF
jobid=$(sbatch --parsable "$tmp/job.sh" 2>"$tmp/sbatch.err")
if [ -z "$jobid" ]; then
	fail sbatch_submitted "$(head -c 300 "$tmp/sbatch.err")"
	exit 1
fi
pass sbatch_submitted "job $jobid"
for ((i = 0; i < 600; i++)); do
	[ -z "$(squeue -h -j "$jobid" 2>/dev/null)" ] && break
	sleep 0.1
done
jstate=$(scontrol show job "$jobid" 2>&1)
if grep -q 'JobState=COMPLETED' <<<"$jstate" && grep -q 'ExitCode=0:0' <<<"$jstate"; then
	pass sbatch_completed "in $((i / 10)).$((i % 10)) s"
else
	fail sbatch_completed "after $((i / 10)) s: $(grep -o 'JobState=[A-Z_]* .*Reason=[^ ]*\|ExitCode=[0-9:]*' <<<"$jstate" | tr '\n' ' ')"
	while IFS= read -r l; do info "sbatch.out: $l"; done < <(tail -n 10 "$tmp/sbatch.out" 2>/dev/null)
	[ "$i" -lt 600 ] || daemon_logs
fi
check_job sbatch "$tmp/sbatch.csv"

[ "$nfail" -eq 0 ]
