// SPDX-License-Identifier: GPL-2.0
/*
 * np-client: an in-kernel nvme-peer client for tests, with the CPU playing
 * the peer.  It reserves queues through the in-kernel API, counts revoke
 * callbacks, and submits real NVMe commands on its queues the way a device
 * would: SQE into the SQ, tail to the SQ doorbell, poll the CQ phase, head
 * to the CQ doorbell.
 *
 * debugfs (np-client/):
 *   reserve  write "CTRL NSID DEPTH SQ CQ DATA DATA_SIZE PEER [MODE [OPS [EXT]]]":
 *            placements are host|cmb|peer|none, and for DATA also accel:
 *            a new dma-buf of the accelerator's memory (np-accel's
 *            ivshmem BAR, as a GPU driver hands nvme-peer its VRAM;
 *            peer-to-peer required).  PEER is a PCI name or
 *            "cpu", MODE mediated (default), direct or isolated (CTRL is
 *            an SR-IOV primary: the queue is on a VF), OPS the opcodes a
 *            mediated queue may use as letters r, w, f, z (Write Zeroes),
 *            d (DSM); default "rwf"; EXT "SLBA+NLB" the one LBA range
 *            it may touch (default: the whole namespace), or
 *            "file=PATH,OFF,LEN,r|rw": a file the driver opens for its
 *            user and binds (its blocks become the extents).  The revoke
 *            callback only counts: it never stops anything
 *   status   read: one line per reservation
 *            "qid=Q ctrl=C state=active|revoked reason=R callbacks=N
 *            mode=mediated|direct"
 *   release  write "QID" or "all"
 *   io       write "QID r|w|f SLBA NLB SEED": a read, write or flush of
 *            NLB (1-based) blocks through the data buffer; a write first
 *            fills the buffer from SEED; fails with -EIO on an NVMe error.
 *            R, W and F do the same but have the edu device (np-accel)
 *            write the SQE and ring the SQ doorbell peer-to-peer: the
 *            reservation must name the edu device as its peer.  s is a
 *            read by a stale peer: submitted even after revocation,
 *            -ETIMEDOUT after 1 s without a completion.
 *   data     read: the data buffer of the queue the last io used
 *   status_code read: NVMe status of the last io
 *   window   write "CTRL NSID SLBA NLB PEER": one read-only window of
 *            that LBA range for the PCI device PEER (the edu device), or
 *            "put"; read: "segs=N view=V len=L bus=B guarantee=G
 *            reason=R callbacks=C" of its first piece (hex V, L, B)
 *   window_read  write "BUS LEN": the edu device reads LEN bytes at bus
 *            address BUS, covered by the window or not, as a peer that
 *            misbehaves would; read: those bytes (0xa5 where the read
 *            faulted)
 */
#include <linux/ctype.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/dma-buf.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/nvme.h>
#include <linux/nvme-peer.h>
#include <linux/pci.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "np-accel.h"

#define NPC_MAX 256

struct npc_handle {
	struct nvme_peer_queue *q;
	struct nvme_peer_ctrl *pctrl;
	char ctrl[16];
	atomic_t callbacks;
	enum nvme_peer_reason reason;
	u16 sq_tail, cq_head;
	u8 phase;
	u16 cid;
	struct nvme_peer_addrs a;	/* at reserve time */
};

static struct npc_handle *npc_handles[NPC_MAX];
static DEFINE_MUTEX(npc_lock);
static struct npc_handle *npc_last;
static u16 npc_last_status;
static struct dentry *npc_dir;

/* A debugfs write as a NUL-terminated string. */
static int npc_get_line(char *buf, size_t size, const char __user *ubuf,
			size_t count)
{
	if (count >= size)
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	return 0;
}

static void npc_revoke(struct nvme_peer_queue *q, enum nvme_peer_reason reason,
		       void *priv)
{
	struct npc_handle *h = priv;

	WRITE_ONCE(h->reason, reason);
	atomic_inc(&h->callbacks);
}

static int npc_placement(const char *s, enum nvme_peer_placement *p)
{
	static const char * const names[] = { "none", "host", "cmb", "peer" };
	int i = match_string(names, ARRAY_SIZE(names), s);

	if (i < 0)
		return -EINVAL;
	*p = i;
	return 0;
}

