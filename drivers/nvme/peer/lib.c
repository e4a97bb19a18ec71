// SPDX-License-Identifier: GPL-2.0
/*
 * nvme-peer: the pure logic (state machine, parameter checks, qid
 * allocation), kept free of controller access so KUnit can test all of it.
 */
#include <linux/bitmap.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/nvme.h>
#include <linux/string.h>

#include "nvme-peer.h"

/**
 * np_qstate_next() - apply an event to a reservation's state
 * @state: the state, updated on success
 * @ev: what happened
 * @notify: set when the owner's revoke callback must run now
 *
 * A reservation is revoked at most once: the first %NP_EV_REVOKE or
 * %NP_EV_RELEASE of a handed-out (active) reservation asks for the
 * callback, later ones do not.  A reservation that was never handed out
 * (still %NP_Q_NEW) never asks for it.
 *
 * Return: 0; -EALREADY for a second revocation (state unchanged); -ESTALE
 * when creation completes on a reservation revoked meanwhile; -EINVAL for
 * an event that cannot happen in @state.
 */
int np_qstate_next(enum np_qstate *state, enum np_qevent ev, bool *notify)
{
	*notify = false;
	switch (*state) {
	case NP_Q_NEW:
		if (ev == NP_EV_CREATED)
			*state = NP_Q_ACTIVE;
		else if (ev == NP_EV_REVOKE)
			*state = NP_Q_REVOKED;
		else
			*state = NP_Q_RELEASED;
		return 0;
	case NP_Q_ACTIVE:
		if (ev == NP_EV_CREATED)
			return -EINVAL;
		*notify = true;
		*state = ev == NP_EV_REVOKE ? NP_Q_REVOKED : NP_Q_RELEASED;
		return 0;
	case NP_Q_REVOKED:
		if (ev == NP_EV_CREATED)
			return -ESTALE;
		if (ev == NP_EV_REVOKE)
			return -EALREADY;
		*state = NP_Q_RELEASED;
		return 0;
	case NP_Q_RELEASED:
	default:
		return -EINVAL;
	}
}
EXPORT_SYMBOL_IF_KUNIT(np_qstate_next);

const char *np_qstate_name(enum np_qstate state)
{
	static const char * const names[] = {
		[NP_Q_NEW] = "creating",
		[NP_Q_ACTIVE] = "active",
		[NP_Q_REVOKED] = "revoked",
		[NP_Q_RELEASED] = "released",
	};

	return state < ARRAY_SIZE(names) ? names[state] : "?";
}
EXPORT_SYMBOL_IF_KUNIT(np_qstate_name);

const char *np_reason_name(enum nvme_peer_reason reason)
{
	static const char * const names[] = {
		[NVME_PEER_REASON_NONE] = "none",
		[NVME_PEER_REASON_RELEASE] = "release",
		[NVME_PEER_REASON_ADMIN] = "admin",
		[NVME_PEER_REASON_RESET] = "reset",
		[NVME_PEER_REASON_CTRL_DOWN] = "ctrl-down",
		[NVME_PEER_REASON_REMOVED] = "removed",
		[NVME_PEER_REASON_UNLOAD] = "unload",
		[NVME_PEER_REASON_NAMESPACE] = "namespace",
		[NVME_PEER_REASON_PEER_REMOVED] = "peer-removed",
	};

	return reason < ARRAY_SIZE(names) ? names[reason] : "?";
}
EXPORT_SYMBOL_IF_KUNIT(np_reason_name);

const char *np_mode_name(enum nvme_peer_mode mode)
{
	return mode == NVME_PEER_MODE_DIRECT ? "direct" : "mediated";
}
EXPORT_SYMBOL_IF_KUNIT(np_mode_name);

const char *np_guarantee_name(enum nvme_peer_guarantee g)
{
	static const char * const names[] = {
		[NVME_PEER_GUARANTEE_NONE] = "none",
		[NVME_PEER_GUARANTEE_IOMMU_SWITCH] = "iommu-switch",
		[NVME_PEER_GUARANTEE_IOMMU] = "iommu",
		[NVME_PEER_GUARANTEE_CPU] = "cpu",
	};

	return g < ARRAY_SIZE(names) ? names[g] : "?";
}
EXPORT_SYMBOL_IF_KUNIT(np_guarantee_name);

