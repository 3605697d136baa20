#!/usr/bin/env python3
"""Rewrites citations of the old spec and decisions files (SPEC or DECISIONS, a section sign and a number) into
docs/product.md section references.

    python3 scripts/cite-product.py            # rewrite the tree, list what changed, report leftovers
    python3 scripts/cite-product.py --check    # change nothing; exit 1 while an old citation is left
    python3 scripts/cite-product.py --dry-run  # print each rewrite (path:line: old -> new), change nothing

The mapping is docs/.citation-map.json: for each citation form (SPEC 5, DECISIONS 12, with the section sign) a
default section and refinements ([regex, section], first match wins, tried case-insensitively against
"<path>\\t<line>"), and the old named sections of docs/product.md ('docs/product.md "Redemption"') with their
numbers. Idempotent: a second run finds nothing to do. Only files tracked by git (and new untracked ones) under
the searched paths are read.
"""
import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAP_FILE = ROOT / 'docs' / '.citation-map.json'
SEARCHED = ['backend', 'frontend', 'test', 'bench', 'scripts', 'docs', 'README.md', '.env.example']
SKIPPED = {'docs/.citation-map.json', 'scripts/cite-product.py'}
TEXT_SUFFIXES = {'.ts', '.tsx', '.js', '.mjs', '.cjs', '.mts', '.md', '.json', '.example', '.sql', '.sh', '.yml', '.yaml', '.html', '.py', '.css'}

NUM = r'§\d+(?:\.\d+)?'
CITATION = re.compile(r'\b(SPEC|DECISIONS) (' + NUM + r')((?:(?:/| / |, | and | or )' + NUM + r')*)')
PART = re.compile(r'(/| / |, | and | or )?(' + NUM + r')')
STRICT = re.compile(r'(SPEC|DECISIONS) §|(SPEC|DECISIONS)\.md|\.\./shared')
BARE = re.compile(r'\b(SPEC|DECISIONS)\b')


def load_map():
    data = json.loads(MAP_FILE.read_text(encoding='utf-8'))
    prefix = data['prefix']
    citations = {
        key: (entry['default'], [(re.compile(rx, re.I), sec) for rx, sec in entry.get('refine', [])])
        for key, entry in data['citations'].items()
    }
    return prefix, citations, data.get('named', {})


def files():
    out = subprocess.run(
        ['git', 'ls-files', '--cached', '--others', '--exclude-standard', '--', *SEARCHED],
        cwd=ROOT, check=True, capture_output=True, text=True,
    ).stdout.splitlines()
    for rel in sorted(set(out)):
        path = ROOT / rel
        if rel in SKIPPED or not path.is_file():
            continue
        if path.suffix not in TEXT_SUFFIXES and path.name not in {'.env.example'}:
            continue
        yield rel, path


def section_for(kind, num, rel, line, citations, unknown):
    key = f'{kind} {num}'
    if key not in citations and '.' in num:
        key = f'{kind} {num.split(".")[0]}'
    if key not in citations:
        unknown.add(f'{kind} {num}')
        return None
    default, rules = citations[key]
    probe = f'{rel}\t{line}'
    for rx, sec in rules:
        if rx.search(probe):
            return sec
    return default


def rewrite_line(line, rel, prefix, citations, named, unknown):
    def one(match):
        kind = match.group(1)
        parts = [(None, match.group(2))] + [(m.group(1), m.group(2)) for m in PART.finditer(match.group(3))]
        out, seen = [], []
        for sep, num in parts:
            sec = section_for(kind, num, rel, line, citations, unknown)
            if sec is None:
                return match.group(0)
            if sec in seen:
                continue
            seen.append(sec)
            out.append((sep, sec))
        text = prefix + ' ' + out[0][1]
        for sep, sec in out[1:]:
            text += (sep or ', ') + sec
        return text

    new = CITATION.sub(one, line)
    # 'docs/product.md "Counts"', 'docs/product.md, "Erasure", "Your data"' → 'docs/product.md §3.16', '… §21.3'
    def by_name(match):
        names = re.findall(r'"([^"]+)"', match.group(1))
        if not all(name in named for name in names):
            return match.group(0)
        secs = list(dict.fromkeys(named[name] for name in names))
        return f'{prefix} ' + ', '.join(secs)

    new = re.sub(re.escape(prefix) + r',? ("[^"]+"(?:, "[^"]+")*)', by_name, new)
    # Two references in a row: 'docs/product.md §9, docs/product.md §11' → 'docs/product.md §9, §11'
    joined = re.compile(re.escape(prefix) + r' (' + NUM + r')((?:, | / |/| and | or |; ))' + re.escape(prefix) + r' (?=§)')
    while True:
        collapsed = joined.sub(lambda m: f'{prefix} {m.group(1)}{m.group(2)}', new)
        if collapsed == new:
            break
        new = collapsed
    return new


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--check', action='store_true', help='change nothing; exit 1 while old citations remain')
    parser.add_argument('--dry-run', action='store_true', help='print the rewrites, change nothing')
    args = parser.parse_args()
    prefix, citations, named = load_map()
    unknown, changed, leftovers, bare = set(), 0, [], []
    for rel, path in files():
        try:
            text = path.read_text(encoding='utf-8')
        except UnicodeDecodeError:
            continue
        lines = text.split('\n')
        new_lines = []
        for i, line in enumerate(lines, 1):
            new = line if args.check else rewrite_line(line, rel, prefix, citations, named, unknown)
            if new != line:
                changed += 1
                if args.dry_run:
                    print(f'{rel}:{i}:\n  - {line.strip()}\n  + {new.strip()}')
            if STRICT.search(new):
                leftovers.append(f'{rel}:{i}: {new.strip()}')
            elif re.search(re.escape(prefix) + r',? "', new):
                bare.append(f'{rel}:{i}: {new.strip()}  [a named section not in the map]')
            elif BARE.search(new):
                bare.append(f'{rel}:{i}: {new.strip()}')
            new_lines.append(new)
        if not args.check and not args.dry_run and new_lines != lines:
            path.write_text('\n'.join(new_lines), encoding='utf-8')
    if not args.check:
        print(f'{changed} line(s) {"would be " if args.dry_run else ""}rewritten')
    for key in sorted(unknown):
        print(f'not in the map (left as is): {key}', file=sys.stderr)
    for item in leftovers:
        print(f'old citation left: {item}', file=sys.stderr)
    for item in bare:
        print(f'reword by hand: {item}', file=sys.stderr)
    if args.check and (leftovers or unknown):
        sys.exit(1)


if __name__ == '__main__':
    main()
