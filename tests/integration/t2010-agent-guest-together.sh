#!/bin/sh
# t2010: together runs in a guest kernel with cgroup v2 (Debian's kernel
# under qemu TCG, a busybox initramfs, as t2006): two CPU hogs, 3 loops in
# /a and 1 in /b, at equal weight get half the CPU each and at weights
# 200/100 about 2:1; and seed 001's pair of builds from
# plans/kernbench-two-cgroups.yaml (make, here of a small tree of
# shell-loop targets, since the guest has no compiler) run at the same
# time in /a and /b and report both elapsed times and their ratio.
# Skipped where qemu, a Debian kernel, busybox-static or make is missing.
. "$(dirname "$0")/../lib/test-lib.sh"

[ -x "$AGENT_BIN" ] || skip_all "no agent binary at $AGENT_BIN (make first)"
command -v jq >/dev/null || skip_all "jq not installed (make deps)"
command -v qemu-system-x86_64 >/dev/null || skip_all "qemu-system-x86 not installed (make deps)"
KERNEL=$(ls /boot/vmlinuz-* 2>/dev/null | sort -V | tail -n 1)
[ -n "$KERNEL" ] && [ -r "$KERNEL" ] || skip_all "no kernel under /boot (linux-image-amd64)"
BUSYBOX=$(command -v busybox || true)
[ -n "$BUSYBOX" ] && file "$BUSYBOX" | grep -q "statically linked" ||
	skip_all "busybox-static not installed (make deps)"
command -v cpio >/dev/null || skip_all "cpio not installed"
MAKE=$(command -v make || true)
[ -n "$MAKE" ] || skip_all "make not installed"

cd "$SCRATCH" || exit 1
mkdir -p root/bin root/proc root/sys root/dev root/tmp root/etc root/specs
cp "$BUSYBOX" root/bin/busybox
for a in sh mount mkdir cat echo poweroff sleep touch rm ls; do ln -s busybox root/bin/$a; done
cp "$AGENT_BIN" root/bin/schedfarm-agent
# make and the libraries it loads
cp "$MAKE" root/bin/make
ldd "$MAKE" | awk '/=> \// { print $3 } /^\t\/lib/ { print $1 }' | while read -r lib; do
	mkdir -p "root$(dirname "$lib")" && cp -L "$lib" "root$lib"
done
echo "root:x:0:0:root:/:/bin/sh" >root/etc/passwd
# two trees of 6 targets that each spin a shell loop, and link them
for t in a b; do
	mkdir -p root/tree-$t &&
	cat >root/tree-$t/Makefile <<'EOF'
OBJ := o1 o2 o3 o4 o5 o6
vmlinux: $(OBJ)
	@touch $@
%:
	@i=0; while [ $$i -lt 4000 ]; do i=$$((i+1)); done; touch $@
clean:
	@rm -f $(OBJ) vmlinux
EOF
done
cat >root/init <<'EOI'
#!/bin/sh
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs dev /dev 2>/dev/null
mount -t cgroup2 cgroup2 /sys/fs/cgroup
for s in /specs/*.json; do
	echo "SCHEDFARM-SPEC-BEGIN $s"
	/bin/schedfarm-agent run "$s"
	echo "SCHEDFARM-SPEC-END $s rc=$?"
done
poweroff -f
EOI
chmod 755 root/init

# hogs RUN_ID WEIGHT_A WEIGHT_B: 3 loops in /a, 1 in /b, 4 s
hogs() {
	printf '{"run_id":%s,"parent_weight":10000,"sample_ms":500,"together":[{"name":"a","workload":"cpu-hog","params":{"tasks":3,"duration":"4s","cgroup":"/a"}},{"name":"b","workload":"cpu-hog","params":{"tasks":1,"duration":"4s","cgroup":"/b"}}],"cgroups":[{"path":"/a","weight":%s},{"path":"/b","weight":%s}]}' "$1" "$2" "$3"
}
hogs 2010001 100 100 >root/specs/1.json
hogs 2010002 200 100 >root/specs/2.json
# seed 001's pair as plans/kernbench-two-cgroups.yaml has it (-j8 against
# -j16), pointed at the guest's trees
schedfarm plan expand --json --set iterations=1 --set warmup=0 \
	--set "workloads[0].together[0].params.tree=/tree-a" \
	--set "workloads[0].together[0].params.objdir=/tree-a" \
	--set "workloads[0].together[1].params.tree=/tree-b" \
	--set "workloads[0].together[1].params.objdir=/tree-b" \
	"$TOP/plans/kernbench-two-cgroups.yaml" >kb-runs.json &&
	jq -c '.[0].spec + {run_id: 2010003, parent_weight: 10000, cgroups: [{path: "/a", weight: 100}, {path: "/b", weight: 100}]}' \
		kb-runs.json >root/specs/3.json || { echo "Bail out! cannot expand the kernbench plan"; exit 1; }

# lines N: the agent's lines for spec N
lines() {
	tr -d '\r' <console | sed -n "\\|^SCHEDFARM-SPEC-BEGIN /specs/$1.json|,\\|^SCHEDFARM-SPEC-END /specs/$1.json|p" | grep '^{'
}
metric() {
	lines "$1" | jq -r -s "[.[] | select(.type == \"result\" and .metric == \"$2\")][0].value"
}

test_expect_success 'boot the guest and run the three together specs' '
	(cd root && find . | sort | cpio -o -H newc --quiet) | gzip -1 >initrd.gz &&
	timeout 150 qemu-system-x86_64 -accel tcg -smp 2 -m 512 -nodefaults \
		-display none -no-reboot -serial file:"$SCRATCH/console" \
		-kernel "$KERNEL" -initrd initrd.gz \
		-append "console=ttyS0 quiet panic=-1 rdinit=/init" >qemu.out 2>&1 ||
		{ echo "qemu failed"; cat qemu.out; tail -n 20 console; return 1; }
	for n in 1 2 3; do
		grep -q "^SCHEDFARM-SPEC-END /specs/$n.json rc=0" console ||
			{ echo "spec $n failed in the guest:"; lines $n | grep -v sample | tail -n 5; return 1; }
	done &&
	lines 1 | head -n 1 | jq -e ".info.cgroup.used == \"v2\""
'

test_expect_success 'cgroup v2, 3 loops against 1 at equal weight: half the CPU each' '
	a=$(metric 1 share.a) && b=$(metric 1 share.b) &&
	say "guest shares: /a $a%, /b $b%" &&
	awk -v a="$a" -v b="$b" "BEGIN { exit !(a > 40 && a < 60 && b > 40 && b < 60) }" &&
	awk -v j="$(metric 1 jain_index)" "BEGIN { exit !(j > 0.95) }"
'

test_expect_success 'cgroup v2, weights 200/100: about 2:1' '
	a=$(metric 2 share.a) && b=$(metric 2 share.b) &&
	say "guest shares at 200/100: /a $a%, /b $b%" &&
	awk -v a="$a" -v b="$b" "BEGIN { exit !(b > 0 && a / b > 1.6 && a / b < 2.5) }"
'

test_expect_success 'two builds at the same time in /a and /b: both elapsed times, their ratio' '
	ea=$(metric 3 a.elapsed_s) && eb=$(metric 3 b.elapsed_s) && r=$(metric 3 elapsed_ratio) &&
	say "guest make -j8 in /a $ea s, make -j16 in /b $eb s, ratio $r" &&
	awk -v a="$ea" -v b="$eb" -v r="$r" "BEGIN { exit !(a > 0 && b > 0 && r >= 1) }" &&
	test "$(metric 3 share.a)" != null && test "$(metric 3 share.b)" != null
'

test_done
