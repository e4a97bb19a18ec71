// SPDX-License-Identifier: GPL-2.0
/*
 * nvme-peer, the administrator's command: save (atomic: temp file,
 * fsync, rename) and restore (checked first).
 */
#include "nvme-peer.h"

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

/*
 * A window provider: a controller's pmr_nsid, one "CTRL pmr_nsid=NSID"
 * line, restored after the reservations and before the windows
 */
struct np_prov {
	char ctrl[NP_CTRL_MAX + 1];
	unsigned long long nsid;
	int line;
};

struct np_provs {
	struct np_prov *v;
	int n;
};

static struct np_prov *np_prov_add(struct np_provs *p)
{
	if (!(p->n % 16)) {
		p->v = realloc(p->v, (p->n + 16) * sizeof(*p->v));
		if (!p->v) {
			np_err("out of memory");
			exit(NP_EXIT_FAIL);
		}
	}
	memset(&p->v[p->n], 0, sizeof(p->v[0]));
	return &p->v[p->n++];
}

static const char *np_prov_path(char *buf, size_t len, const char *ctrl)
{
	np_path(buf, len, np_cfg_root(), ctrl, NP_PROV_KEY, NULL);
	return buf;
}

/*
 * The declared providers (pmr_nsid not 0; a controller directory without
 * the attribute, of a module without windows, declares none); the number
 * unreadable, said
 */
static int np_scan_provs(struct np_provs *p)
{
	char **ctrls, path[PATH_MAX], val[32];
	int nc, i, err, errs = 0;
	struct np_prov *v;

	nc = np_subdirs(np_cfg_root(), "", &ctrls);
	if (nc < 0)
		return 0;
	qsort(ctrls, nc, sizeof(*ctrls), np_natcmp_p);
	for (i = 0; i < nc; i++) {
		unsigned long long nsid;

		err = np_read(np_prov_path(path, sizeof(path), ctrls[i]), val,
			      sizeof(val));
		if (err == -ENOENT)
			continue;
		if (err || np_parse_num(val, NP_PROV_NSID_MAX, &nsid)) {
			np_err("save: %s: %s: unreadable", ctrls[i],
			       NP_PROV_KEY);
			errs++;
			continue;
		}
		if (!nsid)
			continue;
		v = np_prov_add(p);
		np_copy(v->ctrl, sizeof(v->ctrl), ctrls[i]);
		v->nsid = nsid;
	}
	np_free_strv(ctrls, nc);
	return errs;
}

/* One intent's line: the values not the default, enable last */
static void np_save_line(FILE *f, const struct np_entry *e)
{
	int k;

	fprintf(f, "%s/%s", e->ctrl, e->name);
	/* an empty value is the default where one is valid */
	for (k = 0; k < NP_KEY_enable; k++)
		if (e->val[k] && e->val[k][0] &&
		    strcmp(e->val[k], np_cfs_keys[k].def))
			fprintf(f, " %s=%s", np_cfs_keys[k].name, e->val[k]);
	fprintf(f, " enable=%s\n", e->val[NP_KEY_enable]);
}

/*
 * The save file's text, in the order restore makes it: the reservations,
 * the providers, the windows (a window's enable needs its provider); 0,
 * or -1 with errno set (a write failed)
 */
