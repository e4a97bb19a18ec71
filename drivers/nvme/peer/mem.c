// SPDX-License-Identifier: GPL-2.0
/*
 * nvme-peer: placement of queues and data buffers, and the addresses the
 * controller and the peer use to reach them.
 *
 * Every placement ends up as one physically contiguous range with struct
 * pages (host pages, or ZONE_DEVICE pages of a P2PDMA provider), mapped
 * with dma_map_sgtable() once for the controller and once for the peer:
 * the DMA layer then picks the PCI bus address where the two devices share
 * a switch, or an IOMMU mapping through the host bridge.
 */
#include <linux/dma-mapping.h>
#include <linux/gfp.h>
#include <linux/iommu.h>
#include <linux/mm.h>
#include <linux/nvme.h>
#include <linux/pci.h>
#include <linux/pci-p2pdma.h>

#include "nvme-peer.h"

static struct device *np_ctrl_dev(struct nvme_peer_queue *q)
{
	return &q->pctrl->info.pdev->dev;
}

static int np_mem_map(struct device *dev, struct np_mem *m,
		      struct sg_table *sgt, dma_addr_t *dma)
{
	int ret;

	ret = sg_alloc_table(sgt, 1, GFP_KERNEL);
	if (ret)
		return ret;
	sg_set_page(sgt->sgl, virt_to_page(m->vaddr), m->size, 0);
	ret = dma_map_sgtable(dev, sgt, DMA_BIDIRECTIONAL, 0);
	if (ret) {
		sg_free_table(sgt);
		return ret == -EREMOTEIO ? -EXDEV : ret;
	}
	if (sgt->nents != 1) {
		dma_unmap_sgtable(dev, sgt, DMA_BIDIRECTIONAL, 0);
		sg_free_table(sgt);
		return -EXDEV;
	}
	*dma = sg_dma_address(sgt->sgl);
	return 0;
}

static void np_mem_unmap(struct device *dev, struct sg_table *sgt)
{
	dma_unmap_sgtable(dev, sgt, DMA_BIDIRECTIONAL, 0);
	sg_free_table(sgt);
}

/*
 * Refuse, loudly, a P2PDMA provider that the controller and the peer cannot
 * both reach without going through an unsupported host bridge.
 */
static int np_check_p2p(struct nvme_peer_queue *q, struct pci_dev *provider)
{
	struct device *clients[2];
	int n = 0;

	clients[n++] = np_ctrl_dev(q);
	if (q->peer && q->peer != provider)
		clients[n++] = &q->peer->dev;
	if (pci_p2pdma_distance_many(provider, clients, n, true) < 0) {
		dev_warn(np_ctrl_dev(q),
			 "nvme-peer: %s memory of %s is not reachable peer-to-peer by %s%s\n",
			 provider == q->pctrl->info.pdev ? "CMB" : "P2PDMA",
			 pci_name(provider), pci_name(q->pctrl->info.pdev),
			 q->peer ? " and the peer" : "");
		return -EXDEV;
	}
	return 0;
}

/**
 * np_mem_alloc() - allocate and map one queue or buffer
 * @q: the reservation (its controller and peer)
 * @m: described and filled in
 * @where: the placement
 * @size: bytes, a page multiple
 *
 * Return: 0; -EXDEV when the topology cannot do peer-to-peer between the
 * provider, the controller and the peer; -ENOMEM when the provider has no
 * (published) memory left; or a DMA mapping error.
 */
int np_mem_alloc(struct nvme_peer_queue *q, struct np_mem *m,
		 enum nvme_peer_placement where, size_t size)
{
	int ret;

	memset(m, 0, sizeof(*m));
	m->where = where;
	m->size = size;
	switch (where) {
	case NVME_PEER_PLACE_NONE:
		return 0;
	case NVME_PEER_PLACE_HOST:
		m->vaddr = alloc_pages_exact(size, GFP_KERNEL | __GFP_ZERO |
					     __GFP_NOWARN);
		if (!m->vaddr)
			return -ENOMEM;
		break;
	case NVME_PEER_PLACE_CMB:
	case NVME_PEER_PLACE_PEER:
		m->provider = where == NVME_PEER_PLACE_CMB ? q->pctrl->info.pdev :
							 q->peer;
		ret = np_check_p2p(q, m->provider);
		if (ret)
			return ret;
		m->vaddr = pci_alloc_p2pmem(m->provider, size);
		if (!m->vaddr)
			return -ENOMEM;
		memset(m->vaddr, 0, size);
		break;
	default:
		return -EINVAL;
	}
	m->loc = m->provider ? NVME_PEER_LOC_P2P : NVME_PEER_LOC_SYSTEM;

