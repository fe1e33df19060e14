#!/usr/bin/env python3
"""Lists pairs of modules of one crate that import each other, and every crate's module count.

A module "imports" another when its code (tests left out) names a path into it: `crate::a::b`,
`super::x`, `self::child::y` or a child by its bare name in a `use`. Declaring a child with
`mod` is not an import. Exits 1 when a pair is found, so that scripts/test.sh can run it.

    python3 scripts/module-cycles.py [ROOT]
"""

import pathlib
import re
import sys

ROOT = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
IDENT = r"[A-Za-z_][A-Za-z0-9_]*"


def crates(root):
    for toml in sorted(root.rglob("Cargo.toml")):
        if "target" in toml.parts or "node_modules" in toml.parts:
            continue
        src = toml.parent / "src"
        if src.is_dir():
            yield toml.parent, src


def module_of(src, path):
    rel = path.relative_to(src).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] in ("lib", "main", "mod"):
        parts = parts[:-1]
    return tuple(parts)


def code_without_tests(text):
    cut = text.find("#[cfg(test)]")
    text = text if cut < 0 else text[:cut]
    text = re.sub(r"//[^\n]*", "", text)
    return text


def expand_use(tree):
    """`a::{b, c::{d}}` -> ['a::b', 'a::c::d'] (good enough for module prefixes)."""
    tree = tree.strip()
    m = re.match(r"^((?:%s::)*)\{(.*)\}$" % IDENT, tree, re.S)
    if not m:
        return [tree]
    prefix, inner = m.group(1), m.group(2)
    items, depth, cur = [], 0, ""
    for ch in inner:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        if ch == "," and depth == 0:
            items.append(cur)
            cur = ""
        else:
            cur += ch
    items.append(cur)
    out = []
    for item in items:
        if item.strip():
            out += [prefix + x for x in expand_use(item)]
    return out


def referenced_paths(module, text, children):
    paths = []
    for tree in re.findall(r"\buse\s+([^;]+);", text):
        for p in expand_use(tree):
            paths.append(p.split(" as ")[0].strip())
    paths += re.findall(r"\b((?:crate|super|self)(?:::%s)+)" % IDENT, text)
    for child in children:
        if re.search(r"(?<![:\w])%s::" % child, text):
            paths.append(child)
    resolved = []
    for p in paths:
        segs = p.split("::")
        if segs[0] == "crate":
            base, segs = (), segs[1:]
        elif segs[0] == "super":
            base = module
            while segs and segs[0] == "super":
                base, segs = base[:-1], segs[1:]
        elif segs[0] == "self":
            base, segs = module, segs[1:]
        elif segs[0] in children:
            base = module
        else:
            continue
        resolved.append(base + tuple(segs))
    return resolved


def longest_module(path, modules):
    for k in range(len(path), -1, -1):
        if path[:k] in modules:
            return path[:k]
    return ()


def cycles_in(src):
    files = {module_of(src, f): f for f in src.rglob("*.rs")}
    modules = set(files)
    edges = {}
    for mod, f in files.items():
        text = code_without_tests(f.read_text())
        children = {m[-1] for m in modules if m[:-1] == mod and len(m) == len(mod) + 1}
        targets = set()
        for p in referenced_paths(mod, text, children):
            t = longest_module(p, modules)
            if t != mod:
                targets.add(t)
        edges[mod] = targets
    pairs = sorted(
        {tuple(sorted((a, b))) for a, ts in edges.items() for b in ts if a in edges.get(b, ())}
    )
    return len(modules), pairs


def name(m):
    return "::".join(m) or "(root)"


def main():
    found = 0
    for crate, src in crates(ROOT):
        count, pairs = cycles_in(src)
        print(f"{crate.relative_to(ROOT) if crate != ROOT else '.'}: {count} modules, {len(pairs)} pairs")
        for a, b in pairs:
            print(f"    {name(a)} <-> {name(b)}")
        found += len(pairs)
    print(f"{found} pairs of modules that import each other")
    sys.exit(1 if found else 0)


if __name__ == "__main__":
    main()