static int np_save_print(FILE *f, const struct np_list *l,
			 const struct np_provs *p)
{
	time_t now = time(NULL);
	char stamp[64];
	int i, wins = 0;

	for (i = 0; i < l->n; i++)
		wins += l->v[i].win;
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	fprintf(f, NP_FORMAT_TAG "%d, %s: %d reservation%s", NP_FORMAT,
		stamp, l->n - wins, l->n - wins == 1 ? "" : "s");
	if (wins)
		fprintf(f, ", %d window%s", wins, wins == 1 ? "" : "s");
	fprintf(f, "\n# CTRL/NAME KEY=VALUE... (defaults left out; enable last)\n");
	for (i = 0; i < l->n; i++)
		if (!l->v[i].win)
			np_save_line(f, &l->v[i]);
	if (p->n)
		fprintf(f, "# CTRL %s=NSID: window providers (after the reservations)\n",
			NP_PROV_KEY);
	for (i = 0; i < p->n; i++)
		fprintf(f, "%s %s=%llu\n", p->v[i].ctrl, NP_PROV_KEY,
			p->v[i].nsid);
	if (wins)
		fprintf(f, "# CTRL/%s/NAME KEY=VALUE...: windows (after their providers)\n",
			NP_WIN_DIR);
	for (i = 0; i < l->n; i++)
		if (l->v[i].win)
			np_save_line(f, &l->v[i]);
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
static int np_save_file(const char *file, const struct np_list *l,
			const struct np_provs *p)
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
	if (!f || np_save_print(f, l, p)) {
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

int np_cmd_save(int argc, char **argv)
{
	struct np_provs p = { 0 };
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
	if (np_scan_provs(&p))
		ret = NP_EXIT_FAIL;
	/* check first: a file that restore would refuse is not written */
	for (i = 0; i < l.n; i++) {
		/* a queue's intent of a module without windows */
		if (!l.v[i].win && !strcmp(l.v[i].name, NP_WIN_DIR)) {
			np_err("save: %s/%s: a queue's intent of that name cannot be restored (%s/ holds window intents): make it again under another name",
			       l.v[i].ctrl, l.v[i].name, NP_WIN_DIR);
			ret = NP_EXIT_FAIL;
		}
		for (k = 0; k < NP_NKEYS; k++) {
			if (l.v[i].win && !np_win_key(k))
				continue;
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
		ret = np_save_file(argv[0], &l, &p);
	else if (np_save_print(stdout, &l, &p))
		ret = np_fail(errno, "save: stdout");
out:
	np_list_free(&l);
	free(p.v);
	return ret;
}

/* ---- restore ----------------------------------------------------------- */

struct np_conf {
	struct np_spec *v;
	int n;
	struct np_provs p;
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

/*
 * A provider line, "CTRL pmr_nsid=NSID" (its first word @ctrl, the rest in
 * strtok_r()'s @save), into @conf; the number of errors said
 */
static int np_parse_prov(const char *ctrl, char **save, const char *file,
			 int line, struct np_conf *conf)
{
	char *word, path[PATH_MAX], val[32];
	unsigned long long nsid = 0, now;
	int i, got = 0;
	struct np_prov *v;

	if (!np_ctrl_name_ok(ctrl)) {
		np_file_err(file, line, "'%s': a name is CTRL/NAME, e.g. nvme0/t1 (or a controller's line: CTRL %s=NSID)",
			    ctrl, NP_PROV_KEY);
		return 1;
	}
	while ((word = strtok_r(NULL, " \t", save)) && word[0] != '#') {
		size_t klen = strlen(NP_PROV_KEY);

		if (got++ || strncmp(word, NP_PROV_KEY "=", klen + 1) ||
		    np_parse_num(word + klen + 1, NP_PROV_NSID_MAX, &nsid) ||
		    !nsid) {
			np_file_err(file, line, "%s: '%s': a controller's line is %s=NSID (1-%llu), once",
				    ctrl, word, NP_PROV_KEY,
				    (unsigned long long)NP_PROV_NSID_MAX);
			return 1;
		}
	}
	if (!got) {
		np_file_err(file, line, "%s: no %s=NSID", ctrl, NP_PROV_KEY);
		return 1;
	}
	for (i = 0; i < conf->p.n; i++) {
		if (!strcmp(conf->p.v[i].ctrl, ctrl)) {
			np_file_err(file, line, "%s: duplicate controller (line %d)",
				    ctrl, conf->p.v[i].line);
			return 1;
		}
	}
	if (!np_read(np_prov_path(path, sizeof(path), ctrl), val, sizeof(val)) &&
	    !np_parse_num(val, NP_PROV_NSID_MAX, &now) && now) {
		np_file_err(file, line, "%s: %s is %llu already (write 0 first)",
			    ctrl, NP_PROV_KEY, now);
		return 1;
	}
	v = np_prov_add(&conf->p);
	np_copy(v->ctrl, sizeof(v->ctrl), ctrl);
	v->nsid = nsid;
	v->line = line;
	return 0;
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
	if (!strchr(word, '/'))
		return np_parse_prov(word, &save, file, line, conf);
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
	if (np_parse_name(word, spec->ctrl, spec->name, &spec->win, why,
			  sizeof(why))) {
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

/*
 * Withdraw the first @n providers of @p again (pmr_nsid 0), last first,
 * and remove the controller directories @made for them
 */
static void np_withdraw_provs(const struct np_provs *p, const int *made,
			      int n)
{
	char path[PATH_MAX];

	while (n--) {
		np_write(np_prov_path(path, sizeof(path), p->v[n].ctrl), "0");
		if (made[n])
			np_rmdir_ctrl(p->v[n].ctrl);
	}
}

/*
 * What a window's enable=1 needs of the rest: its controller's provider
 * showing its namespace (else enabling it fails, ENXIO), declared by a
 * line of the file or in configfs already.  The number of errors, said.
 */
static int np_check_windows(const struct np_conf *conf, const char *file)
{
	char path[PATH_MAX], val[32];
	unsigned long long nsid, prov;
	int i, j, errs = 0, line;

	for (i = 0; i < conf->n; i++) {
		const struct np_spec *w = &conf->v[i];

		if (!w->win || !w->val[NP_KEY_enable] ||
		    strcmp(w->val[NP_KEY_enable], "1") ||
		    np_parse_num(w->val[NP_KEY_nsid], NP_U32_MAX, &nsid))
			continue;
		prov = 0;
		line = 0;
		for (j = 0; j < conf->p.n; j++) {
			if (!strcmp(conf->p.v[j].ctrl, w->ctrl)) {
				prov = conf->p.v[j].nsid;
				line = conf->p.v[j].line;
			}
		}
		if (!line &&
		    (np_read(np_prov_path(path, sizeof(path), w->ctrl), val,
			     sizeof(val)) ||
		     np_parse_num(val, NP_PROV_NSID_MAX, &prov)))
			prov = 0;
		if (prov == nsid)
			continue;
		if (!prov)
			np_file_err(file, w->line, "%s/%s: enable=1 needs %s's window provider: a line '%s %s=%llu' (%s declares none)",
				    w->ctrl, w->name, w->ctrl, w->ctrl,
				    NP_PROV_KEY, nsid, w->ctrl);
		else if (line)
			np_file_err(file, w->line, "%s/%s: nsid=%llu, but %s's provider (line %d) shows namespace %llu",
				    w->ctrl, w->name, nsid, w->ctrl, line,
				    prov);
		else
			np_file_err(file, w->line, "%s/%s: nsid=%llu, but %s's provider (declared) shows namespace %llu",
				    w->ctrl, w->name, nsid, w->ctrl, prov);
		errs++;
	}
	return errs;
}

/*
 * Declare each provider of @p, after the reservations, noting in @made
 * (p->n of them) the controller directories made for them: 0, or the exit
 * code of the first failure, said, with the ones before it withdrawn again
 */
static int np_restore_provs(const struct np_provs *p, const char *file,
			    int *made)
{
	char dir[PATH_MAX], path[PATH_MAX], val[24];
	int i, ret = 0;

	for (i = 0; i < p->n; i++) {
		np_path(dir, sizeof(dir), np_cfg_root(), p->v[i].ctrl, NULL,
			NULL);
		made[i] = !mkdir(dir, 0755);
		if (!made[i] && errno != EEXIST) {
			ret = np_fail(errno, "%s:%d: mkdir %s", file,
				      p->v[i].line, p->v[i].ctrl);
			break;
		}
		snprintf(val, sizeof(val), "%llu", p->v[i].nsid);
		ret = np_write(np_prov_path(path, sizeof(path), p->v[i].ctrl),
			       val);
		if (ret) {
			ret = np_fail(-ret, "%s:%d: %s %s=%s", file,
				      p->v[i].line, p->v[i].ctrl, NP_PROV_KEY,
				      val);
			if (made[i])
				np_rmdir_ctrl(p->v[i].ctrl);
			break;
		}
	}
	if (ret)
		np_withdraw_provs(p, made, i);
	return ret;
}

/*
 * Make each intent of @conf that is (@win) or is not a window's, in file
 * order, noting each in @made and @done (@nd of them): 0, or the exit
 * code of the failure, said (np_create() undid its own)
 */
static int np_restore_intents(const struct np_conf *conf, int win,
			      const char *file, struct np_made *made,
			      int *done, int *nd)
{
	char where[PATH_MAX + 32];
	int i, ret;

	for (i = 0; i < conf->n; i++) {
		if (conf->v[i].win != win)
			continue;
		snprintf(where, sizeof(where), "%s:%d: ", file,
			 conf->v[i].line);
		ret = np_create(&conf->v[i], where, &made[i]);
		if (ret)
			return ret;
		done[(*nd)++] = i;
	}
	return 0;
}

int np_cmd_restore(int argc, char **argv)
{
	struct np_conf conf = { 0 };
	struct np_made *made;
	const char *file = "<stdin>";
	int check = 0, i, errs, format, ret = NP_EXIT_OK;
	int *done, nd = 0, nq, wins = 0, *pmade, provs = 0;
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
	errs += np_check_windows(&conf, file);
	if (errs) {
		np_err("restore: %s: %d error%s: nothing created", file, errs,
		       errs == 1 ? "" : "s");
		ret = NP_EXIT_FILE;
		goto out;
	}
	for (i = 0; i < conf.n; i++)
		wins += conf.v[i].win;
	if (check) {
		printf("%s: %d reservation%s, ", file, conf.n - wins,
		       conf.n - wins == 1 ? "" : "s");
		if (conf.p.n)
			printf("%d provider%s, ", conf.p.n,
			       conf.p.n == 1 ? "" : "s");
		if (wins)
			printf("%d window%s, ", wins, wins == 1 ? "" : "s");
		printf("valid (format %d%s)\n", NP_FORMAT,
		       format ? "" : ": no format line");
		goto out;
	}
	/*
	 * The reservations, then the providers, then the windows (a
	 * window's enable needs its provider); a failure undoes them all,
	 * in the reverse order
	 */
	made = np_alloc((conf.n + 1) * sizeof(*made));
	done = np_alloc((conf.n + 1) * sizeof(*done));
	pmade = np_alloc((conf.p.n + 1) * sizeof(*pmade));
	ret = np_restore_intents(&conf, 0, file, made, done, &nd);
	nq = nd;
	if (!ret) {
		ret = np_restore_provs(&conf.p, file, pmade);
		provs = !ret;
	}
	if (!ret)
		ret = np_restore_intents(&conf, 1, file, made, done, &nd);
	if (ret) {
		while (nd > nq)
			np_undo(&made[done[--nd]]);
		if (provs)
			np_withdraw_provs(&conf.p, pmade, conf.p.n);
		while (nd)
			np_undo(&made[done[--nd]]);
		np_err("restore: %s: nothing created", file);
	}
	free(made);
	free(done);
	free(pmade);
out:
	for (i = 0; i < conf.n; i++)
		np_spec_free(&conf.v[i]);
	free(conf.v);
	free(conf.p.v);
	return ret;
}
