#!/usr/bin/env python3
"""Prints two `tools/xla bench` outputs side by side, as a Markdown table.

usage: tools/bench/compare_bench.py BEFORE.log AFTER.log

Each BENCH line's value, with its reference measured in the same run, for
both logs; the last column is after/before (for times, below 1 is faster).
A figure only one log has is shown with a dash for the other.
"""
import re
import sys

LINE = re.compile(r"^BENCH name=(\S+) value=(\S+) unit=(\S+) ref=(\S+) ref_value=(\S+)")


def read(path):
    figures = {}
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = LINE.match(line)
            if m:
                name, value, unit, ref, ref_value = m.groups()
                # A name seen twice (a figure reported per variant) keeps both.
                key = name if name not in figures else f"{name} ({sum(k.startswith(name) for k in figures) + 1})"
                figures[key] = (float(value), unit, ref, float(ref_value))
    return figures


def cell(x):
    if x != x:  # nan
        return "-"
    return f"{x:.4g}"


def main(argv):
    if len(argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    before, after = read(argv[1]), read(argv[2])
    names = list(before) + [n for n in after if n not in before]
    print("| figure | unit | before | (reference) | after | (reference) | after/before |")
    print("|---|---|---|---|---|---|---|")
    for name in names:
        b, a = before.get(name), after.get(name)
        unit = (a or b)[1]
        ref = (a or b)[2]
        bv, br = (cell(b[0]), cell(b[3])) if b else ("-", "-")
        av, ar = (cell(a[0]), cell(a[3])) if a else ("-", "-")
        ratio = cell(a[0] / b[0]) if a and b and b[0] else "-"
        print(f"| `{name}` | {unit} | {bv} | {br} {ref} | {av} | {ar} | {ratio} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
