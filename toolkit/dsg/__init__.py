"""Deep Schema Grounding: concept schemas (a DAG of questions) grounded level by level by any VLM, the
abstract answer composed from the grounded values; synthetic scenes with exact gold, and scoring.

Public API (imported from the modules, which need the `dsg` extra; `ml` for a local VLM):
  toolkit.dsg.data.generate_split(...)          scenes and items of a split with their gold
  toolkit.dsg.schema.load_schemas(folder)       the concept schemas, validated, in grounding order
  toolkit.dsg.run.run_dsg(...), run_baseline(...) answers of one mode for a list of items
  toolkit.dsg.evaluate.evaluate(pred, gold)     accuracy per concept and question type with CIs
"""
