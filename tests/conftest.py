import gzip
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]
SPECS = sorted((ROOT / "specs").glob("*.fair"))
DATA = ROOT / "data"


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


def sample_csv(name: str, rows: int, path: Path, seed: int = 0) -> Path:
    """A stratified-ish random sample of a bundled data set, written as CSV."""
    frame = pd.read_csv(DATA / f"{name}.csv.gz")
    frame = frame.sample(n=min(rows, len(frame)), random_state=seed)
    frame.to_csv(path, index=False)
    return path


@pytest.fixture
def ctrl_c_raises():
    """Python's own SIGINT handler for the test: a shell that starts pytest in the background
    (``cmd &``, as some CI runners do) makes it ignore SIGINT, and a test of what a Ctrl-C does
    would then see nothing happen."""
    import signal

    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)
