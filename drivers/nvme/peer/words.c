// SPDX-License-Identifier: GPL-2.0
/*
 * nvme-peer: the words of words.h as names and parsers, and the rules of
 * an intent's configfs values.  The one implementation: built into
 * nvme-peer.ko (configfs.c, sysfs.c, the logs) and into tools/nvme-peer
 * (restore --check, create), only the includes differ.  No locks, no
 * allocation: every function reads its arguments and the tables.
 */
#ifdef __KERNEL__
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/string.h>

#include "nvme-peer.h"
#else
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <linux/nvme_peer.h>

#include "words.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

/* ---- the words: one table per fact ------------------------------------- */

static const char * const np_qstate_words[] = {
	[NP_Q_CREATING] = "creating",
	[NP_Q_ACTIVE] = "active",
	[NP_Q_REVOKED] = "revoked",
	[NP_Q_RELEASED] = "released",
};

static const char * const np_owner_words[] = {
	[NP_OWNER_KERNEL] = "kernel",
	[NP_OWNER_ADMIN] = "admin",
	[NP_OWNER_PROCESS] = "process",
};

static const char * const np_fence_words[] = {
	[NP_FENCED_GONE] = "gone already",
	[NP_FENCED_DRAINED] = "drained",
	[NP_FENCED_DELETED] = "deleted",
	[NP_FENCED_RESET] = "reset",
};

static const char * const np_intent_words[] = {
	[NP_INTENT_DISABLED] = "disabled",
	[NP_INTENT_ACTIVE] = "active",
	[NP_INTENT_WAITING] = "waiting",
	[NP_INTENT_DOWN] = "down",
};

static const char * const np_reason_words[] = {
	[NVME_PEER_REASON_NONE] = "none",
	[NVME_PEER_REASON_RELEASE] = "release",
	[NVME_PEER_REASON_ADMIN] = "admin",
	[NVME_PEER_REASON_RESET] = "reset",
	[NVME_PEER_REASON_CTRL_DOWN] = "ctrl-down",
	[NVME_PEER_REASON_REMOVED] = "removed",
	[NVME_PEER_REASON_UNLOAD] = "unload",
	[NVME_PEER_REASON_NAMESPACE] = "namespace",
	[NVME_PEER_REASON_PEER_REMOVED] = "peer-removed",
	[NVME_PEER_REASON_LAYOUT] = "layout",
	[NVME_PEER_REASON_MOVED] = "moved",
};

static const char * const np_mode_words[] = {
	[NVME_PEER_MODE_MEDIATED] = "mediated",
	[NVME_PEER_MODE_DIRECT] = "direct",
	[NVME_PEER_MODE_ISOLATED] = "isolated",
};

static const char * const np_placement_words[] = {
	[NVME_PEER_PLACE_NONE] = "none",
	[NVME_PEER_PLACE_HOST] = "host",
	[NVME_PEER_PLACE_CMB] = "cmb",
	[NVME_PEER_PLACE_PEER] = "peer",
	[NVME_PEER_PLACE_DMABUF] = "dmabuf",
};

static const char * const np_location_words[] = {
	[NVME_PEER_LOC_NONE] = "none",
	[NVME_PEER_LOC_SYSTEM] = "system",
	[NVME_PEER_LOC_P2P] = "p2p",
};

static const char * const np_guarantee_words[] = {
	[NVME_PEER_GUARANTEE_NONE] = "none",
	[NVME_PEER_GUARANTEE_IOMMU_SWITCH] = "iommu-switch",
	[NVME_PEER_GUARANTEE_IOMMU] = "iommu",
	[NVME_PEER_GUARANTEE_CPU] = "cpu",
	[NVME_PEER_GUARANTEE_CONTROLLER] = "controller",
	[NVME_PEER_GUARANTEE_CONTROLLER_IOMMU] = "controller-iommu",
};

static const char * const np_lease_words[] = {
	[NVME_PEER_LEASE_NONE] = "none",
	[NVME_PEER_LEASE_HELD] = "held",
	[NVME_PEER_LEASE_BREAKING] = "breaking",
	[NVME_PEER_LEASE_RETURNED] = "returned",
};

