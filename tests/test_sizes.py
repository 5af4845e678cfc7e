"""Files stay small (STYLE.md): no Python file of the package is over 400 lines."""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1]
MAX_LINES = 400


def test_no_python_file_is_over_400_lines():
    sizes = {path.relative_to(PACKAGE).as_posix(): len(path.read_text(encoding="utf-8").splitlines())
             for path in sorted(PACKAGE.rglob("*.py")) if path.relative_to(PACKAGE).parts[0] not in (".venv", "build")}
    offenders = [f"{name}: {lines} lines" for name, lines in sizes.items() if lines > MAX_LINES]
    print("\n".join(offenders))
    assert offenders == [], f"split these files (at most {MAX_LINES} lines each): {', '.join(offenders)}"
