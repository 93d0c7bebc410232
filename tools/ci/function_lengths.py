#!/usr/bin/env python3
"""No function over --max_lines lines outside tests (the house rule; .ci/run runs it).

  python3 tools/ci/function_lengths.py [--root=DIR] [--max_lines=100] [--top=5] [FILE...]

Reads the C++ and CUDA sources git tracks under --root (or the FILEs given), leaves out tests
(*_test.cc, *_test_main.cc and anything under a testdata/ folder), and measures every function
body: the lines from the line of its opening brace to the line of its closing one, both counted.
A function is a brace block whose head (the text since the last ';', '{' or '}') has a parameter
list and is not a control statement, a lambda, an initialiser or a class, struct, union, enum or
namespace. Comments, strings, character literals and raw strings are blanked first, so braces in
them do not count. Prints the --top longest and exits 1 naming every function over the limit, 2
on bad input, 0 otherwise.
"""
import argparse
import re
import subprocess
import sys

SOURCE_SUFFIXES = (".cc", ".cu", ".h", ".cuh")
CONTROL = re.compile(r"\b(if|for|while|switch|catch|do|else|return)\b")
TYPE_HEAD = re.compile(r"\b(class|struct|namespace|enum|union)\b")


def blank(text):
    """The source with comments and literals replaced by spaces (newlines kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
        elif text.startswith('R"', i) and re.match(r'R"([^(\s]*)\(', text[i:]):
            delim = re.match(r'R"([^(\s]*)\(', text[i:]).group(1)
            j = text.find(")" + delim + '"', i)
            j = n if j < 0 else j + len(delim) + 2
        elif text[i] in "\"'":
            quote, j = text[i], i + 1
            while j < n and text[j] != quote and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
        else:
            out.append(text[i])
            i += 1
            continue
        out.append(re.sub(r"[^\n]", " ", text[i:j]))
        i = j
    return "".join(out)


def is_function_head(head):
    head = " ".join(head.split())
    if "(" not in head or ")" not in head:
        return False
    before_params = head.split("(")[0]
    if CONTROL.search(before_params + " ") or TYPE_HEAD.search(head):
        return False
    if "=" in before_params or re.search(r"\]\s*(\(|$)", head) or re.search(r"(return|=|,|\()\s*\[", head):
        return False  # an initialiser or a lambda
    return not head.rstrip().endswith(("=", ","))


def function_lengths(text):
    """[(lines, first line, head)] of the outermost functions in `text`."""
    src = blank(text)
    found, stack, last = [], [], 0
    for i, c in enumerate(src):
        if c == "{":
            stack.append((i, is_function_head(src[last:i]), " ".join(src[last:i].split())))
            last = i + 1
        elif c == "}":
            if stack:
                start, is_function, head = stack.pop()
                if is_function and not any(frame[1] for frame in stack):
                    first = src.count("\n", 0, start) + 1
                    found.append((src.count("\n", 0, i) + 2 - first, first, head))
            last = i + 1
        elif c == ";":
            last = i + 1
    return found


def is_test(path):
    return path.endswith(("_test.cc", "_test_main.cc")) or "/testdata/" in path or path.startswith("testdata/")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--root", default=".")
    p.add_argument("--max_lines", type=int, default=100)
    p.add_argument("--top", type=int, default=5)
    p.add_argument("files", nargs="*")
    a = p.parse_args()
    if a.max_lines < 1:
        print(f"function_lengths: --max_lines={a.max_lines} is invalid: must be >= 1", file=sys.stderr)
        return 2
    files = a.files
    if not files:
        listed = subprocess.run(["git", "ls-files"], cwd=a.root, capture_output=True, text=True)
        if listed.returncode != 0:
            print(f"function_lengths: git ls-files failed in {a.root}: {listed.stderr.strip()}", file=sys.stderr)
            return 2
        files = [f for f in listed.stdout.split() if f.endswith(SOURCE_SUFFIXES) and not is_test(f)]
    every = []
    for f in files:
        try:
            with open(f if a.files else f"{a.root}/{f}", encoding="utf-8", errors="replace") as fh:
                text = fh.read()
        except OSError as e:
            print(f"function_lengths: cannot read {f}: {e.strerror}", file=sys.stderr)
            return 2
        every += [(n, f, line, head) for n, line, head in function_lengths(text)]
    every.sort(key=lambda x: (-x[0], x[1], x[2]))
    print(f"function_lengths: {len(every)} functions in {len(files)} files; the {min(a.top, len(every))} longest:")
    for n, f, line, head in every[: a.top]:
        print(f"  {n:4d} lines  {f}:{line}  {head[:80]}")
    over = [x for x in every if x[0] > a.max_lines]
    for n, f, line, head in over:
        print(f"function_lengths: {f}:{line}: {n} lines, over {a.max_lines}: {head[:80]}")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