	ret = np_mem_map(np_ctrl_dev(q), m, &m->ctrl_sgt, &m->ctrl_dma);
	if (ret)
		goto out_free_mem;
	m->ctrl_mapped = true;
	m->peer_dma = m->ctrl_dma;
	if (q->peer) {
		ret = np_mem_map(&q->peer->dev, m, &m->peer_sgt, &m->peer_dma);
		if (ret)
			goto out_unmap_ctrl;
		m->peer_mapped = true;
	}
	return 0;

out_unmap_ctrl:
	np_mem_unmap(np_ctrl_dev(q), &m->ctrl_sgt);
	m->ctrl_mapped = false;
out_free_mem:
	if (m->provider)
		pci_free_p2pmem(m->provider, m->vaddr, size);
	else
		free_pages_exact(m->vaddr, size);
	m->vaddr = NULL;
	return ret;
}

/**
 * np_mem_free() - unmap and free what np_mem_alloc() set up
 * @q: the reservation
 * @m: the memory; may be partly or not at all set up
 *
 * The caller guarantees that neither the controller nor the peer uses @m.
 */
void np_mem_free(struct nvme_peer_queue *q, struct np_mem *m)
{
	if (m->ops) {
		m->ops->release(m);	/* clears m->ops */
		return;
	}
	if (m->coherent) {
		dma_free_coherent(np_ctrl_dev(q), m->size, m->vaddr,
				  m->ctrl_dma);
		m->coherent = false;
		m->vaddr = NULL;
		return;
	}
	if (m->peer_mapped)
		np_mem_unmap(&q->peer->dev, &m->peer_sgt);
	if (m->ctrl_mapped)
		np_mem_unmap(np_ctrl_dev(q), &m->ctrl_sgt);
	m->peer_mapped = false;
	m->ctrl_mapped = false;
	if (m->vaddr) {
		if (m->provider)
			pci_free_p2pmem(m->provider, m->vaddr, m->size);
		else
			free_pages_exact(m->vaddr, m->size);
		m->vaddr = NULL;
	}
}

/**
 * np_mem_zero() - clear memory for the next user of a reservation
 * @m: the memory, set up or not
 *
 * Return: 0, or -EAGAIN for a dma-buf range the exporter moved.
 */
int np_mem_zero(struct np_mem *m)
{
	if (m->ops)
		return m->ops->zero(m);
	if (m->vaddr)
		memset(m->vaddr, 0, m->size);
	return 0;
}

/**
 * np_mem_ctrl_addr() - the controller's address of an offset into @m
 * @m: mapped memory
 * @off: below @m->size
 *
 * Return: the DMA address; a dma-buf range may be in several pieces.
 */
dma_addr_t np_mem_ctrl_addr(const struct np_mem *m, u64 off)
{
	return m->ops ? m->ops->ctrl_addr(m, off) : m->ctrl_dma + off;
}

/**
 * np_mem_unmap_peer() - drop the peer's mapping of @m, keep the memory
 * @q: the reservation
 * @m: the memory
 */
void np_mem_unmap_peer(struct nvme_peer_queue *q, struct np_mem *m)
{
	if (m->peer_mapped)
		np_mem_unmap(&q->peer->dev, &m->peer_sgt);
	m->peer_mapped = false;
}

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

/**
 * np_doorbells_map() - the doorbell addresses as the peer sees them
 * @q: the reservation
 *
 * Doorbells are not P2PDMA memory: a peer whose DMA goes through an IOMMU
 * gets a dma_map_resource() mapping of the SQ tail and CQ head doorbells;
 * otherwise it gets their PCI bus addresses.
 *
 * Return: 0 or -ENOMEM when the IOMMU mapping fails.
 */
