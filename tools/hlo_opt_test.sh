#!/usr/bin/env bash
# hlo_opt end to end: passes rewrite the module as expected, unknown passes
# and bad input exit 1 with a message.
set -u
HLO_OPT="tools/hlo_opt"
TMP="${TEST_TMPDIR:-$(mktemp -d)}"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

cat > "$TMP/m.hlo" <<'HLO'
HloModule m
ENTRY e {
  p = f32[4] parameter(0)
  one = f32[] constant(1)
  b = f32[4] broadcast(one), dimensions={}
  m = f32[4] multiply(p, b)
  dead = f32[4] negate(p)
  ROOT r = f32[4] negate(m)
}
HLO
out=$("$HLO_OPT" --passes=algsimp,dce "$TMP/m.hlo" 2>"$TMP/err")
[[ $? -eq 0 ]] || fail "algsimp,dce failed: $(cat "$TMP/err")"
[[ "$out" == *"ROOT %r = f32[4]{0} negate(%p)"* ]] || fail "x*1 not simplified: $out"
[[ "$out" != *"multiply"* && "$out" != *"dead"* ]] || fail "dead code left: $out"
# The standard pipeline reads stdin too.
out=$("$HLO_OPT" --passes=standard - < "$TMP/m.hlo" 2>/dev/null)
[[ "$out" == *"negate(%p)"* ]] || fail "standard pipeline from stdin: $out"

out=$("$HLO_OPT" --passes=nope "$TMP/m.hlo" 2>"$TMP/err"); code=$?
[[ $code -eq 1 ]] || fail "unknown pass: exit $code"
grep -q "unknown pass 'nope'" "$TMP/err" || fail "unknown pass message: $(cat "$TMP/err")"
printf 'HloModule m\nENTRY e {\n  ROOT x = f32[] bogus()\n}\n' > "$TMP/bad.hlo"
"$HLO_OPT" "$TMP/bad.hlo" >/dev/null 2>"$TMP/err"; code=$?
[[ $code -eq 1 ]] || fail "bad module: exit $code"
grep -q "line 3" "$TMP/err" || fail "bad module message: $(cat "$TMP/err")"

# The CPU backend's own pipeline: its convolution lowering turns a 1x1
# convolution into a dot, as the CPU compiler would before code generation.
cat > "$TMP/conv.hlo" <<'HLO'
HloModule conv
ENTRY e {
  x = f32[1,4,4,8] parameter(0)
  k = f32[1,1,8,16] parameter(1)
  ROOT c = f32[1,4,4,16] convolution(x, k), window={size=1x1}, dim_labels=b01f_01io->b01f
}
HLO
out=$("$HLO_OPT" --passes=cpu "$TMP/conv.hlo" 2>"$TMP/err")
[[ $? -eq 0 ]] || fail "cpu pipeline failed: $(cat "$TMP/err")"
[[ "$out" == *" dot("* && "$out" != *"convolution("* ]] || fail "cpu pipeline did not lower the convolution: $out"

# The cpu pipeline ends in its fusion pass; --buffer_assignment prints where
# each value of the fused module lives.
cat > "$TMP/chain.hlo" <<'HLO'
HloModule chain
ENTRY e {
  x = f32[64,32] parameter(0)
  y = f32[64,32] parameter(1)
  a = f32[64,32] add(x, y)
  e = f32[64,32] exponential(a)
  ROOT m = f32[64,32] multiply(e, x)
}
HLO
out=$("$HLO_OPT" --passes=cpu --buffer_assignment "$TMP/chain.hlo" 2>"$TMP/err")
[[ $? -eq 0 ]] || fail "cpu pipeline with --buffer_assignment failed: $(cat "$TMP/err")"
[[ "$out" == *"fusion(%x, %y), kind=kLoop"* ]] || fail "cpu pipeline did not fuse the chain: $out"
grep -q "^arena bytes: 0$" "$TMP/err" || fail "no buffer assignment on stderr: $(cat "$TMP/err")"
grep -q "result leaf 0" "$TMP/err" || fail "the fusion is not computed into the result: $(cat "$TMP/err")"

[[ $failures -eq 0 ]] || { echo "$failures check(s) failed"; exit 1; }
echo "all hlo_opt checks passed"
