"""The committed csp/ files equal what the generators write now (regenerate: scripts/regen_csp.py)."""

from __future__ import annotations

from scripts.regen_csp import CSP, GENRE_DIRS, ROOT, expected_files, stale_files


def test_csp_directory_is_up_to_date() -> None:
    files = expected_files()
    assert len({p.parent.name for p in files}) == len(GENRE_DIRS), "every genre must have instances"
    stale = [str(p.relative_to(ROOT)) for p in stale_files(files)]
    assert not stale, f"stale csp/ files, run scripts/regen_csp.py: {stale}"
    extra = sorted(str(p.relative_to(ROOT)) for p in CSP.rglob("*.csp") if p not in files)
    assert not extra, f"csp/ files without a puzzle in data/: {extra}"
