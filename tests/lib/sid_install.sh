#!/bin/bash
# tests/lib/sid_install.sh ROOT LOG PKG... - install PKGs with apt-get in
# the readers' sid root ROOT (tests/lab/readers/root.sh), its output to
# LOG.  Every apt run in that root takes /var/tmp/sid-root-apt.lock (the
# lab's loong64 tools and tests/cross.sh loong64 may install at the same
# time); /proc, which the packages' scripts need, is mounted in a mount
# namespace of this run alone, so nothing stays mounted.  Needs root.
# Exit non-zero when the install fails (LOG says why).
set -u
r=$1 log=$2
shift 2
cp /etc/resolv.conf "$r/etc/resolv.conf" 2>/dev/null
# shellcheck disable=SC2016 # expanded by that sh
flock /var/tmp/sid-root-apt.lock unshare -m --propagation private sh -c '
	r=$1; shift
	mount -t proc proc "$r/proc" &&
	chroot "$r" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C.UTF-8 \
		DEBIAN_FRONTEND=noninteractive sh -c "apt-get -q -o Acquire::Retries=3 update &&
		apt-get -y -q -o Dpkg::Use-Pty=0 install $*"' sh "$r" "$@" >>"$log" 2>&1
