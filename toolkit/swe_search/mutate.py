"""Program mutations of one source line: operator, comparison and constant tweaks, negated conditions,
swapped arguments and off-by-one bounds. Each mutation is the line's new text."""

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


def token_mutations(line: str) -> tuple[list[str], list[str], list[str]]:
    """(relational/boolean swaps, constant tweaks, arithmetic swaps)."""
    rel, num, arith = [], [], []
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
            target = rel if tok.string in RELATIONAL else arith
            target += [_replace(line, s, e, alt) for alt in SWAPS[tok.string]]
        elif tok.type == tokenize.NUMBER and tok.string.isdigit():
            n = int(tok.string)
            num += [_replace(line, s, e, str(v)) for v in (n + 1, n - 1) if v >= 0]
    return rel, num, arith


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
    swaps, constant tweaks, negated conditions / swapped arguments / off-by-one bounds, arithmetic swaps."""
    line = line.rstrip("\n")
    if not line.strip() or line.strip().startswith("#"):
        return []
    rel, num, arith = token_mutations(line)
    seen, out = {line}, []
    for new in rel + num + structural_mutations(line) + arith:
        if new not in seen:
            seen.add(new)
            out.append(new)
    return out
