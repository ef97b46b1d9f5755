#!/usr/bin/env bash
# xla_run end to end: results on stdout only, bad input exits 1 (never by a
# signal) with a message naming the line or instruction.
set -u
XLA_RUN="tools/xla_run"
TMP="${TEST_TMPDIR:-$(mktemp -d)}"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

cat > "$TMP/axpy.hlo" <<'HLO'
HloModule axpy
ENTRY axpy {
  a = f32[] parameter(0)
  x = f32[4] parameter(1)
  y = f32[4] parameter(2)
  ab = f32[4] broadcast(a), dimensions={}
  ax = f32[4] multiply(ab, x)
  ROOT r = f32[4] add(ax, y)
}
HLO

out=$("$XLA_RUN" --arg='f32[] 2' --arg='f32[4] {1,2,3,4}' --arg='f32[4] {10,20,30,40}' "$TMP/axpy.hlo" 2>"$TMP/err")
[[ $? -eq 0 && "$out" == "f32[4] {12, 24, 36, 48}" ]] || fail "axpy printed '$out' ($(cat "$TMP/err"))"

# Values without a shape prefix take the parameter's shape.
out=$("$XLA_RUN" --arg='2' --arg='{1,2,3,4}' --arg='{0,0,0,0}' "$TMP/axpy.hlo" 2>/dev/null)
[[ "$out" == "f32[4] {2, 4, 6, 8}" ]] || fail "shapeless args printed '$out'"

# The CPU backend (compiled with LLVM) gives the same result.
out=$("$XLA_RUN" --backend=cpu --arg='f32[] 2' --arg='f32[4] {1,2,3,4}' --arg='f32[4] {10,20,30,40}' "$TMP/axpy.hlo" 2>"$TMP/err")
[[ $? -eq 0 && "$out" == "f32[4] {12, 24, 36, 48}" ]] || fail "axpy on cpu printed '$out' ($(cat "$TMP/err"))"
expect_unknown_backend=$("$XLA_RUN" --backend=nope "$TMP/axpy.hlo" 2>&1 >/dev/null)
[[ "$expect_unknown_backend" == *"unknown backend 'nope'"* ]] || fail "unknown backend: '$expect_unknown_backend'"

# --xla_cache_dir: the first run compiles and saves the executable, the
# second loads it; both print the same result.
for run in 1 2; do
  out=$("$XLA_RUN" --backend=cpu --xla_cache_dir="$TMP/cache" --arg='f32[] 2' --arg='f32[4] {1,2,3,4}' \
    --arg='f32[4] {10,20,30,40}' "$TMP/axpy.hlo" 2>"$TMP/err")
  [[ $? -eq 0 && "$out" == "f32[4] {12, 24, 36, 48}" ]] || fail "cached run $run printed '$out' ($(cat "$TMP/err"))"
done
# The executable, and the record that finds it by the program text's digest.
saved=$(ls "$TMP/cache" | grep -c '\.xlaexe$')
[[ "$saved" == 2 ]] || fail "--xla_cache_dir holds $saved files, want 2 (an executable and its request record)"

# --compare runs both backends; stdout keeps only the literal.
out=$("$XLA_RUN" --backend=cpu --compare=interpreter "$TMP/axpy.hlo" 2>"$TMP/err")
[[ $? -eq 0 && "$out" == f32* && "$out" != *$'\n'* ]] || fail "compare printed '$out' ($(cat "$TMP/err"))"
grep -q "largest absolute difference from interpreter: 0" "$TMP/err" || fail "compare stderr: $(cat "$TMP/err")"

# Generated arguments are deterministic: two runs print the same literal.
a=$("$XLA_RUN" "$TMP/axpy.hlo" 2>/dev/null); b=$("$XLA_RUN" "$TMP/axpy.hlo" 2>/dev/null)
[[ -n "$a" && "$a" == "$b" ]] || fail "generated arguments differ: '$a' vs '$b'"

