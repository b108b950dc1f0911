"""The portable class is one algorithm written plainly (docs/protocol.md, "Kernel classes"): every
runtime's portable kernel, as docs/protocol.md's table lists it, is read and held against the
reference procedure's shape — the spec's tables present and looped over, no hand-derived
constant, no SIMD, WASM or assembly — and no portable build asks for this machine's vector
extensions. The checker's own tests show it failing on each forbidden form."""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PROTOCOL = REPO / "docs" / "protocol.md"
TABLE_HEADING = "### Portable kernels, runtime by runtime"

# The spec's S-DES tables (docs/workloads/sdes-ecb.md): each must appear in the kernel, in order.
SDES_TABLES = {
    "P10": [3, 5, 2, 7, 4, 10, 1, 9, 8, 6], "P8": [6, 3, 7, 4, 8, 5, 10, 9],
    "IP": [2, 6, 3, 1, 4, 8, 5, 7], "IP_INV": [4, 1, 3, 5, 7, 2, 8, 6],
    "EP": [4, 1, 2, 3, 2, 3, 4, 1], "P4": [2, 4, 3, 1],
    "S0": [1, 0, 3, 2, 3, 2, 1, 0, 0, 2, 1, 3, 3, 1, 3, 2],
    "S1": [0, 1, 2, 3, 2, 0, 1, 3, 3, 0, 1, 0, 2, 1, 0, 3],
}
# The only numbers the reference procedure writes: positions and widths (≤ 10), the masks of a
# bit (1), two bits (0b11), a nibble (0xf), five bits (0b11111) and a byte (0xff), 16 and 256
# (an S-box as one array, a table's size). Anything else is a constant someone derived by hand.
SDES_NUMBERS = set(range(11)) | {15, 16, 31, 255, 256}
# Constructs no portable kernel of any workload may use: intrinsics, SIMD APIs, assembly, WASM.
FORBIDDEN = [r"\b_mm\d*_", r"__m(128|256|512)", r"std::arch", r"std::simd", r"core::arch", r"jdk\.incubator",
             r"VectorSpecies", r"WebAssembly", r"\bwasm", r"\basm\b", r"#pragma\s+(omp\s+)?simd", r"#pragma\s+unroll",
             r"\bTEXT\s+·", r"__builtin_ia32", r"target_feature"]
NUMBER = re.compile(r"(?<![\w.])(0[xX][0-9a-fA-F_]+|0[bB][01_]+|\d[\d_]*)(?![\w.])")


@dataclass(frozen=True)
class Kernel:
    runtime: str
    workload: str
    path: Path
    function: str
    first: int
    last: int

    def text(self) -> str:
        lines = self.path.read_text().splitlines()
        return "\n".join(lines[self.first - 1:self.last])


def listed_kernels() -> list[Kernel]:
    """docs/protocol.md's table: | runtime | workload | file | function | lines | deviations |."""
    text = PROTOCOL.read_text()
    assert TABLE_HEADING in text, f"docs/protocol.md lacks its table '{TABLE_HEADING}'"
    section = text.split(TABLE_HEADING, 1)[1].split("\n#", 1)[0]
    kernels = []
    for line in section.splitlines():
        cells = [c.strip().strip("`") for c in line.strip().strip("|").split("|")]
        if len(cells) < 5 or not re.fullmatch(r"\d+[–-]\d+", cells[4]):
            continue
        first, last = map(int, re.split(r"[–-]", cells[4]))
        kernels.append(Kernel(cells[0], cells[1], REPO / cells[2], cells[3], first, last))
    return kernels


def without_comments(text: str) -> str:
    """The code alone: line comments (//, #, %, --) and block comments dropped, strings kept."""
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r'"""[\s\S]*?"""', "", text)
    return "\n".join(re.split(r"(?<![:\"'])(//|#(?![\[{!])|(?<!\w)%(?!\w))", line)[0] for line in text.splitlines())


def numbers_in(code: str) -> list[int]:
    return [int(n.replace("_", ""), 0) if not re.fullmatch(r"0\d+", n) else int(n)
            for n in NUMBER.findall(code)]


def sdes_problems(text: str) -> list[str]:
    """Why an S-DES kernel is not the reference procedure's shape, or []."""
    code = without_comments(text)
    problems = []
    found = numbers_in(code)
    for name, values in SDES_TABLES.items():
        if not any(found[i:i + len(values)] == values for i in range(len(found))):
            problems.append(f"the spec's table {name} {values} is missing: the reference loops over it")
    derived = sorted({n for n in found if n not in SDES_NUMBERS})
    if derived:
        problems.append(f"hand-derived constants {', '.join(hex(n) for n in derived[:6])}: packed S-boxes or "
                        "permutation masks belong to the tuned class")
    return problems


def forbidden_in(text: str) -> list[str]:
    code = without_comments(text)
    return [f"uses {pattern!r}" for pattern in FORBIDDEN if re.search(pattern, code)]


def _kernel_ids(kernels: list[Kernel]) -> list[str]:
    return [f"{k.runtime}-{k.workload}-{k.function}" for k in kernels]


KERNELS = listed_kernels()


