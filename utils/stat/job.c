/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * papi_stat as one rank of a parallel job: the rank and size from the
 * launcher's environment, the host and CPUs, the job directory, the rank
 * files in it (the format: job.h) and this rank's own.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../tool.h"
#include "job.h"
#include "stat.h"

#define SLURM_SIZE "SLURM_STEP_NUM_TASKS", "SLURM_NTASKS"
/* The rank only in an srun step; the size only there, from the task of
 * the same SLURM_PROCID. */
enum { RANK_IN_STEP = 1, SIZE_IN_STEP };

/*
 * The launchers, the first whose rank variable is set wins: an MPI
 * launcher's variables before Slurm's, since mpirun or mpiexec inside a
 * Slurm allocation starts its ranks through one srun task per node, whose
 * SLURM_PROCID is the node's and not the rank's.  PMIx gives no size in
 * the environment: srun's when it runs the same task.
 */
static const struct launcher {
	const char *rank;
	const char *size[2]; /* the first of these set is the size */
	int slurm;           /* 0, RANK_IN_STEP or SIZE_IN_STEP */
} launchers[] = {
	{ "OMPI_COMM_WORLD_RANK", { "OMPI_COMM_WORLD_SIZE" }, 0 }, /* Open MPI */
	{ "PMI_RANK", { "PMI_SIZE" }, 0 }, /* MPICH's Hydra, srun --mpi=pmi2 */
	{ "PMIX_RANK",
	  { SLURM_SIZE },
	  SIZE_IN_STEP }, /* srun --mpi=pmix, PRRTE */
	{ "SLURM_PROCID", { SLURM_SIZE }, RANK_IN_STEP }, /* srun */
};

/* Where the job's name comes from, the first one set. */
static const char *const job_ids[] = {
	"PMIX_NAMESPACE",
	"OMPI_MCA_ess_base_jobid",
	"PMI_JOBID",
	"SLURM_JOB_ID",
};

#define MAX_RANKS 100000000LL

/*
 * Variable @name as a number from @min to @max into *@out: 1, 0 when it
 * is not set (or empty), -1 when it holds something else (said why).
 */
static int env_num(const char *name, long min, long max, long long *out)
{
	const char *s = getenv(name);
	long v;

	if (!s || !*s)
		return 0;
	if (parse_long(s, min, max, &v)) {
		msg("%s=%s is not a number from %ld to %ld", name, s, min, max);
		return -1;
	}
	*out = v;
	return 1;
}

/*
 * Are we a task of an srun job step?  Only srun sets SLURM_STEP_ID to a
 * step's number: a batch script sees none, or the batch step's
 * (0xfffffffb, SLURM_BATCH_SCRIPT; the extern and interactive steps are
 * near it), and its SLURM_PROCID 0 and SLURM_NTASKS are the job's, not a
 * count of papi_stat processes.
 */
static int slurm_step(void)
{
	const char *s = getenv("SLURM_STEP_ID");
	long v;

	return s && !parse_long(s, 0, 0xffffffefL, &v);
}

static void job_id(struct job *j)
{
	const char *s = NULL, *step = getenv("SLURM_STEP_ID");
	size_t i;

	for (i = 0; i < ARRAY_SIZE(job_ids) && !(s && *s); i++)
		s = getenv(job_ids[i]);
	if (!s || !*s)
		return;
	if (strcmp(job_ids[i - 1], "SLURM_JOB_ID") == 0 && step && *step)
		snprintf(j->id, sizeof(j->id), "%s.%s", s, step);
	else
		oneline(j->id, sizeof(j->id), s);
}

