"""The record families `reason view` knows, in page order. A new family: one module with a FAMILY, one line here."""

from toolkit.view.families import failgen, gama, kvcompress, sql, steer, swe

FAMILIES = [failgen.FAMILY, swe.FAMILY, gama.FAMILY, sql.FAMILY, kvcompress.FAMILY, steer.FAMILY]
