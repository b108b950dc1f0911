"""project.py: where the project's folders are, from PARBENCH_ROOT or the checkout, and where
generated inputs are cached."""
import importlib.util
from pathlib import Path

from parbench import project

CHECKOUT = Path(project.__file__).resolve().parents[2]


def fresh_project(monkeypatch, root: str | None):
    """project.py read anew (its ROOT is fixed when it is imported) under this environment."""
    if root is None:
        monkeypatch.delenv("PARBENCH_ROOT", raising=False)
    else:
        monkeypatch.setenv("PARBENCH_ROOT", root)
    spec = importlib.util.spec_from_file_location("project_under_test", project.__file__)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_without_parbench_root_the_root_is_the_checkout_holding_the_package(monkeypatch):
    module = fresh_project(monkeypatch, None)
    assert module.ROOT == CHECKOUT and (module.ROOT / "src" / "parbench" / "project.py").is_file()


def test_parbench_root_moves_every_folder_and_the_default_store(monkeypatch, tmp_path):
    module = fresh_project(monkeypatch, str(tmp_path))
    assert module.ROOT == tmp_path
    assert (module.WORKLOADS_DIR, module.IMPLS_DIR, module.RESULTS_DIR) == (
        tmp_path / "workloads", tmp_path / "impls", tmp_path / "results")
    assert module.DEFAULT_DB == tmp_path / "results" / "parbench.sqlite"


def test_the_input_cache_is_parbench_cache_when_set(monkeypatch, tmp_path):
    monkeypatch.setenv("PARBENCH_CACHE", str(tmp_path / "inputs"))
    assert project.cache_root() == tmp_path / "inputs"


def test_the_input_cache_stays_in_the_checkout_whatever_parbench_root_says(monkeypatch, tmp_path):
    monkeypatch.delenv("PARBENCH_CACHE", raising=False)
    module = fresh_project(monkeypatch, str(tmp_path))
    assert module.cache_root() == CHECKOUT / ".cache" / "inputs"


def test_an_empty_parbench_cache_counts_as_unset(monkeypatch):
    monkeypatch.setenv("PARBENCH_CACHE", "")
    assert project.cache_root() == CHECKOUT / ".cache" / "inputs"