static const char * const np_placements[] = {
	[NVME_PEER_PLACE_NONE] = "none",
	[NVME_PEER_PLACE_HOST] = "host",
	[NVME_PEER_PLACE_CMB] = "cmb",
	[NVME_PEER_PLACE_PEER] = "peer",
};

const char *np_placement_name(enum nvme_peer_placement where)
{
	return where < ARRAY_SIZE(np_placements) ? np_placements[where] : "?";
}
EXPORT_SYMBOL_IF_KUNIT(np_placement_name);

/**
 * np_parse_placement() - parse "none", "host", "cmb" or "peer"
 * @s: the word
 * @where: the placement, set on success
 *
 * Return: 0 or -EINVAL.
 */
int np_parse_placement(const char *s, enum nvme_peer_placement *where)
{
	int i = match_string(np_placements, ARRAY_SIZE(np_placements), s);

	if (i < 0)
		return -EINVAL;
	*where = i;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(np_parse_placement);

/**
 * np_validate_params() - check reservation parameters against a controller
 * @p: the parameters
 * @mqes: largest queue depth (CAP.MQES + 1)
 * @cmbsz: the CMBSZ register, 0 without a CMB
 *
 * The namespace and the peer's reachability are checked later, against the
 * live controller.
 *
 * Return: 0; -EINVAL for a malformed request (nsid 0 or broadcast, depth not
 * a power of two in 2..@mqes, or above %NVME_PEER_MAX_MEDIATED_DEPTH in
 * mediated mode, SQ/CQ placement none, data size not a page multiple up to
 * 64 MiB (4 MiB in host memory, which is one physically contiguous
 * allocation) or given without a data placement, peer placement without a peer,
 * an unknown mode, a policy in direct mode); -EOPNOTSUPP when the
 * controller cannot do it (CMB placement without a CMB or without the CMBSZ
 * support bit for that use).
 */
int np_validate_params(const struct nvme_peer_params *p, u32 mqes, u32 cmbsz)
{
	const enum nvme_peer_placement all[] = { p->sq, p->cq, p->data };
	int i;

	if (!p->nsid || p->nsid == NVME_NSID_ALL)
		return -EINVAL;
	if (p->depth < 2 || p->depth > mqes || !is_power_of_2(p->depth))
		return -EINVAL;
	if (p->mode != NVME_PEER_MODE_MEDIATED && p->mode != NVME_PEER_MODE_DIRECT)
		return -EINVAL;
	if (p->mode == NVME_PEER_MODE_MEDIATED &&
	    p->depth > NVME_PEER_MAX_MEDIATED_DEPTH)
		return -EINVAL;
	/* a policy is for mediated mode: refused, not ignored */
	if (p->mode == NVME_PEER_MODE_DIRECT &&
	    (p->policy.opcodes || p->policy.nr_extents ||
	     p->policy.nr_windows || p->policy.max_nlb))
		return -EINVAL;
	if (p->sq == NVME_PEER_PLACE_NONE || p->cq == NVME_PEER_PLACE_NONE)
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(all); i++) {
		if (all[i] > NVME_PEER_PLACE_PEER)
			return -EINVAL;
		if (all[i] == NVME_PEER_PLACE_PEER && !p->peer)
			return -EINVAL;
	}
	if (!p->data_size != !p->data)
		return -EINVAL;
	if (p->data_size > NP_MAX_DATA_SIZE || !PAGE_ALIGNED(p->data_size) ||
	    (p->data == NVME_PEER_PLACE_HOST &&
	     p->data_size > NP_MAX_HOST_DATA_SIZE))
		return -EINVAL;

	if (p->sq == NVME_PEER_PLACE_CMB && !(cmbsz & NVME_CMBSZ_SQS))
		return -EOPNOTSUPP;
	if (p->cq == NVME_PEER_PLACE_CMB && !(cmbsz & NVME_CMBSZ_CQS))
		return -EOPNOTSUPP;
	if (p->data == NVME_PEER_PLACE_CMB &&
	    (cmbsz & (NVME_CMBSZ_WDS | NVME_CMBSZ_RDS)) !=
	    (NVME_CMBSZ_WDS | NVME_CMBSZ_RDS))
		return -EOPNOTSUPP;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(np_validate_params);

static int np_parse_ops(char *val, u32 *ops)
{
	static const char * const names[] = {
		"flush", "write", "read", "write_zeroes", "dsm",
	};
	static const u32 bits[] = {
		NVME_PEER_OPS_FLUSH, NVME_PEER_OPS_WRITE, NVME_PEER_OPS_READ,
		NVME_PEER_OPS_WRITE_ZEROES, NVME_PEER_OPS_DSM,
	};
	char *op;
	int i;

	*ops = 0;
	while ((op = strsep(&val, ",")) != NULL) {
		i = match_string(names, ARRAY_SIZE(names), op);
		if (i < 0 || *ops & bits[i])
			return -EINVAL;
		*ops |= bits[i];
	}
	return 0;
}

/* "SLBA+NLB": LBAs [SLBA, SLBA + NLB) */
static int np_parse_extent(char *val, struct np_create_req *req)
{
	struct nvme_peer_policy *pol = &req->p.policy;
	char *plus = strchr(val, '+');
	u64 slba, nlb;

	if (!plus || pol->nr_extents >= NP_CREATE_MAX_EXTENTS)
		return -EINVAL;
	*plus++ = '\0';
	if (kstrtou64(val, 0, &slba) || kstrtou64(plus, 0, &nlb) || !nlb ||
	    slba + nlb < slba)
		return -EINVAL;
	req->extents[pol->nr_extents].slba = slba;
	req->extents[pol->nr_extents].nlb = nlb;
	pol->nr_extents++;
	return 0;
}

/**
 * np_parse_create() - parse a sysfs "create" request
 * @buf: "key=value" words separated by blanks; modified
 * @req: filled in; keys not given keep their defaults (depth 64, SQ and CQ
 *	in host memory, no data buffer, the CPU as the peer, any qid, not
 *	attachable)
 *
 * Keys: nsid, depth, sq, cq, data, data_size, peer, qid, uid, gid, mode
 * (mediated or direct), ops (a comma-separated list of read, write, flush,
 * write_zeroes, dsm), max_nlb, and lba=SLBA+NLB, the only key that may be
 * repeated (up to %NP_CREATE_MAX_EXTENTS times).  Numbers take the usual C
 * prefixes (0x, 0).
 *
 * Return: 0, or -EINVAL for an unknown or repeated key, a missing value or
 * a value that does not parse.
 */
int np_parse_create(char *buf, struct np_create_req *req)
{
	static const char * const keys[] = {
		"nsid", "depth", "sq", "cq", "data", "data_size", "peer", "qid",
		"uid", "gid", "mode", "ops", "max_nlb", "lba",
	};
	struct nvme_peer_params *p = &req->p;
	unsigned long seen = 0;
	char *word, *val;
	u64 num;
	int k;

	memset(req, 0, sizeof(*req));
	p->depth = 64;
	p->sq = NVME_PEER_PLACE_HOST;
	p->cq = NVME_PEER_PLACE_HOST;

	while ((word = strsep(&buf, " \t\n")) != NULL) {
		if (!*word)
			continue;
		val = strchr(word, '=');
		if (!val || !val[1])
			return -EINVAL;
		*val++ = '\0';
		k = match_string(keys, ARRAY_SIZE(keys), word);
		if (k < 0 || (seen & BIT(k) && k != 13))
			return -EINVAL;
		seen |= BIT(k);
		switch (k) {
		case 0:
		case 1:
			if (kstrtou64(val, 0, &num) || num > U32_MAX)
				return -EINVAL;
			if (k == 0)
				p->nsid = num;
			else
				p->depth = num;
			break;
		case 2:
			if (np_parse_placement(val, &p->sq))
				return -EINVAL;
			break;
		case 3:
			if (np_parse_placement(val, &p->cq))
				return -EINVAL;
			break;
		case 4:
			if (np_parse_placement(val, &p->data))
				return -EINVAL;
			break;
		case 5:
			if (kstrtou64(val, 0, &num) || num > NP_MAX_DATA_SIZE)
				return -EINVAL;
			p->data_size = num;
			break;
		case 6:
			if (strscpy(req->peer, val, sizeof(req->peer)) < 0)
				return -EINVAL;
			break;
		case 7:
			if (kstrtou16(val, 0, &req->qid) || !req->qid)
				return -EINVAL;
			break;
		case 8:
			if (kstrtou32(val, 0, &req->uid) || req->uid == (u32)-1)
				return -EINVAL;
			req->has_uid = true;
			break;
		case 9:
			if (kstrtou32(val, 0, &req->gid) || req->gid == (u32)-1)
				return -EINVAL;
			req->has_gid = true;
			break;
		case 10:
			if (sysfs_streq(val, "direct"))
				p->mode = NVME_PEER_MODE_DIRECT;
			else if (!sysfs_streq(val, "mediated"))
				return -EINVAL;
			break;
		case 11:
			if (np_parse_ops(val, &p->policy.opcodes))
				return -EINVAL;
			break;
		case 12:
			if (kstrtou32(val, 0, &p->policy.max_nlb) ||
			    !p->policy.max_nlb)
				return -EINVAL;
			break;
		case 13:
			if (np_parse_extent(val, req))
				return -EINVAL;
			break;
		}
	}
	if (p->policy.nr_extents)
		p->policy.extents = req->extents;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(np_parse_create);

/**
 * np_db_region() - the pages a process maps to ring a queue's doorbells
 * @info: the controller
 * @qid: the queue
 * @r: filled in
 *
 * With a doorbell stride of a page or more the CQ head doorbell is in a
 * later page than the SQ tail doorbell: the region covers both.
 */
void np_db_region(const struct nvme_pci_peer_info *info, u16 qid,
		  struct np_db_region *r)
{
	phys_addr_t sq = info->bar_phys + np_db_off(info, qid, false);

	r->phys = sq & PAGE_MASK;
	r->sq_off = offset_in_page(sq);
	r->cq_off = r->sq_off + np_db_off(info, qid, true) -
		    np_db_off(info, qid, false);
	r->size = PAGE_ALIGN(r->cq_off + sizeof(u32));
}
EXPORT_SYMBOL_IF_KUNIT(np_db_region);

/**
 * np_qid_alloc() - take a free qid in a range
 * @map: held qids, indexed by qid
 * @first: first qid of the range
 * @nr: number of qids in the range
 * @want: the qid wanted, or 0 for the lowest free one
 *
 * Return: the qid; -ENOSPC when all are held; -EINVAL when @want is outside
 * the range; -EBUSY when @want is held.
 */
int np_qid_alloc(unsigned long *map, unsigned int first, unsigned int nr,
		 unsigned int want)
{
	unsigned long end = (unsigned long)first + nr, qid;

	if (want) {
		if (want < first || want >= end)
			return -EINVAL;
		if (__test_and_set_bit(want, map))
			return -EBUSY;
		return want;
	}
	qid = find_next_zero_bit(map, end, first);
	if (qid >= end)
		return -ENOSPC;
	__set_bit(qid, map);
	return qid;
}
EXPORT_SYMBOL_IF_KUNIT(np_qid_alloc);

/**
 * np_qid_free() - give a qid back
 * @map: held qids
 * @qid: a qid np_qid_alloc() returned
 */
void np_qid_free(unsigned long *map, unsigned int qid)
{
	WARN_ON_ONCE(!__test_and_clear_bit(qid, map));
}
EXPORT_SYMBOL_IF_KUNIT(np_qid_free);
