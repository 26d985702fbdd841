"""reason: implementations of a family of ICLR 2025 reasoning systems."""

__version__ = "0.1.0"
