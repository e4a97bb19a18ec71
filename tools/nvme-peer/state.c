// SPDX-License-Identifier: GPL-2.0
/*
 * nvme-peer, the administrator's command: reading configfs and sysfs, and printing what was read.
 */
#include "nvme-peer.h"

/* ---- reading the state ------------------------------------------------- */

void np_path(char *buf, size_t len, const char *root, const char *a,
	     const char *b, const char *c)
{
	snprintf(buf, len, "%s/%s%s%s%s%s", root, a, b ? "/" : "", b ? b : "",
		 c ? "/" : "", c ? c : "");
}

static int np_read_at(const char *dir, const char *file, char *buf,
		      size_t len)
{
	char path[PATH_MAX];

	if (snprintf(path, sizeof(path), "%s/%s", dir, file) >=
	    (int)sizeof(path))
		return -ENAMETOOLONG;
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

/*
 * CTRL/NAME/ of configfs (@name "windows/NAME" for a window's) into @e;
 * 0 or -errno (-ENOENT: no such name)
 */
int np_read_cfg_entry(const char *ctrl, const char *name,
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
	e->win = !strncmp(name, NP_WIN_PREFIX, strlen(NP_WIN_PREFIX));
	/* no state: an rmdir is taking it, or it is no intent */
	if (np_read_at(dir, "state", e->state, sizeof(e->state)))
		return -ENOENT;
	for (k = 0; k < NP_NKEYS; k++)
		if ((!e->win || np_win_key(k)) &&
		    !np_read_at(dir, np_cfs_keys[k].name, buf, sizeof(buf)))
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

void np_entry_free(struct np_entry *e)
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

void np_list_free(struct np_list *l)
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

/*
 * Whether @ctrl's windows/ is the group of its window intents: a
 * directory, not a queue's intent of that name (it has a state; a module
 * without windows let one be made)
 */
int np_win_group(const char *ctrl)
{
	char dir[PATH_MAX], state[32];
	struct stat st;

	np_path(dir, sizeof(dir), np_cfg_root(), ctrl, NP_WIN_DIR, NULL);
	return !stat(dir, &st) && S_ISDIR(st.st_mode) &&
	       np_read_at(dir, "state", state, sizeof(state)) == -ENOENT;
}

/*
 * rmdir of @ctrl's directory: 0, or -1 with errno set.  configfs takes its
 * windows/ with it, and refuses an rmdir of windows/ itself (EPERM: it is
 * the directory's own).  A tree of plain directories (tests/native.sh)
 * cannot: there an empty windows/ is removed first, and made again if the
 * controller directory stays.
 */
int np_rmdir_ctrl(const char *ctrl)
{
	char dir[PATH_MAX], win[PATH_MAX];
	int err;

	np_path(dir, sizeof(dir), np_cfg_root(), ctrl, NULL, NULL);
	if (!rmdir(dir))
		return 0;
	if (errno != ENOTEMPTY && errno != EEXIST)
		return -1;
	err = errno;
	np_path(win, sizeof(win), np_cfg_root(), ctrl, NP_WIN_DIR, NULL);
	if (np_win_group(ctrl) && !rmdir(win)) {
		if (!rmdir(dir))
			return 0;
		err = errno;
		mkdir(win, 0755);
	}
	errno = err;
	return -1;
}

/*
 * @ctrl's intents, sorted: its queues' (@win 0: "NAME") or its windows'
 * (@win 1: "windows/NAME"), each a path below its directory; their
 * number (*@out then freed with np_free_strv()), or -errno
 */
int np_intents(const char *ctrl, int win, char ***out)
{
	int n, i, k = 0, group = np_win_group(ctrl);
	char dir[PATH_MAX], **v, *name;
	size_t len;

	*out = NULL;
	if (win && !group)
		return 0;
	np_path(dir, sizeof(dir), np_cfg_root(), ctrl,
		win ? NP_WIN_DIR : NULL, NULL);
	n = np_subdirs(dir, "", &v);
	if (n < 0)
		return n;
	for (i = 0; i < n; i++) {
		if (!np_cfs_name_ok(v[i]) ||
		    (!win && group && !strcmp(v[i], NP_WIN_DIR))) {
			free(v[i]);
			continue;
		}
		len = strlen(v[i]) + sizeof(NP_WIN_PREFIX);
		name = np_alloc(len);
		snprintf(name, len, "%s%s", win ? NP_WIN_PREFIX : "", v[i]);
		free(v[i]);
		v[k++] = name;
	}
	qsort(v, k, sizeof(*v), np_natcmp_p);
	*out = v;
	return k;
}

/* Each controller's queue intents, then its window intents */
void np_scan_cfg(struct np_list *l)
{
	char **ctrls, **names;
	int nc, nn, i, j, win;

	nc = np_subdirs(np_cfg_root(), "", &ctrls);
	if (nc < 0)
		return;
	qsort(ctrls, nc, sizeof(*ctrls), np_natcmp_p);
	for (i = 0; i < nc; i++) {
		for (win = 0; win < 2; win++) {
			nn = np_intents(ctrls[i], win, &names);
			for (j = 0; j < nn; j++)
				if (np_read_cfg_entry(ctrls[i], names[j],
						      np_list_add(l)))
					l->n--;
			if (nn >= 0)
				np_free_strv(names, nn);
		}
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

void np_scan(struct np_list *l)
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

void np_json_kv(const char *key, const char *val, int comma)
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
 * One reservation or window object (peer-admin.rst, "JSON"); @queue: with
 * the attributes of its qN/ (show).
 */
void np_json_entry(const struct np_entry *e, int queue)
{
	char full[80];
	int k, n = 0;

	snprintf(full, sizeof(full), "%s/%s", e->ctrl, e->name);
	putchar('{');
	np_json_kv("name", full, 0);
	np_json_kv("kind", e->win ? "window" : "queue", 1);
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
			if (!e->win || np_win_key(k))
				np_json_kv(np_cfs_keys[k].name, e->val[k], n++);
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

/*
 * A window's range: its extents, its file's (file_off, file_len if not
 * 0), or the whole namespace
 */
static void np_win_range(const struct np_entry *e, char *buf, size_t len)
{
	const char *ext = e->val[NP_KEY_extents], *file = e->val[NP_KEY_file];
	const char *off = np_or(e->val[NP_KEY_file_off], "?");
	const char *flen = np_or(e->val[NP_KEY_file_len], "?");

	if (!ext || !file)
		np_copy(buf, len, "?");
	else if (*file)
		snprintf(buf, len, "file=%s%s%s%s%s", file,
			 strcmp(off, "0") ? ",file_off=" : "",
			 strcmp(off, "0") ? off : "",
			 strcmp(flen, "0") ? ",file_len=" : "",
			 strcmp(flen, "0") ? flen : "");
	else if (*ext)
		snprintf(buf, len, "extents=%s", ext);
	else
		np_copy(buf, len, "(whole namespace)");
}

static void np_print_windows(const struct np_list *l)
{
	char full[80], gen[16], range[NP_VALUE_MAX + 64];
	int i;

	printf("%-24s %-12s %4s %5s %-24s %s\n", "WINDOW", "STATE", "GEN",
	       "NSID", "RANGE", "REASON");
	for (i = 0; i < l->n; i++) {
		const struct np_entry *e = &l->v[i];

		if (!e->win)
			continue;
		snprintf(full, sizeof(full), "%s/%s", e->ctrl, e->name);
		snprintf(gen, sizeof(gen), "%lu", e->generation);
		np_win_range(e, range, sizeof(range));
		printf("%-24s %-12s %4s %5s %-24s %s", full, e->state, gen,
		       np_or(e->val[NP_KEY_nsid], "?"), range, e->reason);
		if (e->error)
			printf(" (error %ld)", e->error);
		putchar('\n');
	}
}

/* The reservations, then the windows in a table of their own */
void np_print_list(const struct np_list *l)
{
	char full[80], qid[16], gen[16];
	int i, queues = 0;

	for (i = 0; i < l->n; i++)
		queues += !l->v[i].win;
	if (!l->n) {
		puts("no reservations");
		return;
	}
	if (queues)
		printf("%-24s %-9s %-12s %5s %4s %5s %5s %-9s %s\n", "NAME",
		       "SOURCE", "STATE", "QID", "GEN", "NSID", "DEPTH", "MODE",
		       "REASON");
	for (i = 0; i < l->n; i++) {
		const struct np_entry *e = &l->v[i];

		if (e->win)
			continue;
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
	if (queues == l->n)
		return;
	if (queues)
		putchar('\n');
	np_print_windows(l);
}

void np_print_entry(const struct np_entry *e)
{
	int k;

	printf("%s/%s\n", e->ctrl, e->name);
	printf("  %-16s %s\n", "kind", e->win ? "window" : "queue");
	printf("  %-16s %s\n", "source", e->sysfs_only ? "sysfs" : "configfs");
	printf("  %-16s %s\n", "owner", e->owner);
	printf("  %-16s %s\n", "state", e->state);
	printf("  %-16s %s\n", "reason", e->reason);
	printf("  %-16s %ld\n", "error", e->error);
	if (!e->win)
		printf("  %-16s %lu\n", "live_qid", e->live_qid);
	printf("  %-16s %lu\n", "generation", e->generation);
	if (!e->sysfs_only) {
		printf("  config:\n");
		for (k = 0; k < NP_NKEYS; k++)
			if (!e->win || np_win_key(k))
				printf("    %-16s %s\n", np_cfs_keys[k].name,
				       np_or(e->val[k], "?"));
	}
	if (e->live_qid) {
		printf("  queue q%lu:\n", e->live_qid);
		np_each_queue_attr(e, np_print_queue_attr);
	}
}