/* The rank and size of launcher @l into *@j: 1, 0 not this one, -1. */
static int detect_one(const struct launcher *l, struct job *j)
{
	const char *var = NULL;
	long long rank, srank, size = 0;
	int i, ret, no_size;

	if (l->slurm == RANK_IN_STEP && !slurm_step())
		return 0;
	ret = env_num(l->rank, 0, MAX_RANKS - 1, &rank);
	if (ret <= 0)
		return ret;
	no_size = l->slurm == SIZE_IN_STEP &&
		  (!slurm_step() ||
		   env_num("SLURM_PROCID", 0, MAX_RANKS, &srank) != 1 ||
		   srank != rank);
	for (i = 0, ret = 0; !no_size && i < 2 && l->size[i] && !ret; i++) {
		var = l->size[i];
		ret = env_num(var, 1, MAX_RANKS, &size);
	}
	if (ret < 0)
		return -1;
	if (size && rank >= size) {
		msg("%s=%lld is not a rank of a job of %lld", l->rank, rank,
		    size);
		return -1;
	}
	j->rank = (int)rank;
	j->size = (int)size;
	snprintf(j->from, sizeof(j->from), "%s%s%s", l->rank, size ? ", " : "",
		 size ? var : "");
	return 1;
}

int job_detect(struct job *j, int alone)
{
	size_t i;
	int ret = 0;

	*j = (struct job){ .rank = -1 };
	if (gethostname(j->host, sizeof(j->host) - 1) != 0)
		scopy(j->host, sizeof(j->host), "unknown");
	for (i = 0; i < ARRAY_SIZE(launchers) && ret == 0; i++)
		ret = detect_one(&launchers[i], j);
	if (ret < 0)
		return -1;
	if (ret > 0)
		job_id(j);
	else if (alone) {
		j->rank = 0;
		j->size = 1;
		scopy(j->from, sizeof(j->from), "no launcher");
	}
	return 0;
}

/* @set of @n CPUs as ranges, "0-3,8", into @buf. */
static void cpu_ranges(const cpu_set_t *set, int n, char *buf, size_t len)
{
	size_t sz = CPU_ALLOC_SIZE(n), used = 0;
	int c, first;

	buf[0] = '\0';
	for (c = 0; c < n; c++) {
		if (!CPU_ISSET_S(c, sz, set))
			continue;
		for (first = c; c + 1 < n && CPU_ISSET_S(c + 1, sz, set); c++)
			;
		append(buf, len, &used, "%s%d", used ? "," : "", first);
		if (c > first)
			append(buf, len, &used, "-%d", c);
	}
}

void job_cpus(pid_t pid, char *buf, size_t len)
{
	cpu_set_t *set;
	int n;

	/* the kernel refuses a mask smaller than its own: try larger ones */
	for (n = CPU_SETSIZE; n <= (1 << 20); n *= 2) {
		set = CPU_ALLOC(n);
		if (!set)
			break;
		if (sched_getaffinity(pid, CPU_ALLOC_SIZE(n), set) == 0) {
			cpu_ranges(set, n, buf, len);
			CPU_FREE(set);
			return;
		}
		CPU_FREE(set);
		if (errno != EINVAL)
			break;
	}
	scopy(buf, len, "unknown");
}

int job_dir_prepare(const char *dir)
{
	struct stat st;

	if (mkdir(dir, 0777) != 0 && errno != EEXIST)
		msg("--job-dir: cannot create %s: %s", dir, strerror(errno));
	else if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
		msg("--job-dir: %s is not a directory", dir);
	else if (access(dir, W_OK | X_OK) != 0)
		msg("--job-dir: cannot write in %s: %s", dir, strerror(errno));
	else
		return 0;
	return -1;
}

long job_file_rank(const char *name)
{
	const char *s = name + strlen(JOB_FILE_PREFIX);
	char *end;
	long r;

	errno = 0;
	r = strtol(s, &end, 10);
	return (errno || end == s || *end != '.' || r < 0) ? -1 : r;
}

static int is_rank_file(const struct dirent *de)
{
	return strncmp(de->d_name, JOB_FILE_PREFIX, strlen(JOB_FILE_PREFIX)) ==
	       0;
}