/* a mediated queue's last rejection (sysfs qN/last_reject) */
static const char * const np_verdict_words[] = {
	[NP_GUARD_OK] = "none",
	[NP_GUARD_BAD_OPCODE] = "opcode",
	[NP_GUARD_BAD_FIELD] = "field",
	[NP_GUARD_BAD_NSID] = "namespace",
	[NP_GUARD_LBA_RANGE] = "lba-range",
	[NP_GUARD_PRP_OFFSET] = "prp-offset",
	[NP_GUARD_DATA_WINDOW] = "data-window",
};

/* configfs file_access, indexed by the bits: NVME_PEER_ACCESS_WRITE or not */
static const char * const np_access_words[] = {
	[0] = "read",
	[NVME_PEER_ACCESS_WRITE] = "rw",
};

/* configfs opcodes, in the order they print */
static const unsigned int np_opcode_bits[] = {
	NVME_PEER_OPCODE_FLUSH, NVME_PEER_OPCODE_WRITE, NVME_PEER_OPCODE_READ,
	NVME_PEER_OPCODE_WRITE_ZEROES, NVME_PEER_OPCODE_DSM,
};

static const char * const np_opcode_words[] = {
	"flush", "write", "read", "write_zeroes", "dsm",
};

static const char * const np_bool_words[] = { "0", "1" };

/* The words a value of a type is one of, but @skip */
static const struct {
	const char * const *words;
	unsigned int n;
	int skip;
} np_type_words[] = {
	[NP_V_PLACEMENT] = { np_placement_words,
			     ARRAY_SIZE(np_placement_words),
			     NVME_PEER_PLACE_DMABUF },
	[NP_V_MODE] = { np_mode_words, ARRAY_SIZE(np_mode_words), -1 },
	[NP_V_OPCODES] = { np_opcode_words, ARRAY_SIZE(np_opcode_words), -1 },
	[NP_V_ACCESS] = { np_access_words, ARRAY_SIZE(np_access_words), -1 },
	[NP_V_BOOL] = { np_bool_words, ARRAY_SIZE(np_bool_words), -1 },
};

/*
 * The attributes of an intent the command writes, and how: decimal
 * numbers (or 0x hex) to max, -1 or an id to max, words, lists.  Each
 * default is what mkdir gives the intent.
 */
const struct np_cfs_key np_cfs_keys[NP_NKEYS] = {
	[NP_KEY_nsid] = { "nsid", NP_V_NUM, NP_U32_MAX, "0" },
	[NP_KEY_depth] = { "depth", NP_V_NUM, NP_U32_MAX, "64" },
	[NP_KEY_sq_placement] = { "sq_placement", NP_V_PLACEMENT, 0, "host" },
	[NP_KEY_cq_placement] = { "cq_placement", NP_V_PLACEMENT, 0, "host" },
	[NP_KEY_data_placement] = { "data_placement", NP_V_PLACEMENT, 0, "none" },
	[NP_KEY_data_size] = { "data_size", NP_V_NUM, NP_DATA_SIZE_MAX, "0" },
	[NP_KEY_peer] = { "peer", NP_V_PEER, 0, "cpu" },
	[NP_KEY_qid] = { "qid", NP_V_NUM, NP_U16_MAX, "0" },
	[NP_KEY_uid] = { "uid", NP_V_ID, NP_U32_MAX - 1, "-1" },
	[NP_KEY_gid] = { "gid", NP_V_ID, NP_U32_MAX - 1, "-1" },
	[NP_KEY_mode] = { "mode", NP_V_MODE, 0, "mediated" },
	/* "": no opcode given, which the policy takes as Read only */
	[NP_KEY_opcodes] = { "opcodes", NP_V_OPCODES, 0, "" },
	[NP_KEY_max_nlb] = { "max_nlb", NP_V_NUM, NP_U32_MAX, "0" },
	[NP_KEY_extents] = { "extents", NP_V_EXTENTS, NP_EXTENTS_MAX, "" },
	[NP_KEY_file] = { "file", NP_V_FILE, 0, "" },
	[NP_KEY_file_off] = { "file_off", NP_V_NUM, NP_U64_MAX, "0" },
	[NP_KEY_file_len] = { "file_len", NP_V_NUM, NP_U64_MAX, "0" },
	[NP_KEY_file_access] = { "file_access", NP_V_ACCESS, 0, "read" },
	[NP_KEY_enable] = { "enable", NP_V_BOOL, 1, "0" },
};