static int npc_ops(const char *s, u32 *ops)
{
	for (*ops = 0; *s; s++) {
		switch (*s) {
		case 'r':
			*ops |= NVME_PEER_OPCODE_READ;
			break;
		case 'w':
			*ops |= NVME_PEER_OPCODE_WRITE;
			break;
		case 'f':
			*ops |= NVME_PEER_OPCODE_FLUSH;
			break;
		case 'z':
			*ops |= NVME_PEER_OPCODE_WRITE_ZEROES;
			break;
		case 'd':
			*ops |= NVME_PEER_OPCODE_DSM;
			break;
		default:
			return -EINVAL;
		}
	}
	return 0;
}

/* A reserve line, parsed; on the heap: it does not fit a stack frame. */
struct npc_req {
	char buf[224], ctrl[16], sq[8], cq[8], data[8], peer[32];
	char mode[16], ops[8], ext[96];
	struct nvme_peer_extent extent;
	struct nvme_peer_params p;
	struct file *file;
	struct dma_buf *dmabuf;
};

/*
 * The last word: SLBA+NLB (one extent), or file=PATH,OFF,LEN,ACCESS (a
 * file the driver opens for its user and binds; ACCESS r or rw).
 */
static int npc_ext(struct npc_req *r)
{
	char *path = r->ext + 5, *word[3], *comma;	/* OFF, LEN, ACCESS */
	bool rw;
	int i;

	if (!r->ext[0])
		return 0;
	if (strncmp(r->ext, "file=", 5)) {
		if (sscanf(r->ext, "%llu+%llu", &r->extent.slba,
			   &r->extent.nlb) != 2)
			return -EINVAL;
		r->p.policy.extents = &r->extent;
		r->p.policy.nr_extents = 1;
		return 0;
	}
	for (i = 2; i >= 0; i--) {
		comma = strrchr(path, ',');
		if (!comma)
			return -EINVAL;
		*comma = '\0';
		word[i] = comma + 1;
	}
	rw = !strcmp(word[2], "rw");
	if ((!rw && strcmp(word[2], "r")) ||
	    kstrtou64(word[0], 0, &r->p.file.off) ||
	    kstrtou64(word[1], 0, &r->p.file.len))
		return -EINVAL;
	r->file = filp_open(path, O_LARGEFILE | (rw ? O_RDWR : O_RDONLY), 0);
	if (IS_ERR(r->file)) {
		i = PTR_ERR(r->file);
		r->file = NULL;
		return i;
	}
	r->p.file.file = r->file;
	r->p.file.access = NVME_PEER_ACCESS_READ |
			   (rw ? NVME_PEER_ACCESS_WRITE : 0);
	return 0;
}

