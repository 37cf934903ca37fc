"""The parsers run in the CLI on users' machines: Python >= 3.9, standard library only."""

from __future__ import annotations

import ast
import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "cli" / "ctx_cli" / "sessions"
STDLIB_ONLY = set(sys.stdlib_module_names) | {"ctx_cli"}
TYPE_NAMES = {"str", "int", "float", "bytes", "bool", "list", "dict", "tuple", "set", "type"}


def _sources() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_it_needs_python_3_9_at_most_says_vermin() -> None:
    if importlib.util.find_spec("vermin") is None:
        pytest.skip("vermin is not installed; the AST checks below still run")
    # vermin as the venv installs it (a console script next to this interpreter)
    script = Path(sys.executable).with_name("vermin")
    out = subprocess.run(
        [str(script), "--no-tips", "--eval-annotations", "-t=3.9-", "--violations", str(PACKAGE)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    summary = subprocess.run(
        [str(script), "--no-tips", "--eval-annotations", str(PACKAGE)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    line = next(ln for ln in summary.splitlines() if ln.startswith("Minimum required versions"))
    found = line.split(":", 1)[1].strip().split(", ")[-1]
    assert tuple(int(p) for p in found.split(".")) <= (3, 9), line


def _violations(tree: ast.AST) -> list[str]:
    found: list[str] = []
    annotations: set[int] = set()
    for node in ast.walk(tree):
        for child in _annotation_nodes(node):
            annotations.update(id(n) for n in ast.walk(child))
    for node in ast.walk(tree):
        if type(node).__name__ in ("Match", "TryStar"):
            found.append(f"line {node.lineno}: {type(node).__name__}")  # type: ignore[attr-defined]
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            if id(node) not in annotations and _is_type_union(node):
                found.append(f"line {node.lineno}: X | Y outside an annotation")
        elif isinstance(node, ast.Call):
            found += _call_violations(node)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            found += _import_violations(node)
    return found


def _annotation_nodes(node: ast.AST) -> list[ast.expr]:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        args = node.args.args + node.args.kwonlyargs + node.args.posonlyargs
        extra = [a for a in (node.args.vararg, node.args.kwarg) if a is not None]
        return [a.annotation for a in args + extra if a.annotation] + (
            [node.returns] if node.returns else []
        )
    if isinstance(node, ast.AnnAssign):
        return [node.annotation]
    return []


def _is_type_union(node: ast.BinOp) -> bool:
    def typeish(side: ast.AST) -> bool:
        return (
            (isinstance(side, ast.Constant) and side.value is None)
            or (isinstance(side, ast.Name) and (side.id in TYPE_NAMES or _camel(side.id)))
            or isinstance(side, ast.Subscript)
            or (
                isinstance(side, ast.BinOp)
                and isinstance(side.op, ast.BitOr)
                and _is_type_union(side)
            )
        )

    return typeish(node.left) and typeish(node.right)


def _camel(name: str) -> bool:
    """A class-like name (`Path`, `Cursor`), not a constant (`TOP_TYPES`)."""
    return name[:1].isupper() and any(c.islower() for c in name)


def _call_violations(node: ast.Call) -> list[str]:
    name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
    keywords = {k.arg for k in node.keywords if k.arg}
    if name == "zip" and "strict" in keywords:
        return [f"line {node.lineno}: zip(strict=)"]
    if name == "dataclass" and keywords & {"slots", "kw_only", "match_args"}:
        return [f"line {node.lineno}: dataclass({', '.join(sorted(keywords))})"]
    return []


def _import_violations(node: ast.Import | ast.ImportFrom) -> list[str]:
    modules = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
    names = {a.name for a in node.names}
    out = []
    for module in modules:
        top = module.split(".")[0]
        if module and top not in STDLIB_ONLY and node.col_offset == 0:
            out.append(f"line {node.lineno}: imports {module}, not in the standard library")
        if top == "tomllib" or (module == "enum" and "StrEnum" in names):
            out.append(f"line {node.lineno}: {module} needs Python 3.11")
    return out


@pytest.mark.parametrize("path", _sources(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_it_uses_no_construct_newer_than_3_9(path: Path) -> None:
    tree = ast.parse(path.read_text())
    code = [
        n for n in tree.body if not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant))
    ]
    first = code[0] if code else None
    assert first is None or (isinstance(first, ast.ImportFrom) and first.module == "__future__")
    assert _violations(tree) == []


def test_the_ast_check_catches_what_it_looks_for() -> None:
    bad = (
        "import tomllib\nimport httpx\nfrom enum import StrEnum\n"
        "x = int | None\nzip(a, b, strict=True)\n@dataclass(slots=True)\nclass A: pass\n"
        "match x:\n    case 1: pass\n"
        "def f(a: int | None) -> str | None: return isinstance(a, int | str)\n"
    )
    found = _violations(ast.parse(bad))
    assert len(found) == 8, found  # the annotations of f are allowed, its isinstance is not


def _python39() -> str | None:
    candidates = [
        shutil.which("python3.9"),
        os.path.expanduser("~/.pyenv/versions/3.9.18/bin/python"),
    ]
    for candidate in candidates:
        if candidate and os.access(candidate, os.X_OK):
            probe = subprocess.run(
                [candidate, "-c", "import sys; print(sys.version_info[:2])"],
                capture_output=True,
                text=True,
                check=False,
            )
            if probe.returncode == 0 and probe.stdout.strip() == "(3, 9)":
                return candidate
    return None


def test_it_parses_every_fixture_under_a_real_python_3_9(tmp_path: Path) -> None:
    interpreter = _python39()
    if interpreter is None:
        pytest.skip("no Python 3.9 interpreter on this machine")
    script = Path(__file__).with_name("py39_smoke.py")
    out = subprocess.run(
        [interpreter, "-I", str(script), str(ROOT / "cli"), str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("3.9.") and "claude-code=21" in out.stdout, out.stdout
