// SPDX-License-Identifier: GPL-2.0
/*
 * np-accel: the emulated accelerator of nvme-peer's test bed.
 *
 * Binds QEMU's "edu" device (1234:11e8), used as a DMA engine that a test
 * points at bus addresses, and "ivshmem-plain" (1af4:1110), whose RAM-backed
 * BAR2 it registers as P2PDMA memory so queues can be placed in a peer's BAR.
 *
 * debugfs (np-accel/):
 *   distance   read: pci_p2pdma_distance() from the first NVMe controller
 *              with P2PDMA memory to the edu device (negative: refused)
 *   p2p_smoke  read: DMA a pattern host -> edu -> NVMe CMB with the edu
 *              engine and compare it through the kernel's CMB mapping;
 *              prints "ok bytes=N bus=ADDR", fails with an errno otherwise
 *   dma        write "SRC DST LEN": copy LEN (< 4096) bytes from bus address
 *              SRC to bus address DST through the edu buffer, as a device
 *              would
 *   dmabuf     read: export dmabuf_size bytes of the ivshmem BAR as a new
 *              dynamic dma-buf, installed as a file descriptor of the
 *              reader, whose number it prints.  Like a GPU driver giving
 *              out VRAM: attach refuses (-EXDEV) an importer that does not
 *              allow peer-to-peer or that pci_p2pdma_distance() cannot
 *              reach (where amdgpu would move the buffer to system
 *              memory); map uses dma_map_resource(); vmap and mmap give the
 *              BAR; never pinned under CONFIG_DMABUF_MOVE_NOTIFY
 *   dmabuf_size  bytes of the next export (default 1 MiB)
 *   evict      write anything: for every exported buffer, under its
 *              reservation lock, dma_buf_move_notify(), wait for the
 *              importers' fences, and "reuse" the memory (fill it with
 *              0xee); -EBUSY for a pinned buffer
 *   evict_fences  read: how many buffers of the last evict had a fence
 *              not yet signalled right after move_notify returned (an
 *              importer that waits in move_notify leaves none)
 *   migrate_on_map  1: mapping a buffer first moves it (move_notify to
 *              every importer of it), as an exporter that migrates a
 *              buffer to the importer's side on map does
 *   mapped     read: how many mappings of exported buffers importers hold
 *              (maps not unmapped yet): while the count holds, the memory
 *              is still the importers' to DMA into
 *
 * np_accel_write() lets np-client have the edu device, not the CPU, write
 * SQEs and ring doorbells, np_accel_read() read a window's bus addresses;
 * np_accel_dmabuf() gives np-client a buffer of
 * the accelerator's memory, as the debugfs file dmabuf gives a process one.
 */
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/dma-buf.h>
#include <linux/dma-mapping.h>
#include <linux/dma-resv.h>
#include <linux/iosys-map.h>
#include <linux/iopoll.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/pci-p2pdma.h>
#include <linux/scatterlist.h>

#include "np-accel.h"

#define EDU_DMA_SRC	0x80
#define EDU_DMA_DST	0x88
#define EDU_DMA_CNT	0x90
#define EDU_DMA_CMD	0x98
#define EDU_CMD_START	BIT(0)
#define EDU_CMD_TO_BUS	BIT(1)
#define EDU_BUF		0x40000
#define EDU_BUF_MAX	4095	/* QEMU's edu rejects a full 4096-byte DMA */

static u32 npa_evict_fences;	/* under npa_bufs_lock */
static bool npa_migrate_on_map;
static struct pci_dev *edu_pdev;
static void __iomem *edu_bar;
static DEFINE_MUTEX(edu_lock);
static struct dentry *np_dir;

static int edu_dma_one(u64 src, u64 dst, u32 len, bool to_bus)
{
	u64 cmd;

	lockdep_assert_held(&edu_lock);
	writeq(src, edu_bar + EDU_DMA_SRC);
	writeq(dst, edu_bar + EDU_DMA_DST);
	writeq(len, edu_bar + EDU_DMA_CNT);
	writeq(EDU_CMD_START | (to_bus ? EDU_CMD_TO_BUS : 0),
	       edu_bar + EDU_DMA_CMD);
	/* QEMU completes an edu DMA from a ~100 ms timer */
	return readq_poll_timeout(edu_bar + EDU_DMA_CMD, cmd,
				  !(cmd & EDU_CMD_START), 1000, 5000000);
}