static ssize_t npc_reserve(struct npc_req *r, const char __user *ubuf,
			   size_t count)
{
	struct nvme_peer_params *p = &r->p;
	struct device *peer_dev = NULL;
	struct npc_handle *h;
	unsigned long size;
	int ret;

	ret = npc_get_line(r->buf, sizeof(r->buf), ubuf, count);
	if (ret)
		return ret;
	strscpy(r->mode, "mediated", sizeof(r->mode));
	strscpy(r->ops, "rwf", sizeof(r->ops));
	if (sscanf(r->buf, "%15s %u %u %7s %7s %7s %lu %31s %15s %7s %95s",
		   r->ctrl, &p->nsid, &p->depth, r->sq, r->cq, r->data, &size,
		   r->peer, r->mode, r->ops, r->ext) < 8)
		return -EINVAL;
	if (!strcmp(r->mode, "direct")) {
		p->mode = NVME_PEER_MODE_DIRECT;	/* no policy */
	} else if (!strcmp(r->mode, "isolated")) {
		p->mode = NVME_PEER_MODE_ISOLATED;	/* on a VF of CTRL's */
	} else if (!strcmp(r->mode, "mediated")) {
		ret = npc_ops(r->ops, &p->policy.opcodes);
		if (ret)
			return ret;
	} else {
		return -EINVAL;
	}
	ret = npc_ext(r);
	if (ret)
		return ret;
	if (npc_placement(r->sq, &p->sq_placement) ||
	    npc_placement(r->cq, &p->cq_placement))
		return -EINVAL;
	p->data_size = size;
	if (!strcmp(r->data, "accel")) {
		r->dmabuf = np_accel_dmabuf(size);
		if (IS_ERR(r->dmabuf)) {
			ret = PTR_ERR(r->dmabuf);
			r->dmabuf = NULL;
			return ret;
		}
		p->data_placement = NVME_PEER_PLACE_DMABUF;
		p->data_buf.dmabuf = r->dmabuf;
		p->data_buf.length = size;
		p->require_p2p = true;
	} else if (npc_placement(r->data, &p->data_placement)) {
		return -EINVAL;
	}
	if (strcmp(r->peer, "cpu")) {
		peer_dev = bus_find_device_by_name(&pci_bus_type, NULL,
						   r->peer);
		if (!peer_dev)
			return -ENODEV;
		p->peer = to_pci_dev(peer_dev);
	}

	h = kzalloc(sizeof(*h), GFP_KERNEL);
	if (!h) {
		ret = -ENOMEM;
		goto out_put_peer;
	}
	strscpy(h->ctrl, r->ctrl, sizeof(h->ctrl));
	h->phase = 1;
	h->pctrl = nvme_peer_ctrl_get_by_name(r->ctrl);
	if (!h->pctrl) {
		ret = -ENODEV;
		goto out_free;
	}
	p->revoke = npc_revoke;
	p->priv = h;
	h->q = nvme_peer_reserve(h->pctrl, p);
	if (IS_ERR(h->q)) {
		ret = PTR_ERR(h->q);
		goto out_put_ctrl;
	}
	nvme_peer_query(h->q, &h->a);
	mutex_lock(&npc_lock);
	if (h->a.qid >= NPC_MAX || npc_handles[h->a.qid]) {
		mutex_unlock(&npc_lock);
		nvme_peer_release(h->q);
		ret = -EBUSY;
		goto out_put_ctrl;
	}
	npc_handles[h->a.qid] = h;
	mutex_unlock(&npc_lock);
	put_device(peer_dev);
	return count;

out_put_ctrl:
	nvme_peer_ctrl_put(h->pctrl);
out_free:
	kfree(h);
out_put_peer:
	put_device(peer_dev);
	return ret;
}

static ssize_t reserve_write(struct file *file, const char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	struct npc_req *r = kzalloc(sizeof(*r), GFP_KERNEL);
	ssize_t ret;

	if (!r)
		return -ENOMEM;
	ret = npc_reserve(r, ubuf, count);
	/* the reservation holds its own references */
	if (r->file)
		filp_close(r->file, NULL);
	if (r->dmabuf)
		dma_buf_put(r->dmabuf);
	kfree(r);
	return ret;
}

static const struct file_operations reserve_fops = {
	.owner = THIS_MODULE,
	.write = reserve_write,
	.llseek = noop_llseek,
};

static const char * const npc_reasons[] = {
	"none", "release", "admin", "reset", "ctrl-down", "removed", "unload",
	"namespace", "peer-removed", "layout", "moved",
};

