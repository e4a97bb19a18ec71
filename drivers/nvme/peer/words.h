/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvme-peer: the words, and the values of an intent.  Every word sysfs,
 * configfs, debugfs and the logs print for a state, a reason, an owner, a
 * mode, a placement, a location, a guarantee, a fence's end, a file
 * lease, a mediated queue's rejection or an opcode
 * is decided in words.c, one table per fact beside its name and parse
 * functions, and so are the keys of an intent in configfs with their
 * value rules (type, range, default).  This header declares them, with
 * the kernel-internal enums those tables name.
 *
 * Self-contained: no includes, nothing of the kernel's.  words.c is built
 * into nvme-peer.ko and into tools/nvme-peer (whose Makefile points -I
 * here), so the command holds no copy of the kernel's keys, defaults and
 * value rules to drift: restore --check refuses what configfs refuses, by
 * the same code.  Where a printed word was ABI already, the enum is named
 * after the word (NP_Q_CREATING prints "creating").
 */
#ifndef _NP_WORDS_H
#define _NP_WORDS_H

/* a reservation's life (sysfs qN/state); see np_qstate_next() */
enum np_qstate {
	NP_Q_CREATING,		/* hardware queues being created */
	NP_Q_ACTIVE,		/* handed out, hardware queues exist */
	NP_Q_REVOKED,		/* revoked: the owner was told, queues gone */
	NP_Q_RELEASED,		/* the owner let go: only freeing remains */
};

/* who holds a reservation (sysfs qN/owner): decides who may release it */
enum np_owner {
	NP_OWNER_KERNEL,	/* a driver, through include/linux/nvme-peer.h */
	NP_OWNER_ADMIN,		/* an administrator's intent (configfs.c) */
	NP_OWNER_PROCESS,	/* a process, through NVME_PEER_IOC_RESERVE */
};

/* how a fence ended (logs) */
enum np_fence_how {
	NP_FENCED_GONE,		/* the hardware queue was gone already */
	NP_FENCED_DRAINED,	/* mediated: every forwarded command completed */
	NP_FENCED_DELETED,	/* Delete I/O SQ completed */
	NP_FENCED_RESET,	/* the controller was disabled */
};

/**
 * enum np_guard_verdict - what np_guard_check() decided
 * @NP_GUARD_OK: the command may reach the controller
 * @NP_GUARD_BAD_OPCODE: not understood or not allowed (SC 0x01 Invalid
 *	Command Opcode)
 * @NP_GUARD_BAD_FIELD: reserved bits, PSDT != 0 (SGL), FUSE != 0, MPTR
 *	!= 0, a data pointer where none belongs, NLB over max_nlb, a chained
 *	PRP list (SC 0x02 Invalid Field in Command); no policy can allow SGLs,
 *	fused commands or metadata pointers
 * @NP_GUARD_BAD_NSID: not the policy's namespace; 0 and 0xffffffff never
 *	are (SC 0x0b Invalid Namespace or Format)
 * @NP_GUARD_LBA_RANGE: the LBAs are not all inside one extent and the
 *	namespace, or wrap past 2^64 (SC 0x80 LBA Out of Range)
 * @NP_GUARD_PRP_OFFSET: PRP1 not dword aligned, PRP2 or a list entry not
 *	page aligned, the list pointer not qword aligned (SC 0x13 PRP Offset
 *	Invalid)
 * @NP_GUARD_DATA_WINDOW: data, or the PRP list itself, outside the windows,
 *	or no copy of the list to check (SC 0x04 Data Transfer Error)
 * @NP_GUARD_NR_VERDICTS: the number of verdicts, not a verdict
 *
 * np_guard_status() maps a verdict to its NVMe status.
 */
enum np_guard_verdict {
	NP_GUARD_OK = 0,
	NP_GUARD_BAD_OPCODE,
	NP_GUARD_BAD_FIELD,
	NP_GUARD_BAD_NSID,
	NP_GUARD_LBA_RANGE,
	NP_GUARD_PRP_OFFSET,
	NP_GUARD_DATA_WINDOW,
	NP_GUARD_NR_VERDICTS
};

/* what became of an intent (configfs state) */
enum np_intent_state {
	NP_INTENT_DISABLED,	/* enable 0 */
	NP_INTENT_ACTIVE,	/* its reservation is active */
	NP_INTENT_WAITING,	/* a reset took it: reserved again once live */
	NP_INTENT_DOWN,		/* revoked for another reason, or not again */
};

/* ---- configfs: the keys of nvme-peer/<ctrl>/<name>/ and their values --- */

/* How an intent's attribute is written (configfs-nvme-peer) */
enum np_vtype {
	NP_V_NUM,	/* decimal, or hexadecimal after 0x or 0X; 0 to max */
	NP_V_ID,	/* a number to max, or -1 (none) */
	NP_V_PLACEMENT,	/* a placement word; dmabuf is an fd's, not a word */
	NP_V_PEER,	/* cpu, or a PCI name as pci_name() spells it */
	NP_V_MODE,	/* a mode word */
	NP_V_OPCODES,	/* opcode words, comma-separated, each once; "" */
	NP_V_EXTENTS,	/* SLBA+NLB, comma-separated, at most max; "" */
	NP_V_FILE,	/* an absolute path, or "" */
	NP_V_ACCESS,	/* an access word */
	NP_V_BOOL,	/* 0 or 1 */
};

#define NP_U16_MAX		0xffffULL
#define NP_U32_MAX		0xffffffffULL
#define NP_U64_MAX		0xffffffffffffffffULL
/* data_size: the largest data buffer (NP_MAX_DATA_SIZE) */
#define NP_DATA_SIZE_MAX	(64ULL << 20)
/* extents: what one intent lists (NP_CFS_MAX_EXTENTS) */
#define NP_EXTENTS_MAX		64