/* @words[@i], or "?" for a value without a word */
static const char *np_word(const char * const *words, unsigned int n, int i)
{
	return i >= 0 && (unsigned int)i < n && words[i] ? words[i] : "?";
}

/* The index of the word @s[0..@len) in @words, or -EINVAL */
static int np_word_find(const char * const *words, unsigned int n,
			const char *s, unsigned int len)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (words[i] && strlen(words[i]) == len &&
		    !strncmp(words[i], s, len))
			return i;
	return -EINVAL;
}

static const struct {
	const char * const *words;
	unsigned int n;
} np_facts[] = {
	[NP_FACT_QSTATE] = { np_qstate_words, ARRAY_SIZE(np_qstate_words) },
	[NP_FACT_OWNER] = { np_owner_words, ARRAY_SIZE(np_owner_words) },
	[NP_FACT_FENCE] = { np_fence_words, ARRAY_SIZE(np_fence_words) },
	[NP_FACT_INTENT] = { np_intent_words, ARRAY_SIZE(np_intent_words) },
	[NP_FACT_REASON] = { np_reason_words, ARRAY_SIZE(np_reason_words) },
	[NP_FACT_MODE] = { np_mode_words, ARRAY_SIZE(np_mode_words) },
	[NP_FACT_PLACEMENT] = { np_placement_words,
				ARRAY_SIZE(np_placement_words) },
	[NP_FACT_LOCATION] = { np_location_words,
			       ARRAY_SIZE(np_location_words) },
	[NP_FACT_GUARANTEE] = { np_guarantee_words,
				ARRAY_SIZE(np_guarantee_words) },
	[NP_FACT_LEASE] = { np_lease_words, ARRAY_SIZE(np_lease_words) },
	[NP_FACT_VERDICT] = { np_verdict_words, ARRAY_SIZE(np_verdict_words) },
};

/**
 * np_word_of() - the word of a value of a fact, as every surface prints it
 * @fact: which fact (np_qstate_name() and the others name it)
 * @value: the value, of the fact's enum
 *
 * Return: a constant string, "?" for a value without a word.
 */
const char *np_word_of(enum np_fact fact, int value)
{
	return np_word(np_facts[fact].words, np_facts[fact].n, value);
}

/**
 * np_access_name() - a file binding's access, as configfs prints it
 * @access: NVME_PEER_ACCESS_* bits
 *
 * Return: "rw" with NVME_PEER_ACCESS_WRITE, else "read".
 */
const char *np_access_name(unsigned int access)
{
	return np_access_words[access & NVME_PEER_ACCESS_WRITE];
}

/**
 * np_print_opcodes() - the words of opcode bits, comma-separated
 * @ops: NVME_PEER_OPCODE_* bits
 * @buf: where, "" for none
 * @len: its size
 *
 * Return: the length printed (as snprintf()).
 */
int np_print_opcodes(unsigned int ops, char *buf, unsigned int len)
{
	unsigned int i;
	int n = 0;

	buf[0] = '\0';
	for (i = 0; i < ARRAY_SIZE(np_opcode_bits); i++)
		if (ops & np_opcode_bits[i] && (unsigned int)n < len)
			n += snprintf(buf + n, len - n, "%s%s", n ? "," : "",
				      np_opcode_words[i]);
	return n;
}

/* ---- values ------------------------------------------------------------- */

static unsigned int np_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return 16;
}

