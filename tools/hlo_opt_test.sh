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

# StableHLO text (.mlir) is imported before the passes: the standard
# pipeline inlines the private function and drops the multiply by one.
cat > "$TMP/m.mlir" <<'MLIR'
module @m {
  func.func private @times_one(%x: tensor<4xf32>) -> tensor<4xf32> {
    %one = stablehlo.constant dense<1.0> : tensor<4xf32>
    %m = stablehlo.multiply %x, %one : tensor<4xf32>
    return %m : tensor<4xf32>
  }
  func.func @main(%p: tensor<4xf32>) -> tensor<4xf32> {
    %c = func.call @times_one(%p) : (tensor<4xf32>) -> tensor<4xf32>
    %r = stablehlo.negate %c : tensor<4xf32>
    return %r : tensor<4xf32>
  }
}
MLIR
out=$("$HLO_OPT" --passes=standard "$TMP/m.mlir" 2>"$TMP/err")
[[ $? -eq 0 ]] || fail "standard pipeline on m.mlir failed: $(cat "$TMP/err")"
[[ "$out" =~ ROOT\ %[a-z0-9.]+\ =\ f32\[4\]\{0\}\ negate\(%parameter[0-9.]*\) ]] || fail "m.mlir not simplified to negate(parameter): $out"
[[ "$out" != *"call("* && "$out" != *"multiply"* ]] || fail "m.mlir: call or multiply left: $out"
printf 'func.func @main() {\n  %%0 = stablehlo.nope : tensor<f32>\n  return\n}\n' > "$TMP/bad.mlir"
"$HLO_OPT" "$TMP/bad.mlir" >/dev/null 2>"$TMP/err"; code=$?
[[ $code -eq 1 ]] || fail "bad.mlir: exit $code"
grep -q "bad.mlir:2:8: stablehlo.nope: unknown op" "$TMP/err" || fail "bad.mlir message: $(cat "$TMP/err")"
# Without @main, more than one function is more than one entry point.
printf 'func.func @f(%%x: tensor<f32>) -> tensor<f32> {\n  return %%x : tensor<f32>\n}\nfunc.func @g(%%x: tensor<f32>) -> tensor<f32> {\n  return %%x : tensor<f32>\n}\n' > "$TMP/two.mlir"
"$HLO_OPT" "$TMP/two.mlir" >/dev/null 2>"$TMP/err"; code=$?
[[ $code -eq 1 ]] || fail "two.mlir: exit $code"
grep -q "two.mlir:1:1: expected one entry point (@main, or a single function), found 2: @f, @g" "$TMP/err" ||
  fail "two.mlir message: $(cat "$TMP/err")"

[[ $failures -eq 0 ]] || { echo "$failures check(s) failed"; exit 1; }
echo "all hlo_opt checks passed"
