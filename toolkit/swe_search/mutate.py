"""Program mutations of one source line: operator, comparison and constant tweaks at every site of the line,
negated conditions, swapped arguments, off-by-one bounds and two-token edits. Each mutation is the line's
new text."""

from __future__ import annotations

import ast
import io
import keyword
import tokenize

SWAPS = {
    "+": ["-", "*"], "-": ["+"], "*": ["+", "/"], "/": ["*", "//"], "//": ["/"], "%": ["//"],
    "+=": ["-="], "-=": ["+="], "*=": ["/="], "/=": ["*="],
    "<": ["<=", ">", ">="], "<=": ["<", ">=", ">"], ">": [">=", "<", "<="], ">=": [">", "<=", "<"],
    "==": ["!="], "!=": ["=="], "and": ["or"], "or": ["and"], "True": ["False"], "False": ["True"],
}


def _tokens(line: str) -> list[tokenize.TokenInfo]:
    out = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(line).readline):
            out.append(tok)
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass
    return out


def _replace(line: str, start: int, end: int, text: str) -> str:
    return line[:start] + text + line[end:]


RELATIONAL = {"<", "<=", ">", ">=", "==", "!=", "and", "or", "True", "False"}


PAIR_CAP = 6  # two-token edits per line: enough for two comparisons and a constant, still bounded


def token_sites(line: str) -> list[tuple[int, int, list[str], str]]:
    """Every mutable token of the line: (start, end, replacements in order of preference, kind), kind one of
    rel (comparison / boolean), num (integer constant), arith (operator). The first replacement of a
    comparison is its boundary flip (< <-> <=, > <-> >=)."""
    sites = []
    prev = None
    for tok in _tokens(line):
        if tok.start[0] != 1:
            continue
        s, e = tok.start[1], tok.end[1]
        unary = tok.string in ("-", "+") and (prev is None or prev.type == tokenize.INDENT or (
            prev.type == tokenize.OP and prev.string not in (")", "]", "}")) or (
            prev.type == tokenize.NAME and keyword.iskeyword(prev.string) and prev.string not in ("True", "False",
                                                                                                "None")))
        prev = tok
        if unary:
            continue
        if (tok.type == tokenize.OP or tok.type == tokenize.NAME) and tok.string in SWAPS:
            sites.append((s, e, list(SWAPS[tok.string]), "rel" if tok.string in RELATIONAL else "arith"))
        elif tok.type == tokenize.NUMBER and tok.string.isdigit():
            n = int(tok.string)
            sites.append((s, e, [str(v) for v in (n + 1, n - 1) if v >= 0], "num"))
    return sites


def _by_rank(line: str, sites) -> list[str]:
    """The first replacement of every site, then the second of every site, ...: a fix on the line's second
    comparison comes right after the first comparison's boundary flip, not after all of its swaps."""
    depth = max((len(alts) for _, _, alts, _ in sites), default=0)
    return [_replace(line, s, e, alts[k]) for k in range(depth) for s, e, alts, _ in sites if k < len(alts)]


def token_mutations(line: str) -> tuple[list[str], list[str], list[str]]:
    """(relational/boolean swaps, constant tweaks, arithmetic swaps), each ranked across the line's sites."""
    sites = token_sites(line)
    return tuple(_by_rank(line, [x for x in sites if x[3] == kind]) for kind in ("rel", "num", "arith"))


def pair_mutations(line: str, cap: int = PAIR_CAP) -> list[str]:
    """Two-token edits: the first replacement of two different comparison / constant sites at once (e.g. both
    bounds of `lo < x < hi` made inclusive), nearest sites first, at most `cap`."""
    sites = [x for x in token_sites(line) if x[3] in ("rel", "num") and x[2]]
    pairs = sorted(((i, j) for i in range(len(sites)) for j in range(i + 1, len(sites))),
                   key=lambda ij: (ij[1] - ij[0], ij))
    out = []
    for i, j in pairs[:cap]:
        (s1, e1, a1, _), (s2, e2, a2, _) = sites[i], sites[j]
        out.append(_replace(_replace(line, s2, e2, a2[0]), s1, e1, a1[0]))  # the later site first: offsets hold
    return out


def _parse_line(line: str) -> ast.AST | None:
    """Parse one line as a statement (headers like `if x:` get a body so they parse)."""
    text = line.strip()
    for candidate in (text, text + " pass", text + "\n    pass"):
        try:
            return ast.parse(candidate)
        except SyntaxError:
            continue
    return None


def structural_mutations(line: str) -> list[str]:
    indent = line[: len(line) - len(line.lstrip())]
    text = line.strip()
    out = []
    for kw in ("if ", "elif ", "while "):
        if text.startswith(kw) and text.endswith(":"):
            cond = text[len(kw):-1].strip()
            if cond.startswith("not (") and cond.endswith(")"):
                out.append(f"{indent}{kw}{cond[5:-1]}:")
            elif cond.startswith("not ") and "(" not in cond[4:5]:
                out.append(f"{indent}{kw}{cond[4:]}:")
            else:
                out.append(f"{indent}{kw}not ({cond}):" if " " in cond else f"{indent}{kw}not {cond}:")
    tree = _parse_line(line)
    if tree is None:
        return out
    for node in ast.walk(tree):
        if not hasattr(node, "col_offset") or getattr(node, "lineno", 1) != 1:
            continue
        if isinstance(node, ast.Call) and len(node.args) == 2 and not node.keywords:
            a, b = node.args
            if a.lineno == b.lineno == 1 and a.end_lineno == 1 and b.end_lineno == 1:
                ta, tb = text[a.col_offset:a.end_col_offset], text[b.col_offset:b.end_col_offset]
                swapped = text[:a.col_offset] + tb + text[a.end_col_offset:b.col_offset] + ta + text[b.end_col_offset:]
                out.append(indent + swapped)
        bounds = []
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range":
            bounds = [a for a in node.args if not isinstance(a, ast.Constant)]
        elif isinstance(node, ast.Slice):
            bounds = [b for b in (node.lower, node.upper) if b is not None and not isinstance(b, ast.Constant)]
        for bnd in bounds:
            if getattr(bnd, "end_lineno", 2) != 1:
                continue
            seg = text[bnd.col_offset:bnd.end_col_offset]
            for delta in (" + 1", " - 1"):
                out.append(indent + text[:bnd.col_offset] + seg + delta + text[bnd.end_col_offset:])
    return out


def mutations(line: str) -> list[str]:
    """Distinct mutated versions of `line` (no trailing newline), in a fixed order: relational and boolean
    swaps, constant tweaks, negated conditions / swapped arguments / off-by-one bounds, arithmetic swaps,
    two-token edits. Bounded: at most 3 per comparison, 2 per constant, a few structural, PAIR_CAP pairs."""
    line = line.rstrip("\n")
    if not line.strip() or line.strip().startswith("#"):
        return []
    rel, num, arith = token_mutations(line)
    seen, out = {line}, []
    for new in rel + num + structural_mutations(line) + arith + pair_mutations(line):
        if new not in seen:
            seen.add(new)
            out.append(new)
    return out
