"""The GUI-safe data of the engine: parameters, requests and results, errors, the trace model and
its queries. Imports numpy and the standard library only — never torch, triton or Qt — so the GUI
process, the views and the worker protocol share these types without loading the engine
(checked by ``tests/test_layers.py`` and the import-linter contracts in ``pyproject.toml``)."""
