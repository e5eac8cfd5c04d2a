#!/bin/sh
# tests/lab/kdt/crash.sh - installed as /usr/local/sbin/mdf-kdt-crash in the
# kdump-tools test's guest (tests/e2e/kdumptools.sh) and run once by
# mdf-kdt-crash.service in its first kernel: wait until kdump-tools'
# own service has loaded the capture kernel, report `kdump-config status`
# on the console, fill /var/crash when the variant asks for a full target,
# log the test's marker and crash the machine with sysrq-c.  Every line it
# prints starts with "MDF-KDT " so the host can find it in the console log.
say() { echo "MDF-KDT $*" >/dev/ttyS0; }
i=0
while ! kdump-config status 2>/dev/null | grep -q 'current state *: ready to kdump'; do
	i=$((i + 1))
	if [ $i -gt 300 ]; then
		kdump-config status 2>&1 | while read -r l; do say "status: $l"; done
		say "never ready"
		poweroff -f
	fi
	sleep 1
done
kdump-config status 2>&1 | while read -r l; do say "status: $l"; done
if [ -f /etc/mdf-kdt/fill ]; then
	# Leave 12 KiB: room for kdump-tools' stamp directory, not for a dump.
	dd if=/dev/zero of=/var/crash/filler bs=64k 2>/dev/null
	truncate -s -12K /var/crash/filler
	sync
	say "df: $(df -k /var/crash | tail -n 1)"
fi
marker=$(cat /etc/mdf-kdt/marker)
echo "$marker" >/dev/kmsg
say "crashing after marker $marker"
sync
echo 1 >/proc/sys/kernel/sysrq
echo c >/proc/sysrq-trigger
