#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# hybrid-dtb.sh OUT QEMU ARG...: a device tree for QEMU's arm64 virt
# machine with two core PMUs, one per CPU, as a hybrid (big.LITTLE) SoC
# has them (doc/arm64-guest.md, "The two-PMU machine").
#
# QEMU ARG... is the command line of the boot that will load the tree
# (ctests/guest/test_arm64.sh passes its own, without -dtb): QEMU dumps
# its own tree for exactly that machine (-machine dumpdtb), dtc decompiles
# it, the awk program below edits it, dtc compiles OUT; the edited source
# stays beside it as OUT.dts.  The machine must be -M virt,gic-version=3
# with two CPUs.  The edit:
#
#   - the GICv3 takes a fourth interrupt cell, the phandle of a partition
#     of its per-CPU interrupts (0: every CPU), and gets two partitions,
#     part0 of cpu0 and part1 of cpu1 (ppi-partitions; the cpu nodes get
#     the labels cpu0 and cpu1);
#   - the one arm,armv8-pmuv3 node becomes two, an arm,cortex-a57-pmu on
#     part0 and an arm,cortex-a53-pmu on part1, with its interrupt: the
#     kernel's arm_pmu driver registers one PMU per node, counting on the
#     CPUs of its partition only;
#   - every other GIC interrupt specifier gets the fourth cell 0: each
#     3-cell group of an interrupts property (timer, uart, rtc, gpio,
#     virtio-mmio), and the parent part of each entry of an interrupt-map
#     (PCIe).
#
# GICv2 cannot do this: its driver ignores the CPU mask of a per-CPU
# interrupt, both PMUs would count everywhere.  Anything in the tree the
# edit does not know how to rewrite (another interrupt controller, an
# interrupts-extended, a map entry not aimed at the GIC, not exactly one
# PMU node or two CPUs) stops it with the reason, and no OUT.
set -euo pipefail

