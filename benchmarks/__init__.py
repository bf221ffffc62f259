"""Benchmarks and fault harnesses: programs that print figures (``python -m benchmarks.NAME
--help``), not tests. The tests run short versions of each (``tests/bot/test_bench_load.py``,
``test_bus.py``, ``test_chaos.py``, ``test_connecting.py``, ``test_input_faults.py``,
``test_service_bench.py``, ``tests/web/test_bench_web.py``,
``tests/storage/test_bench_storage.py``).

They drive the bot through the tests' support modules (``tests.fakediscord``,
``tests.botprocess``, ``tests.postgres_server``, ``tests.redis_server``, ``tests.runners``) and
nothing else of ``tests``: no test module or conftest, so that the layers run one way, support
modules, then benchmarks, then the tests that run them.
"""
