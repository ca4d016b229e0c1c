"""Every public function and class has a docstring with an example, and
every example runs."""

import doctest
import inspect
from typing import Any, Iterator, Tuple

import wegman
from wegman import cwc, mmh, poly1305aes

MODULES = [wegman, poly1305aes, mmh, cwc]
try:  # with the `dask` extra only: wegman.distributed imports without it, its examples need it
    import distributed  # noqa: F401

    import wegman.distributed

    MODULES.append(wegman.distributed)
except ImportError:
    pass


def public() -> Iterator[Tuple[str, Any]]:
    for mod in MODULES:
        for name in mod.__all__:
            obj = getattr(mod, name)
            if callable(obj):
                yield f"{mod.__name__}.{name}", obj
                if inspect.isclass(obj) and not issubclass(obj, BaseException):
                    for meth in vars(obj):
                        fn = getattr(obj, meth)
                        if not meth.startswith("_") and callable(fn):
                            yield f"{mod.__name__}.{name}.{meth}", fn


def test_every_public_callable_has_an_example() -> None:
    missing = [name for name, obj in public() if ">>>" not in (obj.__doc__ or "")]
    assert not missing, missing


def test_examples_run() -> None:
    finder, runner = doctest.DocTestFinder(exclude_empty=True), doctest.DocTestRunner()
    tests = 0
    for mod in MODULES:
        for t in finder.find(mod, mod.__name__):
            runner.run(t)
            tests += len(t.examples)
    for name, obj in public():
        for t in finder.find(obj, name, globs={}):
            runner.run(t)
            tests += len(t.examples)
    assert runner.failures == 0
    assert tests > 50


def test_the_package_readme_example_runs() -> None:
    """The README an index shows (crates/wegman-py/README.md): its Python block runs."""
    import pathlib
    import re

    readme = pathlib.Path(__file__).resolve().parent.parent / "README.md"
    blocks = re.findall(r"```python\n(.*?)```", readme.read_text(encoding="utf-8"), re.S)
    assert blocks
    for block in blocks:
        exec(compile(block, str(readme), "exec"), {})
