#!/bin/sh
# tests/lab/scenario.sh - runs in the first kernel of a lab guest (busybox
# sh), once, right before the capture kernel is loaded: the lab's own
# workload is in memory, the kpageflags snapshot comes after.  Put there by
# tests/lab/scenario/cpio as /lab/mdf/run; its steps come from
# /lab/mdf/steps (one "step arg" per line), written by tests/lab/matrix.sh.
#
# Host actions (balloon, memory hot-plug) are asked for with a console line
# "MDF-QMP <json>", which tests/lab/qmp_relay.py sends to qemu's QMP socket;
# the guest then waits for the effect.  Every step logs "MDF-SCEN ...".
M=/lab/mdf
log() { echo "MDF-SCEN $*"; }
qmp() { echo "MDF-QMP $*"; }
memtotal() { awk '/^MemTotal:/ { print $2 }' /proc/meminfo; }
nblocks() { ls -d /sys/devices/system/memory/memory* 2>/dev/null | wc -l; }

# waitfor SECONDS 'SHELL TEST': poll the test (evaluated anew each time)
# every 0.5 s
waitfor() {
	n=$(($1 * 2))
	while [ $n -gt 0 ]; do
		eval "$2" && return 0
		n=$((n - 1)); sleep 0.5
	done
	return 1
}

# modprobe-like: insmod the modules listed in $M/mods/order whose name is $1
# or that it needs (the shim lists each wanted module after its
# dependencies, as "want file.ko" lines).
load() {
	while read -r want ko; do
		[ "$want" = "$1" ] || continue
		insmod $M/mods/$ko 2>/tmp/insmod.err || grep -q 'File exists' /tmp/insmod.err ||
			log "insmod $ko: $(cat /tmp/insmod.err)"
	done < $M/mods/order
}

bg() { # bg NAME ARGS...: a scenario program that stays alive
	rm -f /run/$1.ready
	$M/scenario "$@" /run/$1.ready &
	waitfor 120 "test -f /run/$1.ready" || log "$1: not ready after 120 s"
}