/* np_parse_num() of @s[0..@len) */
static int np_parse_numn(const char *s, unsigned int len,
			 unsigned long long max, unsigned long long *out)
{
	unsigned long long v = 0;
	unsigned int base = 10, d;

	if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
		len -= 2;
	}
	if (!len)
		return -EINVAL;
	for (; len; len--, s++) {
		d = np_digit(*s);
		if (d >= base || d > max || v > (max - d) / base)
			return -EINVAL;
		v = v * base + d;
	}
	if (out)
		*out = v;
	return 0;
}

/**
 * np_parse_num() - a number as configfs and the save file take it
 * @s: decimal digits, or hexadecimal ones after 0x or 0X; no sign, no
 *	blank; a leading 0 is decimal (010 is ten), never octal
 * @max: the largest allowed
 * @out: the number, set on success (may be NULL)
 *
 * Return: 0, or -EINVAL for anything else or a number above @max.
 */
int np_parse_num(const char *s, unsigned long long max,
		 unsigned long long *out)
{
	return np_parse_numn(s, strlen(s), max, out);
}

/* "SLBA+NLB,...": at most @max, NLB > 0, SLBA + NLB no overflow */
static int np_parse_extents(const char *s, struct np_value *v,
			    unsigned long long max)
{
	unsigned long long slba, nlb;
	const char *plus;
	unsigned int n;

	v->nr_ext = 0;
	if (!*s)
		return 0;
	for (;;) {
		n = strcspn(s, ",");
		plus = memchr(s, '+', n);
		if (!plus || v->nr_ext >= max ||
		    np_parse_numn(s, plus - s, NP_U64_MAX, &slba) ||
		    np_parse_numn(plus + 1, s + n - plus - 1, NP_U64_MAX, &nlb) ||
		    !nlb || slba + nlb < slba)
			return -EINVAL;
		if (v->ext) {
			v->ext[v->nr_ext].slba = slba;
			v->ext[v->nr_ext].nlb = nlb;
		}
		v->nr_ext++;
		if (!s[n])
			return 0;
		s += n + 1;
	}
}

/* "flush,read,...": opcode words, each at most once; "" none */
static int np_parse_opcodes(const char *s, unsigned int *ops)
{
	unsigned int n;
	int i;

	*ops = 0;
	if (!*s)
		return 0;
	for (;;) {
		n = strcspn(s, ",");
		i = np_word_find(np_opcode_words, ARRAY_SIZE(np_opcode_words),
				 s, n);
		if (i < 0 || *ops & np_opcode_bits[i])
			return -EINVAL;
		*ops |= np_opcode_bits[i];
		if (!s[n])
			return 0;
		s += n + 1;
	}
}

/* @n lower-case hex digits at *@p, moved past them */
static int np_lower_hex(const char **p, unsigned int n, unsigned int *v)
{
	*v = 0;
	for (; n; n--, (*p)++) {
		if (**p >= 'A' && **p <= 'F')
			return -EINVAL;
		if (np_digit(**p) > 15)
			return -EINVAL;
		*v = *v * 16 + np_digit(**p);
	}
	return 0;
}

/*
 * "cpu", or a PCI name as pci_name() spells it: domain:bus:slot.function,
 * "%04x:%02x:%02x.%d" of a 32-bit domain, a slot to 0x1f and a function
 * to 7 -- one spelling per device
 */
static int np_parse_peer(const char *s)
{
	unsigned int dlen = strcspn(s, ":"), v;

	if (!strcmp(s, "cpu"))
		return 0;
	if (dlen < 4 || dlen > 8 || (dlen > 4 && s[0] == '0') ||
	    np_lower_hex(&s, dlen, &v) || *s++ != ':' ||
	    np_lower_hex(&s, 2, &v) || *s++ != ':' ||
	    np_lower_hex(&s, 2, &v) || v > 0x1f || *s++ != '.' ||
	    *s < '0' || *s > '7' || s[1])
		return -EINVAL;
	return 0;
}

