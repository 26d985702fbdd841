"""`reason view`: a self-contained static HTML site from any mix of record files.

Records are dispatched on their `type` to one family module each (toolkit/view/families/);
a type no family claims is shown as a readable JSON tree under "other", so nothing is dropped.
"""

from toolkit.view.site import BuildSummary, build_site

__all__ = ["BuildSummary", "build_site"]
