# tests/lab/matrix.sh - sourced by tests/e2e/matrix.sh: the page-state lab
# matrix of issue 17.  Each case is a real crash of a Debian kernel under
# qemu/TCG (../shared/lab/mkvmcore.sh) with a machine shape (qemu
# arguments, kernel command line) and page states made in the first kernel
# by tests/lab/scenario.sh (put into the stage-1 image by
# tests/lab/scenario/cpio); host actions go through tests/lab/qmp_relay.py.
# Needs MDF_SRC, MDF_SHARED, T (lib.sh), labcheck.sh and MATRIX_CACHE.
#
# matrix_kernel VER     stage Debian's kernel VER (5.10, 6.1, 6.12, 7.3; sid,
#                       sid's current, for tests/e2e/readers_gate.sh):
#                       sets KARG (mkvmcore's --kernel) and MODDIR
# matrix_case CASE      sets MEM, LAB (more mkvmcore arguments), STEPS,
#                       QMP (1: the case needs the relay) and EXPECT (what
#                       the snapshot must show for the case to count)
# matrix_run CASE VER   one lab run: $MATRIX_CACHE/out/CASE-VER.{elf,json,d}
MATRIX_CASES="la57 numa2 numa4 hwpoison offline hugetlb1g hotplug above4g cma-movable reclaim"
MATRIX_KERNELS="5.10 6.1 6.12 7.3"

# matrix_apt SUITE: AA = apt-get options of a private amd64 apt state of
# that Debian suite (tests/lib/apt.sh's apt_state, fetched once).
matrix_apt() {
	local d=$MATRIX_CACHE/apt-$1
	DEB_ARCH=amd64
	apt_opts "$d"
	[ -f "$d/updated" ] && return 0
	apt_state "$d" "$d/update.log" "$1" && touch "$d/updated"
}

matrix_kernel() {
	local ver=$1 suite pat k dir=$MATRIX_CACHE/kernels/$1 p
	case $ver in
	6.1) # the host's own (linux-image-amd64 on bookworm)
		k=$(ls /boot/vmlinuz-6.1.* 2>/dev/null | sort -V | tail -n 1)
		[ -n "$k" ] || { echo "no /boot/vmlinuz-6.1.* (apt-get install linux-image-amd64)"; return 1; }
		KARG=${k#/boot/vmlinuz-}; MODDIR=/lib/modules/$KARG; return 0 ;;
	5.10) suite=bullseye pat='^linux-image-5\.10\.0-[0-9]+-amd64$' ;;
	6.12) suite=trixie pat='^linux-image-6\.12\.[0-9]+\+deb13-amd64$' ;;
	7.3) suite=trixie-backports pat='^linux-binary-7\.3\.[0-9]+\+deb13-amd64$' ;;
	sid) suite=sid pat='^linux-binary-[0-9.]+\+deb14-amd64$' ;; # sid's current (7.2): the readers' gate
	*) echo "unknown kernel $ver"; return 1 ;;
	esac
	if [ ! -f "$dir/staged" ]; then
		matrix_apt $suite || { echo "apt update of $suite failed: $(tail -n 1 "$MATRIX_CACHE/apt-$suite/update.log")"; return 1; }
		k=$(apt-cache "${AA[@]}" search "$pat" 2>/dev/null | awk '{print $1}' | grep -E "$pat" | sort -V | tail -n 1)
		[ -n "$k" ] || { echo "no package matches $pat in $suite"; return 1; }
		rm -rf "$dir" && mkdir -p "$dir/dl" || return 1
		if [[ $k == linux-binary-* ]]; then
			# 7.x: kernel, modules and System.map in three packages
			for p in binary modules base; do
				apt_download "$dir/dl.log" "$dir/dl" "${k/binary/$p}" ||
					{ tail -n 1 "$dir/dl.log"; return 1; }
			done
		else
			apt_download "$dir/dl.log" "$dir/dl" "$k" || { tail -n 1 "$dir/dl.log"; return 1; }
		fi
		for p in "$dir"/dl/*.deb; do dpkg -x "$p" "$dir/root" || return 1; done
		rm -rf "$dir/dl"
		echo "$k" >"$dir/staged"
	fi
	KARG=$dir/root
	MODDIR=$(ls -d "$dir"/root/lib/modules/* "$dir"/root/usr/lib/modules/* 2>/dev/null | head -n 1)
	# the .deb has no modules.dep (mkvmcore.sh runs depmod too; we need it first)
	if [ ! -f "$MODDIR/modules.dep" ]; then
		depmod -b "${MODDIR%/lib/modules/*}" "${MODDIR##*/}" 2>/dev/null ||
			depmod -b "$dir/root" "${MODDIR##*/}" 2>/dev/null
	fi
	[ -f "$MODDIR/modules.dep" ] || { echo "no modules.dep in $MODDIR"; return 1; }
}