static int status_show(struct seq_file *m, void *v)
{
	struct nvme_peer_addrs a;
	int i, active;

	mutex_lock(&npc_lock);
	for (i = 0; i < NPC_MAX; i++) {
		struct npc_handle *h = npc_handles[i];

		if (!h)
			continue;
		active = nvme_peer_query(h->q, &a) == 0;
		seq_printf(m, "qid=%u ctrl=%s state=%s reason=%s callbacks=%d mode=%s\n",
			   a.qid, h->ctrl, active ? "active" : "revoked",
			   npc_reasons[nvme_peer_revoked(h->q)],
			   atomic_read(&h->callbacks),
			   a.mode == NVME_PEER_MODE_MEDIATED ? "mediated" : "direct");
	}
	mutex_unlock(&npc_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(status);

static void npc_release_one(int qid)
{
	struct npc_handle *h = npc_handles[qid];

	lockdep_assert_held(&npc_lock);
	npc_handles[qid] = NULL;
	if (npc_last == h)
		npc_last = NULL;
	nvme_peer_release(h->q);
	nvme_peer_ctrl_put(h->pctrl);
	if (atomic_read(&h->callbacks) != 1)
		pr_err("np-client: qid %d saw %d revoke callbacks\n", qid,
		       atomic_read(&h->callbacks));
	kfree(h);
}

static ssize_t release_write(struct file *file, const char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	char buf[16];
	int qid, ret = 0;

	ret = npc_get_line(buf, sizeof(buf), ubuf, count);
	if (ret)
		return ret;
	mutex_lock(&npc_lock);
	if (sysfs_streq(buf, "all")) {
		for (qid = 0; qid < NPC_MAX; qid++)
			if (npc_handles[qid])
				npc_release_one(qid);
	} else if (kstrtoint(buf, 0, &qid) || qid < 0 || qid >= NPC_MAX) {
		ret = -EINVAL;
	} else if (!npc_handles[qid]) {
		ret = -ENOENT;
	} else {
		npc_release_one(qid);
	}
	mutex_unlock(&npc_lock);
	return ret ? ret : count;
}

static const struct file_operations release_fops = {
	.owner = THIS_MODULE,
	.write = release_write,
	.llseek = noop_llseek,
};

/* A doorbell: the register in direct mode, the shadow word in mediated. */
static void npc_ring(struct nvme_peer_addrs *a, bool cq, u32 val)
{
	if (a->mode == NVME_PEER_MODE_MEDIATED)
		WRITE_ONCE(*(cq ? a->cq_shadow_db : a->sq_shadow_db),
			   cpu_to_le32(val));
	else
		writel(val, cq ? a->cq_db : a->sq_db);
}

/* The CPU as the peer: one command, submitted and reaped by polling. */
static int npc_submit(struct npc_handle *h, struct nvme_peer_addrs *a,
		      struct nvme_command *c, bool edu, bool stale, u16 *status)
{
	struct nvme_completion *cqe;
	unsigned long timeout = jiffies + (stale ? HZ : 10 * HZ);
	struct nvme_command *sq = a->sq;
	__le32 tail;
	int ret;

	c->common.command_id = ++h->cid;
	if (edu) {
		ret = np_accel_write(a->sq_addr + h->sq_tail * sizeof(*c), c,
				     sizeof(*c));
		h->sq_tail = (h->sq_tail + 1) % a->depth;
		tail = cpu_to_le32(h->sq_tail);
		if (!ret)
			ret = np_accel_write(a->sq_db_addr, &tail,
					     sizeof(tail));
		if (ret)
			return ret;
	} else {
		memcpy(&sq[h->sq_tail], c, sizeof(*c));
		h->sq_tail = (h->sq_tail + 1) % a->depth;
		wmb();		/* the SQE before the doorbell */
		npc_ring(a, false, h->sq_tail);
	}

	cqe = (struct nvme_completion *)a->cq + h->cq_head;
	while ((le16_to_cpu(READ_ONCE(cqe->status)) & 1) != h->phase) {
		if (time_after(jiffies, timeout))
			return -ETIMEDOUT;
		if (!stale && nvme_peer_revoked(h->q))
			return -ENXIO;
		usleep_range(50, 100);
	}
	rmb();			/* the phase bit before the rest of the CQE */
	*status = le16_to_cpu(cqe->status) >> 1;
	if (cqe->command_id != h->cid || le16_to_cpu(cqe->sq_id) != a->qid)
		return -EPROTO;
	if (++h->cq_head == a->depth) {
		h->cq_head = 0;
		h->phase ^= 1;
	}
	npc_ring(a, true, h->cq_head);
	return 0;
}

static ssize_t io_write(struct file *file, const char __user *ubuf,
			size_t count, loff_t *ppos)
{
	struct nvme_command c = { };
	struct nvme_peer_addrs a;
	struct npc_handle *h;
	char buf[80], op;
	bool edu, stale;
	u32 qid, nlb, seed;
	u64 slba;
	size_t len;
	u16 status = 0;
	int ret;

	ret = npc_get_line(buf, sizeof(buf), ubuf, count);
	if (ret)
		return ret;
	if (sscanf(buf, "%u %c %llu %u %u", &qid, &op, &slba, &nlb, &seed) != 5)
		return -EINVAL;

	edu = isupper(op);
	op = tolower(op);
	stale = op == 's';
	if (stale)
		op = 'r';

	mutex_lock(&npc_lock);
	h = qid < NPC_MAX ? npc_handles[qid] : NULL;
	ret = -ENOENT;
	if (!h)
		goto out_unlock;
	ret = nvme_peer_query(h->q, &a);
	if (ret && !(stale && ret == -ENXIO))
		goto out_unlock;
	len = (size_t)nlb << a.lba_shift;
	ret = -EINVAL;
	if (op != 'f' && (!nlb || len > a.data_size || len > 2 * PAGE_SIZE))
		goto out_unlock;

	c.rw.nsid = cpu_to_le32(a.nsid);
	switch (op) {
	case 'w': {
		struct rnd_state rnd;

		prandom_seed_state(&rnd, seed);
		prandom_bytes_state(&rnd, a.data, len);
		c.rw.opcode = nvme_cmd_write;
		break;
	}
	case 'r':
		memset(a.data, 0, len);
		c.rw.opcode = nvme_cmd_read;
		break;
	case 'f':
		c.common.opcode = nvme_cmd_flush;
		break;
	default:
		goto out_unlock;
	}
	if (op != 'f') {
		c.rw.slba = cpu_to_le64(slba);
		c.rw.length = cpu_to_le16(nlb - 1);
		c.rw.dptr.prp1 = cpu_to_le64(a.data_ctrl_addr);
		if (len > PAGE_SIZE)
			c.rw.dptr.prp2 = cpu_to_le64(a.data_ctrl_addr +
						     PAGE_SIZE);
	}
	ret = npc_submit(h, &a, &c, edu, stale, &status);
	npc_last = h;
	npc_last_status = status;
	if (!ret && status)
		ret = -EIO;
out_unlock:
	mutex_unlock(&npc_lock);
	return ret ? ret : count;
}

static const struct file_operations io_fops = {
	.owner = THIS_MODULE,
	.write = io_write,
	.llseek = noop_llseek,
};

static ssize_t data_read(struct file *file, char __user *ubuf, size_t count,
			 loff_t *ppos)
{
	struct nvme_peer_addrs a;
	ssize_t ret = -ENOENT;

	mutex_lock(&npc_lock);
	if (npc_last) {
		nvme_peer_query(npc_last->q, &a);
		ret = a.data ? simple_read_from_buffer(ubuf, count, ppos, a.data,
						       a.data_size) : -ENXIO;
	}
	mutex_unlock(&npc_lock);
	return ret;
}

static const struct file_operations data_fops = {
	.owner = THIS_MODULE,
	.read = data_read,
	.llseek = default_llseek,
};

static int status_code_get(void *data, u64 *val)
{
	*val = READ_ONCE(npc_last_status);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(status_code_fops, status_code_get, NULL, "%#llx\n");

/* ---- a read-only window read by the edu device ---- */

static struct nvme_peer_window *npc_win;
static struct nvme_peer_ctrl *npc_win_ctrl;
static atomic_t npc_win_callbacks;
static enum nvme_peer_reason npc_win_reason;
static u8 npc_win_bytes[4095];
static u32 npc_win_len;

static void npc_win_revoke(struct nvme_peer_window *w,
			   enum nvme_peer_reason reason, void *priv)
{
	WRITE_ONCE(npc_win_reason, reason);
	atomic_inc(&npc_win_callbacks);
}

static void npc_win_put(void)
{
	lockdep_assert_held(&npc_lock);
	if (!npc_win)
		return;
	nvme_peer_window_put(npc_win);
	nvme_peer_ctrl_put(npc_win_ctrl);
	npc_win = NULL;
}

static int npc_win_get(char *line)
{
	struct nvme_peer_extent ext;
	struct nvme_peer_window_params p = {
		.extents = &ext, .nr_extents = 1, .revoke = npc_win_revoke,
	};
	char ctrl[16], peer[32];
	struct device *dev;
	struct nvme_peer_window *w;
	int ret;

	if (sscanf(line, "%15s %u %llu %llu %31s", ctrl, &p.nsid, &ext.slba,
		   &ext.nlb, peer) != 5)
		return -EINVAL;
	dev = bus_find_device_by_name(&pci_bus_type, NULL, peer);
	if (!dev)
		return -ENODEV;
	p.peer = to_pci_dev(dev);
	npc_win_ctrl = nvme_peer_ctrl_get_by_name(ctrl);
	if (!npc_win_ctrl) {
		put_device(dev);
		return -ENODEV;
	}
	atomic_set(&npc_win_callbacks, 0);
	WRITE_ONCE(npc_win_reason, NVME_PEER_REASON_NONE);
	w = nvme_peer_window_get(npc_win_ctrl, &p);
	put_device(dev);
	ret = PTR_ERR_OR_ZERO(w);
	if (ret)
		nvme_peer_ctrl_put(npc_win_ctrl);
	else
		npc_win = w;
	return ret;
}

static ssize_t window_write(struct file *file, const char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	char line[128];
	int ret = npc_get_line(line, sizeof(line), ubuf, count);

	if (ret)
		return ret;
	mutex_lock(&npc_lock);
	npc_win_put();
	if (!sysfs_streq(line, "put"))
		ret = npc_win_get(line);
	mutex_unlock(&npc_lock);
	return ret ? ret : count;
}

static int window_show(struct seq_file *m, void *v)
{
	struct nvme_peer_window_seg seg = { };
	int n, ret = 0;

	mutex_lock(&npc_lock);
	if (!npc_win) {
		ret = -ENOENT;
		goto out_unlock;
	}
	n = nvme_peer_window_segs(npc_win, &seg, 1);
	seq_printf(m, "segs=%d view=%#llx len=%#llx bus=%#llx guarantee=%u reason=%u callbacks=%d\n",
		   n, seg.view_off, seg.len, (u64)seg.bus_addr,
		   nvme_peer_window_guarantee(npc_win),
		   nvme_peer_window_revoked(npc_win),
		   atomic_read(&npc_win_callbacks));
out_unlock:
	mutex_unlock(&npc_lock);
	return ret;
}

static int window_open(struct inode *inode, struct file *file)
{
	return single_open(file, window_show, NULL);
}

static const struct file_operations window_fops = {
	.owner = THIS_MODULE,
	.open = window_open,
	.read = seq_read,
	.write = window_write,
	.llseek = seq_lseek,
	.release = single_release,
};

static ssize_t window_read_write(struct file *file, const char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	char line[64];
	u64 bus;
	u32 len;
	int ret = npc_get_line(line, sizeof(line), ubuf, count);

	if (ret)
		return ret;
	if (sscanf(line, "%llx %u", &bus, &len) != 2 ||
	    !len || len > sizeof(npc_win_bytes))
		return -EINVAL;
	mutex_lock(&npc_lock);
	ret = np_accel_read(bus, npc_win_bytes, len);
	npc_win_len = ret ? 0 : len;
	mutex_unlock(&npc_lock);
	return ret ? ret : count;
}

static ssize_t window_read_read(struct file *file, char __user *ubuf,
				size_t count, loff_t *ppos)
{
	ssize_t ret;

	mutex_lock(&npc_lock);
	ret = simple_read_from_buffer(ubuf, count, ppos, npc_win_bytes,
				      npc_win_len);
	mutex_unlock(&npc_lock);
	return ret;
}

static const struct file_operations window_read_fops = {
	.owner = THIS_MODULE,
	.read = window_read_read,
	.write = window_read_write,
	.llseek = default_llseek,
};

static int __init npc_init(void)
{
	npc_dir = debugfs_create_dir("np-client", NULL);
	debugfs_create_file("reserve", 0200, npc_dir, NULL, &reserve_fops);
	debugfs_create_file("status", 0400, npc_dir, NULL, &status_fops);
	debugfs_create_file("release", 0200, npc_dir, NULL, &release_fops);
	debugfs_create_file("io", 0200, npc_dir, NULL, &io_fops);
	debugfs_create_file("data", 0400, npc_dir, NULL, &data_fops);
	debugfs_create_file("status_code", 0400, npc_dir, NULL,
			    &status_code_fops);
	debugfs_create_file("window", 0600, npc_dir, NULL, &window_fops);
	debugfs_create_file("window_read", 0600, npc_dir, NULL,
			    &window_read_fops);
	return 0;
}

static void __exit npc_exit(void)
{
	int qid;

	debugfs_remove_recursive(npc_dir);
	mutex_lock(&npc_lock);
	for (qid = 0; qid < NPC_MAX; qid++)
		if (npc_handles[qid])
			npc_release_one(qid);
	npc_win_put();
	mutex_unlock(&npc_lock);
}

module_init(npc_init);
module_exit(npc_exit);
MODULE_DESCRIPTION("nvme-peer test client: the CPU as a peer");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(DMA_BUF);