/* The attributes of nvme-peer/<ctrl>/<name>/ the command writes, in order */
enum np_key {
	NP_KEY_nsid,
	NP_KEY_depth,
	NP_KEY_sq_placement,
	NP_KEY_cq_placement,
	NP_KEY_data_placement,
	NP_KEY_data_size,
	NP_KEY_peer,
	NP_KEY_qid,
	NP_KEY_uid,
	NP_KEY_gid,
	NP_KEY_mode,
	NP_KEY_opcodes,
	NP_KEY_max_nlb,
	NP_KEY_extents,
	NP_KEY_file,
	NP_KEY_file_off,
	NP_KEY_file_len,
	NP_KEY_file_access,
	NP_KEY_enable,		/* last: it reserves */
	NP_NKEYS
};

/* A key: its name, its type, the largest number it takes, its default */
struct np_cfs_key {
	const char *name;
	enum np_vtype type;
	unsigned long long max;
	const char *def;
};

extern const struct np_cfs_key np_cfs_keys[NP_NKEYS];

/*
 * A value configfs takes is shorter than this: it hands a store at most
 * 4095 bytes and cuts a longer write silently, so a write that long may
 * have been cut and is refused.
 */
#define NP_VALUE_LEN		4095
/* a reservation's name (NVME_PEER_NAME_MAX), a controller's (nvmeN) */
#define NP_NAME_LEN		32
#define NP_CTRL_LEN		16
/*
 * A controller's own attribute (nvme-peer/<ctrl>/pmr_nsid, configfs.c):
 * the namespace its PMR shows to windows, 0 for none; the command saves
 * it as "CTRL pmr_nsid=NSID", NSID 1 to NP_PROV_NSID_MAX
 */
#define NP_PROV_KEY		"pmr_nsid"
#define NP_PROV_NSID_MAX	0xfffffffeULL

/*
 * nvme-peer/<ctrl>/windows/<name>/: a read-only window's intent
 * (configfs_window.c).  Its attributes are the keys np_win_key() says, with
 * np_cfs_keys[]' names, rules and defaults, enable last; the command saves
 * it as "CTRL/windows/NAME KEY=VALUE..."
 */
#define NP_WIN_DIR		"windows"

struct np_extent {
	unsigned long long slba, nlb;
};

/* An attribute's value, parsed: what its type fills */
struct np_value {
	unsigned long long num;	/* NUM, BOOL; ID: -1 is NP_U64_MAX */
	int word;		/* PLACEMENT, MODE: the enum; ACCESS: bits */
	unsigned int opcodes;	/* OPCODES: NVME_PEER_OPCODE_* */
	struct np_extent *ext;	/* EXTENTS: NP_EXTENTS_MAX, or NULL */
	unsigned int nr_ext;
};

/* The facts words.c has a word for each value of */
enum np_fact {
	NP_FACT_QSTATE,		/* enum np_qstate */
	NP_FACT_OWNER,		/* enum np_owner */
	NP_FACT_FENCE,		/* enum np_fence_how */
	NP_FACT_INTENT,		/* enum np_intent_state */
	NP_FACT_REASON,		/* enum nvme_peer_reason */
	NP_FACT_MODE,		/* enum nvme_peer_mode */
	NP_FACT_PLACEMENT,	/* enum nvme_peer_placement */
	NP_FACT_LOCATION,	/* enum nvme_peer_location */
	NP_FACT_GUARANTEE,	/* enum nvme_peer_guarantee */
	NP_FACT_LEASE,		/* enum nvme_peer_lease */
	NP_FACT_VERDICT,	/* enum np_guard_verdict */
};

const char *np_word_of(enum np_fact fact, int value);

#define np_qstate_name(v)	np_word_of(NP_FACT_QSTATE, v)
#define np_owner_name(v)	np_word_of(NP_FACT_OWNER, v)
#define np_fence_how_name(v)	np_word_of(NP_FACT_FENCE, v)
#define np_intent_name(v)	np_word_of(NP_FACT_INTENT, v)
#define np_reason_name(v)	np_word_of(NP_FACT_REASON, v)
#define np_mode_name(v)		np_word_of(NP_FACT_MODE, v)
#define np_placement_name(v)	np_word_of(NP_FACT_PLACEMENT, v)
#define np_location_name(v)	np_word_of(NP_FACT_LOCATION, v)
#define np_guarantee_name(v)	np_word_of(NP_FACT_GUARANTEE, v)
#define np_lease_name(v)	np_word_of(NP_FACT_LEASE, v)
#define np_verdict_name(v)	np_word_of(NP_FACT_VERDICT, v)

const char *np_access_name(unsigned int access);
int np_print_opcodes(unsigned int ops, char *buf, unsigned int len);

int np_parse_num(const char *s, unsigned long long max,
		 unsigned long long *out);
int np_key_find(const char *name, unsigned int len);
int np_value_parse(enum np_key key, const char *s, struct np_value *v,
		   char *why, unsigned int len);
int np_enable_check(unsigned long long nsid, int file, unsigned long long off,
		    unsigned long long len, unsigned int access, char *why,
		    unsigned int wlen);
int np_win_key(enum np_key key);
int np_win_enable_check(unsigned long long nsid, int file,
			unsigned long long off, unsigned long long len,
			unsigned int nr_ext, char *why, unsigned int wlen);
int np_cfs_name_ok(const char *name);
int np_ctrl_name_ok(const char *name);

#endif /* _NP_WORDS_H */
