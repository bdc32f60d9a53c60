#!/usr/bin/env python3
"""Lists functions in cellsim/ (and include/cellsim/) longer than a limit.

  scripts/check_function_length.py [--limit 120] [--known FILE] [PATH...]

--known FILE lists functions already over the limit, one `path name` a line
(scripts/function_length_known.txt): they are reported but do not fail the
check, so CI stops new ones while the known ones wait to be split.

A careful brace counter: comments, string and character literals (raw strings
too) are blanked first; then every '{' met outside a function body is classed
by the text before it (since the previous ';', '{' or '}'): namespace, class,
struct, union, enum, extern "C" and '=' initialisers open scopes that may hold
functions; anything else ending in ')' [qualifiers] or an initialiser list opens
a function body, which runs to its matching '}' (lambdas and blocks inside it
count towards it). A function's length is from the line its signature starts
on to its closing brace, inclusive. Exit status 1 when one is over the limit.
"""
import argparse
import os
import re
import sys

SCOPE_RE = re.compile(r'\b(namespace|class|struct|union|enum)\b|extern\s*"C"|=\s*$')


def blank(src):
    """Replaces comments and literals with spaces, keeping newlines."""
    out = []
    i, n = 0, len(src)
    while i < n:
        c = src[i]
        if src.startswith('//', i):
            j = src.find('\n', i)
            j = n if j < 0 else j
            out.append(' ' * (j - i))
            i = j
        elif src.startswith('/*', i):
            j = src.find('*/', i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r'[^\n]', ' ', src[i:j]))
            i = j
        elif c == 'R' and src.startswith('R"', i) and (i == 0 or not (src[i - 1].isalnum() or src[i - 1] == '_')):
            m = re.match(r'R"([^(\s]*)\(', src[i:])
            if not m:
                out.append(c)
                i += 1
                continue
            end = ')' + m.group(1) + '"'
            j = src.find(end, i + m.end())
            j = n if j < 0 else j + len(end)
            out.append(re.sub(r'[^\n]', ' ', src[i:j]))
            i = j
        elif c in '"\'':
            # A digit separator (1'000) is not a character literal.
            if c == "'" and i > 0 and src[i - 1].isalnum() and i + 1 < n and src[i + 1].isalnum():
                out.append(' ')
                i += 1
                continue
            j = i + 1
            while j < n and src[j] != c:
                j += 2 if src[j] == '\\' else 1
            j = min(j + 1, n)
            out.append(re.sub(r'[^\n]', ' ', src[i:j]))
            i = j
        else:
            out.append(c)
            i += 1
    return ''.join(out)


def functions(path):
    """Yields (name, first_line, last_line) of each function body in `path`."""
    text = blank(open(path, encoding='utf-8', errors='replace').read())
    # Preprocessor lines do not count as code.
    text = re.sub(r'(?m)^[ \t]*#.*(\\\n.*)*$', lambda m: re.sub(r'[^\n]', ' ', m.group(0)), text)
    stack = []          # kinds of the open braces: 'scope', 'body', 'block'
    start = 0           # offset where the current declaration's text starts
    body_start = None   # (name, line) of the function whose body is open
    line_of = lambda off: text.count('\n', 0, off) + 1
    for i, c in enumerate(text):
        if c == '{':
            if 'body' in stack:
                stack.append('block')
            else:
                head = text[start:i].strip()
                if SCOPE_RE.search(head) or not head or head.endswith(','):
                    stack.append('scope')
                elif re.search(r'\)\s*(const|noexcept|override|final|mutable|->\s*[\w:<>,\s*&]+|\s)*$', head) \
                        or re.search(r'\)\s*:\s*[\s\S]*$', head):
                    m = re.search(r'([~\w:]+(?:operator\s*\S+)?)\s*\(', head)
                    name = m.group(1) if m else '?'
                    first = line_of(start + (len(text[start:i]) - len(text[start:i].lstrip())))
                    body_start = (name, first)
                    stack.append('body')
                else:
                    stack.append('scope')  # brace initialisers at namespace scope
            start = i + 1
        elif c == '}':
            kind = stack.pop() if stack else 'scope'
            if kind == 'body' and body_start is not None:
                yield body_start[0], body_start[1], line_of(i)
                body_start = None
            start = i + 1
        elif c == ';' and 'body' not in stack:
            start = i + 1


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--limit', type=int, default=120)
    ap.add_argument('--known', help='file of `path name` lines allowed over the limit')
    ap.add_argument('paths', nargs='*', default=['cellsim', 'include/cellsim'])
    a = ap.parse_args()
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
    known = set()
    if a.known:
        for line in open(a.known):
            if line.strip() and not line.startswith('#'):
                known.add(tuple(line.split()[:2]))
    over = []
    for root in a.paths:
        files = [root] if os.path.isfile(root) else [
            os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs if f.endswith(('.cc', '.h'))]
        for f in sorted(files):
            for name, first, last in functions(f):
                if last - first + 1 > a.limit:
                    over.append((last - first + 1, f, first, name))
    new = 0
    for length, f, first, name in sorted(over, reverse=True):
        tag = ' [known, to split]' if (f, name) in known else ''
        new += not tag
        print(f'{f}:{first}: {name} is {length} lines (limit {a.limit}){tag}')
    if new:
        print(f'check_function_length: {new} function(s) over {a.limit} lines', file=sys.stderr)
        return 1
    if over:
        print(f'check_function_length: only the {len(over)} known function(s) over {a.limit} lines')
        return 0
    print(f'check_function_length: no function over {a.limit} lines')
    return 0


if __name__ == '__main__':
    sys.exit(main())
