"""bench/scale.py's pure parts: the tenant split, the copies' texts and perturbed vectors."""

from __future__ import annotations

import numpy as np
import pytest

from bench.scale import batches, copy_text, copy_title, perturb, tenant_split, unit_mean


def test_it_splits_blocks_evenly_across_tenants() -> None:
    assert tenant_split(10, 3) == [4, 3, 3]
    assert tenant_split(1_000_000, 1000) == [1000] * 1000
    assert tenant_split(7, 1) == [7]
    assert sum(tenant_split(999_999, 1000)) == 999_999


def test_it_refuses_a_split_without_tenants() -> None:
    with pytest.raises(ValueError):
        tenant_split(10, 0)


def test_it_batches_a_tenants_range_without_gaps() -> None:
    assert [list(r) for r in batches(5, 7, 3)] == [[5, 6, 7], [8, 9, 10], [11]]


def test_it_keeps_copy_zero_and_makes_every_copy_distinct() -> None:
    text = "I planted tomatoes on the balcony last weekend."
    assert copy_text(text, 0) == text
    texts = {copy_text(text, k) for k in range(50)}
    titles = {copy_title(text, k, serial) for serial, k in enumerate(range(50))}
    assert len(texts) == 50
    assert len(titles) == 50
    assert copy_title(text, 3, 7).startswith(text[:60])


def test_it_perturbs_to_unit_vectors_near_the_base() -> None:
    rng = np.random.default_rng(0)
    base = rng.normal(size=(5, 384))
    base /= np.linalg.norm(base, axis=1, keepdims=True)
    copy = perturb(base, rng)
    np.testing.assert_allclose(np.linalg.norm(copy, axis=1), 1.0, rtol=1e-9)
    cosines = (base * copy).sum(axis=1)
    assert np.all(cosines > 0.9)
    assert np.all(cosines < 0.999)  # a copy is not its base
    assert not np.allclose(perturb(base, rng), copy)  # two copies differ


def test_it_takes_the_normalised_mean_of_a_blocks_windows() -> None:
    windows = np.array([[1.0, 0.0], [0.0, 1.0]])
    np.testing.assert_allclose(unit_mean(windows), [2**-0.5, 2**-0.5])
    np.testing.assert_allclose(unit_mean(windows[:1]), [1.0, 0.0])
