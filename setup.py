"""Packaging beyond pyproject.toml: the assets/ tree ships inside the wheel as the `reason_assets` package.

assets/ stays where it is in the checkout; toolkit.core.assets finds it there or, installed, as this package.
"""

from setuptools import find_packages, setup

setup(
    packages=find_packages(include=["cli", "cli.*", "toolkit", "toolkit.*"]) + ["reason_assets"],
    package_dir={"reason_assets": "assets"},
    package_data={"reason_assets": ["**/*", "**/.gitignore"]},
    exclude_package_data={"reason_assets": ["**/*.chase-index/*", "**/__pycache__/*"]},
)
