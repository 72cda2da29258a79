import pytest

from tests.helpers.matrices import realistic_matrix


@pytest.fixture
def matrix_50x12():
    return realistic_matrix(50, 12, seed=7)
