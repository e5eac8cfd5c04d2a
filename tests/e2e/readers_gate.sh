#!/bin/bash
# The readers' gate (issue 35): Debian's newest crash and drgn (a sid root,
# tests/lab/readers/root.sh) see the same kernel in our dumps as in the raw
# vmcore.  For each kernel below, our -l, -c, -E, a 2-part --split set, a
# refiltered dump (-d 31 of our -c -d 1) and a --config erase dump, all at
# -d 31, go through tests/lab/readers/judge.py against the raw vmcore with
# the kernel's debug vmlinux (tests/lab/debug_vmlinux.sh): every crash
# command and drgn section equal, or different only where the reader read
# a page the level excludes by its class (--explain says which).  Then:
#  - the erased symbol (modprobe_path) reads as the fill ('X') in crash,
#    where the raw vmcore has "/sbin/modprobe";
#  - the control: our -l dump with the page of idt_table taken out
#    (tests/tools/kdump_drop.py) must fail the gate, in crash and in drgn.
#
# Kernels (MDF_READERS_KERNELS, default all; CI takes one a day):
#   6.1 6.12     the fixtures (../shared/vmcores: 512 MiB, one CPU)
#   5.10 7.3 sid a real crash of Debian's kernel of bullseye,
#                trixie-backports and sid (sid's current, 7.2) under the lab
#                (../shared/lab/mkvmcore.sh): 1 GiB, 2 CPUs (bt -a on both)
#   6.1-4g       the host's 6.1 kernel, 4 GiB, 2 CPUs
# Opt-in (MDF_READERS_TEST=1; needs root, network to the Debian mirror,
# 1-2 GB of downloads a kernel, cached under /var/tmp); its table goes to
# MDF_READERS_TABLE (TSV: kernel, dump, reader, verdict) when set.
. "$(dirname "$0")/../lib/lib.sh"
[ "${MDF_READERS_TEST:-0}" = 1 ] || { skip "readers-gate" "opt-in: MDF_READERS_TEST=1"; exit 0; }
KERNELS=${MDF_READERS_KERNELS:-6.1 6.12 5.10 7.3 sid 6.1-4g}
MATRIX_CACHE=${MDF_MATRIX_CACHE:-/var/tmp/mdf-matrix}
[ "$(id -u)" = 0 ] || { needfail "readers-gate" "needs root (debootstrap, chroot, mount)"; exit 0; }
for t in debootstrap chroot zstd python3; do
	command -v $t >/dev/null || { needfail "readers-gate" "no $t (apt-get install debootstrap zstd python3)"; exit 0; }
done
# shellcheck source=tests/lab/readers/gate.sh
. "$MDF_SRC/tests/lab/readers/gate.sh"
readers_root || exit 0

# lab_vmcore VER MEM NAME: a real crash of kernel VER (matrix.sh's
# staging; 6.1: the host's) under the lab, 2 CPUs; prints the ELF path.
lab_vmcore() {
	local ver=$1 mem=$2 name=$3 out=$T/lab
	. "$MDF_SRC/tests/lib/apt.sh"
	# shellcheck source=tests/lab/matrix.sh
	. "$MDF_SRC/tests/lab/matrix.sh"
	[ -x "$MDF_SHARED/lab/mkvmcore.sh" ] || { echo "no $MDF_SHARED/lab/mkvmcore.sh"; return 1; }
	matrix_kernel "$ver" >"$T/kernel.err" 2>&1 || { tail -n 1 "$T/kernel.err"; return 1; }
	mkdir -p "$out"
	timeout 1800 bash "$MDF_SHARED/lab/mkvmcore.sh" --name "$name" --mem "$mem" --smp 2 \
		--kernel "$KARG" --outdir "$out" --no-kpageflags >"$T/$name.lab.log" 2>&1 ||
		{ echo "mkvmcore.sh: $(tail -n 1 "$T/$name.lab.log")"; return 1; }
	[ -s "$out/$name.elf" ] || { echo "mkvmcore.sh left no $name.elf"; return 1; }
	echo "$out/$name.elf"
}

for k in $KERNELS; do
	case $k in
	6.1) vm=$(vmcore fx-v61-512m) || { needfail "readers-gate-$k" "no fixture fx-v61-512m"; continue; } ;;
	6.12) vm=$(vmcore fx-v612-512m) || { needfail "readers-gate-$k" "no fixture fx-v612-512m"; continue; } ;;
	6.1-4g) vm=$(lab_vmcore 6.1 4G rg-6.1-4g) || { needfail "readers-gate-$k-lab" "$vm"; continue; } ;;
	5.10 | 7.3 | sid) vm=$(lab_vmcore "$k" 1G "rg-$k") || { needfail "readers-gate-$k-lab" "$vm"; continue; } ;;
	*) notok "readers-gate-$k" "unknown kernel (6.1 6.12 5.10 7.3 sid 6.1-4g)"; continue ;;
	esac
	t0=$SECONDS
	readers_gate "$k" "$vm"
	echo "# readers-gate-$k: $((SECONDS - t0)) s"
	case $vm in "$T"/lab/*) rm -rf "$T/lab" ;; esac
done
exit 0
