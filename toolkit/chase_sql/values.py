"""Value retrieval: a MinHash LSH index over character n-grams of the database's text values.

The index is stored next to the database (`<db>.chase-index/`) and keyed by the file's hash;
when the file changes only columns whose values changed are re-hashed (incremental). Lookup:
LSH candidates for each keyword, re-ranked by edit similarity (rapidfuzz) and, when an
embedding function is given, by cosine similarity of embeddings.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
import sqlite3
import struct
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from toolkit.chase_sql.executor import open_database

INDEX_VERSION = 2
_SKIP_NAME = re.compile(r"(^id$|_id$|^id_|uuid|url|link|email|e_mail|date|time|phone|zip|postal)", re.I)
_SKIP_VALUE = re.compile(
    r"^(https?://\S+|www\.\S+|\S+@\S+\.\S+|[-+]?\d+([.,]\d+)*%?"
    r"|\d{4}-\d{2}-\d{2}([ T][\d:.]+)?|\d{1,2}/\d{1,2}/\d{2,4})$")
_TEXT_TYPES = ("CHAR", "CLOB", "TEXT", "")


def file_hash(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def shingles(value: str, n: int = 3) -> list[bytes]:
    text = " ".join(value.lower().split())
    if len(text) <= n:
        return [text.encode("utf-8")]
    return [text[i:i + n].encode("utf-8") for i in range(len(text) - n + 1)]


def lsh_keys(value: str) -> list[str]:
    """A value is findable by itself and by each of its longer words (partial names, single terms)."""
    words = [w for w in re.findall(r"\w+", value) if len(w) >= 4]
    return [value] + [w for w in dict.fromkeys(words) if w != value] if len(words) > 1 else [value]


def keep_value(value: object) -> bool:
    if not isinstance(value, str):
        return False
    text = value.strip()
    return 1 < len(text) <= 100 and not _SKIP_VALUE.match(text)


def text_columns(conn: sqlite3.Connection) -> list[tuple[str, str]]:
    """(table, column) pairs worth indexing: text typed, not keys, not ids/urls/emails/dates."""
    out = []
    tables = [r[0] for r in conn.execute(
        "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%' ORDER BY rowid")]
    for table in tables:
        for _cid, name, ctype, _nn, _d, pk in conn.execute(f'PRAGMA table_info("{table}")').fetchall():
            if pk or _SKIP_NAME.search(name):
                continue
            if not any(t in (ctype or "").upper() for t in _TEXT_TYPES if t) and (ctype or "") != "":
                continue
            out.append((table, name))
    return out


@dataclass
class ValueMatch:
    table: str
    column: str
    value: str
    keyword: str
    score: float
    edit: float
    embed: float | None = None

    def to_json(self) -> dict:
        return {"table": self.table, "column": self.column, "value": self.value, "keyword": self.keyword,
                "score": round(self.score, 4)}


@dataclass
class ValueIndex:
    db_path: Path
    entries: list[tuple[str, str, str]]
    hashes: np.ndarray  # (K, num_perm) MinHash signatures of the LSH keys
    owners: np.ndarray  # (K,) the entry each key belongs to
    num_perm: int = 64
    ngram: int = 3
    threshold: float = 0.2
    seconds: float = 0.0
    rehashed: int = 0
    _bands: np.ndarray | None = field(default=None, repr=False)

    def params(self) -> tuple[int, int]:
        """(bands, rows per band) for the threshold, as datasketch's MinHashLSH chooses them."""
        return lsh_params(self.threshold, self.num_perm)

    def bands(self) -> np.ndarray:
        """(K, bands) band keys: the LSH table as one array, built in one vectorized pass."""
        if self._bands is None:
            b, r = self.params()
            self._bands = band_keys(self.hashes, b, r)
        return self._bands

    def candidates(self, keyword: str) -> list[int]:
        """Entries sharing at least one band with the keyword's MinHash (the LSH candidates)."""
        if not self.entries:
            return []
        b, r = self.params()
        q = band_keys(minhash(keyword, self.num_perm, self.ngram)[None, :], b, r)[0]
        keys = np.flatnonzero((self.bands() == q).any(axis=1))
        return sorted({int(k) for k in self.owners[keys]})

    def lookup(self, keywords: Sequence[str], *, top_k: int = 5, min_score: float = 0.6,
               embed: Callable[[list[str]], np.ndarray] | None = None) -> list[ValueMatch]:
        """Relevant values for the keywords, best first, at most `top_k` per keyword."""
        from rapidfuzz import fuzz

        found: dict[tuple[str, str, str], ValueMatch] = {}
        for keyword in dict.fromkeys(k.strip() for k in keywords if k and k.strip()):
            idx = self.candidates(keyword)
            if not idx:
                continue
            values = [self.entries[i][2] for i in idx]
            edit = np.array([fuzz.ratio(keyword.lower(), v.lower()) / 100.0 for v in values])
            partial = np.array([fuzz.partial_ratio(keyword.lower(), v.lower()) / 100.0 for v in values])
            edit = np.maximum(edit, 0.9 * partial)
            score = edit
            cos = None
            if embed is not None:
                vecs = np.asarray(embed([keyword, *values]), dtype=float)
                vecs = vecs / np.maximum(np.linalg.norm(vecs, axis=1, keepdims=True), 1e-8)
                cos = vecs[1:] @ vecs[0]
                score = 0.5 * edit + 0.5 * cos
            order = sorted(range(len(idx)), key=lambda j: (-score[j], values[j]))[:top_k]
            for j in order:
                if score[j] < min_score:
                    continue
                t, c, v = self.entries[idx[j]]
                match = ValueMatch(t, c, v, keyword, float(score[j]), float(edit[j]),
                                   None if cos is None else float(cos[j]))
                key = (t, c, v)
                if key not in found or found[key].score < match.score:
                    found[key] = match
        return sorted(found.values(), key=lambda m: (-m.score, m.table, m.column, m.value))