if [ $# -lt 2 ]; then
	echo "usage: $0 OUT QEMU ARG..." >&2
	exit 2
fi
out=$1
shift
tmp=$(mktemp -d "${TMPDIR:-/tmp}/lope-dtb.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

"$@" -machine dumpdtb="$tmp/qemu.dtb" >"$tmp/qemu.log" 2>&1 || {
	echo "hybrid-dtb.sh: QEMU could not dump its tree: $(tr '\n' ' ' <"$tmp/qemu.log")" >&2
	exit 1
}
dtc -q -I dtb -O dts -o "$tmp/qemu.dts" "$tmp/qemu.dtb" || {
	echo "hybrid-dtb.sh: dtc could not decompile QEMU's tree" >&2
	exit 1
}

# Two passes over dtc's output (one node or property a line): the first
# learns the tree (each node's path, properties and phandle), the second
# prints it edited.  Cells are dtc's hexadecimal words.
awk '
function die(msg) { print "hybrid-dtb.sh: " msg > "/dev/stderr"; exit 1 }
function cells(line, a,   s) { # the cells of "name = <...>;" into a[1..n]
	s = line; sub(/^[^<]*</, "", s); sub(/>;$/, "", s)
	return split(s, a, " ")
}
function prop_name(line,   s) { s = line; sub(/^[ \t]*/, "", s); sub(/[ =;].*/, "", s); return s }
function value(line,   s) { s = line; sub(/^[^=]*= */, "", s); sub(/;$/, "", s); return s }
function num(c) { return c ~ /^0x/ ? hex(substr(c, 3)) : c + 0 }
function hex(s,   i, v) {
	v = 0
	for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(tolower(s), i, 1)) - 1
	return v
}
# Track the node path: "name {" opens ("/ {" is the root), "};" closes.
function walk(line,   name) {
	if (line ~ /[{]$/) {
		name = line; sub(/^[ \t]*/, "", name); sub(/ *[{]$/, "", name)
		path = depth == 0 ? "" : path "/" name
		stack[++depth] = path
		return 1
	}
	if (line ~ /^[ \t]*[}];$/) { path = stack[--depth]; return 2 }
	return 0
}
# An interrupts property in GIC cells, each 3-cell specifier with a 4th 0.
function widen(line,   a, n, i, s) {
	n = cells(line, a)
	if (n % 3) die(path ": " n " interrupt cells, not a multiple of the GIC'"'"'s 3")
	for (i = 1; i <= n; i++) s = s (i > 1 ? " " : "") a[i] (i % 3 ? "" : " 0x00")
	return substr(line, 1, index(line, "<")) s ">;"
}
# An interrupt-map aimed at the GIC: each entry is the child unit address
# and specifier (the node'"'"'s #address-cells and #interrupt-cells), the
# parent phandle, its unit address (the GIC'"'"'s #address-cells) and its
# 3-cell specifier, which gets a 4th 0.
function widen_map(line, node,   a, n, i, e, child, entry, s) {
	child = num(cells_of(prop[node, "#address-cells"])) + num(cells_of(prop[node, "#interrupt-cells"]))
	entry = child + 1 + gic_addr + 3
	n = cells(line, a)
	if (n % entry) die(node ": interrupt-map of " n " cells, not entries of " entry)
	for (i = 1; i <= n; i++) {
		e = (i - 1) % entry
		if (e == child && a[i] != gic) die(node ": interrupt-map entry aimed at " a[i] ", not the GIC " gic)
		s = s (i > 1 ? " " : "") a[i] (e == entry - 1 ? " 0x00" : "")
	}
	return substr(line, 1, index(line, "<")) s ">;"
}
function cells_of(v) { gsub(/[<>]/, "", v); return v }

# Pass 1: every property of every node, and the nodes that matter.
NR == FNR {
	if (walk($0)) next
	p = prop_name($0)
	prop[path, p] = value($0)
	if (p == "compatible" && $0 ~ /"arm,gic-v3"/) gic_path = path
	if (p == "compatible" && $0 ~ /"arm,armv8-pmuv3"/) { pmu_path = path; npmu++ }
	if (p == "interrupt-controller") nctl++
	if (p == "interrupts-extended") die(path ": interrupts-extended")
	if (p == "device_type" && $0 ~ /"cpu"/) ncpu++
	next
}
FNR == 1 {
	if (gic_path == "") die("no arm,gic-v3 node: boot with -M virt,gic-version=3")
	if (nctl != 1) die(nctl " interrupt controllers, the edit knows the GIC alone")
	if (npmu != 1) die(npmu " arm,armv8-pmuv3 nodes, want 1")
	if (ncpu != 2 || prop["/cpus/cpu@0", "phandle"] == "" || prop["/cpus/cpu@1", "phandle"] == "")
		die(ncpu " cpu nodes, want cpu@0 and cpu@1 with phandles (-smp 2)")
	if (prop[gic_path, "#interrupt-cells"] != "<0x03>")
		die("the GIC has #interrupt-cells " prop[gic_path, "#interrupt-cells"] ", want <0x03>")
	gic = cells_of(prop[gic_path, "phandle"])
	gic_addr = num(cells_of(prop[gic_path, "#address-cells"]))
	split(cells_of(prop[pmu_path, "interrupts"]), pmu_irq, " ")
	depth = 0
}
# Pass 2: the tree, edited.
{
	w = walk($0)
	if (w == 1 && path == pmu_path) { skip = depth; next }
	if (skip) {
		if (w == 2 && depth < skip) {
			skip = 0
			ind = $0; sub(/[}];$/, "", ind)
			print ind "pmu-a57 {"
			print ind "\tcompatible = \"arm,cortex-a57-pmu\";"
			print ind "\tinterrupts = <" pmu_irq[1] " " pmu_irq[2] " " pmu_irq[3] " &part0>;"
			print ind "};"
			print ind "pmu-a53 {"
			print ind "\tcompatible = \"arm,cortex-a53-pmu\";"
			print ind "\tinterrupts = <" pmu_irq[1] " " pmu_irq[2] " " pmu_irq[3] " &part1>;"
			print ind "};"
		}
		next
	}
	if (w == 1 && (path == "/cpus/cpu@0" || path == "/cpus/cpu@1")) {
		sub(/cpu@/, "cpu" substr(path, length(path)) ": cpu@")
		print; next
	}
	if (w == 2 && depth == gic_depth - 1 && in_gic) {
		ind = $0; sub(/[}];$/, "", ind)
		print ind "\tppi-partitions {"
		print ind "\t\tpart0: interrupt-partition-0 {"
		print ind "\t\t\taffinity = <&cpu0>;"
		print ind "\t\t};"
		print ind "\t\tpart1: interrupt-partition-1 {"
		print ind "\t\t\taffinity = <&cpu1>;"
		print ind "\t\t};"
		print ind "\t};"
		in_gic = 0
	}
	if (w == 1 && path == gic_path) { in_gic = 1; gic_depth = depth }
	if (w) { print; next }
	p = prop_name($0)
	if (path == gic_path && p == "#interrupt-cells") sub(/<0x03>/, "<0x04>")
	else if (p == "interrupts") $0 = widen($0)
	else if (p == "interrupt-map") $0 = widen_map($0, path)
	print
}
' "$tmp/qemu.dts" "$tmp/qemu.dts" >"$tmp/hybrid.dts"

cp "$tmp/hybrid.dts" "$out.dts"
dtc -q -I dts -O dtb -o "$tmp/hybrid.dtb" "$out.dts" || {
	echo "hybrid-dtb.sh: dtc refused the edited tree, $out.dts" >&2
	exit 1
}
mv "$tmp/hybrid.dtb" "$out"
