import sqlite3

import numpy as np

from tests.support.datasketch_ref import reference_lsh, reference_minhash, reference_params, reference_signatures
from toolkit.chase_sql.values import build_index, keep_value, lsh_params, signatures


def test_vectorized_signatures_match_datasketch():
    vals = ["Nordhavn", "a", "Gabriel García Márquez", "x" * 50, "Kongens Torv", ""]
    ours = signatures(vals)
    assert ours.shape == (6, 64) and len(np.unique(ours[0])) > 50
    assert np.array_equal(ours, reference_signatures(vals))


def test_band_parameters_match_datasketch():
    for threshold, num_perm in [(0.2, 64), (0.5, 128), (0.8, 32)]:
        assert lsh_params(threshold, num_perm) == reference_params(threshold, num_perm)


def test_lsh_finds_misspelled_values(library_db, demo_dir, tmp_path):
    idx = build_index(library_db, cache_dir=tmp_path)
    top = {kw: [m.value for m in idx.lookup([kw]) if m.keyword == kw][:1] for kw in
           ["Dostoyevski", "Gabriel Garcia Marquez", "Chimamanda Adichie", "Bogota"]}
    assert top == {"Dostoyevski": ["Fyodor Dostoevsky"], "Gabriel Garcia Marquez": ["Gabriel García Márquez"],
                   "Chimamanda Adichie": ["Chimamanda Ngozi Adichie"], "Bogota": ["Bogotá"]}
    transit = build_index(demo_dir / "dev_databases" / "transit" / "transit.sqlite", cache_dir=tmp_path)
    assert transit.lookup(["Nordhaven"])[0].value == "Nordhavn"
    assert transit.lookup(["Osterbro Park"])[0].value == "Østerbro Park"


def test_skips_ids_urls_emails_dates_numbers(tmp_path):
    db = tmp_path / "t.sqlite"
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE p (code TEXT PRIMARY KEY, user_id TEXT, homepage TEXT, mail TEXT, born TEXT, "
                 "amount TEXT, city TEXT, score INTEGER)")
    conn.execute("INSERT INTO p VALUES ('K1', 'u-17', 'https://example.org/a', 'ann@example.org', '2020-01-02', "
                 "'12.5', 'Reykjavik', 5)")
    conn.commit()
    conn.close()
    idx = build_index(db, cache_dir=tmp_path / "c")
    assert idx.entries == [("p", "city", "Reykjavik")]
    assert not keep_value("42") and not keep_value("www.site.com") and keep_value("Lyon")


def test_cache_and_incremental_rebuild(tmp_path, library_db):
    db = tmp_path / "lib.sqlite"
    db.write_bytes(library_db.read_bytes())
    first = build_index(db)
    assert (tmp_path / "lib.sqlite.chase-index" / "meta.json").is_file()
    assert first.rehashed == len(first.entries) > 0
    again = build_index(db)
    assert again.rehashed == 0 and again.entries == first.entries
    conn = sqlite3.connect(db)
    conn.execute("INSERT INTO members VALUES (11, 'Zanele Mokoena', 'Durban', 2024)")
    conn.commit()
    conn.close()
    third = build_index(db)
    changed = {c for t, c, _ in third.entries if t == "members"}
    assert changed == {"full_name", "city"}
    n_members = sum(1 for t, _, _ in third.entries if t == "members")
    assert third.rehashed == n_members  # only the two changed columns were re-hashed
    assert third.lookup(["Zanele Mokoena"])[0].value == "Zanele Mokoena"


def test_embedding_rerank_changes_order(library_db, tmp_path):
    idx = build_index(library_db, cache_dir=tmp_path)

    def embed(texts):  # a fake embedding that likes 'Literary fiction'
        return np.array([[1.0, 0.0] if t in ("fiction", "Literary fiction") else [0.0, 1.0] for t in texts])

    plain = [m.value for m in idx.lookup(["fiction"])]
    ranked = [m.value for m in idx.lookup(["fiction"], embed=embed)]
    assert "Literary fiction" in plain and ranked[0] == "Literary fiction"


def test_banded_table_agrees_with_datasketch_lsh(demo_dir, tmp_path):
    for db in ("library", "transit", "bakery"):
        idx = build_index(demo_dir / "dev_databases" / db / f"{db}.sqlite", cache_dir=tmp_path)
        ref = reference_lsh(idx)
        for kw in ["Dostoyevski", "Bogota", "fiction", "Nordhaven", "Zurich", "croissants", "Eclair", "Ring", "xq"]:
            keys = ref.query(reference_minhash(kw, idx.num_perm, idx.ngram))
            assert idx.candidates(kw) == sorted({int(idx.owners[k]) for k in keys}), (db, kw)