static int by_rank(const struct dirent **a, const struct dirent **b)
{
	long ra = job_file_rank((*a)->d_name), rb = job_file_rank((*b)->d_name);

	return ra != rb ? (ra < rb ? -1 : 1) :
			  strcmp((*a)->d_name, (*b)->d_name);
}

int job_dir_files(const char *dir, struct dirent ***list)
{
	struct dirent **own;
	int n = scandir(dir, list ? list : &own, is_rank_file, by_rank), i;

	if (n < 0)
		msg("cannot read %s: %s", dir, strerror(errno));
	for (i = 0; !list && i < n; i++)
		free(own[i]);
	if (!list && n >= 0)
		free(own);
	return n;
}

/* The host name as part of a file name: no '/'. */
static void file_host(const struct job *j, char *buf, size_t len)
{
	size_t i;

	oneline(buf, len, j->host);
	for (i = 0; buf[i]; i++)
		if (buf[i] == '/' || buf[i] == ' ')
			buf[i] = '_';
}

/* Write @f's buffer to the disk and close it: 0, or an errno. */
static int file_close(FILE *f)
{
	int err = 0;

	if (fflush(f) || ferror(f) || fsync(fileno(f)))
		err = errno ? errno : EIO;
	if (fclose(f) && !err)
		err = errno;
	return err;
}

/* This rank's file, complete, into @dir; 0, or -1 (said why). */
static int write_file(const struct stat_run *r, const char *dir)
{
	char host[JOB_HOST_LEN], tmp[PATH_MAX], path[PATH_MAX];
	char cmd[512], line[1024];
	int n, err;
	FILE *f;

	file_host(&r->job, host, sizeof(host));
	n = snprintf(path, sizeof(path), "%s/" JOB_FILE_PREFIX "%d.%s.%d", dir,
		     r->job.rank, host, (int)getpid());
	if (n < 0 || (size_t)n + 6 >= sizeof(path)) {
		msg("--job-dir: %s: name too long", dir);
		return -1;
	}
	snprintf(tmp, sizeof(tmp), "%s/.%s.tmp", dir, path + strlen(dir) + 1);
	f = fopen(tmp, "wxe"); /* O_EXCL, O_CLOEXEC */
	if (!f) {
		msg("cannot create %s: %s", tmp, strerror(errno));
		return -1;
	}
	/* the lines only the merge needs, then the report of -x , */
	command_text(r, cmd, sizeof(cmd));
	oneline(line, sizeof(line), cmd);
	fprintf(f,
		"%s\n" JOB_HEAD_COMMAND "%s\n" JOB_HEAD_ID "%s\n" JOB_HEAD_RUNS
		"%d\n",
		JOB_FILE_MAGIC, line, r->job.id, r->runs);
	report(r, f, JOB_FILE_SEP);
	err = file_close(f);
	if (!err && rename(tmp, path) != 0)
		err = errno;
	if (err) {
		msg("writing %s: %s", tmp, strerror(err));
		(void)unlink(tmp);
		return -1;
	}
	return 0;
}

/*
 * The choice of the one rank that prints the merged report: every rank
 * counts the complete files after its own rename, and a rank that sees
 * them all creates JOB_PRINTED with O_EXCL.  The last rename is seen by
 * the rank that made it, so some rank sees all the files, and O_EXCL lets
 * one of those that do print.
 */
int job_finish(const struct stat_run *r)
{
	const char *dir = r->o.job_dir;
	char path[PATH_MAX];
	int fd;

	/* nothing counted: no file, and the merge names the rank missing */
	if (r->runs == 0)
		return 0;
	if (write_file(r, dir))
		return -1;
	if (r->job.size <= 0 || job_dir_files(dir, NULL) < r->job.size)
		return 0;
	snprintf(path, sizeof(path), "%s/" JOB_PRINTED, dir);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	if (fd < 0) {
		if (errno != EEXIST)
			msg("cannot create %s: %s", path, strerror(errno));
		return 0;
	}
	close(fd);
	return 1;
}