int np_doorbells_map(struct nvme_peer_queue *q)
{
	const struct nvme_pci_peer_info *info = &q->pctrl->info;
	u64 off = np_db_off(info, q->qid, false);
	u64 cq = np_db_off(info, q->qid, true) - off;

	if (q->peer && device_iommu_mapped(&q->peer->dev)) {
		q->sq_db_addr = dma_map_resource(&q->peer->dev,
						 info->bar_phys + off,
						 cq + sizeof(u32),
						 DMA_BIDIRECTIONAL, 0);
		if (dma_mapping_error(&q->peer->dev, q->sq_db_addr))
			return -ENOMEM;
		q->cq_db_addr = q->sq_db_addr + cq;
		q->db_mapped = true;
		return 0;
	}
	q->sq_db_addr = info->bar_bus + off;
	q->cq_db_addr = q->sq_db_addr + cq;
	return 0;
}

void np_doorbells_unmap(struct nvme_peer_queue *q)
{
	if (!q->db_mapped)
		return;
	dma_unmap_resource(&q->peer->dev, q->sq_db_addr,
			   q->cq_db_addr - q->sq_db_addr + sizeof(u32),
			   DMA_BIDIRECTIONAL, 0);
	q->db_mapped = false;
}

/*
 * Whether @pdev's DMA is translated: it has an IOMMU group *and* its domain
 * translates.  An identity domain (iommu=pt, iommu.passthrough=1, or a
 * device the IOMMU driver leaves direct-mapped) lets it reach everything.
 */
static bool np_iommu_translates(struct pci_dev *pdev)
{
	struct iommu_domain *dom;

	if (!device_iommu_mapped(&pdev->dev))
		return false;
	dom = iommu_get_domain_for_dev(&pdev->dev);
	return dom && (dom->type & __IOMMU_DOMAIN_PAGING);
}

/* Whether the bridge makes peer-to-peer requests go up, not across. */
static bool np_acs_redirects(struct pci_dev *bridge)
{
	u16 ctrl;

	if (!bridge->acs_cap)
		return false;
	pci_read_config_word(bridge, bridge->acs_cap + PCI_ACS_CTRL, &ctrl);
	return (ctrl & (PCI_ACS_RR | PCI_ACS_CR)) == (PCI_ACS_RR | PCI_ACS_CR);
}

/*
 * Whether @a's writes to @b's BARs can turn around in a switch, below any
 * IOMMU: they share a bridge below the root complex, and no bridge between
 * @a and that one redirects peer-to-peer requests upstream.
 */
static bool np_p2p_below_iommu(struct pci_dev *a, struct pci_dev *b)
{
	struct pci_dev *up, *x;

	for (up = pci_upstream_bridge(a); up; up = pci_upstream_bridge(up)) {
		for (x = pci_upstream_bridge(b); x; x = pci_upstream_bridge(x))
			if (x == up)
				goto found;
	}
	return false;		/* they meet in the root complex */
found:
	if (pci_pcie_type(up) == PCI_EXP_TYPE_ROOT_PORT)
		return false;	/* turning in a root port passes the IOMMU */
	for (x = pci_upstream_bridge(a); x && x != up;
	     x = pci_upstream_bridge(x))
		if (np_acs_redirects(x))
			return false;
	return true;
}

/* Whether @a and @b share an IOMMU group, and so every DMA mapping. */
static bool np_same_iommu_group(struct pci_dev *a, struct pci_dev *b)
{
	struct iommu_group *ga = iommu_group_get(&a->dev);
	struct iommu_group *gb = iommu_group_get(&b->dev);
	bool same = ga && ga == gb;

	iommu_group_put(ga);
	iommu_group_put(gb);
	return same;
}

static int np_count_dev(struct device *dev, void *n)
{
	(*(int *)n)++;
	return 0;
}

/* Whether @pdev has an IOMMU group, and so its DMA mappings, to itself. */
static bool np_alone_in_group(struct pci_dev *pdev)
{
	struct iommu_group *g = iommu_group_get(&pdev->dev);
	int n = 0;

	if (!g)
		return false;
	iommu_group_for_each_dev(g, &n, np_count_dev);
	iommu_group_put(g);
	return n == 1;
}

