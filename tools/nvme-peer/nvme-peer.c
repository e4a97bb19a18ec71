// SPDX-License-Identifier: GPL-2.0
/*
 * nvme-peer: the administrator's command for nvme-peer's named
 * reservations in configfs (/sys/kernel/config/nvme-peer/CTRL/NAME/) and
 * the reservations sysfs shows (/sys/class/nvme/CTRL/peer/qN/): list,
 * show, create, delete, save, restore and watch them.
 *
 * Commands, the save file's format, the JSON schema and the exit codes:
 * Documentation/nvme/peer-admin.rst.  libc only.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libgen.h>
#include <poll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>
#include <linux/netlink.h>

/* the keys, their defaults and value rules: the kernel's, words.c */
#include "words.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* nvme-peer's version: dkms.conf's PACKAGE_VERSION (tests/native.sh checks) */
#define NP_VERSION	"0.1"
/*
 * The save file format this nvme-peer writes and reads: save's first line
 * is NP_FORMAT_TAG followed by it; a file without such a line is read as
 * format 1 (peer-admin.rst, "Save file format").
 */
#define NP_FORMAT	1
#define NP_FORMAT_TAG	"# nvme-peer save format "

/* Exit codes (Documentation/nvme/peer-admin.rst, "Exit codes") */
enum {
	NP_EXIT_OK = 0,
	NP_EXIT_FAIL = 1,	/* the kernel or the system refused a step */
	NP_EXIT_USAGE = 2,	/* bad command line, key or value */
	NP_EXIT_FILE = 3,	/* restore: the file is invalid, nothing done */
	NP_EXIT_PERM = 4,	/* permission denied (not root) */
	NP_EXIT_NOENT = 5,	/* no such reservation, or nvme-peer not loaded */
	NP_EXIT_TIMEOUT = 6,	/* watch: --timeout before --count events */
};

#define NP_LINE_MAX	8191	/* characters of a save file line */
/* a reservation's name and a controller's: words.h decides them */
#define NP_NAME_MAX	(NP_NAME_LEN - 1)
#define NP_CTRL_MAX	(NP_CTRL_LEN - 1)
/* the characters of a value configfs takes */
#define NP_VALUE_MAX	(NP_VALUE_LEN - 1)

/* One reservation to create: from the command line or a save file line */
struct np_spec {
	char ctrl[NP_CTRL_MAX + 1];
	char name[NP_NAME_MAX + 1];
	char *val[NP_NKEYS];	/* NULL: not given (the default) */
	int line;
};

/* One reservation as configfs and sysfs show it */
struct np_entry {
	char ctrl[NP_CTRL_MAX + 1];
	char name[NP_NAME_MAX + 1];	/* "qN" for a sysfs-only one */
	int sysfs_only;
	char state[32];
	char reason[32];
	char owner[32];
	long error;
	unsigned long live_qid;
	unsigned long generation;
	int attached;		/* -1: no queue */
	char *val[NP_NKEYS];	/* configfs attributes, NULL if unreadable */
};

struct np_list {
	struct np_entry *v;
	int n;
};

static int np_json;

/* ---- errors ------------------------------------------------------------ */

static const struct {
	int err;
	const char *name;
	const char *meaning;
} np_errnos[] = {
	{ ENODEV, "ENODEV",
	  "no such controller, namespace or PCI device, or the controller is gone" },
	{ EINVAL, "EINVAL",
	  "a value out of range, or a refused combination (see peer-admin.rst)" },
	{ EACCES, "EACCES",
	  "only root may change reservations; file_access=read with a writing opcode" },
	{ EPERM, "EPERM",
	  "only root may change reservations; mode=direct needs allow_direct=1" },
	{ ENOSPC, "ENOSPC", "every reserved qid is held" },
	{ EBUSY, "EBUSY",
	  "the qid is held, or the reservation is enabled: write enable=0 first" },
	{ EXDEV, "EXDEV",
	  "no peer-to-peer path to the peer, or the file is not on that namespace" },
	{ EOPNOTSUPP, "EOPNOTSUPP",
	  "the CMB does not allow that placement, or the namespace has metadata" },
	{ EAGAIN, "EAGAIN", "the controller is resetting: try again" },
	{ ENOMEM, "ENOMEM", "out of memory" },
	{ EIO, "EIO", "the controller failed Create I/O CQ/SQ" },
	{ EEXIST, "EEXIST", "a reservation of that name exists" },
	{ ENOENT, "ENOENT",
	  "no such reservation or file, or the nvme-peer module is not loaded" },
	{ ENOTEMPTY, "ENOTEMPTY",
	  "the controller directory still holds reservations" },
	{ EISDIR, "EISDIR", "file= names a directory" },
	{ EBADF, "EBADF", "file= cannot be opened for file_access" },
	{ ENXIO, "ENXIO", "file= shares blocks with another file (reflink)" },
	{ ENODATA, "ENODATA", "file= has no written block in the range" },
	{ E2BIG, "E2BIG", "too many extents" },
	{ ENAMETOOLONG, "ENAMETOOLONG", "a name or path is too long" },
	{ EROFS, "EROFS", "read-only file system" },
	{ ETIMEDOUT, "ETIMEDOUT", "timed out" },
};

static void np_errno_desc(int err, char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(np_errnos); i++) {
		if (np_errnos[i].err == err) {
			snprintf(buf, len, "%s (%s: %s)", strerror(err),
				 np_errnos[i].name, np_errnos[i].meaning);
			return;
		}
	}
	snprintf(buf, len, "%s (errno %d)", strerror(err), err);
}