step_hwpoison() { bg hwpoison "$1"; }
step_hugetlb1g() {
	log "1G pool: $(cat /sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages 2>/dev/null || echo none)"
	bg hugetlb1g "$1"
}
step_mlock() { bg mlock "$1"; }
step_ksm() {
	echo 2000 > /sys/kernel/mm/ksm/pages_to_scan
	echo 10 > /sys/kernel/mm/ksm/sleep_millisecs
	echo 1 > /sys/kernel/mm/ksm/run
	bg ksm "$1"
	waitfor 120 "test \$(cat /sys/kernel/mm/ksm/pages_sharing) -gt $(($1 * 128))"
	log "ksm: pages_shared=$(cat /sys/kernel/mm/ksm/pages_shared) pages_sharing=$(cat /sys/kernel/mm/ksm/pages_sharing)"
	# ksmd stays quiet from here to the crash (the snapshot must match)
	echo 0 > /sys/kernel/mm/ksm/run
}
step_zram() {
	load zram
	echo "$1M" > /sys/block/zram0/disksize || { log "zram: no disksize"; return; }
	mkswap /dev/zram0 >/dev/null || return
	# a swap file of this case must come first (step_swapfile)
	if grep -q '^swapfile' $M/steps && ! grep -q '^/mnt/swapfile' /proc/swaps; then
		log "zram: $1 MiB, swap on after the swap file"
		return
	fi
	swapon /dev/zram0 && log "zram: swap on /dev/zram0, $1 MiB"
}
step_swapfile() { # a swap file on the data disk's ext4, swapped on before
	# zram so that it comes first (busybox swapon has no -p): zram is a
	# synchronous device, whose swap-ins skip the swap cache
	# (do_swap_page), so only this one leaves pages in the swap cache
	dd if=/dev/zero of=/mnt/swapfile bs=1M count="$1" 2>/dev/null &&
		chmod 600 /mnt/swapfile && mkswap /mnt/swapfile >/dev/null &&
		swapon /mnt/swapfile && log "swapfile: $1 MiB on /mnt"
	if [ -e /sys/block/zram0 ] && ! grep -q '^/dev/zram0' /proc/swaps; then
		swapon /dev/zram0 && log "zram: swap on /dev/zram0, $(($(cat /sys/block/zram0/disksize) >> 20)) MiB"
	fi
}
step_pagemap() { $M/scenario pagemap "$1"; } # the pfns of process $1, last of all
step_swap() {
	bg swap "$1"
	log "swap: $(grep -E '^(SwapTotal|SwapFree|SwapCached):' /proc/meminfo | tr -s ' \n' ' ')"
}
step_balloon() {
	load virtio_balloon
	t=$(memtotal)
	# the balloon's target is the guest's size: RAM less the inflated part
	qmp "{\"execute\":\"balloon\",\"arguments\":{\"value\":$(( ($(cat $M/ram_mb) - $1) * 1048576 ))}}"
	waitfor 240 "test \$(memtotal) -lt $((t - $1 * 1024 * 3 / 4))" || log "balloon: MemTotal still $(memtotal) kB"
	sleep 2
	log "balloon: MemTotal $t -> $(memtotal) kB"
}
step_vmem() { # the device plugged its requested-size at boot; unplug $1 MiB of it
	t=$(memtotal)
	load virtio_mem
	waitfor 240 "test \$(memtotal) -gt $((t + $(cat $M/vmem_mb) * 1024 / 2))" || log "virtio-mem: nothing plugged"
	t=$(memtotal)
	qmp "{\"execute\":\"qom-set\",\"arguments\":{\"path\":\"/machine/peripheral/vmem0\",\"property\":\"requested-size\",\"value\":$(( $(cat $M/vmem_mb) * 1048576 - $1 * 1048576 ))}}"
	waitfor 240 "test \$(memtotal) -lt $((t - $1 * 1024 * 3 / 4))" || log "virtio-mem: MemTotal still $(memtotal) kB"
	sleep 2
	log "virtio-mem: MemTotal $t -> $(memtotal) kB"
}
step_hotplug() { # two DIMMs of $1 MiB: both added and onlined (movable),
	# the second one removed again, then user memory allocated and every
	# second block of the first one offlined.  The capture kernel's
	# elfcorehdr is made after all of it (kexec comes next).
	b0=$(nblocks)
	for d in 1 2; do
		qmp "{\"execute\":\"object-add\",\"arguments\":{\"qom-type\":\"memory-backend-ram\",\"id\":\"hp$d\",\"size\":$(($1 * 1048576))}}"
		qmp "{\"execute\":\"device_add\",\"arguments\":{\"driver\":\"pc-dimm\",\"id\":\"dimm$d\",\"memdev\":\"hp$d\"}}"
	done
	bs=$((0x$(cat /sys/devices/system/memory/block_size_bytes) / 1048576))
	per=$(($1 / bs))
	waitfor 240 "test \$(nblocks) -ge $((b0 + 2 * per))" || log "hotplug: blocks $b0 -> $(nblocks) only"
	for b in /sys/devices/system/memory/memory*; do
		[ "$(cat $b/state)" = offline ] && echo online_movable > $b/state 2>/dev/null
	done
	log "hotplug: added, blocks $b0 -> $(nblocks) ($bs MiB each)"
	qmp "{\"execute\":\"device_del\",\"arguments\":{\"id\":\"dimm2\"}}"
	waitfor 300 "test \$(nblocks) -le $((b0 + per))" || log "hotplug: dimm2 not removed ($(nblocks) blocks)"
	log "hotplug: dimm2 removed, blocks now $(nblocks)"
	$M/scenario mlock $(($1 / 2)) /run/hpanon.ready &
	waitfor 60 "test -f /run/hpanon.ready"
	# dimm1's blocks are the newest: offline every second one
	i=0
	for b in $(ls -d /sys/devices/system/memory/memory* | sed 's/.*memory//' | sort -n | tail -n $per); do
		i=$((i + 1))
		[ $((i % 2)) = 0 ] && { echo offline > /sys/devices/system/memory/memory$b/state 2>/dev/null ||
			log "hotplug: cannot offline memory$b"; }
	done
	log "hotplug: blocks now $(nblocks), offline: $(grep -l offline /sys/devices/system/memory/memory*/state 2>/dev/null | wc -l)"
}

[ -f $M/done ] && exit 0
: > $M/done
# kernel messages would break the console lines the host reads
read -r printk _ < /proc/sys/kernel/printk
echo 1 > /proc/sys/kernel/printk
log "start: MemTotal $(memtotal) kB, $(nblocks) memory blocks"
while read -r step arg; do
	[ -n "$step" ] || continue
	log "step $step $arg"
	step_$step $arg
done < $M/steps
log "done: MemTotal $(memtotal) kB"
echo "$printk" > /proc/sys/kernel/printk
