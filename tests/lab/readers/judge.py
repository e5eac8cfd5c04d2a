#!/usr/bin/env python3
"""tests/lab/readers/judge.py - the readers' gate: does crash and drgn see
the same kernel in a filtered dump as in the raw vmcore?

  judge.py --root ROOT --vmlinux VMLINUX --raw RAW --mdf MAKEDUMPFILE
           [--level 31] [--work DIR] [--tsv FILE] [--crash PATH] NAME=DUMP[,PART...] ...
  judge.py ... --crash-only CMD DUMP   (crash's CMD on DUMP, its output)
  judge.py ... --drgn-read SYMBOL:SIZE DUMP   ("SYMBOL VADDR PADDR HEXBYTES")
  judge.py ... --drgn-section NAME DUMP   (drgn_view.py's section NAME)
  --no-drgn: crash alone (tests/lab/foreign.sh's crash HEAD check of the
  32-bit architectures, whose drgn the foreign checks ask themselves).
  --crash-minimal: crash --minimal, with the commands it has (log, rd):
  crash HEAD's X86 build stops at start-up on Linux 6.1's i386 otherwise
  ("cannot resolve \"sys_open\"", which 6.1 names __ia32_sys_open).
  --expect-diff NAME: the dump NAME is a control that lost a page the level
  keeps; each reader must find a difference there (else exit 1).

ROOT is the readers' root (tests/lab/readers/root.sh); crash and drgn run
there (chroot), the files bind-mounted into ROOT/mnt.  --crash PATH: the
crash binary, a path inside ROOT (default: sid's "crash"; crash HEAD:
tests/lab/readers/crash_head.sh prints its path).  For the raw vmcore
and each dump (a split set is its parts, comma-separated), crash runs the
fixed command set below in one session, each command's output to a file
of its own, and drgn runs drgn_view.py (not on split sets: drgn opens one
file).  Each command's output, and each drgn section, is compared with the
raw vmcore's (the dump file's name aside).  A difference is judged:
  - crash: the command alone again; if it still differs, once more with
    `-d 8`, whose "PAGE_EXCLUDED: paddr/pfn" lines name the pages it could
    not read (crash 9.0.2 prints nothing else: it may end with status 1
    and no message).  An ELF dump reads missing pages as zeros without an
    error: there the pages the command read on the raw vmcore (`-d 8`) and
    that the ELF dump does not hold are the candidates;
  - drgn: the addresses of its "error: ... at ADDR" lines, translated on
    the raw vmcore;
and each such page's class comes from `makedumpfile --explain` on the raw
vmcore at the dump level.  A difference whose pages are all excluded by
their class (user, free, cache, zero) is "excluded: CLASS"; any other, a
difference with no page to show for it, or a page the level keeps, is a
"DIFF", and the exit status is 1.  When the reader fails on the raw
vmcore itself, the row says so ("reader fails on raw: ...") and counts as
no difference: the reader, not the dump, cannot read that kernel.  A drgn
section that fails on the raw vmcore ("error: ...") and reads without an
error on the dump is "raw fails, the dump reads": drgn 0.3.0 walks no
riscv64 or ppc64 page tables, so on a raw ELF vmcore of those it has only
the PT_LOADs' addresses, while libkdumpfile translates for a kdump file.

Prints one line per reader, dump and item (TSV: reader, dump, item,
verdict), the same into --tsv, and a summary per dump and reader.
"""
import argparse
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

CRASH_CMDS = [
    "sys", "bt -a", "ps", "kmem -i", "kmem -s", "kmem -V", "log", "mod", "irq", "runq",
    "timer", "dev", "files 1", "vm 1", "net", "rd idt_table 32", "p jiffies", "help -k",
    "foreach bt", "kmem -f", "kmem -z", "mount", "swap", "sig 1",
]
# crash --minimal has log, dis, rd, sym, eval and set: reads of the log,
# the banner, utsname, the IDT (x86), init_task and the kernel's top page
# table (each symbol a reader needs, on pages of other kinds)
CRASH_CMDS_MINIMAL = [
    "log", "rd -a linux_banner", "rd init_uts_ns 100", "rd idt_table 32", "rd init_task 256",
    "rd swapper_pg_dir 256",
]
# A reader's own failures to translate an address (not a page the dump
# lacks: libkdumpfile says "excluded" or "not present" for those).
NO_TRANSLATION = ("No way to translate", "translation is only supported",
                  "could not find memory segment")
ENV = ["/usr/bin/env", "-i", "HOME=/tmp", "PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL=C.UTF-8"]
HERE = os.path.dirname(os.path.abspath(__file__))