/**
 * np_isolated_guarantee() - what confines an isolated reservation's peer
 * @vf: the secondary controller's VF
 * @peer: the peer device, or NULL (a process)
 *
 * The controller checks every command's namespace in any case.  Its DMA is
 * confined only in a translating domain of the VF's own: a VF in its
 * primary's group (below a switch without ACS) shares the primary's
 * mappings, the host's I/O buffers included.  A peer device must itself be
 * translated on every path, or it writes other functions' registers.
 *
 * Return: %NVME_PEER_GUARANTEE_CONTROLLER_IOMMU or
 * %NVME_PEER_GUARANTEE_CONTROLLER.
 */
enum nvme_peer_guarantee np_isolated_guarantee(struct pci_dev *vf,
					       struct pci_dev *peer)
{
	if (!np_iommu_translates(vf) || !np_alone_in_group(vf))
		return NVME_PEER_GUARANTEE_CONTROLLER;
	if (peer && (!np_iommu_translates(peer) ||
		     np_p2p_below_iommu(peer, vf) ||
		     np_same_iommu_group(peer, vf)))
		return NVME_PEER_GUARANTEE_CONTROLLER;
	return NVME_PEER_GUARANTEE_CONTROLLER_IOMMU;
}

/**
 * np_guarantee() - what confines the peer of a reservation if it is hostile
 * @q: the reservation
 *
 * The peer is whoever can write commands: the shadow SQ and its doorbell.
 * Direct mode never confines a hostile peer: it writes commands the
 * controller executes as they are.  A shadow SQ in a dma-buf is written by
 * the exporter's device, or any other the buffer is shared with: nvme-peer
 * knows none of them, so nothing it can name confines them (NONE), with or
 * without a peer device.  Without a peer device and with the shadow SQ in
 * host memory only a process writes commands (CPU), also when a device
 * fills the data buffer or reads the CQ in a dma-buf: neither carries a
 * command past the guard.  A peer in the controller's IOMMU group shares
 * its DMA mappings, the hardware SQ's included, so it gets at most
 * IOMMU_SWITCH.
 *
 * Return: see &enum nvme_peer_guarantee.
 */
enum nvme_peer_guarantee np_guarantee(struct nvme_peer_queue *q)
{
	struct pci_dev *ctrl = q->pctrl->info.pdev;

	if (q->params.mode == NVME_PEER_MODE_ISOLATED)
		return np_isolated_guarantee(ctrl, q->peer);
	if (!np_mediated(q))
		return NVME_PEER_GUARANTEE_NONE;
	if (q->params.sq_placement == NVME_PEER_PLACE_DMABUF)
		return NVME_PEER_GUARANTEE_NONE;
	return np_peer_guarantee(q->peer, ctrl);
}

/**
 * np_peer_guarantee() - what confines @peer's DMA towards @ctrl
 * @peer: the peer device, or NULL for the CPU
 * @ctrl: the controller whose memory or queues it reaches
 *
 * Return: %NVME_PEER_GUARANTEE_CPU without a peer device; IOMMU when an
 * IOMMU translates @peer on every path to @ctrl; IOMMU_SWITCH when its
 * peer-to-peer requests may pass below the IOMMU or it shares @ctrl's
 * IOMMU group; NONE when nothing translates it.
 */
enum nvme_peer_guarantee np_peer_guarantee(struct pci_dev *peer,
					   struct pci_dev *ctrl)
{
	if (!peer)
		return NVME_PEER_GUARANTEE_CPU;
	if (!np_iommu_translates(peer))
		return NVME_PEER_GUARANTEE_NONE;
	if (np_p2p_below_iommu(peer, ctrl) || np_same_iommu_group(peer, ctrl))
		return NVME_PEER_GUARANTEE_IOMMU_SWITCH;
	return NVME_PEER_GUARANTEE_IOMMU;
}

#if IS_ENABLED(CONFIG_NVME_PEER_KUNIT_TEST)
#include "tests/mem_kunit.c"
#endif
