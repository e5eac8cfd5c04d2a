#!/usr/bin/env python3
"""Measurements and report for tests/bench.sh (see there for the knobs).

Each job compares two configurations (a binary plus options) on the same
vmcore, writing to the same disk.  One untimed run of each warms the page
cache, then timed runs alternate A B A B.  A separate run under
`strace -c -f` counts the syscalls.  Wall time, CPU time (user+sys) and
peak RSS come from wait4() of the child; medians are reported.
"""

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time

MIB = 1024 * 1024
# One thread: ours at most this many times the floor (tests/tools/codecfloor).
FLOOR_TARGET = 1.05


def log(msg=""):
    print(msg, flush=True)


class Config:
    """One binary + options; collects samples."""

    def __init__(self, label, binary, opts, writes=True, slow=False,
                 pair=None):
        self.label = label
        self.binary = binary
        self.opts = opts
        self.writes = writes        # takes a DUMPFILE argument
        self.slow = slow            # upstream --num-threads: capped pairs
        self.pair = pair            # script running two of it at once
        self.wall, self.cpu, self.rss, self.size = [], [], [], []
        self.syscalls = None
        self.failed = None

    def argv(self, vmcore, out):
        if self.pair:
            return [self.pair, out, self.binary] + self.opts + [vmcore]
        a = [self.binary] + self.opts + [vmcore]
        return a + [out] if self.writes else a

    def med(self, what):
        v = getattr(self, what)
        if what == "syscalls":
            return v
        return statistics.median(v) if v else None