static void np_err(const char *fmt, ...)
{
	va_list ap;

	fputs("nvme-peer: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* "WHAT: strerror (ENAME: meaning)" and the exit code that errno means */
static int np_fail(int err, const char *fmt, ...)
{
	char what[512], desc[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	np_errno_desc(err, desc, sizeof(desc));
	np_err("%s: %s", what, desc);
	if (err == EACCES || err == EPERM)
		return NP_EXIT_PERM;
	return NP_EXIT_FAIL;
}

static void *np_alloc(size_t len)
{
	void *p = calloc(1, len);

	if (!p) {
		np_err("out of memory");
		exit(NP_EXIT_FAIL);
	}
	return p;
}

static char *np_strdup(const char *s)
{
	size_t len = strlen(s) + 1;

	return memcpy(np_alloc(len), s, len);
}

static void np_copy(char *dst, size_t size, const char *src)
{
	snprintf(dst, size, "%s", src);
}

/* ---- files ------------------------------------------------------------- */

static const char *np_cfg_root(void)
{
	const char *r = getenv("NVME_PEER_CONFIGFS");

	return r && *r ? r : "/sys/kernel/config/nvme-peer";
}

static const char *np_sys_root(void)
{
	const char *r = getenv("NVME_PEER_SYSFS");

	return r && *r ? r : "/sys/class/nvme";
}

/* Read @path into @buf, trailing newlines cut; 0 or -errno. */
static int np_read(const char *path, char *buf, size_t len)
{
	ssize_t n;
	size_t got = 0;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -errno;
	while (got < len - 1) {
		n = read(fd, buf + got, len - 1 - got);
		if (n < 0) {
			n = -errno;
			close(fd);
			return n;
		}
		if (!n)
			break;
		got += n;
	}
	close(fd);
	buf[got] = '\0';
	while (got && buf[got - 1] == '\n')
		buf[--got] = '\0';
	return 0;
}

/*
 * Write @val to the attribute @path in one write(); an empty value is
 * written as a newline, as echo would.  0 or -errno.
 */
static int np_write(const char *path, const char *val)
{
	size_t len = strlen(val);
	int fd = open(path, O_WRONLY);
	int ret = 0;

	if (fd < 0)
		return -errno;
	if (!len)
		val = "\n", len = 1;
	if (write(fd, val, len) != (ssize_t)len)
		ret = errno ? -errno : -EIO;
	if (close(fd) && !ret)
		ret = -errno;
	return ret;
}

static int np_is_dir(const char *dir, const struct dirent *d)
{
	char path[PATH_MAX];
	struct stat st;

	if (d->d_name[0] == '.')
		return 0;
	if (d->d_type == DT_DIR)
		return 1;
	if (d->d_type != DT_UNKNOWN && d->d_type != DT_LNK)
		return 0;
	snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

/* The subdirectory names of @dir matching @prefix, sorted; -errno or n. */
static int np_subdirs(const char *dir, const char *prefix, char ***out)
{
	struct dirent **names;
	char **v;
	int i, n, k = 0;

	n = scandir(dir, &names, NULL, alphasort);
	if (n < 0)
		return -errno;
	v = np_alloc((n + 1) * sizeof(*v));
	for (i = 0; i < n; i++) {
		if (!strncmp(names[i]->d_name, prefix, strlen(prefix)) &&
		    np_is_dir(dir, names[i]))
			v[k++] = np_strdup(names[i]->d_name);
		free(names[i]);
	}
	free(names);
	*out = v;
	return k;
}

static void np_free_strv(char **v, int n)
{
	int i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* nvme0 < nvme1 < nvme10; q2 < q10 */
static int np_natcmp(const char *a, const char *b)
{
	while (*a && *b) {
		if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
			unsigned long x = strtoul(a, (char **)&a, 10);
			unsigned long y = strtoul(b, (char **)&b, 10);

			if (x != y)
				return x < y ? -1 : 1;
			continue;
		}
		if (*a != *b)
			return (unsigned char)*a - (unsigned char)*b;
		a++, b++;
	}
	return (unsigned char)*a - (unsigned char)*b;
}

static int np_natcmp_p(const void *a, const void *b)
{
	return np_natcmp(*(char * const *)a, *(char * const *)b);
}

/* ---- names and values ------------------------------------------------ */

/*
 * The keys, their defaults and the rules of their values are the kernel's
 * (words.h, words.c): restore --check refuses what configfs refuses.  What
 * is the save file's own: a value holds no blank, control character or
 * quote (the format does not quote).
 */

/* "nvme0/t1" into @ctrl and @name; 0, or -1 with @why said */
static int np_parse_name(const char *s, char *ctrl, char *name,
			 char *why, size_t len)
{
	const char *slash = strchr(s, '/');
	size_t clen = slash ? (size_t)(slash - s) : 0;

	if (!slash || !clen || clen > NP_CTRL_MAX) {
		snprintf(why, len, "'%s': a name is CTRL/NAME, e.g. nvme0/t1", s);
		return -1;
	}
	memcpy(ctrl, s, clen);
	ctrl[clen] = '\0';
	if (!np_ctrl_name_ok(ctrl)) {
		snprintf(why, len, "'%s': the controller is nvmeN (at most %d characters)",
			 s, NP_CTRL_MAX);
		return -1;
	}
	if (!np_cfs_name_ok(slash + 1)) {
		snprintf(why, len,
			 "'%s': NAME is 1-%d characters of A-Z a-z 0-9 _ . -, not . or ..",
			 s, NP_NAME_MAX);
		return -1;
	}
	np_copy(name, NP_NAME_MAX + 1, slash + 1);
	return 0;
}

/*
 * Check @val for key @k as the save file and the command line take it:
 * 0, or -1 with @why said
 */
static int np_valid_value(int k, const char *val, char *why, size_t len)
{
	struct np_value v = { 0 };
	size_t i;

	for (i = 0; val[i] && i < NP_VALUE_MAX; i++) {
		if (isspace((unsigned char)val[i]) ||
		    iscntrl((unsigned char)val[i]) || val[i] == '"') {
			snprintf(why, len,
				 "%s: a value holds no blank, control character or quote",
				 np_cfs_keys[k].name);
			return -1;
		}
	}
	return np_value_parse(k, val, &v, why, len) ? -1 : 0;
}

/* One KEY=VALUE word into @spec: 0, or -1 with @why said */
static int np_spec_word(struct np_spec *spec, const char *word, char *why,
			size_t len)
{
	const char *eq = strchr(word, '=');
	int k = eq ? np_key_find(word, eq - word) : -1;

	if (!eq) {
		snprintf(why, len, "'%s' is not KEY=VALUE", word);
		return -1;
	}
	if (k < 0) {
		snprintf(why, len, "unknown key '%.*s'", (int)(eq - word),
			 word);
		return -1;
	}
	if (spec->val[k]) {
		snprintf(why, len, "%s given twice", np_cfs_keys[k].name);
		return -1;
	}
	if (np_valid_value(k, eq + 1, why, len))
		return -1;
	spec->val[k] = np_strdup(eq + 1);
	return 0;
}

/* @spec's value of @k, or its default, parsed (np_spec_word() checked it) */
static struct np_value np_spec_value(const struct np_spec *spec, int k)
{
	struct np_value v = { 0 };

	np_value_parse(k, spec->val[k] ? spec->val[k] : np_cfs_keys[k].def,
		       &v, NULL, 0);
	return v;
}

/*
 * What enable=1 needs of the whole spec, as the kernel's enable
 * (np_enable_check()); @check_file: the file must be a regular file
 * (restore; enabling opens it).  0, or -1 with @why said.
 */
static int np_spec_check(const struct np_spec *spec, int check_file,
			 char *why, size_t len)
{
	const char *file = spec->val[NP_KEY_file];
	struct stat st;

	if (!np_spec_value(spec, NP_KEY_enable).num)
		return 0;
	if (np_enable_check(np_spec_value(spec, NP_KEY_nsid).num,
			    file && *file,
			    np_spec_value(spec, NP_KEY_file_off).num,
			    np_spec_value(spec, NP_KEY_file_len).num,
			    np_spec_value(spec, NP_KEY_file_access).word,
			    why, len))
		return -1;
	if (!check_file || !file || !*file)
		return 0;
	if (stat(file, &st)) {
		snprintf(why, len, "file: %.200s: %s", file, strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(why, len, "file: %.200s: not a regular file", file);
		return -1;
	}
	return 0;
}

static void np_spec_free(struct np_spec *spec)
{
	int k;

	for (k = 0; k < NP_NKEYS; k++)
		free(spec->val[k]);
	memset(spec, 0, sizeof(*spec));
}

/* ---- reading the state ------------------------------------------------- */

static void np_path(char *buf, size_t len, const char *root, const char *a,
		    const char *b, const char *c)
{
	snprintf(buf, len, "%s/%s%s%s%s%s", root, a, b ? "/" : "", b ? b : "",
		 c ? "/" : "", c ? c : "");
}

static int np_read_at(const char *dir, const char *file, char *buf,
		      size_t len)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return np_read(path, buf, len);
}

/* The qN/ of @ctrl as an entry of its own (no configfs name); -ENOENT */
static int np_read_queue_entry(const char *ctrl, const char *qdir,
			       struct np_entry *e)
{
	char path[PATH_MAX], buf[64];

	np_path(path, sizeof(path), np_sys_root(), ctrl, "peer", qdir);
	snprintf(e->ctrl, sizeof(e->ctrl), "%s", ctrl);
	snprintf(e->name, sizeof(e->name), "%s", qdir);
	e->sysfs_only = 1;
	/* no state: it is going */
	if (np_read_at(path, "state", e->state, sizeof(e->state)))
		return -ENOENT;
	if (np_read_at(path, "reason", e->reason, sizeof(e->reason)))
		np_copy(e->reason, sizeof(e->reason), "?");
	if (np_read_at(path, "owner", e->owner, sizeof(e->owner)))
		np_copy(e->owner, sizeof(e->owner), "?");
	e->live_qid = strtoul(qdir + 1, NULL, 10);
	if (!np_read_at(path, "generation", buf, sizeof(buf)))
		e->generation = strtoul(buf, NULL, 10);
	e->attached = np_read_at(path, "attached", buf, sizeof(buf)) ? -1 :
		      atoi(buf);
	return 0;
}

/* Owner and attached of the live queue of a configfs entry */
static void np_read_live(struct np_entry *e)
{
	char path[PATH_MAX], q[32], buf[64];

	e->attached = -1;
	np_copy(e->owner, sizeof(e->owner), "configfs");
	if (!e->live_qid)
		return;
	snprintf(q, sizeof(q), "q%lu", e->live_qid);
	np_path(path, sizeof(path), np_sys_root(), e->ctrl, "peer", q);
	if (!np_read_at(path, "attached", buf, sizeof(buf)))
		e->attached = atoi(buf);
}

/* CTRL/NAME/ of configfs into @e; 0 or -errno (-ENOENT: no such name) */
static int np_read_cfg_entry(const char *ctrl, const char *name,
			     struct np_entry *e)
{
	char dir[PATH_MAX], buf[NP_VALUE_MAX + 2], now[sizeof(e->state)];
	struct stat st;
	int k;

	memset(e, 0, sizeof(*e));
	np_path(dir, sizeof(dir), np_cfg_root(), ctrl, name, NULL);
	if (stat(dir, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOENT;
	snprintf(e->ctrl, sizeof(e->ctrl), "%s", ctrl);
	snprintf(e->name, sizeof(e->name), "%s", name);
	/* no state: an rmdir is taking it, or it is no intent */
	if (np_read_at(dir, "state", e->state, sizeof(e->state)))
		return -ENOENT;
	for (k = 0; k < NP_NKEYS; k++)
		if (!np_read_at(dir, np_cfs_keys[k].name, buf, sizeof(buf)))
			e->val[k] = np_strdup(buf);
	/*
	 * Each attribute is read on its own: one snapshot is the state, the
	 * others and the state again the same, else read again (a few times).
	 */
	for (k = 0; k < 5; k++) {
		if (np_read_at(dir, "reason", e->reason, sizeof(e->reason)))
			np_copy(e->reason, sizeof(e->reason), "?");
		if (!np_read_at(dir, "error", buf, sizeof(buf)))
			e->error = strtol(buf, NULL, 10);
		if (!np_read_at(dir, "live_qid", buf, sizeof(buf)))
			e->live_qid = strtoul(buf, NULL, 10);
		if (!np_read_at(dir, "generation", buf, sizeof(buf)))
			e->generation = strtoul(buf, NULL, 10);
		if (np_read_at(dir, "state", now, sizeof(now)))
			return -ENOENT;
		if (!strcmp(now, e->state))
			break;
		memcpy(e->state, now, sizeof(now));
	}
	np_read_live(e);
	return 0;
}

static void np_entry_free(struct np_entry *e)
{
	int k;

	for (k = 0; k < NP_NKEYS; k++)
		free(e->val[k]);
}

static struct np_entry *np_list_add(struct np_list *l)
{
	if (!(l->n % 16)) {
		l->v = realloc(l->v, (l->n + 16) * sizeof(*l->v));
		if (!l->v) {
			np_err("out of memory");
			exit(NP_EXIT_FAIL);
		}
	}
	memset(&l->v[l->n], 0, sizeof(l->v[0]));
	return &l->v[l->n++];
}

static void np_list_free(struct np_list *l)
{
	int i;

	for (i = 0; i < l->n; i++)
		np_entry_free(&l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

/* Is qid @qid of @ctrl the live queue of a configfs entry of @l? */
static int np_qid_named(const struct np_list *l, const char *ctrl,
			unsigned long qid)
{
	int i;

	for (i = 0; i < l->n; i++)
		if (!l->v[i].sysfs_only && l->v[i].live_qid == qid &&
		    !strcmp(l->v[i].ctrl, ctrl))
			return 1;
	return 0;
}

static void np_scan_cfg(struct np_list *l)
{
	char **ctrls, **names, dir[PATH_MAX];
	int nc, nn, i, j;

	nc = np_subdirs(np_cfg_root(), "", &ctrls);
	if (nc < 0)
		return;
	qsort(ctrls, nc, sizeof(*ctrls), np_natcmp_p);
	for (i = 0; i < nc; i++) {
		np_path(dir, sizeof(dir), np_cfg_root(), ctrls[i], NULL, NULL);
		nn = np_subdirs(dir, "", &names);
		if (nn < 0)
			continue;
		qsort(names, nn, sizeof(*names), np_natcmp_p);
		for (j = 0; j < nn; j++)
			if (np_read_cfg_entry(ctrls[i], names[j],
					      np_list_add(l)))
				l->n--;
		np_free_strv(names, nn);
	}
	np_free_strv(ctrls, nc);
}

/* The qN/ that no configfs name stands for: made by processes or drivers */
static void np_scan_sys(struct np_list *l)
{
	char **ctrls, **qs, dir[PATH_MAX], name[64];
	int nc, nq, i, j;

	nc = np_subdirs(np_sys_root(), "nvme", &ctrls);
	if (nc < 0)
		return;
	qsort(ctrls, nc, sizeof(*ctrls), np_natcmp_p);
	for (i = 0; i < nc; i++) {
		if (!np_ctrl_name_ok(ctrls[i]))
			continue;
		np_path(dir, sizeof(dir), np_sys_root(), ctrls[i], "peer",
			NULL);
		nq = np_subdirs(dir, "q", &qs);
		if (nq < 0)
			continue;
		qsort(qs, nq, sizeof(*qs), np_natcmp_p);
		for (j = 0; j < nq; j++) {
			char qdir[PATH_MAX + 64];

			if (np_parse_num(qs[j] + 1, UINT16_MAX, NULL))
				continue;
			snprintf(qdir, sizeof(qdir), "%s/%s", dir, qs[j]);
			if (!np_read_at(qdir, "name", name, sizeof(name)) &&
			    name[0])
				continue;
			if (np_qid_named(l, ctrls[i],
					 strtoul(qs[j] + 1, NULL, 10)))
				continue;
			if (np_read_queue_entry(ctrls[i], qs[j],
						np_list_add(l)))
				l->n--;
		}
		np_free_strv(qs, nq);
	}
	np_free_strv(ctrls, nc);
}

static void np_scan(struct np_list *l)
{
	np_scan_cfg(l);
	np_scan_sys(l);
}

/* ---- output ------------------------------------------------------------ */

static void np_json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c == '\n')
			fputs("\\n", stdout);
		else if (c == '\t')
			fputs("\\t", stdout);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

static void np_json_kv(const char *key, const char *val, int comma)
{
	if (comma)
		putchar(',');
	np_json_str(key);
	putchar(':');
	if (val)
		np_json_str(val);
	else
		fputs("null", stdout);
}

static void np_json_queue(const struct np_entry *e);

/*
 * One reservation object (peer-admin.rst, "JSON"); @queue: with the
 * attributes of its qN/ (show).
 */
static void np_json_entry(const struct np_entry *e, int queue)
{
	char full[80];
	int k;

	snprintf(full, sizeof(full), "%s/%s", e->ctrl, e->name);
	putchar('{');
	np_json_kv("name", full, 0);
	np_json_kv("ctrl", e->ctrl, 1);
	np_json_kv("source", e->sysfs_only ? "sysfs" : "configfs", 1);
	np_json_kv("owner", e->owner, 1);
	np_json_kv("state", e->state, 1);
	np_json_kv("reason", e->reason, 1);
	printf(",\"error\":%ld,\"live_qid\":%lu,\"generation\":%lu,\"attached\":%d",
	       e->error, e->live_qid, e->generation, e->attached);
	fputs(",\"config\":", stdout);
	if (e->sysfs_only) {
		fputs("null", stdout);
	} else {
		putchar('{');
		for (k = 0; k < NP_NKEYS; k++)
			np_json_kv(np_cfs_keys[k].name, e->val[k], k);
		putchar('}');
	}
	if (queue) {
		fputs(",\"queue\":", stdout);
		np_json_queue(e);
	}
	putchar('}');
}

/* Calls @fn for every readable attribute file of @e's qN/, sorted */
static int np_each_queue_attr(const struct np_entry *e,
			      void (*fn)(const char *key, const char *val,
					 int nth))
{
	char dir[PATH_MAX], q[32], buf[4096];
	struct dirent **names;
	int i, n, nth = 0;

	if (!e->live_qid)
		return -ENOENT;
	snprintf(q, sizeof(q), "q%lu", e->live_qid);
	np_path(dir, sizeof(dir), np_sys_root(), e->ctrl, "peer", q);
	n = scandir(dir, &names, NULL, alphasort);
	if (n < 0)
		return -errno;
	for (i = 0; i < n; i++) {
		const char *f = names[i]->d_name;

		if (f[0] != '.' && !np_is_dir(dir, names[i]) &&
		    strcmp(f, "uevent") &&
		    !np_read_at(dir, f, buf, sizeof(buf)))
			fn(f, buf, nth++);
		free(names[i]);
	}
	free(names);
	return 0;
}

static void np_json_queue_attr(const char *key, const char *val, int nth)
{
	np_json_kv(key, val, nth);
}

static void np_json_queue(const struct np_entry *e)
{
	if (!e->live_qid) {
		fputs("null", stdout);
		return;
	}
	putchar('{');
	np_each_queue_attr(e, np_json_queue_attr);
	putchar('}');
}

static void np_print_queue_attr(const char *key, const char *val, int nth)
{
	const char *p = val;

	if (!strchr(val, '\n')) {
		printf("    %-16s %s\n", key, val);
		return;
	}
	printf("    %s:\n", key);
	while (*p) {
		size_t n = strcspn(p, "\n");

		printf("      %.*s\n", (int)n, p);
		p += n + !!p[n];
	}
}

static const char *np_or(const char *s, const char *def)
{
	return s ? s : def;
}

static void np_print_list(const struct np_list *l)
{
	char full[80], qid[16], gen[16];
	int i;

	if (!l->n) {
		puts("no reservations");
		return;
	}
	printf("%-24s %-9s %-12s %5s %4s %5s %5s %-9s %s\n", "NAME", "SOURCE",
	       "STATE", "QID", "GEN", "NSID", "DEPTH", "MODE", "REASON");
	for (i = 0; i < l->n; i++) {
		const struct np_entry *e = &l->v[i];

		snprintf(full, sizeof(full), "%s/%s", e->ctrl, e->name);
		snprintf(qid, sizeof(qid), "%lu", e->live_qid);
		snprintf(gen, sizeof(gen), "%lu", e->generation);
		if (e->sysfs_only) {
			printf("%-24s %-9s %-12s %5s %4s %5s %5s %-9s %s\n",
			       full, e->owner, e->state, qid, "-", "-", "-",
			       "-", e->reason);
			continue;
		}
		printf("%-24s %-9s %-12s %5s %4s %5s %5s %-9s %s",
		       full, "configfs", e->state, e->live_qid ? qid : "-",
		       gen, np_or(e->val[NP_KEY_nsid], "?"),
		       np_or(e->val[NP_KEY_depth], "?"), np_or(e->val[NP_KEY_mode], "?"),
		       e->reason);
		if (e->error)
			printf(" (error %ld)", e->error);
		putchar('\n');
	}
}

static void np_print_entry(const struct np_entry *e)
{
	int k;

	printf("%s/%s\n", e->ctrl, e->name);
	printf("  %-16s %s\n", "source", e->sysfs_only ? "sysfs" : "configfs");
	printf("  %-16s %s\n", "owner", e->owner);
	printf("  %-16s %s\n", "state", e->state);
	printf("  %-16s %s\n", "reason", e->reason);
	printf("  %-16s %ld\n", "error", e->error);
	printf("  %-16s %lu\n", "live_qid", e->live_qid);
	printf("  %-16s %lu\n", "generation", e->generation);
	if (!e->sysfs_only) {
		printf("  config:\n");
		for (k = 0; k < NP_NKEYS; k++)
			printf("    %-16s %s\n", np_cfs_keys[k].name,
			       np_or(e->val[k], "?"));
	}
	if (e->live_qid) {
		printf("  queue q%lu:\n", e->live_qid);
		np_each_queue_attr(e, np_print_queue_attr);
	}
}

/* ---- list, show -------------------------------------------------------- */

/* The module is there, or say that it is not: 0 or an exit code */
static int np_need_root(void)
{
	struct stat st;
	int err;

	if (!stat(np_cfg_root(), &st))
		return 0;
	err = errno;
	np_fail(err, "%s (is the nvme-peer module loaded and configfs mounted?)",
		np_cfg_root());
	return err == EACCES || err == EPERM ? NP_EXIT_PERM : NP_EXIT_NOENT;
}

static int np_cmd_list(int argc, char **argv)
{
	struct np_list l = { 0 };
	int i, ret;

	if (argc) {
		np_err("list: unexpected '%s'", argv[0]);
		return NP_EXIT_USAGE;
	}
	ret = np_need_root();
	if (ret)
		return ret;
	np_scan(&l);
	if (np_json) {
		fputs("{\"version\":1,\"reservations\":[", stdout);
		for (i = 0; i < l.n; i++) {
			fputs(i ? ",\n" : "\n", stdout);
			np_json_entry(&l.v[i], 0);
		}
		fputs("\n]}\n", stdout);
	} else {
		np_print_list(&l);
	}
	np_list_free(&l);
	return NP_EXIT_OK;
}

/* CTRL/NAME, or CTRL/qN of a reservation no configfs name stands for */
static int np_find(const char *full, struct np_entry *e)
{
	char ctrl[NP_CTRL_MAX + 1], name[NP_NAME_MAX + 1], why[256];
	struct np_list l = { 0 };
	int i, ret;

	if (np_parse_name(full, ctrl, name, why, sizeof(why))) {
		np_err("%s", why);
		return NP_EXIT_USAGE;
	}
	ret = np_need_root();
	if (ret)
		return ret;
	if (!np_read_cfg_entry(ctrl, name, e))
		return NP_EXIT_OK;
	np_scan(&l);
	for (i = 0; i < l.n; i++) {
		if (l.v[i].sysfs_only && !strcmp(l.v[i].ctrl, ctrl) &&
		    !strcmp(l.v[i].name, name)) {
			*e = l.v[i];
			l.v[i] = l.v[--l.n];
			np_list_free(&l);
			return NP_EXIT_OK;
		}
	}
	np_list_free(&l);
	np_err("%s: no such reservation", full);
	return NP_EXIT_NOENT;
}

static int np_cmd_show(int argc, char **argv)
{
	struct np_entry e;
	int ret;

	if (argc != 1) {
		np_err("show: usage: nvme-peer show CTRL/NAME [--json]");
		return NP_EXIT_USAGE;
	}
	ret = np_find(argv[0], &e);
	if (ret)
		return ret;
	if (np_json) {
		np_json_entry(&e, 1);
		putchar('\n');
	} else {
		np_print_entry(&e);
	}
	np_entry_free(&e);
	return NP_EXIT_OK;
}

/* ---- create, delete ---------------------------------------------------- */

/* What create made, to undo it */
struct np_made {
	char ctrl[NP_CTRL_MAX + 1];
	char name[NP_NAME_MAX + 1];
	int ctrl_made;
};

static void np_undo(const struct np_made *m)
{
	char dir[PATH_MAX];

	np_path(dir, sizeof(dir), np_cfg_root(), m->ctrl, m->name, NULL);
	if (rmdir(dir) && errno != ENOENT)
		np_fail(errno, "undo: rmdir %s/%s", m->ctrl, m->name);
	if (m->ctrl_made) {
		np_path(dir, sizeof(dir), np_cfg_root(), m->ctrl, NULL, NULL);
		rmdir(dir);
	}
}

/*
 * Make @spec in configfs: mkdir, every given value in np_keys order,
 * enable last.  Undone on failure.  @where: "FILE:LINE: " or "".
 * 0, or the exit code of the failure, said.
 */
static int np_create(const struct np_spec *spec, const char *where,
		     struct np_made *m)
{
	char dir[PATH_MAX], path[PATH_MAX + 64];
	int k, ret;

	memset(m, 0, sizeof(*m));
	np_copy(m->ctrl, sizeof(m->ctrl), spec->ctrl);
	np_copy(m->name, sizeof(m->name), spec->name);
	np_path(dir, sizeof(dir), np_cfg_root(), spec->ctrl, NULL, NULL);
	if (!mkdir(dir, 0755))
		m->ctrl_made = 1;
	else if (errno != EEXIST)
		return np_fail(errno, "%screate %s/%s: mkdir %s", where,
			       spec->ctrl, spec->name, spec->ctrl);
	np_path(dir, sizeof(dir), np_cfg_root(), spec->ctrl, spec->name, NULL);
	if (mkdir(dir, 0755)) {
		ret = np_fail(errno, "%screate %s/%s: mkdir", where,
			      spec->ctrl, spec->name);
		if (m->ctrl_made) {
			np_path(dir, sizeof(dir), np_cfg_root(), spec->ctrl,
				NULL, NULL);
			rmdir(dir);
		}
		return ret;
	}
	for (k = 0; k < NP_NKEYS; k++) {
		const char *v = spec->val[k];

		/* enable=0 is what a new directory is */
		if (!v || (k == NP_KEY_enable && !strcmp(v, "0")))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, np_cfs_keys[k].name);
		ret = np_write(path, v);
		if (!ret)
			continue;
		if (k == NP_KEY_enable)
			ret = np_fail(-ret, "%screate %s/%s: enable", where,
				      spec->ctrl, spec->name);
		else
			ret = np_fail(-ret, "%screate %s/%s: %s=%s", where,
				      spec->ctrl, spec->name,
				      np_cfs_keys[k].name, v);
		np_undo(m);
		return ret;
	}
	return 0;
}

static int np_cmd_create(int argc, char **argv)
{
	struct np_spec spec = { 0 };
	struct np_made m;
	char why[512];
	int i, ret;

	if (argc < 1) {
		np_err("create: usage: nvme-peer create CTRL/NAME KEY=VALUE...");
		return NP_EXIT_USAGE;
	}
	if (np_parse_name(argv[0], spec.ctrl, spec.name, why, sizeof(why)))
		goto bad;
	for (i = 1; i < argc; i++)
		if (np_spec_word(&spec, argv[i], why, sizeof(why)))
			goto bad;
	if (np_spec_check(&spec, 0, why, sizeof(why)))
		goto bad;
	ret = np_need_root();
	if (!ret)
		ret = np_create(&spec, "", &m);
	np_spec_free(&spec);
	return ret;
bad:
	np_err("create %s: %s", argv[0], why);
	np_spec_free(&spec);
	return NP_EXIT_USAGE;
}

static int np_delete_one(const char *ctrl, const char *name)
{
	char dir[PATH_MAX];
	int err;

	np_path(dir, sizeof(dir), np_cfg_root(), ctrl, name, NULL);
	if (rmdir(dir)) {
		err = errno;
		if (err == ENOENT) {
			np_err("delete %s/%s: no such reservation", ctrl, name);
			return NP_EXIT_NOENT;
		}
		return np_fail(err, "delete %s/%s", ctrl, name);
	}
	/* an empty controller directory holds no intent: it goes too */
	np_path(dir, sizeof(dir), np_cfg_root(), ctrl, NULL, NULL);
	rmdir(dir);
	return NP_EXIT_OK;
}

static int np_delete_all(void)
{
	char **ctrls, **names, dir[PATH_MAX];
	int nc, nn, i, j, ret = NP_EXIT_OK, r;

	nc = np_subdirs(np_cfg_root(), "", &ctrls);
	if (nc < 0)
		return np_need_root();
	for (i = 0; i < nc; i++) {
		np_path(dir, sizeof(dir), np_cfg_root(), ctrls[i], NULL, NULL);
		nn = np_subdirs(dir, "", &names);
		for (j = 0; j < nn; j++) {
			r = np_delete_one(ctrls[i], names[j]);
			if (r && !ret)
				ret = r;
		}
		if (nn >= 0)
			np_free_strv(names, nn);
		if (rmdir(dir) && errno != ENOENT) {
			r = np_fail(errno, "delete %s", ctrls[i]);
			if (!ret)
				ret = r;
		}
	}
	np_free_strv(ctrls, nc);
	return ret;
}

static int np_cmd_delete(int argc, char **argv)
{
	char ctrl[NP_CTRL_MAX + 1], name[NP_NAME_MAX + 1], why[256];
	int ret;

	if (argc != 1) {
		np_err("delete: usage: nvme-peer delete CTRL/NAME | --all");
		return NP_EXIT_USAGE;
	}
	if (!strcmp(argv[0], "--all"))
		return np_delete_all();
	if (np_parse_name(argv[0], ctrl, name, why, sizeof(why))) {
		np_err("delete: %s", why);
		return NP_EXIT_USAGE;
	}
	ret = np_need_root();
	return ret ? ret : np_delete_one(ctrl, name);
}

/* ---- save -------------------------------------------------------------- */

/* The temporary file of a save under way: a signal removes it */
static char np_save_tmp[PATH_MAX];
static const int np_save_sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGXFSZ };

static void np_save_signal(int sig)
{
	if (np_save_tmp[0])
		unlink(np_save_tmp);
	signal(sig, SIG_DFL);
	raise(sig);	/* blocked until this handler returns, then fatal */
}

/* np_save_signal() on, or (@on 0) the caller's dispositions back */
static void np_save_catch(int on)
{
	static struct sigaction old[ARRAY_SIZE(np_save_sigs)];
	struct sigaction sa = { .sa_handler = np_save_signal };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(np_save_sigs); i++) {
		if (!on) {
			sigaction(np_save_sigs[i], &old[i], NULL);
			continue;
		}
		sigaction(np_save_sigs[i], NULL, &old[i]);
		/* a signal the caller ignores stays ignored */
		if (old[i].sa_handler != SIG_IGN)
			sigaction(np_save_sigs[i], &sa, NULL);
	}
}

/* The save file's text; 0, or -1 with errno set (a write failed) */
static int np_save_print(FILE *f, const struct np_list *l)
{
	time_t now = time(NULL);
	char stamp[64];
	int i, k;

	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	fprintf(f, NP_FORMAT_TAG "%d, %s: %d reservation%s\n", NP_FORMAT,
		stamp, l->n, l->n == 1 ? "" : "s");
	fprintf(f, "# CTRL/NAME KEY=VALUE... (defaults left out; enable last)\n");
	for (i = 0; i < l->n; i++) {
		const struct np_entry *e = &l->v[i];

		fprintf(f, "%s/%s", e->ctrl, e->name);
		/* an empty value is the default where one is valid */
		for (k = 0; k < NP_KEY_enable; k++)
			if (e->val[k][0] && strcmp(e->val[k], np_cfs_keys[k].def))
				fprintf(f, " %s=%s", np_cfs_keys[k].name,
					e->val[k]);
		fprintf(f, " enable=%s\n", e->val[NP_KEY_enable]);
	}
	if (fflush(f) || ferror(f)) {
		if (!errno)
			errno = EIO;
		return -1;
	}
	return 0;
}

/*
 * @file replaced whole or not at all, as nvmetcli saves: the text goes to
 * a temporary file next to it (mode 0600), which is synced and renamed
 * over @file, and then the directory is synced.  A failure or a fatal
 * signal at any point leaves @file as it was (a SIGKILL leaves the
 * temporary file too, FILE.tmp.XXXXXX).  A symbolic link is followed: its
 * target is replaced.
 */
static int np_save_file(const char *file, const struct np_list *l)
{
	char *real = realpath(file, NULL), dir[PATH_MAX];
	const char *path = real ? real : file;
	const char *step = "create a temporary file";
	FILE *f = NULL;
	int fd, dfd, err = 0;

	if (snprintf(np_save_tmp, sizeof(np_save_tmp), "%s.tmp.XXXXXX",
		     path) >= (int)sizeof(np_save_tmp)) {
		np_save_tmp[0] = '\0';
		free(real);
		return np_fail(ENAMETOOLONG, "save: %s", file);
	}
	np_save_catch(1);
	fd = mkstemp(np_save_tmp);
	if (fd < 0) {
		err = errno;
		np_save_tmp[0] = '\0';
		goto out;
	}
	step = "write";
	f = fchmod(fd, 0600) ? NULL : fdopen(fd, "w");
	if (!f || np_save_print(f, l)) {
		err = errno;
		goto out;
	}
	step = "fsync";
	if (fsync(fd)) {
		err = errno;
		goto out;
	}
	step = "close";
	err = fclose(f) ? errno : 0;
	f = NULL;
	fd = -1;
	if (err)
		goto out;
	step = "rename";
	if (rename(np_save_tmp, path)) {
		err = errno;
		goto out;
	}
	np_save_tmp[0] = '\0';
	/* the rename is durable once the directory is */
	step = "fsync of its directory";
	np_copy(dir, sizeof(dir), path);
	dfd = open(dirname(dir), O_RDONLY | O_DIRECTORY);
	if (dfd < 0 || fsync(dfd))
		err = errno;
	if (dfd >= 0)
		close(dfd);
out:
	if (f)
		fclose(f);
	else if (fd >= 0)
		close(fd);
	if (np_save_tmp[0])
		unlink(np_save_tmp);
	np_save_tmp[0] = '\0';
	np_save_catch(0);
	free(real);
	if (err)
		return np_fail(err, "save: %s: %s", file, step);
	return NP_EXIT_OK;
}

static int np_cmd_save(int argc, char **argv)
{
	struct np_list l = { 0 };
	char why[512];
	int i, k, ret = NP_EXIT_OK;

	if (argc > 1) {
		np_err("save: usage: nvme-peer save [FILE]");
		return NP_EXIT_USAGE;
	}
	ret = np_need_root();
	if (ret)
		return ret;
	np_scan_cfg(&l);
	/* check first: a file that restore would refuse is not written */
	for (i = 0; i < l.n; i++) {
		for (k = 0; k < NP_NKEYS; k++) {
			if (!l.v[i].val[k]) {
				np_err("save: %s/%s: %s: unreadable",
				       l.v[i].ctrl, l.v[i].name,
				       np_cfs_keys[k].name);
				ret = NP_EXIT_FAIL;
			} else if (np_valid_value(k, l.v[i].val[k], why,
						  sizeof(why))) {
				np_err("save: %s/%s: %s", l.v[i].ctrl,
				       l.v[i].name, why);
				ret = NP_EXIT_FAIL;
			}
		}
	}
	if (ret)
		goto out;
	if (argc && strcmp(argv[0], "-"))
		ret = np_save_file(argv[0], &l);
	else if (np_save_print(stdout, &l))
		ret = np_fail(errno, "save: stdout");
out:
	np_list_free(&l);
	return ret;
}

/* ---- restore ----------------------------------------------------------- */

struct np_conf {
	struct np_spec *v;
	int n;
};

static void np_file_err(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* One line (no newline) into @conf; the number of errors said */
static int np_parse_line(char *s, const char *file, int line,
			 struct np_conf *conf)
{
	struct np_spec *spec;
	char *word, *save, why[600], dir[PATH_MAX];
	struct stat st;
	int i, errs = 0;

	for (i = 0; s[i]; i++) {
		if (iscntrl((unsigned char)s[i]) && s[i] != '\t') {
			np_file_err(file, line,
				    "control character 0x%02x at column %d",
				    (unsigned char)s[i], i + 1);
			return 1;
		}
	}
	word = strtok_r(s, " \t", &save);
	if (!word || word[0] == '#')
		return 0;
	if (!(conf->n % 16)) {
		conf->v = realloc(conf->v, (conf->n + 16) * sizeof(*conf->v));
		if (!conf->v) {
			np_err("out of memory");
			exit(NP_EXIT_FAIL);
		}
	}
	spec = &conf->v[conf->n];
	memset(spec, 0, sizeof(*spec));
	spec->line = line;
	if (np_parse_name(word, spec->ctrl, spec->name, why, sizeof(why))) {
		np_file_err(file, line, "%s", why);
		return 1;
	}
	while ((word = strtok_r(NULL, " \t", &save)) && word[0] != '#') {
		if (np_spec_word(spec, word, why, sizeof(why))) {
			np_file_err(file, line, "%s/%s: %s", spec->ctrl,
				    spec->name, why);
			errs++;
		}
	}
	if (!errs && np_spec_check(spec, 1, why, sizeof(why))) {
		np_file_err(file, line, "%s/%s: %s", spec->ctrl, spec->name,
			    why);
		errs++;
	}
	for (i = 0; i < conf->n; i++) {
		if (!strcmp(conf->v[i].ctrl, spec->ctrl) &&
		    !strcmp(conf->v[i].name, spec->name)) {
			np_file_err(file, line, "%s/%s: duplicate name (line %d)",
				    spec->ctrl, spec->name, conf->v[i].line);
			errs++;
		}
	}
	np_path(dir, sizeof(dir), np_cfg_root(), spec->ctrl, spec->name, NULL);
	if (!lstat(dir, &st)) {
		np_file_err(file, line, "%s/%s: exists already (delete it first)",
			    spec->ctrl, spec->name);
		errs++;
	}
	if (errs)
		np_spec_free(spec);
	else
		conf->n++;
	return errs;
}

/*
 * A format line (NP_FORMAT_TAG N...): 1 if @s is one this nvme-peer reads,
 * 0 if @s is another comment, -1 with the error said
 */
static int np_format_line(const char *s, const char *file, int line)
{
	unsigned long long v;
	char num[24];
	size_t n;

	if (strncmp(s, NP_FORMAT_TAG, strlen(NP_FORMAT_TAG)))
		return 0;
	s += strlen(NP_FORMAT_TAG);
	n = strspn(s, "0123456789");
	snprintf(num, sizeof(num), "%.*s", (int)(n < 23 ? n : 23), s);
	if (!n || n > 9 || (s[n] && !strchr(", \t", s[n])) ||
	    np_parse_num(num, 1000000000, &v)) {
		np_file_err(file, line, "format line: '%.*s' is not a format number",
			    (int)strcspn(s, ", \t"), s);
		return -1;
	}
	if (v != NP_FORMAT) {
		np_file_err(file, line,
			    "save file format %llu; this nvme-peer (%s) reads format %d%s",
			    v, NP_VERSION, NP_FORMAT,
			    v > NP_FORMAT ? ": written by a newer nvme-peer" : "");
		return -1;
	}
	return 1;
}

/*
 * The whole file into @conf: the number of errors, each said.  A read
 * error or running out of memory is an error, not the end of the file.
 * *@format: whether a format line was seen.
 */
static int np_parse_file(FILE *f, const char *file, struct np_conf *conf,
			 int *format)
{
	char *buf = NULL;
	size_t cap = 0;
	ssize_t len;
	int line = 0, errs = 0, r;

	*format = 0;
	for (;;) {
		errno = 0;
		len = getline(&buf, &cap, f);
		if (len < 0)
			break;
		line++;
		if (len && buf[len - 1] == '\n')
			buf[--len] = '\0';
		if (len && buf[len - 1] == '\r')
			buf[--len] = '\0';
		if (len > NP_LINE_MAX) {
			np_file_err(file, line,
				    "line longer than %d characters (%zd)",
				    NP_LINE_MAX, len);
			errs++;
			continue;
		}
		if (strlen(buf) != (size_t)len) {
			np_file_err(file, line, "NUL character");
			errs++;
			continue;
		}
		r = np_format_line(buf, file, line);
		if (r) {
			errs += r < 0;
			*format = 1;
			continue;
		}
		errs += np_parse_line(buf, file, line, conf);
	}
	/* getline() returns -1 at the end, on a read error and without memory */
	if (ferror(f) || !feof(f)) {
		np_file_err(file, line + 1, "cannot read: %s",
			    strerror(errno ? errno : EIO));
		errs++;
	}
	free(buf);
	return errs;
}

static int np_cmd_restore(int argc, char **argv)
{
	struct np_conf conf = { 0 };
	struct np_made *made;
	const char *file = "<stdin>";
	char where[PATH_MAX + 32];
	int check = 0, i, errs, format, ret = NP_EXIT_OK;
	FILE *f = stdin;

	if (argc && !strcmp(argv[0], "--check"))
		check = 1, argc--, argv++;
	if (argc > 1) {
		np_err("restore: usage: nvme-peer restore [--check] [FILE]");
		return NP_EXIT_USAGE;
	}
	/* --check works without the module: nothing exists then */
	ret = check ? 0 : np_need_root();
	if (ret)
		return ret;
	if (argc && strcmp(argv[0], "-")) {
		file = argv[0];
		f = fopen(file, "r");
		if (!f)
			return np_fail(errno, "restore: %s", file) ==
			       NP_EXIT_PERM ? NP_EXIT_PERM : NP_EXIT_FILE;
	}
	errs = np_parse_file(f, file, &conf, &format);
	if (f != stdin)
		fclose(f);
	if (errs) {
		np_err("restore: %s: %d error%s: nothing created", file, errs,
		       errs == 1 ? "" : "s");
		ret = NP_EXIT_FILE;
		goto out;
	}
	if (check) {
		printf("%s: %d reservation%s, valid (format %d%s)\n", file,
		       conf.n, conf.n == 1 ? "" : "s", NP_FORMAT,
		       format ? "" : ": no format line");
		goto out;
	}
	made = np_alloc((conf.n + 1) * sizeof(*made));
	for (i = 0; i < conf.n; i++) {
		snprintf(where, sizeof(where), "%s:%d: ", file,
			 conf.v[i].line);
		ret = np_create(&conf.v[i], where, &made[i]);
		if (ret)
			break;
	}
	if (ret) {
		/* np_create() undid its own; undo the ones before it */
		while (i--)
			np_undo(&made[i]);
		np_err("restore: %s: nothing created", file);
	}
	free(made);
out:
	for (i = 0; i < conf.n; i++)
		np_spec_free(&conf.v[i]);
	free(conf.v);
	return ret;
}

/* ---- watch ------------------------------------------------------------- */

static double np_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static const struct np_entry *np_lookup(const struct np_list *l,
					const struct np_entry *e)
{
	int i;

	for (i = 0; i < l->n; i++)
		if (l->v[i].sysfs_only == e->sysfs_only &&
		    !strcmp(l->v[i].ctrl, e->ctrl) &&
		    !strcmp(l->v[i].name, e->name))
			return &l->v[i];
	return NULL;
}

static int np_is_up(const struct np_entry *e)
{
	return !strcmp(e->state, "active");
}

static void np_event(const char *event, const struct np_entry *e)
{
	char stamp[64], full[80];
	struct timespec ts;
	struct tm tm;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(stamp + strlen(stamp), sizeof(stamp) - strlen(stamp),
		 ".%03ldZ", ts.tv_nsec / 1000000);
	snprintf(full, sizeof(full), "%s/%s", e->ctrl, e->name);
	if (np_json) {
		putchar('{');
		np_json_kv("time", stamp, 0);
		np_json_kv("event", event, 1);
		np_json_kv("name", full, 1);
		np_json_kv("source", e->sysfs_only ? "sysfs" : "configfs", 1);
		np_json_kv("state", e->state, 1);
		np_json_kv("reason", e->reason, 1);
		printf(",\"error\":%ld,\"live_qid\":%lu,\"generation\":%lu}\n",
		       e->error, e->live_qid, e->generation);
	} else {
		printf("%s %-10s %s state=%s reason=%s qid=%lu generation=%lu",
		       stamp, event, full, e->state, e->reason, e->live_qid,
		       e->generation);
		if (e->error)
			printf(" error=%ld", e->error);
		putchar('\n');
	}
	fflush(stdout);
}

/* The events between two scans: how many were said */
static int np_diff(const struct np_list *old, const struct np_list *now)
{
	const struct np_entry *o;
	int i, n = 0;

	for (i = 0; i < old->n; i++) {
		if (!np_lookup(now, &old->v[i])) {
			np_event("deleted", &old->v[i]);
			n++;
		}
	}
	for (i = 0; i < now->n; i++) {
		const struct np_entry *e = &now->v[i];
		const char *ev = NULL;

		o = np_lookup(old, e);
		if (!o)
			ev = "created";
		else if (!strcmp(o->state, "disabled") && strcmp(e->state,
								 "disabled"))
			ev = "enabled";
		else if (e->generation > o->generation && o->generation &&
			 np_is_up(e))
			ev = "recreated";
		else if (np_is_up(o) && !np_is_up(e))
			ev = !strcmp(e->state, "disabled") ? "disabled" :
			     "revoked";
		else if (!np_is_up(o) && np_is_up(e))
			ev = "enabled";
		else if (strcmp(o->state, e->state) ||
			 strcmp(o->reason, e->reason) ||
			 o->error != e->error || o->live_qid != e->live_qid)
			ev = "changed";
		if (ev) {
			np_event(ev, e);
			n++;
		}
	}
	return n;
}

/*
 * The kernel's uevents (NETLINK_KOBJECT_UEVENT, group 1), or -1 when
 * they say nothing about the tree watched: NVME_PEER_SYSFS names another
 * root (tests/native.sh's fake tree), or the socket cannot be had.  Opened
 * before the first scan, so that no change after it is missed.
 */
static int np_uevent_open(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = 1 };
	int fd, size = 1 << 20;

	if (strcmp(np_sys_root(), "/sys/class/nvme"))
		return -1;
	fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
		    NETLINK_KOBJECT_UEVENT);
	if (fd < 0)
		return -1;
	/* a reset sends many; root may go past rmem_max */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * Read every uevent waiting on @fd: whether one was nvme-peer's (a
 * reservation's, NVME_PEER_EVENT=...) or some were lost (ENOBUFS), so
 * that the tree must be scanned again.
 */
static int np_uevent_read(int fd)
{
	static char buf[8192];
	struct sockaddr_nl sa;
	struct iovec iov = { buf, sizeof(buf) - 1 };
	struct msghdr msg = {
		.msg_name = &sa, .msg_namelen = sizeof(sa),
		.msg_iov = &iov, .msg_iovlen = 1,
	};
	int again = 0;
	ssize_t n, i;

	for (;;) {
		n = recvmsg(fd, &msg, 0);
		if (n < 0)
			return again || errno == ENOBUFS;
		/* the kernel's only (port 0), not another process's */
		if (sa.nl_pid || n == 0)
			continue;
		buf[n] = '\0';
		for (i = 0; i < n; i += strlen(buf + i) + 1)
			again |= !strncmp(buf + i, "NVME_PEER_EVENT=", 16);
	}
}

static int np_cmd_watch(int argc, char **argv)
{
	struct np_list old = { 0 }, now = { 0 };
	unsigned long long count = 0, timeout = 0, interval = 0, x;
	unsigned long long seen = 0;
	struct pollfd pfd[2];
	int i, stop = 0, wait;
	double end, next;
	sigset_t sigs;

	for (i = 0; i < argc; i++) {
		unsigned long long *opt = !strcmp(argv[i], "--count") ?
			&count : !strcmp(argv[i], "--timeout") ? &timeout :
			!strcmp(argv[i], "--interval") ? &interval : NULL;

		if (!opt || i + 1 == argc ||
		    np_parse_num(argv[i + 1], UINT32_MAX, &x) ||
		    (opt == &interval && !x)) {
			np_err("watch: usage: nvme-peer watch [--json] [--count N] [--timeout SEC] [--interval MS]");
			return NP_EXIT_USAGE;
		}
		*opt = x;
		i++;
	}
	/* SIGINT and SIGTERM end the wait: read from a signalfd */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigprocmask(SIG_BLOCK, &sigs, NULL);
	pfd[0].fd = signalfd(-1, &sigs, SFD_CLOEXEC);
	pfd[1].fd = np_uevent_open();
	pfd[0].events = POLLIN;
	pfd[1].events = POLLIN;
	if (pfd[0].fd < 0)
		return np_fail(errno, "watch: signalfd");
	/* uevents wake it; the scans between them catch what sends none */
	if (!interval)
		interval = pfd[1].fd >= 0 ? 1000 : 100;
	end = np_now() + timeout;
	np_scan(&old);
	/* a script waits for this before it changes anything */
	fprintf(stderr, "nvme-peer: watch: ready, %d reservation%s, %s\n",
		old.n, old.n == 1 ? "" : "s",
		pfd[1].fd >= 0 ? "uevents" : "no uevents");
	next = np_now() + interval / 1e3;
	while (!stop) {
		double t = np_now();

		if (timeout && t >= end)
			break;
		if (t < next) {
			wait = (int)((next - t) * 1e3) + 1;
			if (timeout && (end - t) * 1e3 < wait)
				wait = (int)((end - t) * 1e3) + 1;
			if (poll(pfd, pfd[1].fd >= 0 ? 2 : 1, wait) < 0 &&
			    errno != EINTR)
				break;
			if (pfd[0].revents) {
				stop = 1;
				break;
			}
			/* not nvme-peer's: wait on, until the next scan */
			if (!(pfd[1].fd >= 0 && pfd[1].revents &&
			      np_uevent_read(pfd[1].fd)) && np_now() < next)
				continue;
		}
		next = np_now() + interval / 1e3;
		np_scan(&now);
		seen += np_diff(&old, &now);
		np_list_free(&old);
		old = now;
		memset(&now, 0, sizeof(now));
		if (count && seen >= count)
			break;
	}
	np_list_free(&old);
	close(pfd[0].fd);
	if (pfd[1].fd >= 0)
		close(pfd[1].fd);
	if (count && seen < count && !stop)
		return NP_EXIT_TIMEOUT;
	return NP_EXIT_OK;
}

/* ---- main -------------------------------------------------------------- */

static const char np_usage[] =
"usage: nvme-peer COMMAND [ARGS] [--json]\n"
"  list [--json]                 every reservation: configfs names, and the\n"
"                                ones processes and drivers made (sysfs)\n"
"  show CTRL/NAME [--json]       one of them, with its queue\n"
"  create CTRL/NAME KEY=VALUE... make a named reservation (enable=1 last)\n"
"  delete CTRL/NAME | --all      release and remove (--all: every one)\n"
"  save [FILE]                   write every named reservation (default stdout)\n"
"  restore [--check] [FILE]      make every reservation of FILE, or none\n"
"                                (default stdin; --check: validate only)\n"
"  watch [--json] [--count N] [--timeout SEC] [--interval MS]\n"
"                                print revocations, re-creations, deletions\n"
"  version, --version            nvme-peer's version and save file format\n"
"KEYs: nsid depth sq_placement cq_placement data_placement data_size peer qid\n"
"  uid gid mode opcodes max_nlb extents file file_off file_len file_access enable\n"
"Roots: NVME_PEER_CONFIGFS (/sys/kernel/config/nvme-peer),\n"
"  NVME_PEER_SYSFS (/sys/class/nvme).  man 8 nvme-peer,\n"
"  Documentation/nvme/peer-admin.rst\n";

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
} np_cmds[] = {
	{ "list", np_cmd_list },
	{ "show", np_cmd_show },
	{ "create", np_cmd_create },
	{ "delete", np_cmd_delete },
	{ "save", np_cmd_save },
	{ "restore", np_cmd_restore },
	{ "watch", np_cmd_watch },
};

int main(int argc, char **argv)
{
	size_t c;
	int i, n = 0;

	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "help")) {
		fputs(np_usage, argc < 2 ? stderr : stdout);
		return argc < 2 ? NP_EXIT_USAGE : NP_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		if (argc > 2) {
			np_err("version: usage: nvme-peer version");
			return NP_EXIT_USAGE;
		}
		printf("nvme-peer version %s (save file format %d)\n",
		       NP_VERSION, NP_FORMAT);
		return NP_EXIT_OK;
	}
	/* --json anywhere after the command; the rest stays in order */
	for (i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			np_json = 1;
		else
			argv[2 + n++] = argv[i];
	}
	for (c = 0; c < ARRAY_SIZE(np_cmds); c++)
		if (!strcmp(argv[1], np_cmds[c].name))
			return np_cmds[c].fn(n, argv + 2);
	np_err("unknown command '%s'", argv[1]);
	fputs(np_usage, stderr);
	return NP_EXIT_USAGE;
}
