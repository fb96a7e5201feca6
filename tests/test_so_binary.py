"""Binary NHERD, NAROW, SOP and IELLIP against the numpy references of
test_so_reference.py: dense batch, CSR batch and learn_one, full and diagonal."""
import pytest

from test_so_reference import check_binary_paths


@pytest.mark.parametrize("cov", ["full", "diag"])
@pytest.mark.parametrize("name", ["nherd", "narow", "sop", "iellip"])
def test_binary_matches_reference(name, cov):
    check_binary_paths(name, cov)