class Bench:
    def __init__(self, args):
        self.a = args
        self.out = os.path.join(args.tmp, "out.dump")
        self.errlog = os.path.join(args.tmp, "stderr.log")

    def _clean(self):
        """Remove the output.  After a big one, wait for the memory to settle.

        On a VM whose balloon reports free pages to the host (virtio-balloon
        free page reporting, as on this project's machines), the kernel hands
        the freed page cache back to the host about 2 s after the unlink, and
        whichever run is allocating at that moment pays a host fault per page:
        up to 1 s extra on a 750 MiB output.  Waiting --settle seconds after
        removing a large output lets that finish between runs, so every run
        starts from the same state.
        """
        if not os.path.exists(self.out):
            return
        size = os.path.getsize(self.out)
        os.unlink(self.out)
        if size >= self.SETTLE_MIN and self.a.settle > 0:
            time.sleep(self.a.settle)

    SETTLE_MIN = 64 * MIB

    def run(self, cfg, vmcore, record=True):
        """Run cfg once; record wall/cpu/rss/size unless a warm-up.

        Returns the wall time (None if the run failed)."""
        if cfg.failed:
            return None
        self._clean()
        argv = cfg.argv(vmcore, self.out)
        stats = os.path.join(self.a.tmp, "runner.txt")
        with open(self.errlog, "wb") as err:
            if self.a.runner:
                # Wall time until the output is on disk, for every
                # program alike (runner.c --sync: fdatasync of the file
                # after the exit, as `sync -d FILE`).
                rc = subprocess.call([self.a.runner, stats, "--sync", self.out] + argv,
                                     stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=err)
                try:
                    with open(stats) as f:
                        w = f.read().split()
                    os.unlink(stats)
                    wall, cpu = float(w[0]), float(w[1]) + float(w[2])
                    rss = int(w[3]) * 1024
                except (OSError, ValueError, IndexError):
                    wall = cpu = rss = None
                    rc = rc or 125
            else:
                t0 = time.perf_counter()
                p = subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=err)
                _, status, ru = os.wait4(p.pid, 0)
                if os.path.exists(self.out):
                    fd = os.open(self.out, os.O_RDONLY)
                    os.fdatasync(fd)
                    os.close(fd)
                wall = time.perf_counter() - t0
                rc = p.returncode = os.waitstatus_to_exitcode(status)
                cpu = ru.ru_utime + ru.ru_stime
                rss = ru.ru_maxrss * 1024
        size = os.path.getsize(self.out) if os.path.exists(self.out) else 0
        self._clean()
        if rc != 0:
            with open(self.errlog, errors="replace") as f:
                tail = f.read().strip().splitlines()[-3:]
            cfg.failed = "exit %d: %s" % (rc, " / ".join(tail))
            log("    FAILED %s: %s" % (" ".join(argv), cfg.failed))
            return None
        if record:
            cfg.wall.append(wall)
            cfg.cpu.append(cpu)
            cfg.rss.append(rss)
            cfg.size.append(size)
        return wall

    def strace(self, cfg, vmcore):
        if cfg.failed or not shutil.which("strace"):
            return
        self._clean()
        st = os.path.join(self.a.tmp, "strace.txt")
        argv = ["strace", "-c", "-f", "-o", st] + cfg.argv(vmcore, self.out)
        rc = subprocess.call(argv, stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        self._clean()
        if rc != 0 or not os.path.exists(st):
            return
        with open(st) as f:
            for line in f:
                w = line.split()
                if w and w[-1] == "total" and len(w) >= 5:
                    # % time, seconds, usecs/call, calls, [errors], total
                    cfg.syscalls = int(w[3])
        os.unlink(st)

    # Jobs whose warm-up runs all took less than SHORT_JOB seconds get
    # SHORT_MORE times the pairs: they cost little, and a few milliseconds
    # of noise move their ratio most.
    SHORT_JOB = 0.5
    SHORT_MORE = 3

    def job(self, cfgs, vmcore, pairs, do_strace=True):
        """Warm each, alternate A B (C) for `pairs` rounds, then strace each."""
        cfgs = [c for c in cfgs if c is not None]
        warm = [self.run(c, vmcore, record=False) for c in cfgs]
        if all(w is not None and w < self.SHORT_JOB for w in warm):
            pairs *= self.SHORT_MORE
        for _ in range(pairs):
            for c in cfgs:
                self.run(c, vmcore)
        if do_strace:
            for c in cfgs:
                self.strace(c, vmcore)


# ---- formatting ------------------------------------------------------------

def fmt(what, v):
    if v is None:
        return "n/a"
    if what in ("wall", "cpu"):
        return "%.2f s" % v
    if what in ("rss",):
        return "%.1f MiB" % (v / MIB)
    if what == "size":
        return "%.1f MiB" % (v / MIB)
    if what == "syscalls":
        return "%d" % v
    return str(v)


def ratio(x, y):
    if x is None or y is None or y == 0:
        return None
    return x / y


def fmt_ratio(r):
    return "%.3f" % r if r < 0.1 else "%.2f" % r


def mark(r, limit, ge=False):
    if r is None or limit is None:
        return ""
    ok = r >= limit if ge else r <= limit
    return " %s%s%g" % ("✓" if ok else "✗", "≥" if ge else "≤", limit)


METRICS = [("wall", "wall"), ("cpu", "CPU"), ("rss", "peak RSS"),
           ("syscalls", "syscalls"), ("size", "output")]


def pair_speedups(a, b):
    """B.wall / A.wall of each alternated pair (a run of A, then one of B)."""
    return [y / x for x, y in zip(a.wall, b.wall) if x > 0]


def interval(values, level=0.9, rounds=2000):
    """A bootstrap interval of the median of @values (fixed seed)."""
    import random
    if len(values) < 4:
        return None
    rnd = random.Random(12345)
    meds = sorted(statistics.median(rnd.choices(values, k=len(values)))
                  for _ in range(rounds))
    lo = meds[int((1 - level) / 2 * rounds)]
    hi = meds[int((1 + level) / 2 * rounds) - 1]
    return lo, hi


class Row:
    """A line of the summary: A (ours) against B (upstream or ours serial)."""

    def __init__(self, name, a, b, targets=None, speedup=None, note=""):
        self.name, self.a, self.b = name, a, b
        self.targets = targets or {}      # metric -> max ratio
        self.speedup = speedup            # min speed-up B.wall / A.wall
        self.note = note

    def cell(self, what):
        va = self.a.med(what) if not self.a.failed else None
        if self.b is None:
            return fmt(what, va)
        vb = self.b.med(what) if not self.b.failed else None
        r = ratio(va, vb)
        s = "%s / %s" % (fmt(what, va), fmt(what, vb))
        if r is not None:
            s += " = " + fmt_ratio(r)
            s += mark(r, self.targets.get(what))
            if what == "wall" and self.speedup is not None:
                # The speed-up of each alternated pair: its median and a
                # 90 % interval of that median; the target holds only
                # when the whole interval is above it, so that the noise
                # of a VM cannot decide the result.
                per = pair_speedups(self.a, self.b)
                sp = statistics.median(per) if per else ratio(vb, va)
                iv = interval(per)
                s += " (speed-up %.2fx" % sp
                if iv:
                    s += ", 90%% interval %.2f-%.2f, %d pairs" % (iv[0], iv[1], len(per))
                s += "%s)" % mark(iv[0] if iv else sp, self.speedup, True)
        elif what in self.targets:
            s += " (target ≤%g: not measured)" % self.targets[what]
        return s

    def console(self):
        lines = ["  %s" % self.name]
        if self.note:
            lines.append("    (%s)" % self.note)
        for what, title in METRICS:
            lines.append("    %-9s %s" % (title, self.cell(what)))
        for c in (self.a, self.b):
            if c is not None and c.failed:
                lines.append("    %s FAILED: %s" % (c.label, c.failed))
            elif c is not None and c.wall:
                lines.append("    %s: n=%d, wall %.2f..%.2f s"
                             % (c.label, len(c.wall), min(c.wall), max(c.wall)))
        return "\n".join(lines)


def machine():
    model = "?"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    load = "?"
    try:
        with open("/proc/loadavg") as f:
            load = " ".join(f.read().split()[:3])
    except OSError:
        pass
    return ("%d CPUs (nproc), %s, Linux %s; load average at start %s"
            % (os.cpu_count() or 0, model, platform.release(), load))


def busy_warning():
    """A note when other work competes for the CPUs (wall times inflate)."""
    try:
        load = os.getloadavg()[0]
    except OSError:
        return ""
    ncpu = os.cpu_count() or 1
    if load < 0.5 * ncpu:
        return ""
    return ("the machine was busy (load %.1f on %d CPUs): wall times are "
            "inflated and noisy, CPU times are the steadier comparison"
            % (load, ncpu))


def version(binary):
    try:
        out = subprocess.run([binary, "-v"], capture_output=True, text=True,
                             timeout=30)
        for line in (out.stdout + out.stderr).splitlines():
            if "version" in line:
                return line.split("version", 1)[1].strip()
    except (OSError, subprocess.SubprocessError):
        pass
    return "?"


# ---- main ------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ours", required=True)
    ap.add_argument("--upstream", required=True)
    ap.add_argument("--upstream-zstd", default="1")
    ap.add_argument("--vmcore", required=True)
    ap.add_argument("--vmdesc", default="")
    ap.add_argument("--tmp", required=True)
    ap.add_argument("--pairs", default="")
    ap.add_argument("--slow-pairs", default="")
    ap.add_argument("--scan-gib", default="")
    ap.add_argument("--strace-slow", default="0")
    ap.add_argument("--mkvmcore", default="")
    ap.add_argument("--runner", default="")
    ap.add_argument("--codecfloor", default="")
    ap.add_argument("--head", default="")
    ap.add_argument("--speedup-pairs", default="")
    ap.add_argument("--settle", type=float, default=3.0)
    ap.add_argument("--vmlinux", default="")
    ap.add_argument("--dbg-vmcore", default="")
    ap.add_argument("--md", required=True)
    a = ap.parse_args()
    pairs = int(a.pairs or 5)
    speedup_pairs = int(a.speedup_pairs or 3 * pairs)
    slow_pairs = int(a.slow_pairs or 2)
    scan_gib = int(a.scan_gib or 64)
    strace_slow = a.strace_slow not in ("", "0")
    up_zstd = a.upstream_zstd == "1"
    if pairs < 1 or slow_pairs < 1 or scan_gib < 1:
        sys.exit("bench: BENCH_PAIRS, BENCH_SLOW_PAIRS, BENCH_SCAN_GIB must be >= 1")

    bench = Bench(a)
    t_start = time.time()
    vm = a.vmcore
    vm_mib = os.path.getsize(vm) / MIB
    mach = machine()
    busy = busy_warning()
    log("bench: machine: %s" % mach)
    if busy:
        log("bench: warning: " + busy)
    log("bench: ours %s (%s), upstream %s (%s)"
        % (a.ours, version(a.ours), a.upstream, version(a.upstream)))
    log("bench: vmcore %s (%s, %.0f MiB); outputs in %s"
        % (vm, a.vmdesc, vm_mib, a.tmp))
    log("bench: %d A/B pairs per job after one untimed warm-up run each "
        "(%d when both warm-ups took under %g s); "
        "jobs where upstream runs --num-threads: %d pair(s) (BENCH_SLOW_PAIRS), "
        "no warm-up of that upstream run%s"
        % (pairs, pairs * Bench.SHORT_MORE, Bench.SHORT_JOB, slow_pairs,
           "" if strace_slow else ", no syscall count for it "
           "(BENCH_STRACE_SLOW=1 adds one)"))
    if a.settle > 0:
        log("bench: after removing an output of 64 MiB or more, wait %g s "
            "(BENCH_SETTLE) so freed memory is not handed to the host during "
            "the next run" % a.settle)
    if not a.runner:
        log("bench: no runner: peak RSS includes the python parent's memory")
    if not up_zstd:
        log("bench: upstream says 'zstd disabled': -z runs are ours only")

    O, U = a.ours, a.upstream
    rows = []

    H = a.head if a.head and os.access(a.head, os.X_OK) else None
    if a.head and not H:
        log("bench: %s not found: no comparison with upstream HEAD" % a.head)

    def versus(opts, targets=None, up_slow=False, note="", head=True,
               up=True, floor=None):
        """Ours against 1.7.2 and upstream HEAD, runs alternating; with
        floor=CODEC, also the codec floor: tests/tools/codecfloor reading,
        compressing and writing the pages our dump stores, as a process
        timed like the others (start to end, same alternation)."""
        co = Config("ours", O, opts)
        cu = Config("1.7.2", U, opts, slow=up_slow) if up else None
        ch = Config("HEAD", H, opts) if H and head and not up_slow else None
        cf = None
        if floor and a.codecfloor:
            kept = os.path.join(a.tmp, "floor-%s.dump" % floor)
            if os.path.exists(kept):
                os.unlink(kept)
            if subprocess.call([O] + opts + [vm, kept], stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL) == 0:
                cf = Config("floor", a.codecfloor, [floor, kept])
        name = " ".join(opts)
        log("job %s: ours vs %s" % (name, ", ".join(
            c.label for c in (cu, ch) if c) + (" (1.7.2 capped)" if up_slow else "")))
        if up_slow:
            # Ours: warm-up + `pairs` runs; upstream (10x slower): no
            # warm-up (the vmcore is already cached), `slow_pairs` runs,
            # interleaved with ours while both last.
            bench.run(co, vm, record=False)
            for i in range(max(pairs, slow_pairs)):
                if i < pairs:
                    bench.run(co, vm)
                if i < slow_pairs:
                    bench.run(cu, vm)
            bench.strace(co, vm)
            if strace_slow:
                bench.strace(cu, vm)
        else:
            bench.job([co, cu, ch, cf], vm, pairs)
        targets = dict(targets or {})
        targets.setdefault("rss", 1.0)
        if cf:
            floor_info(opts, floor, cf, co, cu)
            os.unlink(cf.opts[1])
        for ref in (cu, ch):
            if ref is None:
                continue
            r = Row("%s vs %s" % (name, ref.label), co, ref, targets, note=note)
            log(r.console())
            rows.append(r)
        if not cu and not ch:
            r = Row(name + " (ours only)", co, None, note=note)
            log(r.console())
            rows.append(r)
        return co, cu

    # Two one-thread runs at once (OUT and OUT.2): what 2 CPUs of this
    # machine give for the same work with nothing shared.
    pair = os.path.join(a.tmp, "pair.sh")
    with open(pair, "w") as f:
        f.write('#!/bin/sh\nout=$1; shift\n"$@" "$out.2" & p=$!\n"$@" "$out"\n'
                'r=$?; wait $p || r=1; rm -f "$out.2"; exit $r\n')
    os.chmod(pair, 0o755)
    ceilings = []

    def speedup(opts, threads, min_speedup):
        c2 = Config("ours --num-threads %d" % threads, O,
                    opts + ["--num-threads", str(threads)])
        c0 = Config("ours --num-threads 0", O, opts + ["--num-threads", "0"])
        cp = Config("two of ours --num-threads 0 at once", O,
                    opts + ["--num-threads", "0"], pair=pair)
        name = "%s: ours --num-threads %d / ours --num-threads 0" % (
            " ".join(opts), threads)
        log("job %s" % name)
        bench.job([c2, c0, cp], vm, speedup_pairs, do_strace=False)
        bench.strace(c2, vm)
        bench.strace(c0, vm)
        r = Row(name, c2, c0, speedup=min_speedup)
        log(r.console())
        rows.append(r)
        # The machine's own ceiling: 2 runs' worth of work at once,
        # against one run (each round: one run of each).
        per = [2 * x / y for x, y in zip(c0.wall, cp.wall) if y > 0]
        if per:
            ceilings.append((" ".join(opts), statistics.median(per),
                             interval(per), statistics.median(pair_speedups(c2, c0)),
                             len(per)))
            log("  ceiling: two one-thread runs at once do %.2fx the work of one"
                % ceilings[-1][1])

    floors = []

    def floor_info(opts, codec, cf, co, cu):
        # One more run of the floor for what its time is made of: the
        # library calls (with the first touch of each page) and writing.
        wout = os.path.join(a.tmp, "floor.out")
        p = subprocess.run([a.codecfloor, codec, cf.opts[1], vm, wout],
                           capture_output=True, text=True)
        w = p.stdout.split()
        if p.returncode != 0 or len(w) < 6 or cf.failed:
            log("floor %s: failed %s" % (" ".join(opts), cf.failed or p.stderr.strip()))
            return
        per = [x / y for x, y in zip(co.wall, cf.wall) if y > 0]
        f = (" ".join(opts), int(w[1]), float(w[3]), float(w[5]), cf.med("wall"),
             cu.med("wall") if cu and not cu.failed else None,
             statistics.median(per) if per else None, interval(per))
        log("floor %s: %d pages, library calls %.2f s + writing %.2f s; the "
            "floor process %s; ours / floor %s" % (
                f[0], f[1], f[2], f[3], fmt("wall", f[4]),
                fmt_ratio(f[6]) if f[6] else "n/a"))
        floors.append(f)

    versus(["-l", "-d", "31"], {"wall": 0.85}, floor="lzo")
    versus(["-l", "-d", "0"], {"wall": 0.85, "syscalls": 0.1}, floor="lzo")
    versus(["-c", "-d", "31"], {"wall": 0.5}, floor="zlib")
    versus(["-z", "-d", "31"], up=up_zstd, floor="zstd",
           note="" if up_zstd else "1.7.2 is built without zstd")
    versus(["-l", "-d", "0", "--num-threads", "2"], up_slow=True)
    speedup(["-c", "-d", "0"], 2, 1.8)
    speedup(["-z", "-d", "0"], 2, 1.8)
    versus(["-c", "-d", "0", "--num-threads", "2"], {"wall": 0.1}, up_slow=True)

    # ---- debuginfo: -g FILE -x VMLINUX, and -x on the 6.1 fixture ----
    if a.vmlinux and a.dbg_vmcore:
        debuginfo_section(bench, a, O, U, H, rows, min(pairs, 2))

    # ---- scan throughput on a large synthetic machine ----
    scan = []
    if a.mkvmcore:
        scan = scan_section(bench, a, scan_gib, pairs)
    elapsed = time.time() - t_start

    # Only the load before the first run says whether others were busy:
    # by the end it counts the bench's own --num-threads runs too.
    md = markdown(a, mach, vm, a.vmdesc, vm_mib, pairs, slow_pairs,
                  strace_slow, rows, scan, scan_gib, elapsed, busy, floors,
                  ceilings)
    with open(a.md, "w") as f:
        f.write(md)
    log("")
    log(md)
    log("bench: summary written to %s (%.0f s in all)" % (a.md, elapsed))


class GenConfig(Config):
    """-g OUT -x VMLINUX: no vmcore operand."""

    def argv(self, vmcore, out):
        return [self.binary] + self.opts + ["-g", out, "-x", vmcore]


def debuginfo_section(bench, a, O, U, H, rows, pairs):
    """-g against 1.7.2 and HEAD (targets: 0.1 of the wall time, 0.5 of
    the RSS), and -l -d 31 -x VMLINUX on the dump the vmlinux belongs to
    (0.1 of the wall time).  Upstream takes 15-20 s a run: 2 pairs."""
    log("job -g FILE -x VMLINUX: ours vs 1.7.2%s" % (", HEAD" if H else ""))
    cs = [GenConfig("ours", O, []), GenConfig("1.7.2", U, [])]
    if H:
        cs.append(GenConfig("HEAD", H, []))
    bench.job(cs, a.vmlinux, pairs, do_strace=False)
    for ref in cs[1:]:
        r = Row("-g FILE -x vmlinux vs %s" % ref.label, cs[0], ref,
                {"wall": 0.1, "rss": 0.5}, note="633 MB debug vmlinux")
        log(r.console())
        rows.append(r)
    opts = ["-l", "-d", "31", "-x", a.vmlinux]
    log("job -l -d 31 -x VMLINUX on %s" % os.path.basename(a.dbg_vmcore))
    cs = [Config("ours", O, opts), Config("1.7.2", U, opts)]
    if H:
        cs.append(Config("HEAD", H, opts))
    bench.job(cs, a.dbg_vmcore, pairs, do_strace=False)
    for ref in cs[1:]:
        r = Row("-l -d 31 -x vmlinux vs %s" % ref.label, cs[0], ref,
                {"wall": 0.1}, note="fx-v61 and its debug vmlinux")
        log(r.console())
        rows.append(r)


def scan_section(bench, a, gib, pairs):
    vm = os.path.join(a.tmp, "scan-%dg.elf" % gib)
    spec = ("kernel 6.1\ncpus 2\nseed 7\n"
            "ram 0x100000 %dG\n"
            "pages 0x10000+16384 anon random 1\n"
            "pages 0x14000+8192 cache text 2\n" % gib)
    log("scan: generating a %d GiB machine (mostly free, 64 MiB anon, "
        "32 MiB cache)" % gib)
    t0 = time.perf_counter()
    p = subprocess.run([a.mkvmcore, "-", vm], input=spec, text=True,
                       capture_output=True)
    if p.returncode != 0:
        log("scan: mkvmcore failed: %s" % p.stderr.strip())
        return []
    subprocess.call(["sync"])
    st = os.stat(vm)
    log("scan: %.1f s, %.0f MiB on disk (%.0f GiB apparent)"
        % (time.perf_counter() - t0, st.st_blocks * 512 / MIB,
           st.st_size / 1024 ** 3))
    # 1.7.2 has --dry-run but wants a format and a DUMPFILE; give both
    # binaries that same command line, plus ours' bare scan form.
    same = ["--dry-run", "-l", "-d", "31"]
    co = Config("ours", a.ours, same)
    cu = Config("upstream", a.upstream, same)
    cs = Config("ours scan", a.ours, ["--dry-run", "-d", "31"], writes=False)
    ct = Config("ours scan, 2 threads", a.ours,
                ["--dry-run", "-d", "31", "--num-threads", "2"], writes=False)
    for c in (co, cu, cs, ct):
        bench.run(c, vm, record=False)
    for _ in range(pairs):
        for c in (co, cu, cs, ct):
            bench.run(c, vm)
    os.unlink(vm)
    tib = gib / 1024.0
    res = []
    for c, cmd in ((co, "--dry-run -l -d 31 VMCORE OUT"),
                   (cu, "--dry-run -l -d 31 VMCORE OUT"),
                   (cs, "--dry-run -d 31 VMCORE"),
                   (ct, "--dry-run -d 31 --num-threads 2 VMCORE")):
        w = c.med("wall")
        res.append((c, cmd, w, w / tib if w is not None else None,
                    c.med("cpu"), c.med("rss")))
    for c, cmd, w, per, cpu, rss in res:
        log("  %-21s %-40s wall %s = %s/TiB, CPU %s, peak RSS %s%s"
            % (c.label, cmd, fmt("wall", w),
               fmt("wall", per), fmt("cpu", cpu), fmt("rss", rss),
               "  FAILED: " + c.failed if c.failed else ""))
    return res


def markdown(a, mach, vm, vmdesc, vm_mib, pairs, slow_pairs, strace_slow,
             rows, scan, gib, elapsed, busy, floors=(), ceilings=()):
    L = []
    L.append("### Benchmark: ours vs makedumpfile %s%s"
             % (version(a.upstream),
                " and upstream HEAD %s" % version(a.head) if a.head and
                os.access(a.head, os.X_OK) else ""))
    L.append("")
    L.append("Machine: %s.  " % mach)
    L.append("vmcore: %s, %.0f MiB.  " % (vmdesc or os.path.basename(vm), vm_mib))
    L.append("Medians of %d alternated runs (A B A B, after one untimed run "
             "of each; %d for jobs under %g s); jobs where upstream uses "
             "--num-threads: %d upstream run(s) only, it is ~10x slower "
             "there%s.  "
             % (pairs, pairs * Bench.SHORT_MORE, Bench.SHORT_JOB, slow_pairs,
                "" if strace_slow else ", and its syscalls are not counted"))
    L.append("Wall times run until the output is on disk: each program's "
             "file is fdatasync()ed after it exits (`sync -d FILE`; ours "
             "syncs its own before it exits, so that costs it nothing "
             "twice).  ")
    L.append("Cells: ours / the other = ratio; ✓/✗ against the target.  "
             "Syscalls from one `strace -c -f` run.  %.0f s in all."
             % elapsed)
    if busy:
        L.append("")
        L.append("**Note:** %s." % busy)
    L.append("")
    L.append("| job | wall | CPU (user+sys) | peak RSS | syscalls | output size |")
    L.append("|---|---|---|---|---|---|")
    for r in rows:
        cells = [r.cell(w) for w, _ in METRICS]
        name = "`%s`" % r.name if ":" not in r.name else r.name
        fails = [c.label for c in (r.a, r.b) if c is not None and c.failed]
        if fails:
            name += " (FAILED: %s)" % ", ".join(fails)
        L.append("| %s | %s |" % (name, " | ".join(cells)))
    if floors:
        L.append("")
        L.append("One thread, the floor: tests/tools/codecfloor, a program "
                 "that only reads the pages the job's dump stores from the "
                 "vmcore's mmap windows, compresses them with the calls and "
                 "parameters of our writer (libdeflate for -c, zero pages "
                 "compressed once) and writes the stored bytes to a file in "
                 "the writer's 128 KiB pieces: no scan, no page descriptors "
                 "or headers.  It is timed as a whole process, in the same "
                 "alternation as ours (one floor run after each of ours); "
                 "the ratio is the median of those pairs, with a 90 %% "
                 "interval.  The library calls and the writing are its own "
                 "measure of one more run.  Ours is held to %g times the "
                 "floor." % FLOOR_TARGET)
        L.append("")
        L.append("| job | pages | library calls | writing | floor process "
                 "| 1.7.2 wall | ours / floor |")
        L.append("|---|---|---|---|---|---|---|")
        for name, npages, fs, fw, fp, uw, of, iv in floors:
            L.append("| `%s` | %d | %s | %s | %s | %s | %s%s%s |"
                     % (name, npages, fmt("wall", fs), fmt("wall", fw),
                        fmt("wall", fp), fmt("wall", uw),
                        fmt_ratio(of) if of else "n/a",
                        " (%.2f-%.2f)" % iv if iv else "",
                        mark(of, FLOOR_TARGET) if of else ""))
    if ceilings:
        L.append("")
        L.append("Two threads on this machine: the speed-up above against "
                 "what its 2 CPUs give for the same work with nothing shared "
                 "(two one-thread runs at once, timed in the same rounds: "
                 "2 x one run / the two together; median of the rounds, 90 % "
                 "interval).")
        L.append("")
        L.append("| job | speed-up of --num-threads 2 | ceiling: two one-thread "
                 "runs at once | rounds |")
        L.append("|---|---|---|---|")
        for name, c, iv, sp, n in ceilings:
            L.append("| `%s` | %.2fx | %.2fx%s | %d |" % (
                name, sp, c, " (%.2f-%.2f)" % iv if iv else "", n))
    if scan:
        L.append("")
        L.append("Scan throughput, synthetic %d GiB machine (6.1 layout, "
                 "mostly free pages, 64 MiB anon + 32 MiB cache), "
                 "medians of %d runs:" % (gib, pairs))
        L.append("")
        L.append("| binary | command | wall | s per TiB of RAM | CPU | peak RSS | ratio (wall, RSS) |")
        L.append("|---|---|---|---|---|---|---|")
        up = scan[1]
        for c, cmd, w, per, cpu, rss in scan:
            rr = ""
            if c is not up[0]:
                rw, rm = ratio(w, up[2]), ratio(rss, up[5])
                if rw is not None and rm is not None:
                    rr = "%s, %s%s" % (fmt_ratio(rw), fmt_ratio(rm),
                                       mark(rm, 1.0))
            L.append("| %s | `%s` | %s | %s | %s | %s | %s |"
                     % (c.label + (" FAILED" if c.failed else ""), cmd,
                        fmt("wall", w), fmt("wall", per), fmt("cpu", cpu),
                        fmt("rss", rss), rr))
    L.append("")
    return "\n".join(L)


# Ours / 1.7.2 in the capture kernel: at most this (median of the pairs).
CAPTURE_TARGET = 0.6


def capture_section(results, md, desc):
    """`bench.py capture RESULTS MD DESC`: the pairs that
    tests/lab/measure_hook.sh timed in a capture kernel (ours and 1.7.2
    alternately on the live /proc/vmcore), appended to MD as a table."""
    runs = {}
    with open(results) as f:
        for line in f:
            kv = dict(w.split("=", 1) for w in line.split() if "=" in w)
            if "run" in kv:
                runs[kv["run"]] = kv
    ours, up, ours_d, up_d = [], [], [], []
    i = 1
    while "ours%d" % i in runs:
        o, u = runs["ours%d" % i], runs.get("up%d" % i)
        if o["rc"] == "0" and u and u["rc"] == "0":
            ours.append(float(o["wall"]))
            up.append(float(u["wall"]))
            if "durable" in o and "durable" in u:
                ours_d.append(float(o["durable"]))
                up_d.append(float(u["durable"]))
        i += 1
    L = ["", "In the capture kernel: %s; `makedumpfile -l --message-level 7 "
         "-d 31 /proc/vmcore FILE`, ours and 1.7.2 alternately, %d pairs, "
         "wall time of each run (tests/lab/measure_hook.sh, no sampler)."
         % (desc, len(ours)), ""]
    if not ours:
        L.append("No pair completed: %s" % ", ".join(
            "%s rc %s" % (k, v["rc"]) for k, v in sorted(runs.items())))
    else:
        per = [o / u for o, u in zip(ours, up)]
        med = statistics.median(per)
        iv = interval(per)
        L.append("| job | ours | 1.7.2 | ours / 1.7.2 (median of the pairs) |")
        L.append("|---|---|---|---|")
        L.append("| `-l -d 31` on the live /proc/vmcore | %s (%s-%s) | %s (%s-%s) | %s%s%s |" % (
            fmt("wall", statistics.median(ours)), fmt("wall", min(ours)),
            fmt("wall", max(ours)), fmt("wall", statistics.median(up)),
            fmt("wall", min(up)), fmt("wall", max(up)), fmt_ratio(med),
            ", 90%% interval %.2f-%.2f" % iv if iv else "",
            mark(med, CAPTURE_TARGET)))
        if ours_d:
            # Ours fdatasyncs its file before it clears the incomplete
            # flag; 1.7.2 exits with its data in the page cache.  The
            # time until both are on disk (the sync kdump scripts run).
            per_d = [o / u for o, u in zip(ours_d, up_d)]
            iv_d = interval(per_d)
            L.append("| the same, until the dump is on disk (+ sync) | %s (%s-%s) | %s (%s-%s) | %s%s |" % (
                fmt("wall", statistics.median(ours_d)), fmt("wall", min(ours_d)),
                fmt("wall", max(ours_d)), fmt("wall", statistics.median(up_d)),
                fmt("wall", min(up_d)), fmt("wall", max(up_d)),
                fmt_ratio(statistics.median(per_d)),
                ", 90%% interval %.2f-%.2f" % iv_d if iv_d else ""))
    L.append("")
    text = "\n".join(L)
    with open(md, "a") as f:
        f.write(text)
    log(text)


if __name__ == "__main__":
    if sys.argv[1:2] == ["capture"]:
        capture_section(*sys.argv[2:5])
        sys.exit(0)
    try:
        main()
    except KeyboardInterrupt:
        sys.exit(130)