/* Why @s is not a value of @k */
static void np_value_why(const struct np_cfs_key *k, const char *s,
			 char *why, unsigned int len)
{
	unsigned int i, at;

	if (strlen(s) >= NP_VALUE_LEN) {
		snprintf(why, len, "%s: longer than %d characters", k->name,
			 NP_VALUE_LEN - 1);
		return;
	}
	at = snprintf(why, len, "%s: '%.200s' is ", k->name, s);
	if (at >= len)
		return;
	switch (k->type) {
	case NP_V_NUM:
	case NP_V_ID:
		snprintf(why + at, len - at,
			 "not a number%s (decimal or 0x hex, at most %llu)",
			 k->type == NP_V_ID ? " or -1" : "", k->max);
		return;
	case NP_V_EXTENTS:
		snprintf(why + at, len - at,
			 "not SLBA+NLB,... (NLB > 0, at most %llu of them)",
			 k->max);
		return;
	case NP_V_PEER:
		snprintf(why + at, len - at,
			 "neither cpu nor a PCI name as the kernel spells it (0000:03:00.0)");
		return;
	case NP_V_FILE:
		snprintf(why + at, len - at, "not an absolute path");
		return;
	default:
		break;
	}
	at += snprintf(why + at, len - at, k->type == NP_V_OPCODES ?
		       "not a list, each once, of" : "none of");
	for (i = 0; i < np_type_words[k->type].n && at < len; i++)
		if (np_type_words[k->type].words[i] &&
		    (int)i != np_type_words[k->type].skip)
			at += snprintf(why + at, len - at, " %s",
				       np_type_words[k->type].words[i]);
}

/* @s as one of @type's words into @v->word */
static int np_value_word(enum np_vtype type, const char *s, struct np_value *v)
{
	v->word = np_word_find(np_type_words[type].words,
			       np_type_words[type].n, s, strlen(s));
	return v->word < 0 || v->word == np_type_words[type].skip ? -EINVAL : 0;
}

/**
 * np_value_parse() - check and parse a value of an intent's attribute
 * @key: the attribute
 * @s: the value, without the newline a write may end with
 * @v: the parse; for extents @v->ext holds %NP_EXTENTS_MAX or is NULL
 * @why: for a refused value, why, in words naming @key (may be NULL)
 * @len: @why's size
 *
 * The rules of Documentation/ABI/testing/configfs-nvme-peer, as configfs
 * applies them to a write and the command to a save file's value.  What
 * needs the kernel's state (a uid's mapping, a path's file) is the
 * caller's.
 *
 * Return: 0, or -EINVAL with @why said.
 */
int np_value_parse(enum np_key key, const char *s, struct np_value *v,
		   char *why, unsigned int len)
{
	const struct np_cfs_key *k = &np_cfs_keys[key];
	int ret = -EINVAL;

	if (strlen(s) >= NP_VALUE_LEN)
		goto out;
	switch (k->type) {
	case NP_V_NUM:
		ret = np_parse_num(s, k->max, &v->num);
		break;
	case NP_V_ID:
		v->num = NP_U64_MAX;
		ret = strcmp(s, "-1") ? np_parse_num(s, k->max, &v->num) : 0;
		break;
	case NP_V_BOOL:
	case NP_V_PLACEMENT:
	case NP_V_MODE:
	case NP_V_ACCESS:
		ret = np_value_word(k->type, s, v);
		v->num = v->word;
		break;
	case NP_V_OPCODES:
		ret = np_parse_opcodes(s, &v->opcodes);
		break;
	case NP_V_EXTENTS:
		ret = np_parse_extents(s, v, k->max);
		break;
	case NP_V_PEER:
		ret = np_parse_peer(s);
		break;
	case NP_V_FILE:
		ret = !*s || *s == '/' ? 0 : -EINVAL;
		break;
	}
out:
	if (ret && why)
		np_value_why(k, s, why, len);
	return ret;
}

/**
 * np_key_find() - an intent's attribute by name
 * @name: the name, @len characters (not NUL-terminated)
 * @len: its length
 *
 * Return: the &enum np_key, or -EINVAL for none.
 */
int np_key_find(const char *name, unsigned int len)
{
	int i;

	for (i = 0; i < NP_NKEYS; i++)
		if (strlen(np_cfs_keys[i].name) == len &&
		    !strncmp(np_cfs_keys[i].name, name, len))
			return i;
	return -EINVAL;
}

