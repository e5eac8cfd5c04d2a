#!/usr/bin/env python3
"""tests/lab/readers/drgn_view.py VMLINUX DUMP
   drgn_view.py --phys VMLINUX DUMP ADDR...   ("ADDR PADDR" lines, or "ADDR none")
   drgn_view.py --read VMLINUX DUMP SYMBOL SIZE   ("SYMBOL VADDR PADDR HEXBYTES")
   drgn_view.py --proc-markers VMLINUX DUMP COMM MARKER
       (the first process called COMM, each page of its memory read with
       access_process_vm(): "pid P pages N faults F markers M")

What drgn sees of a kernel dump, as text to compare between the raw vmcore
and a filtered dump: tasks, every task's stack, slab caches, printk
records, modules, the per-cpu runqueues, the bytes of idt_table and of
every page-table page of the kernel's own mappings (x86_64: the kernel
half of init_mm's top table, walked down to its last level), each section
headed "== NAME".  A read that fails prints "error: MESSAGE at ADDRESS"
in its section (drgn.FaultError), and the rest goes on: a section that
differs names the address a reader could not read.  Run by judge.py
inside the readers' root (tests/lab/readers/root.sh), whose drgn is
Debian's newest.
"""
import hashlib
import sys

import drgn
from drgn.helpers.linux.pid import for_each_task
from drgn.helpers.linux.percpu import per_cpu
from drgn.helpers.linux.cpumask import for_each_online_cpu


def section(name, fn):
    print("== " + name)
    try:
        fn()
    except drgn.FaultError as e:
        print("error: %s at 0x%x" % (e.message if hasattr(e, "message") else e, e.address))
    except (LookupError, ValueError, NotImplementedError) as e:
        print("error: %s" % e)
    sys.stdout.flush()


def tasks():
    for t in for_each_task(prog):
        print(int(t.pid), t.comm.string_().decode(errors="replace"), int(t.__state) if hasattr(t, "__state") else int(t.state))


def stacks():
    for t in for_each_task(prog):
        try:
            trace = prog.stack_trace(t)
            names = [f.name or hex(f.pc) for f in trace]
        except drgn.FaultError as e:
            names = ["error: %s at 0x%x" % (e.message, e.address)]
        except ValueError as e:
            names = ["error: %s" % e]
        print(int(t.pid), " ".join(names))


def slabs():
    from drgn.helpers.linux.slab import for_each_slab_cache
    for s in for_each_slab_cache(prog):
        print(s.name.string_().decode(), int(s.object_size), int(s.size))


def printk():
    from drgn.helpers.linux.printk import get_printk_records
    for r in get_printk_records(prog):
        print(r.timestamp, r.text.decode(errors="replace"))


def modules():
    from drgn.helpers.linux.module import for_each_module
    for m in for_each_module(prog):
        print(m.name.string_().decode())


def runqueues():
    for cpu in for_each_online_cpu(prog):
        rq = per_cpu(prog["runqueues"], cpu)
        print(cpu, int(rq.nr_running), rq.curr.comm.string_().decode(), int(rq.curr.pid))


def idt():
    sym = prog.symbol("idt_table")
    print(hashlib.sha256(prog.read(sym.address, 4096)).hexdigest())


def page_tables():
    """x86_64: every table page under the kernel half of init_mm's pgd."""
    if prog.platform.arch != drgn.Architecture.X86_64:
        print("skipped: the walk is x86_64's")
        return
    try:
        levels = 5 if prog["__pgtable_l5_enabled"].value_() else 4
    except KeyError:  # no CONFIG_X86_5LEVEL
        levels = 4
    h = hashlib.sha256()
    count = [0]
    mask = ((1 << 52) - 1) & ~0xfff

    def walk(data, level, first):
        count[0] += 1
        h.update(data)
        if level == 1:
            return
        for i in range(first, 512):
            e = int.from_bytes(data[i * 8:i * 8 + 8], "little")
            if not e & 1:
                continue
            if level in (2, 3) and e & 0x80:
                continue  # a 2 MiB or 1 GiB page: no table below
            walk(prog.read(e & mask, 4096, True), level - 1, 0)

    # the top table by its kernel address (swapper_pg_dir), the rest physical
    walk(prog.read(prog["init_mm"].pgd.value_(), 4096), levels, 256)
    print(levels, "levels", count[0], "tables", h.hexdigest())


def phys(addr):
    """The physical address of kernel virtual address ADDR, or 'none'."""
    from drgn.helpers.linux.mm import follow_phys
    try:
        return hex(follow_phys(prog["init_mm"].address_of_(), addr))
    except Exception:  # any failure: the caller says what it could not find
        return "none"


mode = sys.argv[1] if sys.argv[1] in ("--phys", "--read", "--proc-markers") else None
args = sys.argv[2:] if mode else sys.argv[1:]
prog = drgn.Program()
prog.set_core_dump(args[1])
prog.load_debug_info([args[0]])
if mode == "--phys":
    for a in args[2:]:
        print(a, phys(int(a, 0)))
    sys.exit(0)
if mode == "--proc-markers":
    from drgn.helpers.linux.mm import access_process_vm, for_each_vma
    comm, marker = args[2].encode(), args[3].encode()
    for t in for_each_task(prog):
        if t.comm.string_() != comm or not t.mm:
            continue
        pages = faults = found = 0
        for vma in for_each_vma(t.mm):
            start, end = int(vma.vm_start), int(vma.vm_end)
            for a in range(start, min(end, start + (256 << 20)), 4096):
                try:
                    data = access_process_vm(t, a, 4096)
                except drgn.FaultError:
                    faults += 1
                    continue
                pages += 1
                found += data.count(marker)
        print("pid %d pages %d faults %d markers %d" % (int(t.pid), pages, faults, found))
        sys.exit(0)
    print("no process %s" % args[2])
    sys.exit(1)
if mode == "--read":
    a = prog.symbol(args[2]).address
    print(args[2], hex(a), phys(a), prog.read(a, int(args[3])).hex())
    sys.exit(0)
for name, fn in (("tasks", tasks), ("stacks", stacks), ("slab caches", slabs),
                 ("printk", printk), ("modules", modules), ("runqueues", runqueues),
                 ("idt_table", idt), ("page tables", page_tables)):
    section(name, fn)
