"""`_core.pyi` must describe the compiled module.

Names, signatures and defaults are checked by `mypy.stubtest` against the built module, a gate of
`make test` (make lint); what stubtest cannot see is checked here: the exceptions' bases, which the
stubs declare and callers rely on (``except ValueError`` catches a ScenarioError).
"""

from __future__ import annotations

from aqmlab import _core


def test_exception_bases_match():
    assert issubclass(_core.ScenarioError, ValueError)
    assert issubclass(_core.SimulationError, RuntimeError)