matrix_case() {
	MEM=2G LAB=() STEPS="" QMP=0 EXPECT=""
	case $1 in
	la57) MEM=1G LAB=(--cpu qemu64,+la57) EXPECT="la57" ;;
	numa2) LAB=(--qemu-arg -object --qemu-arg memory-backend-ram,id=n0,size=1G
		    --qemu-arg -numa --qemu-arg node,nodeid=0,memdev=n0
		    --qemu-arg -object --qemu-arg memory-backend-ram,id=n1,size=1G
		    --qemu-arg -numa --qemu-arg node,nodeid=1,memdev=n1) EXPECT="nodes=2" ;;
	numa4) local i
		for i in 0 1 2 3; do
			LAB+=(--qemu-arg -object --qemu-arg memory-backend-ram,id=n$i,size=512M
			      --qemu-arg -numa --qemu-arg node,nodeid=$i,memdev=n$i)
		done
		EXPECT="nodes=4" ;;
	hwpoison) MEM=1G STEPS="hwpoison 16" EXPECT="HWPOISON" ;;
	offline) # virtio-balloon inflated by 32 MiB; virtio-mem plugs 256 MiB
		# when its driver loads and unplugs 128 MiB of it again
		LAB=(--qemu-arg -m --qemu-arg 2G,maxmem=4G
		     --qemu-arg -device --qemu-arg virtio-balloon-pci,id=balloon0
		     --qemu-arg -object --qemu-arg memory-backend-ram,id=vmemmem,size=1G
		     --qemu-arg -device --qemu-arg virtio-mem-pci,id=vmem0,memdev=vmemmem,requested-size=256M
		     --append memhp_default_state=online_movable)
		STEPS="balloon 32
vmem 128" QMP=1 EXPECT="OFFLINE" ;;
	hugetlb1g) MEM=3G LAB=(--cpu qemu64,+pdpe1gb --append "hugepagesz=1G hugepages=1")
		STEPS="hugetlb1g 1" EXPECT="hugetlb1g" ;;
	hotplug) # acpi_no_memhotplug: else the capture kernel's ACPI driver
		# adds the DIMM as its own RAM, and reading it through
		# /proc/vmcore fails (EFAULT); RHEL's kdump appends it too
		LAB=(--qemu-arg -m --qemu-arg 2G,slots=4,maxmem=4G
		     --append memhp_default_state=online_movable --capture-append acpi_no_memhotplug)
		STEPS="hotplug 256" QMP=1 EXPECT="hotplug" ;;
	above4g) MEM=5G LAB=(--mem-file "$MATRIX_CACHE/lab/ram" --anon-pct 6 --cache-pct 3
		      --blk-pct 1 --shmem-pct 1 --dirty-pct 1) EXPECT="above4g" ;;
	cma-movable) LAB=(--append "cma=64M movablecore=512M") EXPECT="movable" ;;
	reclaim) STEPS="mlock 64
