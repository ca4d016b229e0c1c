"""Run the Python benchmark: ``python crates/wegman-py/bench.py`` (the same as
``python -m wegman.bench``; see python/wegman/bench.py)."""

from wegman.bench import main

if __name__ == "__main__":
    main()