# --repeat times further executions; --print_result=false prints nothing.
out=$("$XLA_RUN" --repeat=3 --print_result=false "$TMP/axpy.hlo" 2>"$TMP/err"); code=$?
[[ $code -eq 0 && -z "$out" ]] || fail "--repeat: exit code $code, stdout '$out'"
grep -Eq "3 executions: best [0-9.e+-]+ us, median [0-9.e+-]+ us" "$TMP/err" || fail "--repeat: stderr '$(cat "$TMP/err")'"

expect_error() {  # name, expected message substring, xla_run args...
  local name="$1" want="$2"; shift 2
  out=$("$XLA_RUN" "$@" 2>"$TMP/err"); code=$?
  [[ $code -eq 1 ]] || fail "$name: exit code $code (want 1)"
  [[ -z "$out" ]] || fail "$name: printed '$out' on stdout"
  grep -q -- "$want" "$TMP/err" || fail "$name: stderr '$(cat "$TMP/err")' lacks '$want'"
}

printf 'HloModule m\nENTRY e {\n  ROOT x = f32[] frobnicate()\n}\n' > "$TMP/bad_opcode.hlo"
expect_error "unknown opcode" "line 3" "$TMP/bad_opcode.hlo"
printf 'HloModule m\nENTRY e {\n  p = f32[2] parameter(0)\n  ROOT s = f32[3] negate(p)\n}\n' > "$TMP/bad_shape.hlo"
expect_error "shape mismatch" "'s'" "$TMP/bad_shape.hlo"
printf 'HloModule m\nENTRY e {\n  ROOT s = f32[2] add(q, q)\n}\n' > "$TMP/undefined.hlo"
expect_error "undefined operand" "line 3" "$TMP/undefined.hlo"
expect_error "wrong arg count" "takes 3 arguments" --arg='f32[] 1' "$TMP/axpy.hlo"
expect_error "wrong arg shape" "parameter 1" --arg='f32[] 1' --arg='f32[3] {1,2,3}' --arg='f32[4] {1,2,3,4}' "$TMP/axpy.hlo"
expect_error "bad literal" "--arg 0" --arg='f32[] x' --arg='{1,2,3,4}' --arg='{1,2,3,4}' "$TMP/axpy.hlo"
expect_error "missing file" "cannot read" "$TMP/missing.hlo"
head -c 3000 /dev/urandom > "$TMP/garbage.hlo"
"$XLA_RUN" "$TMP/garbage.hlo" >/dev/null 2>&1; code=$?
[[ $code -eq 1 ]] || fail "garbage input: exit code $code (want 1)"

# StableHLO text (.mlir) is imported and run the same way.
cat > "$TMP/axpy.mlir" <<'MLIR'
func.func @main(%a: tensor<f32>, %x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %ab = stablehlo.broadcast_in_dim %a, dims = [] : (tensor<f32>) -> tensor<4xf32>
  %ax = stablehlo.multiply %ab, %x : tensor<4xf32>
  %r = stablehlo.add %ax, %y : tensor<4xf32>
  return %r : tensor<4xf32>
}
MLIR
for backend in interpreter cpu; do
  out=$("$XLA_RUN" --backend=$backend --arg='f32[] 2' --arg='f32[4] {1,2,3,4}' --arg='f32[4] {10,20,30,40}' "$TMP/axpy.mlir" 2>"$TMP/err")
  [[ $? -eq 0 && "$out" == "f32[4] {12, 24, 36, 48}" ]] || fail "axpy.mlir on $backend printed '$out' ($(cat "$TMP/err"))"
done
printf 'func.func @main() {\n  %%0 = stablehlo.nope : tensor<f32>\n  return\n}\n' > "$TMP/bad.mlir"
"$XLA_RUN" "$TMP/bad.mlir" >/dev/null 2>"$TMP/err"
code=$?
[[ $code -eq 1 ]] || fail "bad.mlir: exit code $code (want 1)"
grep -q "bad.mlir:2:8: stablehlo.nope: unknown op" "$TMP/err" || fail "bad.mlir: message '$(cat "$TMP/err")'"

if [[ $failures -ne 0 ]]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "all xla_run checks passed"