swapfile 48
zram 512
swap 128
ksm 32" EXPECT="MLOCKED SWAPCACHE KSM zsmalloc" ;;
	*) echo "unknown case $1"; return 1 ;;
	esac
}

# matrix_mods DIR NAME...: NAME's modules with their dependencies into
# DIR/mods (decompressed), listed in DIR/mods/order as "name file" lines,
# dependencies first; built-in ones are left out.
matrix_mods() {
	local dir=$1 want line rel f b
	shift
	mkdir -p "$dir/mods"
	for want in "$@"; do
		line=$(awk -F: -v n="$want" '{ b = $1; sub(/.*\//, "", b); sub(/\.ko(\.(xz|zst|gz))?$/, "", b); gsub(/-/, "_", b); if (b == n) { print; exit } }' "$MODDIR/modules.dep")
		[ -n "$line" ] || continue
		for rel in $(echo "${line#*:}" | tr ' ' '\n' | tac) "${line%%:*}"; do
			f=$MODDIR/$rel b=${rel##*/} b=${b%.xz} b=${b%.zst}
			case $rel in
			*.xz) xz -dc "$f" >"$dir/mods/$b" ;;
			*.zst) zstd -qdc "$f" >"$dir/mods/$b" ;;
			*) cp "$f" "$dir/mods/$b" ;;
			esac
			echo "$want $b" >>"$dir/mods/order"
		done
	done
}

# matrix_run CASE VER: one lab run; returns mkvmcore.sh's status.
matrix_run() {
	local c=$1 v=$2 name=$1-$2 scen=$MATRIX_CACHE/scen relay="" rc ram
	local out=$MATRIX_CACHE/out
	matrix_case "$c" || return 1
	rm -rf "$scen" "$out/$name".* "$MATRIX_CACHE/lab" && mkdir -p "$scen" "$out" "$MATRIX_CACHE/lab" || return 1
	cp "$MDF_SRC/tests/lab/scenario.sh" "$scen/run"
	cp "$MATRIX_CACHE/scenario" "$scen/scenario"
	# last, --keep-task's check: the pfns of the lab's workload and of
	# another process (tests/tools/keep_task_ref.py)
	printf '%s\npagemap labwork\npagemap init\n' "$STEPS" >"$scen/steps"
	ram=${MEM%G}; echo $((ram * 1024)) >"$scen/ram_mb"
	echo 256 >"$scen/vmem_mb"
	matrix_mods "$scen" zram virtio_balloon virtio_mem
	if [ $QMP = 1 ]; then
		LAB+=(--qemu-arg -qmp --qemu-arg "unix:$MATRIX_CACHE/lab/qmp.sock,server=on,wait=off")
		# the relay follows the lab's serial log (runs/NAME/serial.log)
		python3 "$MDF_SRC/tests/lab/qmp_relay.py" "$MATRIX_CACHE/lab/runs/$name/serial.log" \
			"$MATRIX_CACHE/lab/qmp.sock" "$MATRIX_CACHE/lab/qmp.log" &
		relay=$!
	fi
	PATH="$MDF_SRC/tests/lab/scenario:$PATH" MDF_SCEN_DIR=$scen LAB_DATA=$MATRIX_CACHE/lab \
		timeout 1500 bash "$MDF_SHARED/lab/mkvmcore.sh" --name "$name" --mem "$MEM" \
		--kernel "$KARG" --outdir "$out" "${LAB[@]}" >"$out/$name.log" 2>&1
	rc=$?
	[ -n "$relay" ] && { kill $relay 2>/dev/null; wait $relay 2>/dev/null; cp "$MATRIX_CACHE/lab/qmp.log" "$out/$name.qmp.log" 2>/dev/null; }
	cp "$MATRIX_CACHE/lab/runs/$name/serial.log" "$out/$name.serial.log" 2>/dev/null
	rm -rf "$MATRIX_CACHE/lab"
	return $rc
}
