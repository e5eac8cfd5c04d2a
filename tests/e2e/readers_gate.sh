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
JUDGE="$MDF_SRC/tests/lab/readers/judge.py"
MATRIX_CACHE=${MDF_MATRIX_CACHE:-/var/tmp/mdf-matrix}
[ "$(id -u)" = 0 ] || { needfail "readers-gate" "needs root (debootstrap, chroot, mount)"; exit 0; }
for t in debootstrap chroot zstd python3; do
	command -v $t >/dev/null || { needfail "readers-gate" "no $t (apt-get install debootstrap zstd python3)"; exit 0; }
done
ROOT=$(bash "$MDF_SRC/tests/lab/readers/root.sh" 2>"$T/root.err") ||
	{ needfail "readers-gate-root" "$(cat "$T/root.err")"; exit 0; }
ok "readers-gate-root ($(tr '\n' ',' <"$ROOT/readers.txt" | sed 's/,$//; s/,/, /g'))"

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

# gate KERNEL ELF: every dump of ELF through the judge, the erase and the control.
gate() {
	local k=$1 vm=$2 krel pkgver vml d rc
	krel=$(strings -n 8 "$vm" | grep -m 1 '^OSRELEASE=' | sed 's/^OSRELEASE=//')
	# the package version from the kernel's own banner ("... Debian 6.1.192-3 (...)")
	pkgver=$(strings -n 24 "$vm" | grep -m 1 -F "Linux version $krel (" | sed -n 's/.* Debian \([^ ]*\) (.*/\1/p')
	vml=$(bash "$MDF_SRC/tests/lab/debug_vmlinux.sh" "$krel" "$pkgver" 2>"$T/dbg.err") ||
		{ needfail "readers-gate-$k-vmlinux" "$(cat "$T/dbg.err")"; return; }
	ok "readers-gate-$k-vmlinux ($krel, $pkgver)"
	d=$T/$k
	rm -rf "$d" && mkdir -p "$d"
	"$MDF" --message-level 0 -l -d 31 "$vm" "$d/l" &&
		"$MDF" --message-level 0 -c -d 31 "$vm" "$d/c" &&
		"$MDF" --message-level 0 -E -d 31 "$vm" "$d/E" &&
		"$MDF" --message-level 0 -l -d 31 --split "$vm" "$d/s.1" "$d/s.2" &&
		"$MDF" --message-level 0 -c -d 1 "$vm" "$d/c1" &&
		"$MDF" --message-level 0 -l -d 31 "$d/c1" "$d/re" &&
		printf '[vmlinux]\nerase modprobe_path\n' >"$d/erase.conf" &&
		"$MDF" --message-level 0 -l -d 31 -x "$vml" --config "$d/erase.conf" "$vm" "$d/erase" ||
		{ notok "readers-gate-$k-dumps" "makedumpfile failed"; return; }
	rm -f "$d/c1"
	# The control: our -l dump without the page of idt_table.
	local idt pfn erased
	idt=$(python3 "$JUDGE" --root "$ROOT" --vmlinux "$vml" --raw "$vm" --mdf "$MDF" \
		--drgn-read idt_table:8 "$vm" 2>&1 | tail -n 1)
	pfn=$(awk '$1 == "idt_table" {print $3}' <<<"$idt")
	[[ "$pfn" == 0x* ]] && pfn=$(printf '0x%x' $((pfn >> 12))) && python3 "$MDF_SRC/tests/tools/kdump_drop.py" "$d/l" "$d/ctl" "$pfn" ||
		{ notok "readers-gate-$k-control" "no control dump: idt_table: $idt"; return; }
	python3 "$JUDGE" --root "$ROOT" --vmlinux "$vml" --raw "$vm" --mdf "$MDF" --work "$d/w" \
		--tsv "$d/gate.tsv" --expect-diff ctl l="$d/l" c="$d/c" E="$d/E" split="$d/s.1,$d/s.2" \
		refilter="$d/re" erase="$d/erase" ctl="$d/ctl" >"$d/gate.out" 2>&1
	rc=$?
	# every dump but the control: equal, or excluded by class
	if [ $rc = 0 ] && ! grep -vP '\tctl\t' "$d/gate.out" | grep -qP '\tDIFF|BAD'; then
		ok "readers-gate-$k ($(sed -n '/^== readers/,$p' "$d/gate.out" | grep -vP '\tctl\t' | tail -n +2 | awk -F'\t' '{print $1 " " $2 ": " $3}' | paste -sd ';' | cut -c1-500))"
	else
		notok "readers-gate-$k" "exit $rc: $(grep -vP '\tctl\t' "$d/gate.out" | grep -P '\tDIFF|BAD' | head -n 5 | tr '\n' ' ')$(tail -n 2 "$d/gate.out" | tr '\n' ' ')"
	fi
	[ -n "${MDF_READERS_TABLE:-}" ] && sed -n '/^== readers/,$p' "$d/gate.out" | tail -n +2 |
		awk -F'\t' -v k="$k" 'NF == 3 {print k "\t" $2 "\t" $1 "\t" $3}' >>"$MDF_READERS_TABLE"
	# The control fails in both readers, crash on the page it names.
	if grep -qP "^crash\tctl\t.*DIFF.*pfn $pfn kept" "$d/gate.out" &&
		grep -qP '^drgn\tctl\tidt_table\tDIFF' "$d/gate.out" && ! grep -q 'BAD CONTROL' "$d/gate.out"; then
		ok "readers-gate-$k-control-fails (idt_table's pfn $pfn out: crash and drgn DIFF, --explain: kept)"
	else notok "readers-gate-$k-control-fails" "$(grep -P '\tctl\t' "$d/gate.out" | grep -v equal | head -n 3 | tr '\n' ' ')"; fi

	# The erased symbol reads as the fill, where the raw vmcore has the path.
	erased=$(python3 "$JUDGE" --root "$ROOT" --vmlinux "$vml" --raw "$vm" --mdf "$MDF" \
		--drgn-read modprobe_path:16 "$d/erase" 2>&1 | tail -n 1)
	idt=$(python3 "$JUDGE" --root "$ROOT" --vmlinux "$vml" --raw "$vm" --mdf "$MDF" \
		--drgn-read modprobe_path:16 "$vm" 2>&1 | tail -n 1)
	if [ "${erased##* }" = "$(printf 'X%.0s' $(seq 16) | od -An -tx1 | tr -d ' \n')" ] &&
		[ "${idt##* }" = "$(printf '/sbin/modprobe\0\0' | od -An -tx1 | tr -d ' \n')" ]; then
		ok "readers-gate-$k-erase-reads-fill (drgn: modprobe_path raw \"/sbin/modprobe\", erased XXXX...)"
	else notok "readers-gate-$k-erase-reads-fill" "raw: $idt; erased: $erased"; fi
	rm -rf "$d"
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
	gate "$k" "$vm"
	echo "# readers-gate-$k: $((SECONDS - t0)) s"
	case $vm in "$T"/lab/*) rm -rf "$T/lab" ;; esac
done
exit 0
