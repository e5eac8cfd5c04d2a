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


def log(msg=""):
    print(msg, flush=True)


class Config:
    """One binary + options; collects samples."""

    def __init__(self, label, binary, opts, writes=True, slow=False):
        self.label = label
        self.binary = binary
        self.opts = opts
        self.writes = writes        # takes a DUMPFILE argument
        self.slow = slow            # upstream --num-threads: capped pairs
        self.wall, self.cpu, self.rss, self.size = [], [], [], []
        self.syscalls = None
        self.failed = None

    def argv(self, vmcore, out):
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
                rc = subprocess.call([self.a.runner, stats] + argv,
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

    def job(self, a, b, vmcore, pairs, do_strace=True, strace_b=True):
        """Warm both, alternate A B for `pairs` pairs, then strace both."""
        cfgs = [c for c in (a, b) if c is not None]
        warm = [self.run(c, vmcore, record=False) for c in cfgs]
        if all(w is not None and w < self.SHORT_JOB for w in warm):
            pairs *= self.SHORT_MORE
        for _ in range(pairs):
            for c in cfgs:
                self.run(c, vmcore)
        if do_strace:
            self.strace(a, vmcore)
            if b is not None and strace_b:
                self.strace(b, vmcore)


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
                sp = ratio(vb, va)
                s += " (speed-up %.2fx%s)" % (sp, mark(sp, self.speedup, True))
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
    ap.add_argument("--settle", type=float, default=3.0)
    ap.add_argument("--md", required=True)
    a = ap.parse_args()
    pairs = int(a.pairs or 5)
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

    def versus(opts, targets=None, up_slow=False, note=""):
        co = Config("ours", O, opts)
        cu = Config("upstream", U, opts, slow=up_slow)
        name = " ".join(opts)
        log("job %s: ours vs upstream%s" % (name, " (upstream capped)" if up_slow else ""))
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
            bench.job(co, cu, vm, pairs)
        targets = dict(targets or {})
        targets.setdefault("rss", 1.0)
        r = Row(name, co, cu, targets, note=note)
        log(r.console())
        rows.append(r)

    def ours_only(opts, note):
        co = Config("ours", O, opts)
        name = " ".join(opts)
        log("job %s: ours only" % name)
        bench.job(co, None, vm, pairs)
        r = Row(name + " (ours only)", co, None, note=note)
        log(r.console())
        rows.append(r)

    def speedup(opts, threads, min_speedup):
        c2 = Config("ours --num-threads %d" % threads, O,
                    opts + ["--num-threads", str(threads)])
        c0 = Config("ours --num-threads 0", O, opts + ["--num-threads", "0"])
        name = "%s: ours --num-threads %d / ours --num-threads 0" % (
            " ".join(opts), threads)
        log("job %s" % name)
        bench.job(c2, c0, vm, pairs)
        r = Row(name, c2, c0, speedup=min_speedup)
        log(r.console())
        rows.append(r)

    floors = []

    def floor(opts, codec, target):
        # The library calls alone, for the pages this job stores: no
        # single-threaded writer with byte-identical output can be faster.
        if not a.codecfloor or not rows or rows[-1].b.failed:
            return
        kept = os.path.join(a.tmp, "floor.dump")
        if os.path.exists(kept):
            os.unlink(kept)
        rc = subprocess.call([O] + opts + [vm, kept], stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        # A lower bound: the fastest of three runs (by compress + write).
        # The stored bytes also go to a file, in the writer's piece size.
        best = None
        wout = os.path.join(a.tmp, "floor.out")
        for _ in range(3 if rc == 0 else 0):
            p = subprocess.run([a.codecfloor, codec, kept, vm, wout],
                               capture_output=True, text=True)
            if p.returncode != 0:
                best = None
                break
            w = p.stdout.split()
            cw = (float(w[3]), float(w[5]))
            if best is None or sum(cw) < sum(best):
                best = cw
        if os.path.exists(kept):
            big = os.path.getsize(kept) >= Bench.SETTLE_MIN
            os.unlink(kept)
            if big and a.settle > 0:
                time.sleep(a.settle)  # as after a timed run (Bench._clean)
        if best is None:
            log("floor %s: failed" % " ".join(opts))
            return
        up_wall = rows[-1].b.med("wall")
        f = (" ".join(opts), int(w[1]), best[0], best[1], up_wall,
             ratio(sum(best), up_wall), target, rows[-1].a.med("wall"))
        log("floor %s: %d pages, library calls %.2f s + writing %.2f s = %s "
            "of upstream's wall" % (f[0], f[1], best[0], best[1],
                                    fmt_ratio(f[5])))
        floors.append(f)

    versus(["-l", "-d", "31"], {"wall": 0.8})
    floor(["-l", "-d", "31"], "lzo", 0.8)
    versus(["-l", "-d", "0"], {"wall": 0.6, "syscalls": 0.1})
    floor(["-l", "-d", "0"], "lzo", 0.6)
    versus(["-c", "-d", "31"], {"wall": 0.7})
    floor(["-c", "-d", "31"], "zlib", 0.7)
    if up_zstd:
        versus(["-z", "-d", "31"])
    else:
        ours_only(["-z", "-d", "31"], "upstream 1.7.2 is built without zstd")
    versus(["-l", "-d", "0", "--num-threads", "2"], up_slow=True)
    speedup(["-c", "-d", "0"], 2, 1.7)
    speedup(["-z", "-d", "0"], 2, 1.7)
    versus(["-c", "-d", "0", "--num-threads", "2"], {"wall": 0.1}, up_slow=True)

    # ---- scan throughput on a large synthetic machine ----
    scan = []
    if a.mkvmcore:
        scan = scan_section(bench, a, scan_gib, pairs)
    elapsed = time.time() - t_start

    # Only the load before the first run says whether others were busy:
    # by the end it counts the bench's own --num-threads runs too.
    md = markdown(a, mach, vm, a.vmdesc, vm_mib, pairs, slow_pairs,
                  strace_slow, rows, scan, scan_gib, elapsed, busy, floors)
    with open(a.md, "w") as f:
        f.write(md)
    log("")
    log(md)
    log("bench: summary written to %s (%.0f s in all)" % (a.md, elapsed))


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
             rows, scan, gib, elapsed, busy, floors=()):
    L = []
    L.append("### Benchmark: ours vs makedumpfile %s" % version(a.upstream))
    L.append("")
    L.append("Machine: %s.  " % mach)
    L.append("vmcore: %s, %.0f MiB.  " % (vmdesc or os.path.basename(vm), vm_mib))
    L.append("Medians of %d alternated runs (A B A B, after one untimed run "
             "of each; %d for jobs under %g s); jobs where upstream uses "
             "--num-threads: %d upstream run(s) only, it is ~10x slower "
             "there%s.  "
             % (pairs, pairs * Bench.SHORT_MORE, Bench.SHORT_JOB, slow_pairs,
                "" if strace_slow else ", and its syscalls are not counted"))
    L.append("Cells: ours / upstream = ratio; ✓/✗ against the target.  "
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
        L.append("One thread, the floor: the time the compression library "
                 "takes for the pages the job stores, read from the vmcore's "
                 "mmap windows as the writer reads them, plus writing the "
                 "stored bytes to a file in the writer's 256 KiB pieces "
                 "(tests/tools/codecfloor: the same calls and parameters as "
                 "our writer, zero pages compressed once; no scan, no page "
                 "descriptors or headers; fastest of 3 runs).  The output "
                 "must be byte-identical to upstream's, so no single-threaded "
                 "run can take less: a wall target below the floor ratio is "
                 "out of reach with one thread.")
        L.append("")
        L.append("| job | pages | read + compress | + write | upstream wall "
                 "| floor ratio | target | ours / floor |")
        L.append("|---|---|---|---|---|---|---|---|")
        for name, npages, fs, fw, uw, fr, tgt, ow in floors:
            reach = "✗ below the floor" if fr is not None and fr > tgt else "reachable"
            L.append("| `%s` | %d | %s | %s | %s | %s | ≤%g (%s) | %s |"
                     % (name, npages, fmt("wall", fs), fmt("wall", fw),
                        fmt("wall", uw),
                        fmt_ratio(fr) if fr is not None else "n/a", tgt, reach,
                        fmt_ratio(ratio(ow, fs + fw)) if ow else "n/a"))
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


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        sys.exit(130)
