from toolkit.chase_sql.evaluation import bird_ex
from toolkit.chase_sql.executor import execute_sql
from toolkit.chase_sql.generators import GenConfig
from toolkit.chase_sql.pipeline import PipelineConfig, Resources, answer, tables_of, transpile
from toolkit.chase_sql.selection import LLMSelector
from toolkit.core.llm import from_uri


def run_one(demo_dir, tmp_path, qid, seed=0, **cfg):
    import json

    item = json.loads((demo_dir / "dev.json").read_text())[qid]
    db = demo_dir / "dev_databases" / item["db_id"] / f"{item['db_id']}.sqlite"
    llm = from_uri("py:toolkit.chase_sql.standin:complete")
    res = Resources(PipelineConfig(gen=GenConfig(per_generator=3), cache_dir=tmp_path, **cfg))
    rec = answer(llm, LLMSelector(llm), res, db_path=db, question=item["question"], evidence=item["evidence"],
                 seed=seed, qid=str(qid), db_id=item["db_id"], difficulty=item["difficulty"])
    return rec, item, db, llm


def test_answer_end_to_end_with_standin(demo_dir, tmp_path):
    rec, item, db, llm = run_one(demo_dir, tmp_path, 2, dialect="postgres")  # misspelled "Dostoyevski"
    assert rec["type"] == "sql.prediction" and len(rec["candidates"]) == 9
    assert any(v["value"] == "Fyodor Dostoevsky" for v in rec["values"])
    assert bird_ex(execute_sql(db, rec["sql"]), execute_sql(db, item["SQL"]))
    assert rec["sql_dialect"] and rec["dialect"] == "postgres"
    again, *_ = run_one(demo_dir, tmp_path, 2, dialect="postgres")
    assert again == rec  # same inputs and seed, same record


def test_without_values_misspelled_literal_fails(demo_dir, tmp_path):
    rec, item, db, _ = run_one(demo_dir, tmp_path, 2, use_values=False, fix_attempts=0)
    assert rec["values"] == [] and rec["keywords"] == []
    gold = execute_sql(db, item["SQL"])
    assert not any(bird_ex(execute_sql(db, c["sql"]), gold) for c in rec["candidates"])
    sc, *_ = run_one(demo_dir, tmp_path, 2, selection="self-consistency")
    assert sc["comparisons"] == 0 and sc["chosen"] == sc["self_consistency"]


def test_helpers():
    assert tables_of("SELECT a FROM t1 JOIN T2 ON t1.x = T2.x WHERE y IN (SELECT z FROM t3)") == {"t1", "t2", "t3"}
    assert tables_of("not sql at all (") == set()
    assert transpile("SELECT SUBSTR(name, 1, 2) FROM t LIMIT 1", "tsql").startswith("SELECT TOP 1")
