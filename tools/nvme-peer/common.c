// SPDX-License-Identifier: GPL-2.0
/*
 * nvme-peer, the administrator's command: errors, files, and the names
 * and values the kernel decides (words.c).
 */
#include "nvme-peer.h"

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
	  "the controller directory still holds reservations or windows" },
	{ EISDIR, "EISDIR", "file= names a directory" },
	{ EBADF, "EBADF", "file= cannot be opened for file_access" },
	{ ENXIO, "ENXIO",
	  "no provider shows the window's namespace, the PMR has no BAR, or file= is a reflink" },
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

void np_err(const char *fmt, ...)
{
	va_list ap;

	fputs("nvme-peer: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* "WHAT: strerror (ENAME: meaning)" and the exit code that errno means */
int np_fail(int err, const char *fmt, ...)
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

void *np_alloc(size_t len)
{
	void *p = calloc(1, len);

	if (!p) {
		np_err("out of memory");
		exit(NP_EXIT_FAIL);
	}
	return p;
}

char *np_strdup(const char *s)
{
	size_t len = strlen(s) + 1;

	return memcpy(np_alloc(len), s, len);
}

void np_copy(char *dst, size_t size, const char *src)
{
	snprintf(dst, size, "%s", src);
}

/* ---- files ------------------------------------------------------------- */

const char *np_cfg_root(void)
{
	const char *r = getenv("NVME_PEER_CONFIGFS");

	return r && *r ? r : "/sys/kernel/config/nvme-peer";
}

const char *np_sys_root(void)
{
	const char *r = getenv("NVME_PEER_SYSFS");

	return r && *r ? r : "/sys/class/nvme";
}

/* Read @path into @buf, trailing newlines cut; 0 or -errno. */
int np_read(const char *path, char *buf, size_t len)
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
int np_write(const char *path, const char *val)
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

int np_is_dir(const char *dir, const struct dirent *d)
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
int np_subdirs(const char *dir, const char *prefix, char ***out)
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

void np_free_strv(char **v, int n)
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

int np_natcmp_p(const void *a, const void *b)
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

/*
 * "nvme0/t1" (a queue's intent) or "nvme0/windows/w1" (a window's) into
 * @ctrl, @name (the path below the controller directory: "t1",
 * "windows/w1") and @win; 0, or -1 with @why said
 */
int np_parse_name(const char *s, char *ctrl, char *name, int *win,
		  char *why, size_t len)
{
	const char *slash = strchr(s, '/'), *base;
	size_t clen = slash ? (size_t)(slash - s) : 0;

	if (!slash || !clen || clen > NP_CTRL_MAX) {
		snprintf(why, len,
			 "'%s': a name is CTRL/NAME, e.g. nvme0/t1, or CTRL/%s/NAME for a window",
			 s, NP_WIN_DIR);
		return -1;
	}
	memcpy(ctrl, s, clen);
	ctrl[clen] = '\0';
	if (!np_ctrl_name_ok(ctrl)) {
		snprintf(why, len, "'%s': the controller is nvmeN (at most %d characters)",
			 s, NP_CTRL_MAX);
		return -1;
	}
	base = slash + 1;
	*win = !strncmp(base, NP_WIN_PREFIX, strlen(NP_WIN_PREFIX));
	if (*win) {
		base += strlen(NP_WIN_PREFIX);
	} else if (!strcmp(base, NP_WIN_DIR)) {
		snprintf(why, len,
			 "'%s': %s/ holds the window intents (CTRL/%s/NAME), no queue's",
			 s, NP_WIN_DIR, NP_WIN_DIR);
		return -1;
	}
	if (!np_cfs_name_ok(base)) {
		snprintf(why, len,
			 "'%s': NAME is 1-%d characters of A-Z a-z 0-9 _ . -, not . or ..",
			 s, NP_NAME_MAX);
		return -1;
	}
	snprintf(name, NP_INTENT_MAX + 1, "%s%s", *win ? NP_WIN_PREFIX : "",
		 base);
	return 0;
}

/*
 * Check @val for key @k as the save file and the command line take it:
 * 0, or -1 with @why said
 */
int np_valid_value(int k, const char *val, char *why, size_t len)
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

/* The keys of a window's intent (np_win_key()), blank-separated */
void np_win_keys(char *buf, size_t len)
{
	size_t at = 0;
	int k;

	buf[0] = '\0';
	for (k = 0; k < NP_NKEYS && at < len; k++)
		if (np_win_key(k))
			at += snprintf(buf + at, len - at, "%s%s", at ? " " : "",
				       np_cfs_keys[k].name);
}

/* One KEY=VALUE word into @spec: 0, or -1 with @why said */
int np_spec_word(struct np_spec *spec, const char *word, char *why,
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
	if (spec->win && !np_win_key(k)) {
		char keys[256];

		np_win_keys(keys, sizeof(keys));
		snprintf(why, len, "%s: a queue's key, not a window's (%s)",
			 np_cfs_keys[k].name, keys);
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
 * (np_enable_check(), a window's np_win_enable_check()); @check_file: the
 * file must be a regular file (restore; enabling opens it).  0, or -1
 * with @why said.
 */
int np_spec_check(const struct np_spec *spec, int check_file,
		  char *why, size_t len)
{
	const char *file = spec->val[NP_KEY_file];
	unsigned long long nsid, off, flen;
	struct stat st;
	int ret;

	if (!np_spec_value(spec, NP_KEY_enable).num)
		return 0;
	nsid = np_spec_value(spec, NP_KEY_nsid).num;
	off = np_spec_value(spec, NP_KEY_file_off).num;
	flen = np_spec_value(spec, NP_KEY_file_len).num;
	if (spec->win)
		ret = np_win_enable_check(nsid, file && *file, off, flen,
					  np_spec_value(spec, NP_KEY_extents).nr_ext,
					  why, len);
	else
		ret = np_enable_check(nsid, file && *file, off, flen,
				      np_spec_value(spec, NP_KEY_file_access).word,
				      why, len);
	if (ret)
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

void np_spec_free(struct np_spec *spec)
{
	int k;

	for (k = 0; k < NP_NKEYS; k++)
		free(spec->val[k]);
	memset(spec, 0, sizeof(*spec));
}

