"""Issue 40 item 4: the outer layers reach at most 3 private members of other objects
(``scripts/private_reach.py``), and the public names that replaced reaches work."""
import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _counter():
    spec = importlib.util.spec_from_file_location("private_reach",
                                                  ROOT / "scripts" / "private_reach.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_at_most_three_private_reaches_each_commented(capsys):
    counter = _counter()
    assert counter.main(["--max", "3"]) == 0
    sites = [(path, site) for area in counter.AREAS.values()
             for path in counter.files_of(area) for site in counter.reaches(path)]
    assert len(sites) <= 3
    assert all(reason for _, (_, _, reason) in sites), sites


def test_the_counter_sees_a_reach_and_not_os_exit(tmp_path):
    counter = _counter()
    f = tmp_path / "m.py"
    f.write_text("import os\n\ndef f(m):\n    m._run()\n    os._exit(0)\n")
    assert [what for _, what, _ in counter.reaches(f)] == ["m._run"]


def test_a_strategy_checks_its_parameters_publicly():
    from olearn import portfolio
    assert portfolio.make("eg").check_params() is not None
    with pytest.raises(ValueError):
        portfolio.make("eg", eta=-1.0).check_params()


def test_a_reader_shows_its_source(tmp_path):
    from olearn.io import LibSVMReader
    f = tmp_path / "d.svm"
    f.write_text("1 1:0.5\n-1 2:1\n")
    source = LibSVMReader(f).source
    assert source.size == f.stat().st_size
