#!/usr/bin/env python3
"""Names that two .cpp files of one build target both define file-locally.

The build is a unity build (CMakeLists.txt: several .cpp of a target compiled as one file), so
two .cpp of one target that each define `toml()` or `struct Case` in an anonymous namespace (or
`static`) fail to compile as soon as a new file moves them into the same batch. This lists every
such pair, whatever the batches are today; it exits 1 if there is one.

A declaration is one that starts a line (no indentation) inside a file-scope `namespace {` or
with `static`: a struct, class or enum, or a function or variable. Targets, as the CMakeLists
define them: one per folder under models/ (not its subfolders), one per area under tests/ and per
folder under scenarios/ (with their subfolders), sim/ and viz/.

    scripts/unity-names.py [REPOSITORY]
"""
import collections
import os
import re
import sys

DECLARATION = re.compile(
    r'^(?:static\s+)?(?:inline\s+)?(?:constexpr\s+|const\s+)*(?:struct|class|enum class|enum)\s+(\w+)'
    r'|^(?:static\s+)?(?:constexpr\s+|const\s+|inline\s+)*[\w:<>,\s*&]+?[\s*&](\w+)\s*(?:\(|=|\[|\{)')


LITERALS = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|//.*')


def file_local_names(path):
    names = set()
    depth = 0  # braces open before this line (string literals and comments left out)
    anonymous_at = None  # the depth inside the file-scope anonymous namespace, while in it
    with open(path, errors='replace') as f:
        for line in f:
            line = line.rstrip('\n')
            at = depth
            code = LITERALS.sub('', line)
            depth += code.count('{') - code.count('}')
            if anonymous_at is not None and depth < anonymous_at:
                anonymous_at = None
                continue
            if at == 0 and re.match(r'^namespace\s*\{', line):
                anonymous_at = 1
                continue
            if not line or line[0].isspace() or line.startswith('using '):
                continue
            if (anonymous_at is not None and at == anonymous_at) or (at == 0 and line.startswith('static ')):
                m = DECLARATION.match(line)
                name = m and (m.group(1) or m.group(2))
                if name and name not in ('operator', 'main'):
                    names.add(name)
    return names


def target_of(rel):
    parts = rel.split('/')[:-1]
    if not parts:
        return None
    if parts[0] == 'models':
        return '/'.join(parts)  # one library per folder
    if parts[0] in ('tests', 'scenarios'):
        return '/'.join(parts[:2])  # one program or library per area, subfolders included
    if parts[0] in ('sim', 'viz'):
        return parts[0]
    return None  # bench/ and fuzz/: one program per file


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    targets = collections.defaultdict(list)
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(('build', '.'))]
        for f in files:
            if f.endswith('.cpp'):
                rel = os.path.relpath(os.path.join(folder, f), root)
                target = target_of(rel)
                if target:
                    targets[target].append(rel)
    shared = 0
    for target, files in sorted(targets.items()):
        where = collections.defaultdict(list)
        for rel in sorted(files):
            for name in file_local_names(os.path.join(root, rel)):
                where[name].append(rel)
        for name, files_with_it in sorted(where.items()):
            if len(files_with_it) > 1:
                shared += 1
                print(f"{target}: '{name}' is file-local in {' and '.join(files_with_it)}: "
                      f"rename it in all but one (a unity build compiles them as one file)")
    return 1 if shared else 0


if __name__ == '__main__':
    sys.exit(main())
