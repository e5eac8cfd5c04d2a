# tests/lab/lab.sh - sourced by the e2e tests that boot the lab and by
# tests/bench.sh.  lab_measure boots a guest with ../shared/lab/mkvmcore.sh, crashes it, and
# runs tests/lab/measure_hook.sh in its capture kernel on the live
# /proc/vmcore.  Needs MDF_SRC and MDF_SHARED.
#
# lab_measure NAME MEM DIR CPUS COPY OURS UPSTREAM SETTINGS...
#   NAME, MEM  the lab's --name and --mem (RAM backed by a sparse file in
#              DIR, so guests larger than this machine boot)
#   DIR        work and output directory: DIR/NAME.d/hook/results.txt,
#              DIR/NAME.elf when COPY is 1, DIR/NAME.log (the lab's output)
#   CPUS       vCPUs of the guest and of its capture kernel (the lab's
#              capture kernel has nr_cpus=1: tests/lab/shim/cpio raises it)
#   OURS       our static binary, UPSTREAM the makedumpfile to compare with
#   SETTINGS   lines such as "PAIRS=3" for measure_hook.sh
#   LAB_CAPTURE_BINS  more binaries the hook runs (upstream HEAD for -e)
# Workloads are 1 % of RAM (anonymous memory and page cache), the
# reservation crashkernel=256M.  Returns the lab's exit status.
lab_measure() {
	local name=$1 mem=$2 dir=$3 cpus=$4 copy=$5 ours=$6 up=$7
	shift 7
	local hook="$dir/$name.hook.sh" gcc_s extra=()
	mkdir -p "$dir" || return 1
	{
		echo "OURS=$ours"
		echo "UPSTREAM=$up"
		printf '%s\n' "$@"
		cat "$MDF_SRC/tests/lab/measure_hook.sh"
	} >"$hook"
	chmod +x "$hook"
	[ "$copy" = 1 ] || extra+=(--no-copy)
	# glibc loads libgcc_s at run time for pthread_exit/pthread_cancel
	# (1.7.2's threads): ldd does not list it, so name it.
	gcc_s=$(ldconfig -p 2>/dev/null | awk '/libgcc_s\.so\.1 .*x86-64/ { print $NF; exit }')
	[ -n "$gcc_s" ] && extra+=(--capture-bin "$gcc_s")
	# more binaries for the hook (upstream HEAD for -e)
	local b
	for b in ${LAB_CAPTURE_BINS:-}; do extra+=(--capture-bin "$b"); done
	rm -rf "$dir/lab"
	PATH="$MDF_SRC/tests/lab/shim:$PATH" MDF_CAPTURE_CPUS=$cpus LAB_DATA="$dir/lab" \
		bash "$MDF_SHARED/lab/mkvmcore.sh" --name "$name" --mem "$mem" \
		--mem-file "$dir/lab/$name.ram" --crashkernel 256M --smp "$cpus" \
		--no-kpageflags --anon-pct 1 --cache-pct 1 --blk-pct 0 --shmem-pct 0 \
		--dirty-pct 0 --run-in-capture "$hook" --capture-bin "$ours" \
		--capture-bin "$up" "${extra[@]}" --outdir "$dir" --timeout 5400 \
		>"$dir/$name.log" 2>&1
	local rc=$?
	rm -rf "$dir/lab"
	return $rc
}

# lab_missing: what the x86_64 lab (../shared/lab/mkvmcore.sh) needs and this
# machine lacks, as " name name ..." (empty when all is there).
lab_missing() {
	local missing="" t
	[ -f "$MDF_SHARED/lab/mkvmcore.sh" ] || missing="$missing $MDF_SHARED/lab/mkvmcore.sh"
	for t in qemu-system-x86_64 cpio gzip mkfs.ext4 debugfs xz readelf file python3 gcc busybox; do
		command -v $t >/dev/null 2>&1 || missing="$missing $t"
	done
	command -v kexec >/dev/null 2>&1 || [ -x /sbin/kexec ] || [ -x /usr/sbin/kexec ] || missing="$missing kexec"
	ls /boot/vmlinuz-* >/dev/null 2>&1 || missing="$missing /boot/vmlinuz-*"
	if command -v busybox >/dev/null 2>&1 &&
		! file -L "$(command -v busybox)" | grep -q 'statically linked'; then
		missing="$missing busybox-static"
	fi
	echo "$missing"
}

# capture_bin LOG: build our static binary (only its target, so ./makedumpfile,
# the last plain build, is left alone) and copy it where the lab can put it
# into a capture initramfs: outside /tmp, which the capture initramfs
# mounts a tmpfs over.  Prints the path; fails with the build's last lines.
capture_bin() {
	local static="$MDF_SRC/build/static/makedumpfile" dir=/var/lib/mdf-capture/static
	if ! make -C "$MDF_SRC" -s STATIC=1 -j2 build/static/makedumpfile >"$1" 2>&1 ||
		! file "$static" | grep -q 'statically linked'; then
		tail -n 3 "$1" | tr '\n' ' '
		return 1
	fi
	# Copied only when it changed, and by rename: two lab tests that run
	# side by side (.ci/run) never see it half written.
	mkdir -p "$dir" || { echo "cannot create $dir"; return 1; }
	if ! cmp -s "$static" "$dir/makedumpfile"; then
		cp "$static" "$dir/.makedumpfile.$$" && mv -f "$dir/.makedumpfile.$$" "$dir/makedumpfile" ||
			{ rm -f "$dir/.makedumpfile.$$"; echo "cannot copy the static binary to $dir"; return 1; }
	fi
	echo "$dir/makedumpfile"
}

# lab_field KEY LINE: the value of KEY=... in a results.txt line.
lab_field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<" $2"; }
