#!/bin/sh
# nicbench collect: the facts and two samples of a host that runs no nicbench (a stock iperf3
# far end), for `nicbench run HOST --remote-facts DIR` and `nicbench inspect --root DIR`.
# POSIX sh and the base tools of Linux (cat, ls, readlink, ethtool and tc when installed) or FreeBSD
# (sysctl, vmstat, ifconfig, pciconf, netstat, top). Reads only; changes nothing on the host.
#
#   sh collect.sh [-i IFACE] [-s SECONDS] [-o DIR]
#
# -i  the interface that carries the test (default: the one of the default route)
# -s  seconds between the two samples (default 3); run it while the test runs
# -o  write the capture into DIR; without -o a tar of it goes to stdout
#
# Layout: DIR/nicbench-capture names the kind ("os Linux" or "os FreeBSD"), the interface and
# the seconds measured between the samples. Linux: DIR/proc and DIR/sys hold the files the
# probes read at the first sample (a tree `inspect --root` reads); DIR/ethtool/IF/X.txt the
# output of `ethtool IF` (settings.txt) and `ethtool -X IF` for X in i k g c l a S, X.err its
# messages; DIR/tc/IF/{qdisc,class}.txt that of `tc -s qdisc|class show dev IF`; DIR/later/
# the files that change, at the second sample. `nicbench inspect --capture` and `nicbench
# collect -o` write the same layout. FreeBSD: DIR/freebsd/*.txt the command outputs at the
# first sample, DIR/later/freebsd/ the second.
set -u
iface=""
secs=3
out=""
usage() {
  echo "usage: sh collect.sh [-i IFACE] [-s SECONDS] [-o DIR]" >&2
  exit 2
}
while getopts i:s:o:h opt; do
  case $opt in
    i) iface=$OPTARG ;;
    s) secs=$OPTARG ;;
    o) out=$OPTARG ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] || usage
case $secs in '' | *[!0-9]*) echo "collect: -s takes whole seconds, not '$secs'" >&2; exit 2 ;; esac
case $iface in */* | .*) echo "collect: '$iface' is not an interface name" >&2; exit 2 ;; esac

if [ -n "$out" ]; then
  dir=$out
  mkdir -p "$dir" || { echo "collect: cannot create $dir" >&2; exit 3; }
else
  dir=$(mktemp -d "${TMPDIR:-/tmp}/nicbench-collect.XXXXXX") || exit 3
  trap 'rm -rf "$dir"' EXIT
fi

# $1 relative path under / ; copied when readable (write-only attributes are left out).
copy_file() {
  [ -f "/$1" ] && [ -r "/$1" ] || return 0
  [ -d "$dir/${2:-}${1%/*}" ] || mkdir -p "$dir/${2:-}${1%/*}"
  cat "/$1" >"$dir/${2:-}$1" 2>/dev/null
  return 0
}

# A symbolic link as stored (relative), with its target directory present in the copy.
copy_link() {
  [ -h "/$1" ] || return 0
  target=$(readlink "/$1") || return 0
  [ -d "$dir/${1%/*}" ] || mkdir -p "$dir/${1%/*}"
  rm -f "$dir/$1"
  ln -s "$target" "$dir/$1"
  (cd "$dir/${1%/*}" && mkdir -p "$target") 2>/dev/null
  return 0
}

# Every readable regular file directly in the directory $1, never BARs, ROM, VPD or triggers.
copy_dir() {
  for f in "/$1"/*; do
    [ -f "$f" ] && [ ! -h "$f" ] || continue
    case ${f##*/} in resource* | rom | vpd | remove | rescan | reset | uevent) continue ;; esac
    copy_file "${f#/}"
  done
}

linux_iface() {
  awk 'NR > 1 && $2 == "00000000" { print $1; exit }' /proc/net/route 2>/dev/null
}

# The interface's sysfs directory, its device, and every PCI function on its path.
linux_capture_interface() {
  copy_link "sys/class/net/$1"
  real=$(cd "/sys/class/net/$1" 2>/dev/null && pwd -P) || return 0
  rel=${real#/}
  copy_dir "$rel"
  copy_dir "$rel/statistics"
  copy_link "$rel/device"
  # The PCI functions on the path (split at its slashes, no pathname expansion of the parts).
  pci=""
  walked=""
  oldifs=$IFS
  IFS=/
  set -f
  for part in $rel; do
    walked="${walked:+$walked/}$part"
    case $part in
      [0-9a-f][0-9a-f][0-9a-f][0-9a-f]:[0-9a-f][0-9a-f]:[0-9a-f][0-9a-f].[0-7])
        pci="$pci $walked" ;;
    esac
  done
  set +f
  IFS=$oldifs
  for walked in $pci; do
    copy_dir "$walked"
    copy_dir "$walked/msi_irqs"
    copy_link "$walked/driver"
    copy_link "sys/bus/pci/devices/${walked##*/}"
  done
}

