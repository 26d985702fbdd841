"""Typer apps for the `reason` command: option parsing only, the work lives in toolkit/."""
