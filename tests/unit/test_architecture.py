"""The harness's shape (docs/architecture.md): each package of src/parbench declares its layer, no
module imports a later layer or sits in a circle, analysis/ stands alone, few modules sit loose
at the root, and every module with logic has its unit test file beside its package's others."""
import ast

from conftest import REPO

PACKAGE = REPO / "src" / "parbench"

# The harness's layers are read from its folders: every package's __init__.py says `LAYER = N`
# (a module at the package's root that says none is a foundation, layer 0), so the list cannot
# drift from the tree. At module level a module imports its own layer and those below it only.
MAX_LOOSE_MODULES = 8        # modules at the root beside the stage packages (issue 40)


def _declared_layer(path) -> int | None:
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign) and [ast.unparse(t) for t in node.targets] == ["LAYER"]:
            return ast.literal_eval(node.value)
    return None


def _layers() -> dict[str, int]:
    """{package or root module: its layer}, from the code itself."""
    layers = {}
    for path in sorted(PACKAGE.iterdir()):
        if path.is_dir() and (path / "__init__.py").exists():
            declared = _declared_layer(path / "__init__.py")
            assert declared is not None, f"src/parbench/{path.name}/__init__.py declares no LAYER"
            layers[path.name] = declared
        elif path.suffix == ".py":
            layers["__init__" if path.stem == "__init__" else path.stem] = _declared_layer(path) or 0
    return layers


def _module_names() -> list[str]:
    names = []
    for path in PACKAGE.rglob("*.py"):
        name = ".".join(path.relative_to(PACKAGE).with_suffix("").parts)
        names.append(name.removesuffix(".__init__") if name != "__init__" else name)
    return sorted(names)


def _layer(module: str, layers: dict[str, int] | None = None) -> int:
    """The layer of the module's top-level package (or of the root module itself)."""
    layers = layers if layers is not None else _layers()
    top = module.split(".")[0]
    if top not in layers:
        raise AssertionError(f"{module} is in no package or root module of src/parbench")
    return layers[top]


def _resolve(base: str, name: str) -> str:
    """`from parbench.BASE import NAME`: the module NAME if it is one, else BASE (or the package)."""
    folder = PACKAGE.joinpath(*base.split(".")) if base else PACKAGE
    if (folder / f"{name}.py").exists() or (folder / name).is_dir():
        return f"{base}.{name}" if base else name
    return base or "__init__"


def _imported(node: ast.AST) -> set[str]:
    if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("parbench"):
        base = node.module.removeprefix("parbench").lstrip(".")
        return {_resolve(base, a.name) for a in node.names}
    if isinstance(node, ast.Import):
        return {a.name.removeprefix("parbench.") for a in node.names if a.name.startswith("parbench.")}
    return set()


def _imports(module_level: bool) -> dict[str, set[str]]:
    """Every parbench module → the parbench modules it imports: at module level only, or also
    inside functions. Imports under `if TYPE_CHECKING:` are for the type checker and never run."""
    graph = {}
    for path in PACKAGE.rglob("*.py"):
        name = ".".join(path.relative_to(PACKAGE).with_suffix("").parts)
        name = name.removesuffix(".__init__") if name != "__init__" else name
        found: set[str] = set()

        def visit(node: ast.AST) -> None:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                    continue
                if module_level and isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    continue
                found.update(_imported(child))
                visit(child)
        visit(ast.parse(path.read_text()))
        graph[name] = {m for m in found if m and m != name}
    return graph


def test_every_module_has_a_layer_and_few_sit_loose_at_the_root():
    layers = _layers()
    for module in _module_names():
        _layer(module, layers)
    loose = [name for name in layers if not (PACKAGE / name).is_dir() and name != "__init__"]
    assert len(loose) <= MAX_LOOSE_MODULES, f"{len(loose)} modules sit loose at the root: {sorted(loose)}"


def test_no_module_imports_a_later_layer_at_module_level():
    layers = _layers()
    upward = [f"{module} → {imported}" for module, imports in _imports(module_level=True).items()
              for imported in imports if _layer(imported, layers) > _layer(module, layers)]
    assert upward == []


def test_the_analysis_imports_nothing_of_the_harness_but_the_records():
    """analysis/ is the statistics and the laws (criterion's stats/): plain data in, plain data out."""
    outside = {f"{module} → {imported}" for module, imports in _imports(module_level=False).items()
               if module.startswith("analysis") for imported in imports
               if not imported.startswith("analysis") and imported != "records"}
    assert outside == set()


def _circle(graph: dict[str, set[str]]) -> list[str] | None:
    """A path that comes back to where it started, between modules (a package is its __init__)."""
    state: dict[str, int] = {}

    def visit(module: str, path: list[str]) -> list[str] | None:
        state[module] = 1
        for target in sorted(graph.get(module, ())):
            if target not in graph:
                continue
            if state.get(target) == 1:
                return path + [module, target]
            if target not in state and (found := visit(target, path + [module])):
                return found
        state[module] = 2
        return None
    for module in sorted(graph):
        if module not in state and (found := visit(module, [])):
            return found
    return None


def test_the_module_level_import_graph_has_no_circle():
    assert _circle(_imports(module_level=True)) is None


def test_an_import_inside_a_function_is_one_that_breaks_a_circle_and_says_so():
    """A function-level import costs a reader the module's dependencies at a glance: each one left
    carries a comment (on its line or just above) saying which circle or cost it avoids."""
    unexplained = []
    for path in PACKAGE.rglob("*.py"):
        lines = path.read_text().splitlines()
        for node in ast.walk(ast.parse("\n".join(lines))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for child in ast.walk(node):
                    if _imported(child):
                        here = lines[child.lineno - 1]
                        above = lines[child.lineno - 2] if child.lineno > 1 else ""
                        if "#" not in here and not above.strip().startswith("#"):
                            unexplained.append(f"{path.relative_to(PACKAGE)}:{child.lineno}")
    assert unexplained == [], "function-level imports without a why: " + ", ".join(sorted(set(unexplained)))


def test_the_checks_see_an_upward_import_and_a_circle():
    """The checks above can fail: a graph with an upward edge and a circle is caught."""
    assert _layer("cli.commands") > _layer("records") and _layer("measure.runner") > _layer("workloads")
    assert _circle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _circle({"a": {"b"}, "b": set()}) is None


def _has_logic(path) -> bool:
    """A module that defines a function or a method (a face, a table of constants or a Protocol
    of bare signatures holds none)."""
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            body = [n for n in node.body if not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant))]
            if body and not all(isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant) for n in body):
                return True
    return False


def _unit_test_of(path):
    """tests/unit/<package path>/test_<module>.py (a package's __init__.py: test_<package>.py in
    the folder of the package that holds it)."""
    relative = path.relative_to(PACKAGE)
    if relative.name == "__init__.py":
        return REPO / "tests" / "unit" / relative.parent.parent / f"test_{relative.parent.name}.py"
    return REPO / "tests" / "unit" / relative.parent / f"test_{relative.stem}.py"


def test_every_module_with_logic_has_its_unit_test_file():
    missing = sorted(str(_unit_test_of(path).relative_to(REPO)) for path in PACKAGE.rglob("*.py")
                     if path.name != "__main__.py" and _has_logic(path) and not _unit_test_of(path).exists())
    assert missing == [], f"{len(missing)} modules with logic have no unit test file: " + ", ".join(missing)
