from __future__ import annotations

import pytest


@pytest.fixture(scope="session", params=["neox", "llama", "gpt2"])
def any_model(request):
    from tests.steer.models import build

    return build(request.param)


@pytest.fixture(scope="session")
def neox():
    from tests.steer.models import build

    return build("neox")


@pytest.fixture(scope="session")
def neox_dir(tmp_path_factory):
    from tests.steer.models import build

    out = tmp_path_factory.mktemp("tiny-neox")
    build("neox", out)
    return out