/* Copy @len bytes between two bus addresses, as the device itself would. */
static int edu_copy(u64 src, u64 dst, u32 len)
{
	int ret;

	if (!edu_bar)
		return -ENODEV;
	if (!len || len > EDU_BUF_MAX)
		return -EINVAL;
	mutex_lock(&edu_lock);
	ret = edu_dma_one(src, EDU_BUF, len, false);
	if (!ret)
		ret = edu_dma_one(EDU_BUF, dst, len, true);
	mutex_unlock(&edu_lock);
	return ret;
}

/**
 * np_accel_write() - have the edu device write bytes to a bus address
 * @dst: bus address as the edu device sees it
 * @src: the bytes
 * @len: 1 to 4095
 *
 * Return: 0, -ENODEV without an edu device, -EINVAL, -ENOMEM, or
 * -ETIMEDOUT when the DMA did not complete.
 */
int np_accel_write(u64 dst, const void *src, u32 len)
{
	dma_addr_t dma;
	void *buf;
	int ret;

	if (!edu_pdev)
		return -ENODEV;
	buf = dma_alloc_coherent(&edu_pdev->dev, PAGE_SIZE, &dma, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	memcpy(buf, src, min_t(u32, len, PAGE_SIZE));
	ret = edu_copy(dma, dst, len);
	dma_free_coherent(&edu_pdev->dev, PAGE_SIZE, buf, dma);
	return ret;
}
EXPORT_SYMBOL_GPL(np_accel_write);

/**
 * np_accel_read() - have the edu device read bytes at a bus address
 * @src: bus address as the edu device sees it
 * @dst: where the bytes go (through a buffer the edu device writes)
 * @len: 1 to 4095
 *
 * @dst receives what the device wrote back: with the source unreachable
 * (an IOMMU fault) QEMU completes the DMA anyway, and the bytes are those
 * the buffer held, filled with 0xa5 first.
 *
 * Return: 0, -ENODEV without an edu device, -EINVAL, -ENOMEM, -ETIMEDOUT.
 */
int np_accel_read(u64 src, void *dst, u32 len)
{
	dma_addr_t dma;
	void *buf;
	int ret;

	if (!edu_pdev)
		return -ENODEV;
	if (!len || len > EDU_BUF_MAX)
		return -EINVAL;
	buf = dma_alloc_coherent(&edu_pdev->dev, PAGE_SIZE, &dma, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	memset(buf, 0xa5, PAGE_SIZE);
	mutex_lock(&edu_lock);
	/* the engine's buffer, too: a faulted read leaves it as it was */
	ret = edu_dma_one(dma, EDU_BUF, len, false);
	if (!ret)
		ret = edu_dma_one(src, EDU_BUF, len, false);
	if (!ret)
		ret = edu_dma_one(EDU_BUF, dma, len, true);
	mutex_unlock(&edu_lock);
	if (!ret)
		memcpy(dst, buf, len);
	dma_free_coherent(&edu_pdev->dev, PAGE_SIZE, buf, dma);
	return ret;
}
EXPORT_SYMBOL_GPL(np_accel_read);

static struct pci_dev *np_find_nvme_p2pmem(void)
{
	struct pci_dev *pdev = NULL;

	while ((pdev = pci_get_class(PCI_CLASS_STORAGE_EXPRESS, pdev)))
		if (pci_has_p2pmem(pdev))
			return pdev;
	return NULL;
}

static int distance_show(struct seq_file *m, void *v)
{
	struct pci_dev *nvme = np_find_nvme_p2pmem();

	if (!nvme || !edu_pdev) {
		pci_dev_put(nvme);
		return -ENODEV;
	}
	seq_printf(m, "%d\n", pci_p2pdma_distance(nvme, &edu_pdev->dev, true));
	pci_dev_put(nvme);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(distance);

static int p2p_smoke_show(struct seq_file *m, void *v)
{
	const u32 len = EDU_BUF_MAX;
	struct pci_dev *nvme = np_find_nvme_p2pmem();
	struct sg_table sgt;
	dma_addr_t host_dma;
	u8 *host, *cmb;
	int ret, i;

	if (!nvme || !edu_pdev) {
		ret = -ENODEV;
		goto out_put;
	}
	ret = -ENOMEM;
	host = dma_alloc_coherent(&edu_pdev->dev, PAGE_SIZE, &host_dma,
				  GFP_KERNEL);
	if (!host)
		goto out_put;
	cmb = pci_alloc_p2pmem(nvme, PAGE_SIZE);
	if (!cmb)
		goto out_free_host;
	memset(cmb, 0, PAGE_SIZE);
	for (i = 0; i < len; i++)
		host[i] = i * 7 + 3;

	ret = sg_alloc_table(&sgt, 1, GFP_KERNEL);
	if (ret)
		goto out_free_cmb;
	sg_set_page(sgt.sgl, virt_to_page(cmb), PAGE_SIZE, 0);
	ret = dma_map_sgtable(&edu_pdev->dev, &sgt, DMA_BIDIRECTIONAL, 0);
	if (ret)
		goto out_free_sgt;

	ret = edu_copy(host_dma, sg_dma_address(sgt.sgl), len);
	if (!ret && memcmp(host, cmb, len))
		ret = -EIO;
	if (!ret && cmb[len])
		ret = -EOVERFLOW;
	if (!ret)
		seq_printf(m, "ok bytes=%u bus=%#llx\n", len,
			   (u64)sg_dma_address(sgt.sgl));

	dma_unmap_sgtable(&edu_pdev->dev, &sgt, DMA_BIDIRECTIONAL, 0);
out_free_sgt:
	sg_free_table(&sgt);
out_free_cmb:
	pci_free_p2pmem(nvme, cmb, PAGE_SIZE);
out_free_host:
	dma_free_coherent(&edu_pdev->dev, PAGE_SIZE, host, host_dma);
out_put:
	pci_dev_put(nvme);
	return ret;
}
DEFINE_SHOW_ATTRIBUTE(p2p_smoke);

static ssize_t dma_write(struct file *file, const char __user *ubuf,
			 size_t count, loff_t *ppos)
{
	char buf[80];
	u64 src, dst;
	u32 len;
	int ret;

	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	if (sscanf(buf, "%llx %llx %u", &src, &dst, &len) != 3)
		return -EINVAL;
	ret = edu_copy(src, dst, len);
	return ret ? ret : count;
}

static const struct file_operations dma_fops = {
	.owner = THIS_MODULE,
	.write = dma_write,
	.llseek = noop_llseek,
};

/* ---- the ivshmem BAR as a GPU's VRAM: a dynamic dma-buf exporter ---- */

struct npa_buf {
	struct list_head node;
	struct dma_buf *dmabuf;
	void *vaddr;			/* P2PDMA memory of ivshmem */
	size_t size;
	unsigned int pins;		/* under the reservation lock */
};

static struct pci_dev *ivshmem_pdev;
static LIST_HEAD(npa_bufs);
static DEFINE_MUTEX(npa_bufs_lock);
static u32 npa_buf_size = SZ_1M;
static atomic_t npa_mapped = ATOMIC_INIT(0);

static phys_addr_t npa_phys(struct npa_buf *b)
{
	return page_to_phys(virt_to_page(b->vaddr));
}

static int npa_attach(struct dma_buf *dmabuf,
		      struct dma_buf_attachment *attach)
{
	if (!attach->peer2peer ||
	    pci_p2pdma_distance(ivshmem_pdev, attach->dev, true) < 0)
		return -EXDEV;
	return 0;
}

static int npa_pin(struct dma_buf_attachment *attach)
{
	struct npa_buf *b = attach->dmabuf->priv;

	b->pins++;
	return 0;
}

static void npa_unpin(struct dma_buf_attachment *attach)
{
	struct npa_buf *b = attach->dmabuf->priv;

	b->pins--;
}

static struct sg_table *npa_map(struct dma_buf_attachment *attach,
				enum dma_data_direction dir)
{
	struct npa_buf *b = attach->dmabuf->priv;
	struct sg_table *sgt;
	dma_addr_t dma;

	if (READ_ONCE(npa_migrate_on_map))
		dma_buf_move_notify(attach->dmabuf);

	sgt = kzalloc(sizeof(*sgt), GFP_KERNEL);
	if (!sgt)
		return ERR_PTR(-ENOMEM);
	if (sg_alloc_table(sgt, 1, GFP_KERNEL)) {
		kfree(sgt);
		return ERR_PTR(-ENOMEM);
	}
	/* device memory has no struct page for importers: amdgpu's way */
	dma = dma_map_resource(attach->dev, npa_phys(b), b->size, dir,
			       DMA_ATTR_SKIP_CPU_SYNC);
	if (dma_mapping_error(attach->dev, dma)) {
		sg_free_table(sgt);
		kfree(sgt);
		return ERR_PTR(-EIO);
	}
	sgt->sgl->length = b->size;
	sg_dma_address(sgt->sgl) = dma;
	sg_dma_len(sgt->sgl) = b->size;
	atomic_inc(&npa_mapped);
	return sgt;
}

static void npa_unmap(struct dma_buf_attachment *attach, struct sg_table *sgt,
		      enum dma_data_direction dir)
{
	dma_unmap_resource(attach->dev, sg_dma_address(sgt->sgl),
			   sg_dma_len(sgt->sgl), dir, DMA_ATTR_SKIP_CPU_SYNC);
	sg_free_table(sgt);
	kfree(sgt);
	atomic_dec(&npa_mapped);
}

static void npa_release(struct dma_buf *dmabuf)
{
	struct npa_buf *b = dmabuf->priv;

	mutex_lock(&npa_bufs_lock);
	list_del(&b->node);
	mutex_unlock(&npa_bufs_lock);
	pci_free_p2pmem(ivshmem_pdev, b->vaddr, b->size);
	kfree(b);
}

static int npa_vmap(struct dma_buf *dmabuf, struct iosys_map *map)
{
	struct npa_buf *b = dmabuf->priv;

	iosys_map_set_vaddr(map, b->vaddr);
	return 0;
}

static int npa_mmap(struct dma_buf *dmabuf, struct vm_area_struct *vma)
{
	struct npa_buf *b = dmabuf->priv;

	return remap_pfn_range(vma, vma->vm_start,
			       PHYS_PFN(npa_phys(b)) + vma->vm_pgoff,
			       vma->vm_end - vma->vm_start,
			       pgprot_writecombine(vma->vm_page_prot));
}

static const struct dma_buf_ops npa_dmabuf_ops = {
	.attach = npa_attach,
	.pin = npa_pin,
	.unpin = npa_unpin,
	.map_dma_buf = npa_map,
	.unmap_dma_buf = npa_unmap,
	.release = npa_release,
	.vmap = npa_vmap,
	.mmap = npa_mmap,
};

/**
 * np_accel_dmabuf() - export @size bytes of the accelerator's memory
 * @size: bytes, a page multiple
 *
 * What the debugfs file dmabuf does, for a driver in the kernel (np-client
 * playing the accelerator's driver, which hands its own memory to
 * nvme-peer): a new dynamic dma-buf of ivshmem BAR memory, zeroed.
 *
 * Return: the buffer (one reference: dma_buf_put() it), -ENODEV without
 * ivshmem or for a bad size, -ENOMEM, or dma_buf_export()'s error.
 */
struct dma_buf *np_accel_dmabuf(size_t size)
{
	DEFINE_DMA_BUF_EXPORT_INFO(info);
	struct dma_buf *dmabuf;
	struct npa_buf *b;

	if (!ivshmem_pdev || !size || !PAGE_ALIGNED(size))
		return ERR_PTR(-ENODEV);
	b = kzalloc(sizeof(*b), GFP_KERNEL);
	if (!b)
		return ERR_PTR(-ENOMEM);
	b->size = size;
	b->vaddr = pci_alloc_p2pmem(ivshmem_pdev, b->size);
	if (!b->vaddr) {
		kfree(b);
		return ERR_PTR(-ENOMEM);
	}
	memset(b->vaddr, 0, b->size);
	info.ops = &npa_dmabuf_ops;
	info.size = b->size;
	info.flags = O_RDWR;
	info.priv = b;
	dmabuf = dma_buf_export(&info);
	if (IS_ERR(dmabuf)) {
		pci_free_p2pmem(ivshmem_pdev, b->vaddr, b->size);
		kfree(b);
		return dmabuf;
	}
	b->dmabuf = dmabuf;
	mutex_lock(&npa_bufs_lock);
	list_add(&b->node, &npa_bufs);
	mutex_unlock(&npa_bufs_lock);
	return dmabuf;
}
EXPORT_SYMBOL_GPL(np_accel_dmabuf);

static ssize_t dmabuf_read(struct file *file, char __user *ubuf, size_t count,
			   loff_t *ppos)
{
	struct dma_buf *dmabuf;
	char buf[16];
	int fd, len;

	if (*ppos)
		return 0;
	dmabuf = np_accel_dmabuf(npa_buf_size);
	if (IS_ERR(dmabuf))
		return PTR_ERR(dmabuf);
	fd = dma_buf_fd(dmabuf, O_CLOEXEC);
	if (fd < 0) {
		dma_buf_put(dmabuf);
		return fd;
	}
	len = scnprintf(buf, sizeof(buf), "%d\n", fd);
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static const struct file_operations dmabuf_fops = {
	.owner = THIS_MODULE,
	.read = dmabuf_read,
	.llseek = noop_llseek,
};

/* Move every buffer as a GPU driver evicting VRAM does. */
static ssize_t evict_write(struct file *file, const char __user *ubuf,
			   size_t count, loff_t *ppos)
{
	unsigned int fences = 0;
	struct npa_buf *b;
	int ret = 0;

	mutex_lock(&npa_bufs_lock);
	list_for_each_entry(b, &npa_bufs, node) {
		dma_resv_lock(b->dmabuf->resv, NULL);
		if (b->pins) {
			ret = -EBUSY;
		} else {
			dma_buf_move_notify(b->dmabuf);
			fences += !dma_resv_test_signaled(b->dmabuf->resv,
							  DMA_RESV_USAGE_BOOKKEEP);
			dma_resv_wait_timeout(b->dmabuf->resv,
					      DMA_RESV_USAGE_BOOKKEEP, false,
					      10 * HZ);
			memset(b->vaddr, 0xee, b->size);
		}
		dma_resv_unlock(b->dmabuf->resv);
	}
	npa_evict_fences = fences;
	mutex_unlock(&npa_bufs_lock);
	return ret ? ret : count;
}

static const struct file_operations evict_fops = {
	.owner = THIS_MODULE,
	.write = evict_write,
	.llseek = noop_llseek,
};

static int edu_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	int ret;

	if (edu_pdev)
		return -EBUSY;
	ret = pcim_enable_device(pdev);
	if (ret)
		return ret;
	ret = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (ret)
		return ret;
	pci_set_master(pdev);
	edu_bar = pcim_iomap(pdev, 0, 0);
	if (!edu_bar)
		return -ENOMEM;
	edu_pdev = pdev;
	return 0;
}

static void edu_remove(struct pci_dev *pdev)
{
	mutex_lock(&edu_lock);
	edu_pdev = NULL;
	edu_bar = NULL;
	mutex_unlock(&edu_lock);
}

static int ivshmem_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	int ret;

	ret = pcim_enable_device(pdev);
	if (ret)
		return ret;
	pci_set_master(pdev);
	ret = pci_p2pdma_add_resource(pdev, 2, 0, 0);
	if (ret)
		return ret;
	pci_p2pmem_publish(pdev, true);
	ivshmem_pdev = pdev;
	return 0;
}

static const struct pci_device_id np_accel_ids[] = {
	{ PCI_DEVICE(0x1234, 0x11e8) },		/* edu */
	{ PCI_DEVICE(0x1af4, 0x1110) },		/* ivshmem */
	{ }
};
MODULE_DEVICE_TABLE(pci, np_accel_ids);

static int np_accel_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	return pdev->vendor == 0x1234 ? edu_probe(pdev, id) :
					ivshmem_probe(pdev, id);
}

static void np_accel_remove(struct pci_dev *pdev)
{
	if (pdev == edu_pdev)
		edu_remove(pdev);
}

static struct pci_driver np_accel_driver = {
	.name = "np-accel",
	.id_table = np_accel_ids,
	.probe = np_accel_probe,
	.remove = np_accel_remove,
};

static int __init np_accel_init(void)
{
	int ret = pci_register_driver(&np_accel_driver);

	if (ret)
		return ret;
	np_dir = debugfs_create_dir("np-accel", NULL);
	debugfs_create_file("distance", 0400, np_dir, NULL, &distance_fops);
	debugfs_create_file("p2p_smoke", 0400, np_dir, NULL, &p2p_smoke_fops);
	debugfs_create_file("dma", 0200, np_dir, NULL, &dma_fops);
	debugfs_create_file("dmabuf", 0400, np_dir, NULL, &dmabuf_fops);
	debugfs_create_u32("dmabuf_size", 0600, np_dir, &npa_buf_size);
	debugfs_create_file("evict", 0200, np_dir, NULL, &evict_fops);
	debugfs_create_u32("evict_fences", 0400, np_dir, &npa_evict_fences);
	debugfs_create_bool("migrate_on_map", 0600, np_dir,
			    &npa_migrate_on_map);
	debugfs_create_atomic_t("mapped", 0400, np_dir, &npa_mapped);
	return 0;
}

static void __exit np_accel_exit(void)
{
	debugfs_remove_recursive(np_dir);
	pci_unregister_driver(&np_accel_driver);
}

module_init(np_accel_init);
module_exit(np_accel_exit);
MODULE_DESCRIPTION("nvme-peer test accelerator (QEMU edu + ivshmem)");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(DMA_BUF);