_MIX = np.uint64(0x100000001B3)


def band_keys(hashes: np.ndarray, b: int, r: int) -> np.ndarray:
    """One 64-bit key per band: the band's r hash values mixed together (FNV-style, wrapping)."""
    h = hashes[:, : b * r].astype(np.uint64).reshape(len(hashes), b, r)
    key = np.full((len(hashes), b), np.uint64(0xCBF29CE484222325), dtype=np.uint64)
    with np.errstate(over="ignore"):
        for i in range(r):
            key = (key ^ h[:, :, i]) * _MIX
    return key


@functools.cache
def lsh_params(threshold: float, num_perm: int) -> tuple[int, int]:
    """(bands b, rows r) minimising false positives + false negatives around `threshold` (equal weights).

    The S-curve 1 - (1 - s^r)^b is integrated below the threshold (false positives) and above it
    (false negatives), as in Mining of Massive Datasets ch. 3 and datasketch's MinHashLSH.
    """
    from scipy.integrate import quad

    def error(b: int, r: int) -> float:
        fp = quad(lambda s: 1 - (1 - s ** float(r)) ** float(b), 0.0, threshold)[0]
        fn = quad(lambda s: (1 - s ** float(r)) ** float(b), threshold, 1.0)[0]
        return 0.5 * fp + 0.5 * fn

    best, best_err = (0, 0), float("inf")
    for b in range(1, num_perm + 1):
        for r in range(1, num_perm // b + 1):
            err = error(b, r)
            if err < best_err:
                best, best_err = (b, r), err
    return best


@functools.cache
def permutations(num_perm: int, seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Affine permutations h -> a h + b (mod 2^32) with odd a, one pair per signature slot.

    Drawn as datasketch 2.x draws its default "affine32" scheme, so signatures equal MinHash(seed=seed).
    """
    gen = np.random.RandomState(seed)
    a = gen.randint(0, 1 << 31, num_perm, dtype=np.uint32) * np.uint32(2) + np.uint32(1)
    b = gen.randint(0, 1 << 32, num_perm, dtype=np.uint32)
    return a, b


def _fmix32(h: np.ndarray) -> np.ndarray:
    """MurmurHash3's 32-bit finalizer: a fixed bijection that spreads the input hashes before the permutations."""
    h = h ^ (h >> np.uint32(16))
    h = h * np.uint32(0x85EBCA6B)
    h = h ^ (h >> np.uint32(13))
    h = h * np.uint32(0xC2B2AE35)
    return h ^ (h >> np.uint32(16))


def hash32(data: bytes) -> int:
    """The first 4 bytes of SHA-1, little-endian (datasketch's sha1_hash32)."""
    return struct.unpack("<I", hashlib.sha1(data).digest()[:4])[0]


def minhash(value: str, num_perm: int = 64, ngram: int = 3) -> np.ndarray:
    """The MinHash signature of one value's character n-grams."""
    return signatures([value], num_perm, ngram)[0]


def signatures(values: Sequence[str], num_perm: int = 64, ngram: int = 3) -> np.ndarray:
    """(len(values), num_perm) MinHash signatures, all values hashed in one vectorized pass per chunk."""
    if not values:
        return np.zeros((0, num_perm), dtype=np.uint32)
    grams = [shingles(v, ngram) for v in values]
    starts = np.cumsum([0] + [len(g) for g in grams[:-1]])
    hv = _fmix32(np.array([hash32(s) for g in grams for s in g], dtype=np.uint32)).reshape(-1, 1)
    a, b = permutations(num_perm)
    out = np.empty((len(values), num_perm), dtype=np.uint32)
    chunk = 20000  # bounded memory: (shingles x num_perm) per chunk of values
    for lo in range(0, len(values), chunk):
        hi = min(lo + chunk, len(values))
        s_lo = starts[lo]
        s_hi = starts[hi] if hi < len(values) else len(hv)
        phv = a * hv[s_lo:s_hi] + b  # uint32 arithmetic: the wrap-around is the mod 2^32
        out[lo:hi] = np.minimum.reduceat(phv, starts[lo:hi] - s_lo, axis=0)
    return out


def index_dir(db_path: Path, cache_dir: Path | None = None) -> Path:
    if cache_dir is not None:
        return Path(cache_dir) / f"{db_path.stem}-{hashlib.sha256(str(db_path.resolve()).encode()).hexdigest()[:8]}"
    return db_path.with_name(db_path.name + ".chase-index")


def read_column_values(db_path: Path) -> dict[str, list[str]]:
    conn = open_database(db_path)
    try:
        out = {}
        for table, column in text_columns(conn):
            rows = conn.execute(f'SELECT DISTINCT "{column}" FROM "{table}" WHERE "{column}" IS NOT NULL')
            vals = sorted({str(r[0]).strip() for r in rows if keep_value(r[0])})
            if vals:
                out[f"{table}\t{column}"] = vals
        return out
    finally:
        conn.close()


def build_index(db_path: str | Path, *, cache_dir: Path | None = None, num_perm: int = 64, ngram: int = 3,
                threshold: float = 0.2, force: bool = False) -> ValueIndex:
    """Load the cached index when the DB file is unchanged; otherwise (re)hash changed columns only."""
    db_path = Path(db_path)
    start = time.perf_counter()
    where = index_dir(db_path, cache_dir)
    digest = file_hash(db_path)
    meta_path, entries_path, hashes_path = where / "meta.json", where / "values.json", where / "minhash.npy"
    owners_path = where / "owners.npy"
    old_meta, old_entries, old_hashes, old_owners = None, [], None, None
    if not force and meta_path.is_file():
        try:
            old_meta = json.loads(meta_path.read_text())
            old_entries = [tuple(e) for e in json.loads(entries_path.read_text())]
            old_hashes, old_owners = np.load(hashes_path), np.load(owners_path)
        except (OSError, ValueError):
            old_meta = None
    same_params = bool(old_meta) and old_meta.get("version") == INDEX_VERSION and \
        old_meta.get("num_perm") == num_perm and old_meta.get("ngram") == ngram
    if same_params and old_meta.get("file_hash") == digest:
        return ValueIndex(db_path, old_entries, old_hashes, old_owners, num_perm, ngram, threshold,
                          time.perf_counter() - start, 0)
    columns = read_column_values(db_path)
    reuse: dict[str, tuple[int, int, str]] = {}
    if same_params:
        offset = 0
        for key, info in old_meta.get("columns", {}).items():
            reuse[key] = (offset, info["keys"], info["digest"])
            offset += info["keys"]
    entries: list[tuple[str, str, str]] = []
    blocks, owner_blocks, meta_cols, rehashed = [], [], {}, 0
    for key, vals in columns.items():
        col_digest = hashlib.sha256("\n".join(vals).encode("utf-8")).hexdigest()
        table, column = key.split("\t")
        keys = [(i, k) for i, v in enumerate(vals) for k in lsh_keys(v)]
        prior = reuse.get(key)
        if prior is not None and prior[2] == col_digest and old_hashes is not None:
            blocks.append(old_hashes[prior[0]:prior[0] + prior[1]])
        else:
            blocks.append(signatures([k for _, k in keys], num_perm, ngram))
            rehashed += len(vals)
        owner_blocks.append(np.array([len(entries) + i for i, _ in keys], dtype=np.int64))
        entries.extend((table, column, v) for v in vals)
        meta_cols[key] = {"digest": col_digest, "count": len(vals), "keys": len(keys)}
    hashes = np.concatenate(blocks) if blocks else np.zeros((0, num_perm), dtype=np.uint64)
    owners = np.concatenate(owner_blocks) if owner_blocks else np.zeros(0, dtype=np.int64)
    meta = {"version": INDEX_VERSION, "file_hash": digest, "num_perm": num_perm, "ngram": ngram,
            "n_values": len(entries), "n_keys": len(owners), "columns": meta_cols}
    try:
        where.mkdir(parents=True, exist_ok=True)
        np.save(hashes_path, hashes)
        np.save(owners_path, owners)
        entries_path.write_text(json.dumps(entries, ensure_ascii=False))
        meta_path.write_text(json.dumps(meta, indent=1))
    except OSError:
        pass  # a read-only location: the index still works in memory
    return ValueIndex(db_path, entries, hashes, owners, num_perm, ngram, threshold, time.perf_counter() - start,
                      rehashed)
