"""Package layout for setuptools (the metadata is in pyproject.toml).

The repository keeps `encoders/` and `generators/` at the top level, one folder per pipeline
concern; installed, they become `csp2sat.encoders` and `csp2sat.generators`, so csp2sat claims
no generic top-level import name. Every root is searched with `find_packages`, so a new
subpackage can never be left out of the wheel.
"""
from setuptools import find_packages, setup

ROOTS = {"csp2sat": "csp2sat", "csp2sat.encoders": "encoders", "csp2sat.generators": "generators"}

packages = []
for name, folder in ROOTS.items():
    packages += [name] + [f"{name}.{sub}" for sub in find_packages(folder)]

setup(packages=packages, package_dir=ROOTS)
