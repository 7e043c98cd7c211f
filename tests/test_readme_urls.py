"""The README's table of puzz.link URLs: one row per genre that has a URL form, every URL type name
of the genre listed (and usable as the genre's name on the command line), and each row's example
URL solved by `csp2sat puzzle` with a unique solution."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cli_support import run_cli
from csp2sat.generators import puzzlink
from csp2sat.generators.base import genre, genre_names

README = Path(__file__).resolve().parent.parent / "README.md"


def url_rows() -> dict[str, tuple[list[str], str]]:
    """genre -> (URL type names, example URL) from the README's table."""
    rows = {}
    for line in README.read_text(encoding="utf-8").splitlines():
        match = re.fullmatch(r"\| (\w+) \| (`[^|]+`) \| `(https://puzz\.link/p\?[^`]+)` \|", line)
        if match:
            rows[match.group(1)] = (re.findall(r"`([^`]+)`", match.group(2)), match.group(3))
    return rows


ROWS = url_rows()


def test_every_genre_with_urls_has_a_row_with_all_its_type_names():
    with_urls = [name for name in genre_names() if name in puzzlink.FORMATS]
    assert sorted(ROWS) == sorted(with_urls)
    for name, (pids, _url) in ROWS.items():
        assert tuple(pids) == puzzlink.FORMATS[name].pids, name


@pytest.mark.parametrize("name", sorted(puzzlink.FORMATS))
def test_every_url_type_name_is_a_genre_name(name):
    for pid in puzzlink.FORMATS[name].pids:
        assert genre(pid).name == name


@pytest.mark.parametrize("name", sorted(ROWS))
def test_readme_example_url_solves_uniquely(capsys, name):
    pids, url = ROWS[name]
    assert url.startswith(f"https://puzz.link/p?{pids[0]}/")
    assert puzzlink.to_url(puzzlink.url_to_text(url), name) == url  # canonical
    for as_named in (name, pids[0]):
        status, out, err = run_cli(capsys, "puzzle", as_named, url, "--unique")
        assert status == 0 and out.strip(), err
        assert "the solution is unique" in err
