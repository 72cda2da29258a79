"""Packaging hook: a wheel carries the repository's sql/ folder as irwarehouse/_sql, where
irwarehouse.sqlfiles.sql_dir() looks first (an editable install reads sql/ in place)."""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildWithSql(build_py):
    def run(self):
        super().run()
        target = Path(self.build_lib) / "irwarehouse" / "_sql"
        if target.exists():
            shutil.rmtree(target)
        # (not the parse cache a checkout keeps: parsecache.py; a wheel's own is written there)
        shutil.copytree(Path(__file__).parent / "sql", target,
                        ignore=shutil.ignore_patterns("__pycache__"))


setup(cmdclass={"build_py": BuildWithSql})