def test_every_compiled_and_jit_runtime_lists_its_portable_sdes_kernel():
    listed = {k.runtime for k in KERNELS if k.workload == "sdes-ecb"}
    assert {"rust", "cpp", "go", "java", "node", "python", "ruby", "elixir"} <= listed


@pytest.mark.parametrize("kernel", KERNELS, ids=_kernel_ids(KERNELS))
def test_the_listed_lines_hold_the_listed_function(kernel):
    """The first name the row gives starts its lines; every other name it gives is among them."""
    assert kernel.path.exists(), f"{kernel.path} does not exist"
    names = [n.split(".")[-1] for n in re.findall(r"[A-Za-z_][\w.:]*", re.sub(r"\(.*?\)", "", kernel.function))]
    text = kernel.text()
    where = f"{kernel.path.relative_to(REPO)}:{kernel.first}–{kernel.last}"
    assert names and names[0] in "\n".join(text.splitlines()[:3]), f"{where} does not start {names[0]}: update docs/protocol.md"
    assert [n for n in names if n not in text] == [], f"{where} lacks a function the row names: update docs/protocol.md"


@pytest.mark.parametrize("kernel", KERNELS, ids=_kernel_ids(KERNELS))
def test_a_portable_kernel_uses_no_simd_wasm_or_assembly(kernel):
    assert forbidden_in(kernel.text()) == []


SDES = [k for k in KERNELS if k.workload == "sdes-ecb"]


@pytest.mark.parametrize("runtime", sorted({k.runtime for k in SDES}))
def test_a_portable_sdes_kernel_is_the_reference_procedure(runtime):
    text = "\n".join(k.text() for k in SDES if k.runtime == runtime)
    assert sdes_problems(text) == []


# --- the checker fails on what it must catch ---------------------------------------------------
REFERENCE_LIKE = """
const P10 = [3, 5, 2, 7, 4, 10, 1, 9, 8, 6]; const P8 = [6, 3, 7, 4, 8, 5, 10, 9];
const IP = [2, 6, 3, 1, 4, 8, 5, 7]; const IP_INV = [4, 1, 3, 5, 7, 2, 8, 6];
const EP = [4, 1, 2, 3, 2, 3, 4, 1]; const P4 = [2, 4, 3, 1];
const S0 = [[1, 0, 3, 2], [3, 2, 1, 0], [0, 2, 1, 3], [3, 1, 3, 2]];
const S1 = [[0, 1, 2, 3], [2, 0, 1, 3], [3, 0, 1, 0], [2, 1, 0, 3]];
fn permute(v, w, t) { t.iter().fold(0, |o, &p| (o << 1) | ((v >> (w - p)) & 1)) }
fn rotate5(h, by) { ((h << by) | (h >> (5 - by))) & 0b11111 }
"""


def test_the_checker_passes_the_reference_shape():
    assert sdes_problems(REFERENCE_LIKE) == [] and forbidden_in(REFERENCE_LIKE) == []


def test_the_checker_fails_on_a_packed_sbox_constant():
    packed = REFERENCE_LIKE + "const S0_PACKED: u32 = 0x1e4d78b2; // row by row"
    assert any("hand-derived constants 0x1e4d78b2" in p for p in sdes_problems(packed))


def test_the_checker_fails_on_a_hand_written_permutation_mask():
    masked = REFERENCE_LIKE + "fn ip(b) { ((b & 0x40) << 1) | ((b & 0x04) << 4) }"
    assert any("0x40" in p for p in sdes_problems(masked))


def test_the_checker_fails_on_a_missing_spec_table():
    assert any("table P4" in p for p in sdes_problems(REFERENCE_LIKE.replace("[2, 4, 3, 1]", "[]")))


def test_the_checker_fails_on_simd_and_wasm():
    assert forbidden_in("let x = _mm256_shuffle_epi8(a, b);") and forbidden_in("new WebAssembly.Module(bytes)")
    assert forbidden_in("use std::arch::x86_64::*;") and forbidden_in("import jdk.incubator.vector.ByteVector;")


def test_a_comment_may_name_what_the_code_must_not_use():
    assert forbidden_in("// no _mm_ intrinsics here, no WebAssembly either\nlet x = 1;") == []


# --- the builds -----------------------------------------------------------------------------------
def test_no_portable_build_asks_for_this_machines_vector_extensions():
    """C++, Rust, Go, Java and Node build and run their portable kernels with the compiler's defaults
    (C++'s tuned kernels name their instructions in target attributes, chosen when they run)."""
    cmake = (REPO / "impls" / "cpp" / "CMakeLists.txt").read_text()
    for line in cmake.splitlines():
        assert "-march" not in line or line.lstrip().startswith("#"), f"CMakeLists.txt gives -march to every file: {line}"
    for path in ["impls/go/build", "impls/go/run", "impls/rust/Cargo.toml", "impls/rust/build", "impls/rust/run",
                 "impls/java/build", "impls/java/run", "impls/node/run"]:
        text = without_comments((REPO / path).read_text())
        for flag in ("GOAMD64", "target-cpu", "-march", "--enable-preview"):
            assert flag not in text, f"{path} sets {flag} for every kernel, the portable ones included"
    config = REPO / "impls" / "rust" / ".cargo" / "config.toml"
    assert not config.exists() or "target-cpu" not in config.read_text()