/**
 * np_win_key() - whether a window's intent has @key
 * @key: a key of np_cfs_keys[]
 *
 * A window shows a namespace's extents or a file's range to one peer, for
 * a user or a group: nsid, peer, uid, gid, extents, file, file_off,
 * file_len and enable.  Depths, placements, modes and opcodes are a
 * queue's; a window is read only (no file_access).
 *
 * Return: 1 if it has, else 0.
 */
int np_win_key(enum np_key key)
{
	switch (key) {
	case NP_KEY_nsid:
	case NP_KEY_peer:
	case NP_KEY_uid:
	case NP_KEY_gid:
	case NP_KEY_extents:
	case NP_KEY_file:
	case NP_KEY_file_off:
	case NP_KEY_file_len:
	case NP_KEY_enable:
		return 1;
	default:
		return 0;
	}
}

/**
 * np_win_enable_check() - what enabling a window's intent needs of its values
 * @nsid: its nsid
 * @file: whether it names a file
 * @off: its file_off
 * @len: its file_len
 * @nr_ext: how many extents it lists
 * @why: for a refusal, why (may be NULL)
 * @wlen: @why's size
 *
 * A namespace; file_off and file_len only with a file, extents only
 * without one (the file's blocks are the extents).
 *
 * Return: 0, or -EINVAL with @why said.
 */
int np_win_enable_check(unsigned long long nsid, int file,
			unsigned long long off, unsigned long long len,
			unsigned int nr_ext, char *why, unsigned int wlen)
{
	int ret = np_enable_check(nsid, file, off, len, 0, why, wlen);

	if (ret)
		return ret;
	if (file && nr_ext) {
		if (why)
			snprintf(why, wlen,
				 "enable=1: a file's window takes no extents (its blocks are)");
		return -EINVAL;
	}
	return 0;
}

/**
 * np_cfs_name_ok() - whether @name may name a reservation
 * @name: 1 to %NP_NAME_LEN - 1 characters of [A-Za-z0-9_.-], not . or ..
 *	(a path's own components)
 *
 * Return: 1 if it may, else 0.
 */
int np_cfs_name_ok(const char *name)
{
	static const char chars[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-";
	unsigned int len = strnlen(name, NP_NAME_LEN);

	return len && len < NP_NAME_LEN && strcmp(name, ".") &&
	       strcmp(name, "..") && strspn(name, chars) == len;
}

/**
 * np_ctrl_name_ok() - whether @name may name a controller in configfs
 * @name: "nvme" and decimal digits, at most %NP_CTRL_LEN - 1 characters
 *
 * Return: 1 if it may, else 0.
 */
int np_ctrl_name_ok(const char *name)
{
	unsigned int len = strnlen(name, NP_CTRL_LEN);

	return len > 4 && len < NP_CTRL_LEN && !strncmp(name, "nvme", 4) &&
	       strspn(name + 4, "0123456789") == len - 4;
}

/**
 * np_enable_check() - what enabling an intent needs of its values together
 * @nsid: its nsid
 * @file: whether it names a file
 * @off: its file_off
 * @len: its file_len
 * @access: its file_access, NVME_PEER_ACCESS_* bits
 * @why: for a refusal, why (may be NULL)
 * @wlen: @why's size
 *
 * The rules that need no controller: a namespace, and a file's range and
 * access only with a file.  The reserve checks the rest.
 *
 * Return: 0, or -EINVAL with @why said.
 */
int np_enable_check(unsigned long long nsid, int file, unsigned long long off,
		    unsigned long long len, unsigned int access, char *why,
		    unsigned int wlen)
{
	if (!nsid || nsid >= NP_U32_MAX) {
		if (why)
			snprintf(why, wlen, "enable=1 needs nsid=N (0 < N < 0xffffffff)");
		return -EINVAL;
	}
	if (!file && (off || len || access & NVME_PEER_ACCESS_WRITE)) {
		if (why)
			snprintf(why, wlen,
				 "enable=1: file_off, file_len and file_access=rw need a file");
		return -EINVAL;
	}
	return 0;
}
