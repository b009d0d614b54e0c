"""The backend table (``kernels.data.backends``) agrees with what the backends do."""

from __future__ import annotations

import pytest
import torch

from kernels import engine
from kernels.data.backends import AUTO, CHOICES, GPU, INTERPRETER, NAMES, backend
from kernels.data.errors import BackendUnavailable
from kernels.data.results import RunRequest
from kernels.run.backends import INTERPRETER_NOTE, resolve

NO_CUDA = not torch.cuda.is_available()


def test_a_run_on_each_usable_backend_is_timed_and_placed_as_its_row_says():
    for name in [INTERPRETER] + ([] if NO_CUDA else [GPU]):
        r = engine.run(RunRequest("vector_add", {"N": 1000, "BLOCK_SIZE": 256}, backend=name))
        row = backend(r.backend)
        assert r.backend == name and r.timing is not None
        assert r.timing.is_interpreter == (row.timing != "gpu")
        launch_note = any(INTERPRETER_NOTE in n for n in r.notes)
        assert launch_note == (not row.honours_launch_options)


@pytest.mark.skipif(not NO_CUDA, reason="this machine has a GPU")
def test_auto_without_a_gpu_is_the_interpreter_on_the_rows_device():
    b = resolve(AUTO)
    assert b.name == INTERPRETER and b.device == backend(INTERPRETER).torch_device
    with pytest.raises(BackendUnavailable, match="use --backend interpreter"):
        resolve(GPU)


def test_an_unknown_backend_is_refused_naming_every_choice():
    with pytest.raises(BackendUnavailable) as e:
        resolve("tpu")
    assert all(c in str(e.value) for c in CHOICES)
    with pytest.raises(KeyError, match="known: " + ", ".join(NAMES)):
        backend("tpu")