linux_sample() {  # $1: "" for the first sample, "later/" for the second
  for f in proc/uptime proc/stat proc/interrupts proc/softirqs proc/net/snmp proc/net/netstat \
    proc/net/softnet_stat; do
    copy_file "$f" "$1"
  done
  if [ -n "$1" ] && [ -n "$iface" ]; then
    for f in /sys/class/net/"$iface"/statistics/*; do
      [ -f "$f" ] && copy_file "sys/class/net/$iface/statistics/${f##*/}" "$1"
    done
  fi
  if [ -n "$iface" ] && command -v ethtool >/dev/null 2>&1; then
    mkdir -p "$dir/${1}ethtool/$iface"
    ethtool -S "$iface" >"$dir/${1}ethtool/$iface/S.txt" 2>"$dir/${1}ethtool/$iface/S.err"
  fi
}

linux_facts() {
  for f in proc/cpuinfo proc/sys/kernel/osrelease proc/sys/kernel/hostname \
    sys/devices/system/cpu/online; do
    copy_file "$f"
  done
  for n in /sys/class/net/*; do linux_capture_interface "${n##*/}"; done
  for d in /proc/irq/*; do
    [ -d "$d" ] && copy_file "${d#/}/smp_affinity_list" && copy_file "${d#/}/effective_affinity_list"
  done
  for c in /sys/devices/system/cpu/cpu[0-9]*; do
    for f in scaling_governor scaling_driver scaling_cur_freq cpuinfo_min_freq cpuinfo_max_freq; do
      [ -r "$c/cpufreq/$f" ] && copy_file "${c#/}/cpufreq/$f"
    done
  done
  if [ -n "$iface" ] && command -v ethtool >/dev/null 2>&1; then
    mkdir -p "$dir/ethtool/$iface"
    for o in i k g c l a; do
      ethtool -"$o" "$iface" >"$dir/ethtool/$iface/$o.txt" 2>"$dir/ethtool/$iface/$o.err"
    done
    ethtool "$iface" >"$dir/ethtool/$iface/settings.txt" 2>"$dir/ethtool/$iface/settings.err"
  fi
  if [ -n "$iface" ] && command -v tc >/dev/null 2>&1; then
    mkdir -p "$dir/tc/$iface"
    tc -s qdisc show dev "$iface" >"$dir/tc/$iface/qdisc.txt" 2>"$dir/tc/$iface/qdisc.err"
    tc -s class show dev "$iface" >"$dir/tc/$iface/class.txt" 2>/dev/null
  fi
}

freebsd_iface() {
  route -n get default 2>/dev/null | awk '$1 == "interface:" { print $2; exit }'
}

freebsd_sample() {  # $1: "" or "later/"
  d="$dir/${1}freebsd"
  mkdir -p "$d"
  vmstat -i >"$d/vmstat-i.txt" 2>/dev/null
  netstat -s >"$d/netstat-s.txt" 2>/dev/null
  netstat -m >"$d/netstat-m.txt" 2>/dev/null
  # Two displays a second apart: the second one's CPU lines cover that second, not the uptime.
  top -SHPb -d 2 -s 1 200 >"$d/top-SHPb.txt" 2>/dev/null
  [ -n "$iface" ] && netstat -I "$iface" -bdn >"$d/netstat-I.txt" 2>/dev/null
  [ -n "$driver" ] && sysctl "dev.$driver" >"$d/sysctl-dev.txt" 2>/dev/null
  return 0
}

freebsd_facts() {
  d="$dir/freebsd"
  mkdir -p "$d"
  uname -a >"$d/uname-a.txt" 2>/dev/null
  sysctl hw >"$d/sysctl-hw.txt" 2>/dev/null
  sysctl kern.hostname kern.osrelease kern.smp.cpus >"$d/sysctl-kern.txt" 2>/dev/null
  ifconfig -a >"$d/ifconfig-a.txt" 2>/dev/null
  pciconf -lv >"$d/pciconf-lv.txt" 2>/dev/null
  pciconf -lc >"$d/pciconf-lc.txt" 2>/dev/null
  if [ -n "$driver" ]; then
    parent=$(sysctl -n "dev.$driver.$unit.%parent" 2>/dev/null)
    pdrv=${parent%%[0-9]*}
    [ -n "$pdrv" ] && [ "$pdrv" != "$driver" ] && sysctl "dev.$pdrv" >"$d/sysctl-dev-parent.txt" 2>/dev/null
  fi
  return 0
}

os=$(uname -s)
case $os in
  Linux) [ -n "$iface" ] || iface=$(linux_iface) ;;
  FreeBSD)
    [ -n "$iface" ] || iface=$(freebsd_iface)
    driver=${iface%%[0-9]*}
    unit=${iface#"$driver"}
    ;;
  *) echo "collect: $os is neither Linux nor FreeBSD" >&2; exit 3 ;;
esac

if [ "$os" = Linux ]; then linux_facts; else freebsd_facts; fi
t0=$(date +%s)
if [ "$os" = Linux ]; then linux_sample ""; else freebsd_sample ""; fi
sleep "$secs"
t1=$(date +%s)
if [ "$os" = Linux ]; then linux_sample later/; else freebsd_sample later/; fi
{
  echo "nicbench-capture 1"
  echo "os $os"
  echo "interface $iface"
  echo "seconds $((t1 - t0))"
  echo "taken $t0"
} >"$dir/nicbench-capture"

if [ -z "$out" ]; then
  (cd "$dir" && tar -cf - .) || exit 3
else
  echo "collect: wrote $dir (interface ${iface:-none})" >&2
fi