class Root:
    """The readers' root, with host directories bind-mounted into it."""

    def __init__(self, root):
        self.root = root
        self.base = tempfile.mkdtemp(prefix="mdf-judge.", dir=os.path.join(root, "mnt"))
        self.mounts = {}

    def path(self, host):
        """The path of the host file HOST inside the root."""
        host = os.path.abspath(host)
        d = os.path.dirname(host)
        if d not in self.mounts:
            m = os.path.join(self.base, str(len(self.mounts)))
            os.mkdir(m)
            subprocess.run(["mount", "--bind", d, m], check=True)
            self.mounts[d] = m
        return os.path.join(self.mounts[d][len(self.root):], os.path.basename(host))

    def run(self, argv, stdin=None, timeout=900, stderr_too=True):
        """Exit status and output (stdout, then stderr unless not asked)."""
        try:
            p = subprocess.run(["chroot", self.root] + ENV + argv, input=stdin, capture_output=True,
                               text=True, errors="replace", timeout=timeout)
            if not stderr_too and p.stdout.strip():
                return p.returncode, p.stdout
            return p.returncode, p.stdout + p.stderr
        except subprocess.TimeoutExpired:
            return 124, "timed out after %d s" % timeout

    def close(self):
        for m in self.mounts.values():
            if subprocess.run(["umount", m]).returncode != 0:
                subprocess.run(["umount", "-l", m])
        shutil.rmtree(self.base, ignore_errors=True)


def norm(text):
    """Reader output without what names the dump file or the session."""
    out = []
    for line in text.splitlines():
        if "DUMPFILE" in line or "[PARTIAL DUMP]" in line or "index cache directory" in line:
            continue
        # help -k: a buffer of crash's own heap (crash HEAD's ARM64 build,
        # a position-independent binary: another address every run)
        line = re.sub(r"^(\s*m2p_page: )[0-9a-f]+$", r"\1(crash's own buffer)", line)
        out.append(line.rstrip())
    return "\n".join(out).strip("\n")


class Judge:
    def __init__(self, a):
        self.a = a
        self.root = Root(a.root)
        self.own_work = not a.work
        self.work = a.work or tempfile.mkdtemp(prefix="mdf-judge-work.")
        os.makedirs(self.work, exist_ok=True)
        self.vml = self.root.path(a.vmlinux)
        self.rows = []
        self.bad = 0
        self.psz = self.page_size(a.raw)
        self.explained = {}
        self.cmds = CRASH_CMDS_MINIMAL if a.crash_minimal else CRASH_CMDS

    def close(self):
        self.root.close()
        if self.own_work:
            shutil.rmtree(self.work, ignore_errors=True)

    # ---- crash -----------------------------------------------------------
    def crash(self, parts, script, debug=False):
        argv = [self.a.crash, "-s"] + (["--minimal"] if self.a.crash_minimal else []) + \
            (["-d", "8"] if debug else []) + [self.vml] + \
            [self.root.path(p) for p in parts]
        return self.root.run(argv, stdin=script + "\nquit\n")

    def crash_batch(self, name, parts):
        """Every command in one session, each to its own file; returns
        ({command: output or None}, status, session output)."""
        d = os.path.join(self.work, "crash-" + name)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        inside = self.root.path(os.path.join(d, "x"))[:-2]
        script = "\n".join("%s > %s/%d" % (c, inside, i) for i, c in enumerate(self.cmds))
        rc, out = self.crash(parts, script)
        res = {}
        for i, c in enumerate(self.cmds):
            f = os.path.join(d, str(i))
            res[c] = norm(open(f, errors="replace").read()) if os.path.exists(f) else None
        return res, rc, out

    def crash_alone(self, parts, cmd, debug=False):
        rc, out = self.crash(parts, cmd, debug)
        return rc, out

    # ---- drgn ------------------------------------------------------------
    def drgn(self, path):
        # drgn's warnings on stderr ("can't find remaining kernel
        # modules") would land in the last section: the sections are stdout
        rc, out = self.root.run(["python3", self.root.path(os.path.join(HERE, "drgn_view.py")),
                                 self.vml, self.root.path(path)], stderr_too=False)
        secs, cur = {}, None
        for line in out.splitlines():
            if line.startswith("== "):
                cur = line[3:]
                secs[cur] = []
            elif cur is not None:
                secs[cur].append(line)
        if not secs:
            secs["(start)"] = ["exit %d: %s" % (rc, out.strip().splitlines()[-1] if out.strip() else "")]
        return {k: "\n".join(v) for k, v in secs.items()}

    def drgn_tool(self, mode, dump, args):
        """drgn_view.py in MODE (--phys, --read) on DUMP."""
        return self.root.run(["python3", self.root.path(os.path.join(HERE, "drgn_view.py")), mode,
                              self.vml, self.root.path(dump)] + args, stderr_too=False)

    def phys_of(self, addrs):
        """Virtual addresses to physical ones, read on the raw vmcore."""
        if not addrs:
            return []
        rc, out = self.drgn_tool("--phys", self.a.raw, ["0x%x" % x for x in addrs])
        res = []
        for line in out.splitlines():
            w = line.split()
            if len(w) >= 2 and w[1].startswith("0x"):
                res.append(int(w[1], 16))
        return res

    # ---- pages -----------------------------------------------------------
    def explain(self, pfn):
        if pfn not in self.explained:
            p = subprocess.run([self.a.mdf, "--explain", "pfn:0x%x" % pfn, "-d", str(self.a.level),
                                self.a.raw], capture_output=True, text=True)
            v = "no verdict: " + (p.stderr.strip().splitlines() or ["?"])[-1]
            for line in p.stdout.splitlines():
                m = re.match(r"\s*-d %d\s+(.*)$" % self.a.level, line)
                if m:
                    v = m.group(1).strip()
            self.explained[pfn] = v
        return self.explained[pfn]

    @staticmethod
    def page_size(path):
        """PAGESIZE of the raw vmcore's VMCOREINFO (64 KiB on ppc64el)."""
        with open(path, "rb") as f:
            head = f.read(64 << 20)
        m = re.search(rb"PAGESIZE=([0-9]+)\n", head)
        return int(m.group(1)) if m else 4096

    @staticmethod
    def elf_held(path):
        """[start, end) physical ranges an ELF dump holds in its file."""
        with open(path, "rb") as f:
            h = f.read(64)
            if h[:4] != b"\x7fELF":
                return None
            elf32 = h[4] == 1  # an i386 or 32-bit arm dump
            if elf32:
                phoff, = struct.unpack_from("<I", h, 28)
                phentsize, phnum = struct.unpack_from("<HH", h, 42)
            else:
                phoff, = struct.unpack_from("<Q", h, 32)
                phentsize, phnum = struct.unpack_from("<HH", h, 54)
            f.seek(phoff)
            ph = f.read(phentsize * phnum)
        held = []
        for i in range(phnum):
            if elf32:
                t, _off, _va, pa, filesz = struct.unpack_from("<IIIII", ph, i * phentsize)
            else:
                t, _fl, _off, _va, pa, filesz, _memsz, _al = struct.unpack_from("<IIQQQQQQ", ph, i * phentsize)
            if t == 1 and filesz:
                held.append((pa, pa + filesz))
        return held

    def verdict_of(self, pfns, what):
        """The verdict of a difference whose reads were the pages PFNS."""
        if not pfns:
            return "DIFF: %s, and no page of the dump to show for it" % what
        classes, kept = set(), []
        for pfn in sorted(pfns)[:16]:
            v = self.explain(pfn)
            if v.startswith("excluded"):
                classes.add(v.split("(")[0].replace("excluded:", "").strip())
            else:
                kept.append("pfn 0x%x %s" % (pfn, v))
        if kept:
            return "DIFF: %s; %s" % (what, "; ".join(kept[:3]))
        return "excluded: %s (%d pages, e.g. pfn 0x%x)" % (", ".join(sorted(classes)), len(pfns), min(pfns))

    def crash_pages(self, name, parts, cmd):
        """The pfns a command could not read in a dump."""
        _rc, out = self.crash_alone(parts, cmd, debug=True)
        # the page of the physical address: crash's pfn of 32-bit arm
        # counts from PHYS_OFFSET (its paddr_to_pfn())
        pfns = {int(m, 16) // self.psz for m in re.findall(r"PAGE_EXCLUDED: paddr/pfn: ([0-9a-f]+)/[0-9a-f]+", out)}
        held = self.elf_held(parts[0])
        if held is not None and not pfns:
            _rc, out = self.crash_alone([self.a.raw], cmd, debug=True)
            for m in re.findall(r"paddr: ([0-9a-f]+)", out):
                pa = int(m, 16)
                if not any(a <= pa < b for a, b in held):
                    pfns.add(pa // self.psz)
        return pfns

    # ---- the gate --------------------------------------------------------
    def row(self, reader, dump, item, verdict):
        self.rows.append((reader, dump, item, verdict))
        if verdict.startswith("DIFF") and dump not in self.a.expect_diff:
            self.bad += 1
        print("%s\t%s\t%s\t%s" % (reader, dump, item, verdict), flush=True)

    def judge_crash(self, name, parts):
        if self.raw_fail:
            self.row("crash", name, "*", "reader fails on raw: " + self.raw_fail)
            return
        got, rc, _out = self.crash_batch(name, parts)
        if all(v is None for v in got.values()):
            # crash ended before its first command: one judgement for all
            self.row("crash", name, "*", self.verdict_of(
                self.crash_pages(name, parts, self.cmds[0]), "crash ends at start with status %d" % rc))
            return
        for c in self.cmds:
            if self.raw_crash[c] is None:
                self.row("crash", name, c, "reader fails on raw")
            elif got[c] == self.raw_crash[c]:
                self.row("crash", name, c, "equal")
            elif norm(self.crash_alone(parts, c)[1]) == norm(self.crash_alone([self.a.raw], c)[1]):
                self.row("crash", name, c, "equal (alone; the session had ended)")
            else:
                self.row("crash", name, c, self.verdict_of(self.crash_pages(name, parts, c),
                                                           "output differs"))

    def judge_drgn(self, name, parts):
        if len(parts) > 1:
            self.row("drgn", name, "*", "n/a: drgn opens one file, not a split set")
            return
        if "(start)" in self.raw_drgn:
            self.row("drgn", name, "*", "reader fails on raw: " + self.raw_drgn["(start)"])
            return
        got = self.drgn(parts[0])
        for sec, text in self.raw_drgn.items():
            mine = got.get(sec)
            if mine == text:
                self.row("drgn", name, sec, "equal")
                continue
            raw_err = [l for l in text.splitlines() if l.startswith("error: ")]
            mine_err = re.findall(r"^error: .*", mine or "", re.M)
            if raw_err and mine_err and all(any(t in e for t in NO_TRANSLATION) for e in mine_err):
                # the reader translates that address neither on the raw
                # vmcore nor through libkdumpfile (ppc64 hash MMU: drgn
                # 0.3.0 walks radix tables only, libkdumpfile 0.5.6 has
                # "No way to translate" vmalloc there): no page is missing
                self.row("drgn", name, sec, "reader fails on raw: %s; the dump: %s" %
                         (raw_err[0], mine_err[0]))
                continue
            if mine_err and all("No way to translate" in e for e in mine_err):
                # libkdumpfile 0.5.6 has no translation for this address
                # in a kdump file (ppc64 vmalloc, radix and hash alike):
                # upstream 1.7.2's -l dump of the same vmcore fails on
                # the same address (README, readers' gate)
                self.row("drgn", name, sec, "reader fails on this format: " + mine_err[0])
                continue
            if raw_err and mine is not None and not any(" at 0x" in e for e in mine_err):
                # drgn cannot read this on the raw vmcore (0.3.0 has no
                # riscv64 or ppc64 page-table walk, so a raw ELF vmcore
                # gives it only the PT_LOADs' addresses), while the dump,
                # read through libkdumpfile's translation, has it all
                # (or it gets further, to an error that reads no memory:
                # "core dump stack unwinding is not supported for RISC-V 64")
                self.row("drgn", name, sec, "raw fails, the dump reads: " + raw_err[0] +
                         ("; the dump: " + mine_err[0] if mine_err else ""))
                continue
            addrs = {int(m, 16) for m in re.findall(r"error: .* at (0x[0-9a-f]+)", mine or "")}
            # user and kernel virtual addresses are translated on the raw
            # vmcore; a low one is already physical
            pfns = {x // self.psz for x in addrs if x < 1 << 47}
            pfns |= {x // self.psz for x in self.phys_of([x for x in addrs if x >= 1 << 47])}
            self.row("drgn", name, sec, self.verdict_of(
                pfns, "section differs" if mine is not None else "section missing"))

    def run(self, dumps):
        self.raw_crash, raw_rc, raw_out = self.crash_batch("raw", [self.a.raw])
        self.raw_fail = None
        if all(v is None for v in self.raw_crash.values()):
            # the line that says why (crash's own "crash: ..." or an
            # "invalid structure member offset"), not its error trace
            lines = norm(raw_out).splitlines()
            why = [l for l in lines if ("invalid" in l or l.startswith("crash: ")) and
                   "error trace" not in l]
            self.raw_fail = (why or lines or ["exit %d, no message" % raw_rc])[0 if why else -1].strip()
        if not self.a.no_drgn:
            self.raw_drgn = self.drgn(self.a.raw)
        for name, parts in dumps:
            self.judge_crash(name, parts)
            if not self.a.no_drgn:
                self.judge_drgn(name, parts)
        # A control must fail in every reader that reads the raw vmcore.
        for name in self.a.expect_diff:
            for reader in ("crash",) if self.a.no_drgn else ("crash", "drgn"):
                vs = [v for r, d, _i, v in self.rows if r == reader and d == name]
                if vs and not any(v.startswith(("n/a", "reader fails")) for v in vs) and \
                        not any(v.startswith("DIFF") for v in vs):
                    self.bad += 1
                    print("%s\t%s\t*\tBAD CONTROL: no difference found" % (reader, name), flush=True)
        return self.bad

    def summary(self):
        print("\n== readers' gate (level -d %d)" % self.a.level)
        seen = []
        for r, d, _i, _v in self.rows:
            if (r, d) not in seen:
                seen.append((r, d))
        for r, d in seen:
            vs = [v for rr, dd, _i, v in self.rows if rr == r and dd == d]
            diff = sum(v.startswith("DIFF") for v in vs)
            exc = sum(v.startswith("excluded") for v in vs)
            na = [v for v in vs if v.startswith(("n/a", "reader fails"))]
            better = sum(v.startswith("raw fails, the dump reads") for v in vs)
            if diff:
                s = "DIFF (%d of %d)" % (diff, len(vs))
            elif na and len(na) == len(vs):
                s = na[0]
            else:
                s = "equal" + (", %d excluded by class" % exc if exc else "") + \
                    (", %d the reader fails on raw too" % len(na) if na else "") + \
                    (", %d read where the raw vmcore fails" % better if better else "")
            print("%s\t%s\t%s" % (r, d, s))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", required=True)
    ap.add_argument("--vmlinux", required=True)
    ap.add_argument("--raw", required=True)
    ap.add_argument("--mdf", required=True)
    ap.add_argument("--level", type=int, default=31)
    ap.add_argument("--work")
    ap.add_argument("--tsv")
    ap.add_argument("--crash", default="crash", metavar="PATH",
                    help="the crash binary to run, a path inside ROOT (default: crash)")
    ap.add_argument("--crash-minimal", action="store_true",
                    help="run crash --minimal, with the commands it has (log, rd)")
    ap.add_argument("--no-drgn", action="store_true",
                    help="judge crash alone (drgn is not run)")
    ap.add_argument("--expect-diff", action="append", default=[], metavar="NAME",
                    help="NAME is a control (a dump that lost a kept page): its differences are "
                         "expected, and it is an error when a reader finds none")
    ap.add_argument("--drgn-read", metavar="SYMBOL:SIZE",
                    help="print SYMBOL's address, its physical address and its first SIZE bytes "
                         "in the first dump (a path), as drgn reads them")
    ap.add_argument("--drgn-section", metavar="NAME",
                    help="print drgn_view.py's section NAME (tasks, modules, ...) of the first "
                         "dump (a path)")
    ap.add_argument("--proc-markers", metavar="COMM:MARKER",
                    help="drgn: count MARKER in the memory of the process COMM of the first "
                         "dump (a path), read with access_process_vm()")
    ap.add_argument("--crash-only", metavar="CMD",
                    help="run only crash's CMD on the first dump (a path) and print its output")
    ap.add_argument("dumps", nargs="+", metavar="NAME=DUMP[,PART...]")
    a = ap.parse_args()
    dumps = []
    for d in a.dumps:
        name, _, files = d.partition("=")
        dumps.append((name, files.split(",")))
    j = Judge(a)
    if a.drgn_read:
        sym, _, size = a.drgn_read.partition(":")
        try:
            rc, out = j.drgn_tool("--read", dumps[0][1][0] or dumps[0][0], [sym, size or "8"])
        finally:
            j.close()
        print(out.strip())
        return rc
    if a.proc_markers:
        comm, _, marker = a.proc_markers.partition(":")
        try:
            rc, out = j.drgn_tool("--proc-markers", dumps[0][1][0] or dumps[0][0], [comm, marker])
        finally:
            j.close()
        print(out.strip())
        return rc
    if a.drgn_section:
        try:
            secs = j.drgn(dumps[0][1][0] or dumps[0][0])
        finally:
            j.close()
        print(secs.get(a.drgn_section, "no section %s: %s" % (a.drgn_section, "; ".join(secs))))
        return 0 if a.drgn_section in secs else 1
    if a.crash_only:
        try:
            rc, out = j.crash_alone([dumps[0][1][0] if dumps[0][1][0] else dumps[0][0]], a.crash_only)
        finally:
            j.close()
        print(norm(out))
        return rc
    try:
        bad = j.run(dumps)
    finally:
        j.close()
    j.summary()
    if a.tsv:
        with open(a.tsv, "w") as f:
            for r in j.rows:
                f.write("\t".join(r) + "\n")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
